#pragma once
/// @file auth_pool.hpp
/// A few threads of their own for password hashing (password_hash.hpp), with a bounded
/// queue: Argon2id is slow and memory-hungry on purpose, so it never runs on an I/O
/// thread nor under the game service's mutex, and a flood of logins waits here (up to
/// the bound) instead of slowing the tables. The queue is shared fairly: no client
/// address holds more than `per_address` waiting jobs, and a login from an address with
/// no counted failure (the clean lane) is served before registrations, password changes
/// and logins from addresses that failed (the other lane), so that a flood from a few
/// addresses never keeps a clean login out.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace bg::server {

/// Runs submitted jobs on `threads` threads: the clean lane's in submission order, then
/// the other lane's in submission order. Thread-safe.
class auth_pool {
 public:
  /// The two lanes: `clean` is served first.
  enum class lane { clean, other };

  /// Starts `threads` (at least 1) threads; at most `max_queued` jobs wait in each lane
  /// (at least 1), of which at most `per_address` (at least 1) from one client address.
  auth_pool(std::size_t threads, std::size_t max_queued, std::size_t per_address = 1'000'000);
  /// stop().
  ~auth_pool();
  auth_pool(const auth_pool&) = delete;
  auth_pool& operator=(const auth_pool&) = delete;

  /// Queues `job` for `address` in lane `l`; false (and `job` dropped) when the lane has
  /// `max_queued` jobs waiting already, when `address` has `per_address` waiting, or the
  /// pool is stopped: the caller answers `auth_busy`. An exception escaping a job is
  /// logged.
  bool submit(const std::string& address, lane l, std::function<void()> job);
  /// Lets the running jobs finish, drops the queued ones, and joins the threads.
  /// Idempotent.
  void stop();
  /// Jobs waiting now, both lanes (for tests and metrics).
  [[nodiscard]] std::size_t queued() const;

 private:
  struct item {
    std::string address;
    std::function<void()> job;
  };
  void loop();

  std::size_t max_queued_;
  std::size_t per_address_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<item> clean_;
  std::deque<item> other_;
  /// Waiting jobs per address (only addresses with some: at most 2 * max_queued_ keys).
  std::unordered_map<std::string, std::size_t> waiting_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // last: started once everything above is ready
};

}  // namespace bg::server
