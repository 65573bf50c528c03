#pragma once
/// @file match_clock.hpp
/// The clocks of one match (RULES.md S2), with no I/O: the caller says what time it is.
///
/// Each side has a time bank for the whole match. The clock runs for one side at a
/// time, the side the match waits for; every action that side makes starts a new
/// delay (Bronstein): time is spent from the delay first and only then from the bank,
/// and delay left unused is lost. When the bank of the side whose clock runs is empty,
/// that side has lost on time (the table decides what that loses).
///
/// An untimed clock (no bank) still tracks whom the match waits for and since when:
/// the idle limit of S3 reads it (waited()).
///
/// All times are milliseconds on one time line chosen by the caller (gammond: since the
/// Unix epoch, advanced by a steady clock so that it never goes back); a time earlier
/// than since() counts as since().

#include <array>
#include <cstdint>
#include <optional>

#include "bg/engine/side.hpp"

namespace bg::server {

/// The two clocks of a match (S2), or the idle tracker of an untimed one (S3).
class match_clock {
 public:
  /// A timed clock: `bank_ms` (> 0) for each side and `delay_ms` (>= 0) per action,
  /// nobody's clock running, at `now_ms`.
  static match_clock timed(std::int64_t bank_ms, std::int64_t delay_ms, std::int64_t now_ms);
  /// An untimed clock (no bank, no delay): only tracks whom the match waits for.
  static match_clock untimed(std::int64_t now_ms);
  /// A clock as saved (persistence): banks [red, black] at `since_ms`, the delay per
  /// action, the delay left of the running action, the running side. Values below 0
  /// are taken as 0.
  static match_clock restore(bool is_timed, std::array<std::int64_t, 2> bank_ms,
                             std::int64_t delay_ms, std::int64_t delay_left_ms,
                             std::optional<engine::side> running, std::int64_t since_ms);

  /// Charges the running side for the time since since() (delay first, then bank),
  /// then runs `next`'s clock (nobody's with nullopt) from `now_ms` with a fresh delay.
  /// Called when the match starts waiting for another side, or when the running side
  /// acted and must act again (a roll, then the play: each action has its own delay).
  void start(std::optional<engine::side> next, std::int64_t now_ms);
  /// Charges the running side for the time up to `now_ms` and keeps its clock running
  /// from there with what is left of its delay (a graceful stop saves this).
  void pause(std::int64_t now_ms);
  /// The running side's clock goes on from `now_ms` without charging anything for the
  /// time since since(): the server was down (S2: downtime is not charged).
  void resume(std::int64_t now_ms);

  /// True when the clock has banks (S2); false for the idle tracker.
  [[nodiscard]] bool is_timed() const noexcept { return timed_; }
  /// The side whose clock runs (the match waits for it), or nullopt.
  [[nodiscard]] std::optional<engine::side> running() const noexcept { return running_; }
  /// When the running side's clock (re)started, or when the clock last stopped.
  [[nodiscard]] std::int64_t since() const noexcept { return since_; }
  /// The bank of `s` at since() (ms; the running side's current action not yet charged).
  [[nodiscard]] std::int64_t bank(engine::side s) const noexcept {
    return bank_[static_cast<std::size_t>(engine::index_of(s))];
  }
  /// The delay per action (ms).
  [[nodiscard]] std::int64_t delay() const noexcept { return delay_; }
  /// The delay the running action still had at since() (ms): delay() unless a graceful
  /// stop came in the middle of it; delay() when nothing runs.
  [[nodiscard]] std::int64_t delay_left() const noexcept { return running_ ? delay_left_ : delay_; }
  /// The bank `s` has at `now_ms`, after the running action's delay (ms, >= 0).
  [[nodiscard]] std::int64_t left(engine::side s, std::int64_t now_ms) const noexcept;
  /// When the running side's bank runs out (ms), or nullopt (untimed, or nothing runs).
  [[nodiscard]] std::optional<std::int64_t> expiry() const noexcept;
  /// True when the running side's bank is empty at `now_ms` (timed clocks only).
  [[nodiscard]] bool expired(std::int64_t now_ms) const noexcept;
  /// How long the running side has had to act at `now_ms` (0 when nothing runs).
  [[nodiscard]] std::int64_t waited(std::int64_t now_ms) const noexcept;

 private:
  match_clock() = default;
  void charge(std::int64_t now_ms);

  bool timed_ = false;
  std::array<std::int64_t, 2> bank_{};
  std::int64_t delay_ = 0;
  std::int64_t delay_left_ = 0;
  std::optional<engine::side> running_;
  std::int64_t since_ = 0;
};

}  // namespace bg::server
