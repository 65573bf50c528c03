#include "bg/server/table/match_clock.hpp"

#include <algorithm>

namespace bg::server {

match_clock match_clock::timed(std::int64_t bank_ms, std::int64_t delay_ms, std::int64_t now_ms) {
  match_clock c;
  c.timed_ = true;
  c.bank_ = {std::max<std::int64_t>(0, bank_ms), std::max<std::int64_t>(0, bank_ms)};
  c.delay_ = std::max<std::int64_t>(0, delay_ms);
  c.delay_left_ = c.delay_;
  c.since_ = now_ms;
  return c;
}

match_clock match_clock::untimed(std::int64_t now_ms) {
  match_clock c;
  c.since_ = now_ms;
  return c;
}

match_clock match_clock::restore(bool is_timed, std::array<std::int64_t, 2> bank_ms,
                                 std::int64_t delay_ms, std::int64_t delay_left_ms,
                                 std::optional<engine::side> running, std::int64_t since_ms) {
  match_clock c;
  c.timed_ = is_timed;
  c.bank_ = {std::max<std::int64_t>(0, bank_ms[0]), std::max<std::int64_t>(0, bank_ms[1])};
  c.delay_ = std::max<std::int64_t>(0, delay_ms);
  c.delay_left_ = std::clamp<std::int64_t>(delay_left_ms, 0, c.delay_);
  c.running_ = running;
  c.since_ = since_ms;
  return c;
}

void match_clock::charge(std::int64_t now_ms) {
  const std::int64_t elapsed = std::max<std::int64_t>(0, now_ms - since_);
  if (running_ && timed_) {
    // S2: the delay is spent first; only what goes past it comes out of the bank.
    const std::int64_t from_delay = std::min(elapsed, delay_left_);
    delay_left_ -= from_delay;
    auto& bank = bank_[static_cast<std::size_t>(engine::index_of(*running_))];
    bank = std::max<std::int64_t>(0, bank - (elapsed - from_delay));
  }
  since_ = std::max(since_, now_ms);
}

void match_clock::start(std::optional<engine::side> next, std::int64_t now_ms) {
  charge(now_ms);
  running_ = next;
  delay_left_ = delay_;  // a new action: a fresh delay (unused delay is lost)
}

void match_clock::pause(std::int64_t now_ms) {
  charge(now_ms);
}

void match_clock::resume(std::int64_t now_ms) {
  since_ = now_ms;
}

std::int64_t match_clock::left(engine::side s, std::int64_t now_ms) const noexcept {
  const std::int64_t b = bank(s);
  if (!timed_ || running_ != s) return b;
  const std::int64_t elapsed = std::max<std::int64_t>(0, now_ms - since_);
  return std::max<std::int64_t>(0, b - std::max<std::int64_t>(0, elapsed - delay_left_));
}

std::optional<std::int64_t> match_clock::expiry() const noexcept {
  if (!timed_ || !running_) return std::nullopt;
  return since_ + delay_left_ + bank(*running_);
}

bool match_clock::expired(std::int64_t now_ms) const noexcept {
  const auto due = expiry();
  return due && now_ms >= *due;
}

std::int64_t match_clock::waited(std::int64_t now_ms) const noexcept {
  if (!running_) return 0;
  return std::max<std::int64_t>(0, now_ms - since_);
}

}  // namespace bg::server
