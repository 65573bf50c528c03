#pragma once
/// @file login_throttle.hpp
/// Password checks counted per name and per client address, before any hashing, and
/// registrations counted per address.
///
/// The policy (README, "Logins"): every login (and /password check) adds one to a bucket
/// of its name and one to a bucket of its address before it is hashed; a success takes
/// its own one back (and empties the name's bucket, not the address's). A bucket leaks
/// one failure each `forgive`, whatever happens meanwhile (decay by time, not by
/// silence). From `delay_after` in a bucket, each try waits `delay` after the previous
/// one; at `lock_after`, the bucket is locked for `lock` and emptied, so that it starts
/// from zero after the lock (a try refused meanwhile does not count: a trickle cannot
/// renew a lock). The name's bucket never applies to an address its owner logged in
/// from successfully in the last 30 days (a few per name): the owner meets only the
/// lock of their own address. A resume token is never throttled.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace bg::server {

/// The thresholds (gammond's --login-* and --register-per-hour flags).
struct login_limits {
  /// From this many counted failures in a bucket, a try must wait `delay` after the last.
  std::size_t delay_after = 3;
  std::chrono::seconds delay{2};
  /// At this many, the name or address is locked for `lock` (and its bucket emptied).
  std::size_t lock_after = 10;
  std::chrono::seconds lock{60};
  /// Names, and addresses, tracked at most (each map); when full, the entry touched
  /// longest ago is forgotten first.
  std::size_t max_entries = 10000;
  /// One counted failure is forgiven each this long.
  std::chrono::seconds forgive{30};
  /// Known (owner's) addresses remembered per name; 0: none.
  std::size_t known_addresses = 4;
  /// Registrations per address and hour (a bucket of this size leaking one each
  /// 3600 s / N); 0: unlimited.
  std::size_t registrations_per_hour = 5;
};

/// The counts. Not thread-safe: the game service's mutex guards it.
class login_throttle {
 public:
  using clock_type = std::chrono::steady_clock;

  /// What attempt() decided.
  struct verdict {
    /// How long the try must still wait (whole seconds, at least 1); nullopt: it was
    /// counted and may be checked now.
    std::optional<std::chrono::seconds> wait;
    /// True when the address had no counted failure before this try (its check may be
    /// served ahead of the others: auth_pool's clean lane).
    bool clean = false;
  };

  explicit login_throttle(login_limits limits) : limits_(limits) {}

  /// A password check for name key `key` from `address` at `now`: refused with the
  /// longer of the name's and the address's waits (not counted), or counted as a
  /// failure until succeeded() says otherwise.
  verdict attempt(const std::string& key, const std::string& address, clock_type::time_point now);
  /// How long such a try would wait, without counting it (nullopt: none).
  [[nodiscard]] std::optional<std::chrono::seconds> wait(const std::string& key,
                                                         const std::string& address,
                                                         clock_type::time_point now) const;
  /// The counted attempt for `key` from `address` was right: the name's bucket is
  /// emptied, the address's loses this one attempt, and `address` is remembered as one
  /// of the name's known addresses.
  void succeeded(const std::string& key, const std::string& address, clock_type::time_point now);
  /// `address` is the owner's of `key` (a registration from it): remembered as known.
  void trust(const std::string& key, const std::string& address, clock_type::time_point now);
  /// A registration from `address` at `now`: the wait (whole seconds, at least 1) when the
  /// address has registered its hourly share already (not counted), else nullopt and
  /// counted.
  std::optional<std::chrono::seconds> registration(const std::string& address,
                                                   clock_type::time_point now);
  /// Entries held (names, addresses), for tests.
  [[nodiscard]] std::size_t names() const noexcept { return by_name_.size(); }
  [[nodiscard]] std::size_t addresses() const noexcept { return by_address_.size(); }

 private:
  /// A leaky bucket: `count` leaks one each `leak` from `leaked`.
  struct bucket {
    std::size_t count = 0;
    clock_type::time_point leaked{};  // when the last unit leaked (or the first came)
    clock_type::time_point last{};    // the last counted try
    clock_type::time_point locked_until{};
    clock_type::time_point touched{};  // for eviction
  };
  using table = std::unordered_map<std::string, bucket>;
  struct known {
    std::vector<std::pair<std::string, clock_type::time_point>> addresses;  // newest last
    clock_type::time_point touched{};
  };

  /// `b` as it is at `now` (what has leaked since).
  [[nodiscard]] static bucket at(bucket b, clock_type::duration leak, clock_type::time_point now);
  [[nodiscard]] std::optional<clock_type::time_point> free_at(const table& t, const std::string& k,
                                                              clock_type::time_point now) const;
  /// The entry of `k` in `t` (made, evicting the least recently touched when full), or
  /// nullptr when nothing may be kept.
  template <class Map>
  typename Map::mapped_type* entry(Map& t, const std::string& k, clock_type::time_point now);
  void count(table& t, const std::string& k, clock_type::time_point now);
  [[nodiscard]] bool is_known(const std::string& key, const std::string& address,
                              clock_type::time_point now) const;

  login_limits limits_;
  table by_name_;
  table by_address_;
  table registrations_;
  std::unordered_map<std::string, known> known_;
};

}  // namespace bg::server
