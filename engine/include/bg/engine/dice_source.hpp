#pragma once
/// @file dice_source.hpp
/// Where dice come from: injected, never drawn by the engine on its own.

#include <cstdint>
#include <deque>
#include <memory>
#include <random>

#include "bg/engine/roll.hpp"

namespace bg::engine {

/// A source of fair dice. The engine asks it for every die it needs; production uses
/// secure_dice, tests seeded_dice or scripted_dice.
class dice_source {
 public:
  virtual ~dice_source() = default;
  /// One die, uniformly 1..6.
  virtual int roll_die() = 0;
  /// Two dice.
  roll roll_dice() {
    const int a = roll_die();
    const int b = roll_die();
    return roll{a, b};
  }
};

/// Reproducible dice for tests and self-play: a 64-bit Mersenne Twister with a seed.
class seeded_dice final : public dice_source {
 public:
  explicit seeded_dice(std::uint64_t seed) : rng_(seed) {}
  int roll_die() override { return die_(rng_); }

 private:
  std::mt19937_64 rng_;
  std::uniform_int_distribution<int> die_{1, 6};
};

/// Production dice: every die drawn from std::random_device (the operating system's
/// entropy source on Linux: getrandom / RDRAND), with rejection so each face is exactly
/// 1/6. Not reproducible by design.
class secure_dice final : public dice_source {
 public:
  int roll_die() override {
    for (;;) {
      const unsigned v = device_();
      // Reject the top sliver so that v % 6 is uniform.
      constexpr unsigned limit = (0xFFFFFFFFu / 6u) * 6u;
      if (v < limit) return static_cast<int>(v % 6u) + 1;
    }
  }

 private:
  std::random_device device_;
};

/// Dice given in advance (tests, replaying recorded games). When the script runs out
/// it falls back to a seeded source.
class scripted_dice final : public dice_source {
 public:
  explicit scripted_dice(std::deque<int> dice, std::uint64_t seed = 1)
      : dice_(std::move(dice)), fallback_(seed) {}
  int roll_die() override {
    if (dice_.empty()) return fallback_.roll_die();
    const int d = dice_.front();
    dice_.pop_front();
    return d;
  }
  /// Appends dice to the script.
  void push(std::initializer_list<int> dice) { dice_.insert(dice_.end(), dice); }

 private:
  std::deque<int> dice_;
  seeded_dice fallback_;
};

}  // namespace bg::engine
