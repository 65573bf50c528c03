#pragma once
/// @file checker_move.hpp
/// One checker moved by one die (a "move"; a "play" is all the moves of a roll).

#include <cstdint>

namespace bg::engine {

/// A checker moved by exactly one die, in the mover's own numbering:
/// `from` is 25 for the bar or 1..24; `to` is 0 for off or 1..24; `hit` is true when
/// the move ended on an opposing blot and sent it to the bar (R7).
struct checker_move {
  std::int8_t from = 0;
  std::int8_t to = 0;
  bool hit = false;
  friend constexpr bool operator==(const checker_move&, const checker_move&) = default;
};

}  // namespace bg::engine
