#pragma once
// Internal: Zobrist keys for positions, so that a play's hash is updated with a few
// XORs per checker move instead of being recomputed (the generator's dedup index).

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

}  // namespace bg::engine::detail
