#pragma once
/// @file turn_errors.hpp
/// The refusals a game and a match share (internal to the engine).

#include <string>
#include <string_view>

#include "bg/engine/error.hpp"

namespace bg::engine::detail {

/// `wrong_phase`: the action `what` ("roll", "double", ...) is not allowed in this phase.
inline error wrong_phase(std::string_view what) {
  return make_error("wrong_phase", "you cannot " + std::string(what) + " now");
}

/// `not_your_turn`: the side asking is not the side on roll.
inline error not_your_turn() {
  return make_error("not_your_turn", "it is not your turn");
}

}  // namespace bg::engine::detail
