#pragma once
/// @file read_throttle.hpp
/// A token bucket per client address for the HTTP reads (/api/..., /matches/ID.mat):
/// one address cannot keep the database busy for everyone.

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

namespace bg::server {

/// Per-address token buckets, at most `max_addresses` of them. Thread-safe.
class read_throttle {
 public:
  using clock = std::chrono::steady_clock;

  /// `per_second` tokens a second sustained (> 0), `burst` banked at most (>= 1),
  /// buckets for `max_addresses` addresses at most (>= 1): with that many, one that
  /// is full again (its address idle long enough) is forgotten, else the one used
  /// longest ago.
  read_throttle(double per_second, double burst, std::size_t max_addresses);

  /// Takes one token of `address`'s bucket at `now`: false when it has none (the
  /// read must be refused with 429).
  bool allow(const std::string& address, clock::time_point now = clock::now());

  /// Addresses with a bucket now (for the tests of the bound).
  [[nodiscard]] std::size_t size() const;

 private:
  struct bucket {
    double tokens = 0.0;
    clock::time_point refilled;
  };
  void make_room(clock::time_point now);  ///< mutex_ held, buckets_ at max_addresses_

  const double per_second_;
  const double burst_;
  const std::size_t max_addresses_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, bucket> buckets_;
};

}  // namespace bg::server
