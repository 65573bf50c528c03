#pragma once
/// @file turn_errors.hpp
/// The refusals a game and a match share (internal to the engine).

#include <string>
#include <string_view>
#include <utility>

#include "bg/engine/error.hpp"

namespace bg::engine::detail {

/// `wrong_phase`: the action `what` ("roll", "double", ...) is not allowed in this phase;
/// `key` is the catalogue message of the whole sentence ("you cannot roll now").
inline error wrong_phase(std::string_view what, std::string key) {
  return make_error("wrong_phase", "you cannot " + std::string(what) + " now", std::move(key));
}

/// `not_your_turn`: the side asking is not the side on roll.
inline error not_your_turn() {
  return make_error("not_your_turn", "it is not your turn", "engine.not_your_turn");
}

}  // namespace bg::engine::detail
