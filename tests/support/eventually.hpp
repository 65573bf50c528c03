#pragma once
/// @file eventually.hpp
/// Waiting for a condition in a test, under one generous deadline, instead of a fixed
/// sleep: a passing test waits only as long as the condition takes, and a loaded CI
/// machine (2 cores shared by many jobs) gets all the time it needs.
///
/// @code
///   CHECK(bg::test::eventually([&] { return server.metric("gammond_connections") == 0; }));
/// @endcode

#include <chrono>
#include <thread>

namespace bg::test {

/// The deadline every wait in the tests uses unless it has a reason for another.
inline constexpr std::chrono::milliseconds generous_deadline{std::chrono::seconds{30}};

/// Evaluates `condition` until it returns true or `timeout` has passed; returns its
/// last value. Between two evaluations it pauses 1 ms, doubling up to 50 ms (a poll,
/// not a wait for a time to pass: nothing in the result depends on the pauses).
template <typename Condition>
[[nodiscard]] bool eventually(Condition condition,
                              std::chrono::milliseconds timeout = generous_deadline) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::chrono::milliseconds pause{1};
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return condition();
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds{50});
  }
  return true;
}

}  // namespace bg::test
