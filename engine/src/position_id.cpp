#include "bg/engine/position_id.hpp"

#include <array>
#include <cstdint>

namespace bg::engine {

namespace {
constexpr std::string_view base64_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_value(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}
}  // namespace

std::string position_id(const position& p) {
  std::array<std::uint8_t, 10> key{};
  int bit = 0;
  auto emit_side = [&](auto count_at) {
    for (int i = 1; i <= bar_index; ++i) {
      for (int c = count_at(i); c > 0; --c) {
        key[static_cast<std::size_t>(bit >> 3)] |= static_cast<std::uint8_t>(1u << (bit & 7));
        ++bit;
      }
      ++bit;  // the separating 0
    }
  };
  emit_side([&](int i) { return p.opponent(i); });
  emit_side([&](int i) { return p.mover(i); });
  // 80 bits -> 14 characters of 6 bits (the last holds 2 bits), no padding.
  std::string id;
  id.reserve(14);
  for (int i = 0; i < 14; ++i) {
    int v = 0;
    for (int j = 0; j < 6; ++j) {
      // Base64 takes bytes big-endian within each byte group.
      const int n = i * 6 + j;  // bit index in the big-endian byte stream
      if (n >= 80) break;
      const int byte = n / 8;
      const int within = 7 - (n % 8);
      v = (v << 1) | ((key[static_cast<std::size_t>(byte)] >> within) & 1);
      if (j == 5) break;
    }
    if (i == 13) v <<= 4;  // last character: 2 bits of data, then zeros
    id.push_back(base64_alphabet[static_cast<std::size_t>(v)]);
  }
  return id;
}

result<position> position_from_id(std::string_view id, variant v) {
  auto bad = [](std::string why, std::string key) {
    return make_error("bad_position_id", std::move(why), std::move(key));
  };
  if (id.size() != 14) return bad("a Position ID has 14 characters", "engine.position_id_length");
  std::array<std::uint8_t, 10> key{};
  for (std::size_t i = 0; i < 14; ++i) {
    const int val = base64_value(id[i]);
    if (val < 0)
      return bad("a Position ID uses only Base64 characters", "engine.position_id_characters");
    for (int j = 0; j < 6; ++j) {
      const int n = static_cast<int>(i) * 6 + j;
      const int b = (val >> (5 - j)) & 1;
      if (n >= 80) {
        if (b)
          return bad("the Position ID has stray bits at its end", "engine.position_id_stray_bits");
        continue;
      }
      if (b) key[static_cast<std::size_t>(n / 8)] |= static_cast<std::uint8_t>(1u << (7 - n % 8));
    }
  }
  side_checkers sides[2]{};
  int bit = 0;
  for (auto& s : sides) {
    int index = 1;
    int total = 0;
    while (index <= bar_index) {
      if (bit >= 80) return bad("the Position ID ends too early", "engine.position_id_too_short");
      const bool one = (key[static_cast<std::size_t>(bit >> 3)] >> (bit & 7)) & 1;
      ++bit;
      if (one) {
        if (++total > checkers_per_side)
          return bad("a side has more than 15 checkers", "engine.position_id_too_many_checkers");
        ++s[static_cast<std::size_t>(index)];
      } else {
        ++index;
      }
    }
  }
  for (; bit < 80; ++bit)
    if ((key[static_cast<std::size_t>(bit >> 3)] >> (bit & 7)) & 1)
      return bad("the Position ID has stray bits at its end", "engine.position_id_stray_bits");
  auto p = position::from_sides(sides[1], sides[0], v);
  if (!p)
    return bad("the Position ID puts both sides on one point", "engine.position_id_shared_point");
  return *p;
}

}  // namespace bg::engine
