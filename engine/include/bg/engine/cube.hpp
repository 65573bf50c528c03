#pragma once
/// @file cube.hpp
/// The doubling cube (R14).

#include <optional>

#include "bg/engine/side.hpp"

namespace bg::engine {

/// The highest cube value (R14.4).
inline constexpr int max_cube_value = 64;

/// The doubling cube: its value and who owns it (nullopt = in the middle), and a
/// pending offer. Only the owner, or either side while it is in the middle, may offer
/// (R14.1); the taker owns it afterwards, so doubles alternate (R14.2, R14.3).
struct cube {
  int value = 1;
  std::optional<side> owner;       ///< nullopt: centred
  std::optional<side> offered_by;  ///< a double is waiting for take or drop

  /// True when `s` may offer the next double by ownership and value (R14.1, R14.4);
  /// phase, Crawford and whose turn it is are the match's checks.
  [[nodiscard]] constexpr bool may_offer(side s) const noexcept {
    return value < max_cube_value && (!owner || *owner == s) && !offered_by;
  }
  friend bool operator==(const cube&, const cube&) = default;
};

}  // namespace bg::engine
