#pragma once
/// @file command_budget.hpp
/// One connection's command rate and strikes, the same for a WebSocket and a FIBS
/// connection (--commands-per-second, --command-burst, --strike-decay).

#include <algorithm>
#include <chrono>

namespace bg::server {

/// A token bucket of `burst` tokens refilled at `per_second` (full at the start), and a
/// count of strikes of which one is forgiven per `strike_decay`. Not thread-safe: a
/// session uses it on its own strand.
class command_budget {
 public:
  using clock = std::chrono::steady_clock;

  command_budget(double per_second, int burst, std::chrono::seconds strike_decay,
                 clock::time_point now = clock::now())
      : per_second_{per_second},
        burst_{static_cast<double>(burst)},
        decay_{strike_decay},
        tokens_{static_cast<double>(burst)},
        refilled_{now} {}

  /// Takes one token for a message at `now`; false (and nothing taken) when none is left.
  [[nodiscard]] bool take(clock::time_point now = clock::now()) {
    const double elapsed = std::chrono::duration<double>(now - refilled_).count();
    refilled_ = now;
    tokens_ = std::min(burst_, tokens_ + elapsed * per_second_);
    if (tokens_ < 1.0) return false;
    tokens_ -= 1.0;
    return true;
  }

  /// Counts one strike at `now`, after forgiving one per strike_decay since the count
  /// last started (keeping the remainder of a period, so that a steady trickle of
  /// strikes is forgiven at exactly that rate). Returns the strikes now (1 or more).
  int strike(clock::time_point now = clock::now()) {
    if (strikes_ == 0) {
      decayed_ = now;
    } else {
      const auto forgiven = (now - decayed_) / decay_;
      if (forgiven >= strikes_) {
        strikes_ = 0;
        decayed_ = now;
      } else {
        strikes_ -= static_cast<int>(forgiven);
        decayed_ += forgiven * decay_;
      }
    }
    return ++strikes_;
  }

 private:
  double per_second_;
  double burst_;
  std::chrono::seconds decay_;
  double tokens_;
  clock::time_point refilled_;
  int strikes_ = 0;              // after forgiving the decayed ones
  clock::time_point decayed_{};  // strikes_ counts from this point in time
};

}  // namespace bg::server
