#pragma once
/// @file auth_pool.hpp
/// A few threads of their own for password hashing (password_hash.hpp), with a bounded
/// queue: Argon2id is slow and memory-hungry on purpose, so it never runs on an I/O
/// thread nor under the game service's mutex, and a flood of logins waits here (up to
/// the bound) instead of slowing the tables.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace bg::server {

/// Runs submitted jobs on `threads` threads, in submission order per thread. Thread-safe.
class auth_pool {
 public:
  /// Starts `threads` (at least 1) threads; at most `max_queued` jobs wait (at least 1).
  auth_pool(std::size_t threads, std::size_t max_queued);
  /// stop().
  ~auth_pool();
  auth_pool(const auth_pool&) = delete;
  auth_pool& operator=(const auth_pool&) = delete;

  /// Queues `job`; false (and `job` dropped) when `max_queued` jobs are waiting already
  /// or the pool is stopped: the caller answers `auth_busy`. An exception escaping a job
  /// is logged.
  bool submit(std::function<void()> job);
  /// Lets the running jobs finish, drops the queued ones, and joins the threads.
  /// Idempotent.
  void stop();
  /// Jobs waiting now (for tests and metrics).
  [[nodiscard]] std::size_t queued() const;

 private:
  void loop();

  std::size_t max_queued_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // last: started once everything above is ready
};

}  // namespace bg::server
