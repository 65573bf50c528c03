#pragma once
/// @file variant.hpp
/// The game variants and their board geometry.

#include <optional>
#include <string_view>

namespace bg::engine {

/// Which game is played. The variant is a value the game carries; the shared rules
/// (maximum use R6, bearing off R10, results) are written once and parameterised by it.
enum class variant : unsigned char {
  standard,    ///< standard backgammon, RULES.md R1-R18
  long_nardy,  ///< long backgammon (Long Nardy), RULES.md L1-L8
};

/// "standard" or "long".
constexpr std::string_view to_string(variant v) noexcept {
  return v == variant::standard ? "standard" : "long";
}

/// Parses "standard" or "long" (also "long_nardy", "nardy"); anything else gives nullopt.
constexpr std::optional<variant> variant_from_string(std::string_view text) noexcept {
  if (text == "standard") return variant::standard;
  if (text == "long" || text == "long_nardy" || text == "nardy") return variant::long_nardy;
  return std::nullopt;
}

/// The opponent's own point number for the mover's own point `mover_point` (1..24).
/// Standard (R1): sides move in opposite directions, so it is 25 - p.
/// Long Nardy (RULES.md numbering note): both sides move the same way round, so the
/// opponent's point q is the mover's ((q + 11) mod 24) + 1; the map is its own inverse.
constexpr int opponent_point(variant v, int mover_point) noexcept {
  return v == variant::standard ? 25 - mover_point : ((mover_point + 11) % 24) + 1;
}

}  // namespace bg::engine
