#pragma once
/// @file play.hpp
/// A play: every checker move of one roll, and the position it leads to.

#include <array>
#include <cstdint>

#include "bg/engine/checker_move.hpp"
#include "bg/engine/position.hpp"

namespace bg::engine {

/// A legal play. `moves[0..count)` are the checker moves in the order they can be
/// made (0 moves when no die can be played, R6.4). `result` is the position after the
/// play, still seen from the mover (call result.swapped() to hand the turn over).
struct play {
  position result;
  std::array<checker_move, 4> moves{};
  std::uint8_t count = 0;
};

}  // namespace bg::engine
