#pragma once
/// @file position.hpp
/// A backgammon position in the orientation of the side to move.

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "bg/engine/variant.hpp"

namespace bg::engine {

inline constexpr int checkers_per_side = 15;
/// Index of a side's borne-off checkers in its array.
inline constexpr int off_index = 0;
/// Index of a side's bar in its array (in move notation the bar is point 25).
inline constexpr int bar_index = 25;

/// One side's checkers in that side's own numbering: [0] borne off, [1..24] its own
/// points (it moves 24 -> 1, home board 1..6), [25] its bar. Counts are 0..15.
using side_checkers = std::array<std::uint8_t, 26>;

/// A position: both sides' checkers, each in its own numbering, seen from the side to
/// move (the "mover"). Like gnubg's board and wildbg's position it does not know which
/// colour is on roll; the game does. It does not know its variant either: the geometry
/// that relates the two sides' numberings is the variant's (see opponent_point()).
///
/// A small copyable value (64 bytes). Plays produce new positions; swapped() hands the
/// turn to the opponent.
class position {
 public:
  /// The empty position: every checker of both sides borne off.
  constexpr position() noexcept {
    mover_[off_index] = checkers_per_side;
    opponent_[off_index] = checkers_per_side;
  }

  /// The starting position of a variant: R1.1 (standard: 2 on 24, 5 on 13, 3 on 8,
  /// 5 on 6 for each side) or L1 (long: all 15 on the head, own point 24).
  static position starting(variant v) noexcept;

  /// Builds a position from two arrays in the sides' own numbering; the borne-off
  /// count [0] of each side is recomputed as 15 minus the checkers on board and bar.
  /// Returns nullopt when a side has more than 15 checkers or when is_ok(v) fails.
  static std::optional<position> from_sides(const side_checkers& mover,
                                            const side_checkers& opponent, variant v);

  /// Checkers of the mover at `index` (0 off, 1..24 own points, 25 bar).
  [[nodiscard]] constexpr int mover(int index) const noexcept {
    return mover_[static_cast<std::size_t>(index)];
  }
  /// Checkers of the opponent at `index` in the opponent's own numbering.
  [[nodiscard]] constexpr int opponent(int index) const noexcept {
    return opponent_[static_cast<std::size_t>(index)];
  }
  /// The mover's whole array in its own numbering.
  [[nodiscard]] side_checkers mover_side() const noexcept;
  /// The opponent's whole array in its own numbering.
  [[nodiscard]] side_checkers opponent_side() const noexcept;

  /// The same checkers with the opponent to move (the turn passes).
  [[nodiscard]] constexpr position swapped() const noexcept {
    position p = *this;
    p.mover_.swap(p.opponent_);
    return p;
  }

  /// Pips the mover needs to bear off every checker: sum of point x count, bar = 25.
  [[nodiscard]] int mover_pip_count() const noexcept;
  /// Pips the opponent needs, in its own numbering.
  [[nodiscard]] int opponent_pip_count() const noexcept;

  /// True when the invariants hold for variant v: 15 checkers a side (off included),
  /// no point holding checkers of both sides, no checker on a bar in long nardy.
  [[nodiscard]] bool is_ok(variant v) const noexcept;

  /// Raw access for the move generator and codecs. Mutating these bypasses the
  /// invariants: callers must leave is_ok() true.
  std::array<std::uint8_t, 32>& raw_mover() noexcept { return mover_; }
  std::array<std::uint8_t, 32>& raw_opponent() noexcept { return opponent_; }
  [[nodiscard]] const std::array<std::uint8_t, 32>& raw_mover() const noexcept { return mover_; }
  [[nodiscard]] const std::array<std::uint8_t, 32>& raw_opponent() const noexcept {
    return opponent_;
  }

  /// Same checkers on every point, bar and off for both sides.
  friend bool operator==(const position& a, const position& b) noexcept {
    std::uint64_t diff = 0;
    for (std::size_t i = 0; i < 32; i += 8) {
      std::uint64_t x = 0;
      std::uint64_t y = 0;
      std::memcpy(&x, a.mover_.data() + i, 8);
      std::memcpy(&y, b.mover_.data() + i, 8);
      diff |= x ^ y;
      std::memcpy(&x, a.opponent_.data() + i, 8);
      std::memcpy(&y, b.opponent_.data() + i, 8);
      diff |= x ^ y;
    }
    return diff == 0;
  }

 private:
  // 26 used entries, padded to 32 bytes so that copies and comparisons are whole words.
  // Aligned to 16 (what SSE2 loads need), not 32: a play (position + 4 moves + count)
  // is then 80 bytes instead of 96, less to copy for every generated play.
  alignas(16) std::array<std::uint8_t, 32> mover_{};
  alignas(16) std::array<std::uint8_t, 32> opponent_{};
};

/// A 64-bit hash of a position for deduplicating plays (mixes the mover's side and the
/// opponent's bar; equal positions always hash equal).
[[nodiscard]] std::uint64_t hash_of(const position& p) noexcept;

}  // namespace bg::engine
