#include "bg/engine/match_id.hpp"

#include <cstdint>

namespace bg::engine {

namespace {
constexpr std::string_view alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int value_of(char c) noexcept {
  const auto pos = alphabet.find(c);
  return pos == std::string_view::npos ? -1 : static_cast<int>(pos);
}

struct bit_writer {
  std::array<std::uint8_t, 9> key{};
  int bit = 0;
  void put(unsigned value, int width) {
    for (int j = 0; j < width; ++j, ++bit)
      if ((value >> j) & 1u)
        key[static_cast<std::size_t>(bit >> 3)] |= static_cast<std::uint8_t>(1u << (bit & 7));
  }
};

struct bit_reader {
  const std::array<std::uint8_t, 9>& key;
  int bit = 0;
  unsigned get(int width) {
    unsigned v = 0;
    for (int j = 0; j < width; ++j, ++bit)
      v |= static_cast<unsigned>((key[static_cast<std::size_t>(bit >> 3)] >> (bit & 7)) & 1) << j;
    return v;
  }
};

unsigned log2_of(int cube) {
  unsigned n = 0;
  while (cube > 1) {
    cube >>= 1;
    ++n;
  }
  return n;
}

unsigned clamp_to(int v, int width) {
  const int max = (1 << width) - 1;
  return static_cast<unsigned>(v < 0 ? 0 : (v > max ? max : v));
}
}  // namespace

std::string match_id(const match_id_fields& f) {
  bit_writer w;
  w.put(log2_of(f.cube), 4);
  w.put(f.cube_owner < 0 ? 3u : clamp_to(f.cube_owner, 1), 2);
  w.put(clamp_to(f.player_on_roll, 1), 1);
  w.put(f.crawford ? 1u : 0u, 1);
  w.put(clamp_to(f.game_state, 3), 3);
  w.put(clamp_to(f.turn, 1), 1);
  w.put(f.double_offered ? 1u : 0u, 1);
  w.put(clamp_to(f.resign, 2), 2);
  const int hi = f.dice[0] > f.dice[1] ? f.dice[0] : f.dice[1];
  const int lo = f.dice[0] > f.dice[1] ? f.dice[1] : f.dice[0];
  w.put(clamp_to(hi, 3), 3);
  w.put(clamp_to(lo, 3), 3);
  w.put(clamp_to(f.match_length, 15), 15);
  w.put(clamp_to(f.score[0], 15), 15);
  w.put(clamp_to(f.score[1], 15), 15);
  w.put(f.jacoby ? 0u : 1u, 1);
  std::string id;
  for (std::size_t i = 0; i < 9; i += 3) {
    const unsigned triple =
        (unsigned{w.key[i]} << 16) | (unsigned{w.key[i + 1]} << 8) | w.key[i + 2];
    for (int k = 3; k >= 0; --k) id.push_back(alphabet[(triple >> (6 * k)) & 63u]);
  }
  return id;
}

result<match_id_fields> match_id_from_string(std::string_view id) {
  auto bad = [](std::string why, std::string key) {
    return make_error("bad_match_id", std::move(why), std::move(key));
  };
  if (id.size() != 12) return bad("a Match ID has 12 characters", "engine.match_id_length");
  std::array<std::uint8_t, 9> key{};
  for (std::size_t i = 0; i < 12; i += 4) {
    unsigned triple = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const int v = value_of(id[i + k]);
      if (v < 0) return bad("a Match ID uses only Base64 characters", "engine.match_id_characters");
      triple = (triple << 6) | static_cast<unsigned>(v);
    }
    const std::size_t b = i / 4 * 3;
    key[b] = static_cast<std::uint8_t>(triple >> 16);
    key[b + 1] = static_cast<std::uint8_t>(triple >> 8);
    key[b + 2] = static_cast<std::uint8_t>(triple);
  }
  bit_reader r{key};
  match_id_fields f;
  const unsigned cube_log2 = r.get(4);
  if (cube_log2 > 15) return bad("the cube value is out of range", "engine.match_id_cube_value");
  f.cube = 1 << cube_log2;
  const unsigned owner = r.get(2);
  if (owner == 2) return bad("the cube owner is not 0, 1 or centred", "engine.match_id_cube_owner");
  f.cube_owner = owner == 3 ? -1 : static_cast<int>(owner);
  f.player_on_roll = static_cast<int>(r.get(1));
  f.crawford = r.get(1) != 0;
  f.game_state = static_cast<int>(r.get(3));
  if (f.game_state > 4) return bad("the game state is not 0..4", "engine.match_id_game_state");
  f.turn = static_cast<int>(r.get(1));
  f.double_offered = r.get(1) != 0;
  f.resign = static_cast<int>(r.get(2));
  f.dice[0] = static_cast<int>(r.get(3));
  f.dice[1] = static_cast<int>(r.get(3));
  if (f.dice[0] > 6 || f.dice[1] > 6) return bad("a die is not 0..6", "engine.match_id_die");
  if ((f.dice[0] == 0) != (f.dice[1] == 0))
    return bad("only one die is set", "engine.match_id_one_die");
  f.match_length = static_cast<int>(r.get(15));
  f.score[0] = static_cast<int>(r.get(15));
  f.score[1] = static_cast<int>(r.get(15));
  f.jacoby = r.get(1) == 0;
  if (r.get(5) != 0)
    return bad("the Match ID has stray bits at its end", "engine.match_id_stray_bits");
  return f;
}

}  // namespace bg::engine
