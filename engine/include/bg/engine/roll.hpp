#pragma once
/// @file roll.hpp
/// A roll of two dice (R3, R5).

#include <array>
#include <cstdint>

namespace bg::engine {

/// Two dice, each 1..6, in the order rolled. A double (equal dice) is played four
/// times (R5). The order never matters for which plays are legal.
struct roll {
  int die1 = 0;
  int die2 = 0;

  /// True when both dice show the same number (R5).
  [[nodiscard]] constexpr bool is_double() const noexcept { return die1 == die2; }
  /// The higher die (R6.2).
  [[nodiscard]] constexpr int high() const noexcept { return die1 > die2 ? die1 : die2; }
  /// The lower die.
  [[nodiscard]] constexpr int low() const noexcept { return die1 > die2 ? die2 : die1; }
  /// True when both dice are within 1..6.
  [[nodiscard]] constexpr bool valid() const noexcept {
    return die1 >= 1 && die1 <= 6 && die2 >= 1 && die2 <= 6;
  }
  friend constexpr bool operator==(const roll&, const roll&) = default;
};

/// The 21 distinct rolls, higher die first: 1-1, 2-1, 2-2, ..., 6-6.
constexpr std::array<roll, 21> all_rolls() noexcept {
  std::array<roll, 21> rolls{};
  std::size_t i = 0;
  for (int a = 1; a <= 6; ++a)
    for (int b = 1; b <= a; ++b) rolls[i++] = roll{a, b};
  return rolls;
}

}  // namespace bg::engine
