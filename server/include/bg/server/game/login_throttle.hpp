#pragma once
/// @file login_throttle.hpp
/// Failed logins counted per name and per client address: after a few, each further
/// try must wait a short delay; after more, the name or address is locked for a while.
/// Both bounds are short so that a stranger who fails on purpose keeps the owner out
/// only briefly (and a resume token is never throttled).

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>

namespace bg::server {

/// The thresholds (gammond's --login-* flags).
struct login_limits {
  /// From this many consecutive failures on, a try must wait `delay` after the last one.
  std::size_t delay_after = 3;
  std::chrono::seconds delay{2};
  /// At this many consecutive failures, the name or address is locked for `lock`.
  std::size_t lock_after = 10;
  std::chrono::seconds lock{60};
  /// Names, and addresses, tracked at most (each map); when full, the entry that failed
  /// longest ago is forgotten first.
  std::size_t max_entries = 10000;
};

/// The failed-login counts. Not thread-safe: the game service's mutex guards it. A
/// name's (or address's) count is forgotten after a success, and after `lock` + `delay`
/// without a failure (longer than either wait, so that a try made when a wait ends still
/// counts).
class login_throttle {
 public:
  using clock_type = std::chrono::steady_clock;

  explicit login_throttle(login_limits limits) : limits_(limits) {}

  /// How long a login for name key `key` from `address` must still wait at `now`
  /// (whole seconds, at least 1), or nullopt when it may be tried now. The longer of
  /// the name's and the address's waits.
  [[nodiscard]] std::optional<std::chrono::seconds> wait(const std::string& key,
                                                         const std::string& address,
                                                         clock_type::time_point now) const;
  /// A login for `key` from `address` failed at `now` (a wrong password or an unknown
  /// name).
  void failed(const std::string& key, const std::string& address, clock_type::time_point now);
  /// A login for `key` from `address` succeeded: both counts start again.
  void succeeded(const std::string& key, const std::string& address);
  /// Entries held (names, addresses), for tests.
  [[nodiscard]] std::size_t names() const noexcept { return by_name_.size(); }
  [[nodiscard]] std::size_t addresses() const noexcept { return by_address_.size(); }

 private:
  struct entry {
    std::size_t failures = 0;
    clock_type::time_point last{};
  };
  using table = std::unordered_map<std::string, entry>;
  [[nodiscard]] std::optional<clock_type::time_point> free_at(const table& t, const std::string& k,
                                                              clock_type::time_point now) const;
  void count(table& t, const std::string& k, clock_type::time_point now);
  [[nodiscard]] clock_type::duration forget_after() const { return limits_.lock + limits_.delay; }

  login_limits limits_;
  table by_name_;
  table by_address_;
};

}  // namespace bg::server
