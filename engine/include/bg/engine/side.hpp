#pragma once
/// @file side.hpp
/// The two sides of the board (RULES.md R1).

#include <cstdint>
#include <optional>
#include <string_view>

namespace bg::engine {

/// A player's colour (R1). On the fixed board numbering 1..24, black moves 24 -> 1
/// (home 1-6) and red moves 1 -> 24 (home 19-24) in standard backgammon.
enum class side : std::uint8_t { red = 0, black = 1 };

/// The other side.
constexpr side opponent_of(side s) noexcept {
  return s == side::red ? side::black : side::red;
}

/// "red" or "black".
constexpr std::string_view to_string(side s) noexcept {
  return s == side::red ? "red" : "black";
}

/// Parses "red" or "black" (lower case); anything else gives nullopt.
constexpr std::optional<side> side_from_string(std::string_view text) noexcept {
  if (text == "red") return side::red;
  if (text == "black") return side::black;
  return std::nullopt;
}

/// 0 for red, 1 for black: an index into per-side arrays.
constexpr int index_of(side s) noexcept {
  return static_cast<int>(s);
}

}  // namespace bg::engine
