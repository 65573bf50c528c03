#pragma once
/// @file board.hpp
/// The fixed board numbering 1..24 of RULES.md R1 (what the tutor option shows and what
/// clients draw), and the conversion from a position seen by the side to move.

#include <array>

#include "bg/engine/position.hpp"
#include "bg/engine/side.hpp"
#include "bg/engine/variant.hpp"

namespace bg::engine {

/// The board point (1..24, R1 numbering) of `s`'s own point `own` (1..24).
/// Standard: black's own point is the board point, red's is 25 - board point (R1).
/// Long nardy: black starts on board point 1 and moves 1 -> 24, so own p is board
/// 25 - p; red starts on board 13 and moves 13 -> 24 -> 1 -> 12, so own p is board
/// ((36 - p) mod 24) + 1 (RULES.md, Long backgammon numbering).
constexpr int board_point(variant v, side s, int own) noexcept {
  if (v == variant::standard) return s == side::black ? own : 25 - own;
  return s == side::black ? 25 - own : ((36 - own) % 24) + 1;
}

/// The inverse of board_point(): `s`'s own point for board point `board` (1..24).
constexpr int own_point(variant v, side s, int board) noexcept {
  for (int own = 1; own <= 24; ++own)
    if (board_point(v, s, own) == board) return own;
  return 0;
}

/// A position in board numbering, as the protocol's `state.board` carries it.
struct board_view {
  /// points[i] is board point i + 1: > 0 red checkers, < 0 black checkers.
  std::array<int, 24> points{};
  std::array<int, 2> bar{};   ///< [red, black]
  std::array<int, 2> off{};   ///< [red, black]
  std::array<int, 2> pips{};  ///< pip counts [red, black]
};

/// Draws `p`, whose mover is `mover`, on the fixed board.
board_view to_board(const position& p, side mover, variant v);

/// Builds a position from a board view, seen from `mover`; nullopt when invalid.
std::optional<position> from_board(const board_view& b, side mover, variant v);

}  // namespace bg::engine
