#pragma once
// Internal: hash keys for positions. Zobrist keys give hash_of(); the move generator's
// dedup index uses cheaper additive "move keys" (see move_keys below).

#include <array>
#include <cstdint>

#include "bg/engine/position.hpp"

namespace bg::engine::detail {

/// keys[side][index][count]: side 0 = mover, 1 = opponent; index 0..25 as in
/// side_checkers; count 0..15.
struct zobrist_keys {
  std::array<std::array<std::array<std::uint64_t, 16>, 26>, 2> keys{};
};

constexpr zobrist_keys make_zobrist_keys() {
  zobrist_keys z;
  std::uint64_t state = 0x243F6A8885A308D3ULL;  // splitmix64 from a fixed seed
  for (auto& side : z.keys)
    for (auto& index : side)
      for (auto& key : index) {
        state += 0x9E3779B97F4A7C15ULL;
        std::uint64_t x = state;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
        key = x ^ (x >> 31);
      }
  return z;
}

inline constexpr zobrist_keys zobrist = make_zobrist_keys();

/// The key change when `side` (0 mover, 1 opponent) goes from `before` to `after`
/// checkers at `index`.
inline std::uint64_t zobrist_delta(int side, std::size_t index, unsigned before,
                                   unsigned after) noexcept {
  const auto& k = zobrist.keys[static_cast<std::size_t>(side)][index];
  return k[before] ^ k[after];
}

/// The full hash of a position.
inline std::uint64_t zobrist_hash(const position& p) noexcept {
  std::uint64_t h = 0;
  for (std::size_t i = 0; i < 26; ++i) {
    h ^= zobrist.keys[0][i][p.raw_mover()[i] & 15u];
    h ^= zobrist.keys[1][i][p.raw_opponent()[i] & 15u];
  }
  return h;
}

/// Additive keys for the generator's dedup index. The key of a position is
/// sum(mover[i] * K[i]) + sum(opponent[i] * J[i]) (mod 2^64) with fixed pseudo-random K
/// and J. It is a function of the position, so equal results have equal keys; and it is
/// linear, so a checker move changes it by a constant that does not depend on how many
/// checkers stand on the points involved (a Zobrist delta does): moving a mover's checker
/// from `from` by `die` adds K[to] - K[from], and hitting the blot on mover point t adds
/// J[bar] - J[opponent's index of t]. The generator only compares plays of one roll from
/// one position, so it starts from 0 instead of the key of the position: every key is
/// shifted by the same amount.
struct move_keys {
  /// [from][die]: K[max(from - die, 0)] - K[from], from 0..25, die 0..6 (a from or die
  /// of 0 is never used).
  std::array<std::array<std::uint64_t, 8>, 26> move{};
  /// [t]: standard backgammon, a hit on the mover's point t (1..24): the opponent's
  /// blot on its point 25 - t goes to its bar: J[25] - J[25 - t].
  std::array<std::uint64_t, 26> hit{};
};

constexpr move_keys make_move_keys() {
  std::array<std::uint64_t, 26> k{};
  std::array<std::uint64_t, 26> j{};
  std::uint64_t state = 0x13198A2E03707344ULL;  // splitmix64 from another fixed seed
  auto next = [&state] {
    state += 0x9E3779B97F4A7C15ULL;
    std::uint64_t x = state;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
  };
  for (auto& key : k) key = next();
  for (auto& key : j) key = next();
  move_keys m;
  for (std::size_t from = 0; from < 26; ++from)
    for (std::size_t die = 0; die < 8; ++die) {
      const std::size_t to = from > die ? from - die : 0;
      m.move[from][die] = k[to] - k[from];
    }
  for (std::size_t t = 1; t <= 24; ++t) m.hit[t] = j[25] - j[25 - t];
  return m;
}

inline constexpr move_keys keys = make_move_keys();

}  // namespace bg::engine::detail
