#pragma once
/// @file storage_reader.hpp
/// The HTTP reads (/api/..., /matches/ID.mat) on a thread and a database connection of
/// their own, off the storage writer's: a flood of reads cannot delay a game command's
/// commit (SQLite in WAL mode: readers never block the writer; PostgreSQL: another
/// connection).

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "bg/server/store/store.hpp"

namespace bg::server {

/// One reader thread over its own store, with a bounded queue. Thread-safe.
class storage_reader {
 public:
  /// A read to run on the reader thread with its store.
  using task = std::function<void(store& db)>;

  /// Starts the thread over `db` (owned; a second connection to the writer's
  /// database), with at most `capacity` reads waiting (>= 1).
  storage_reader(std::unique_ptr<store> db, std::size_t capacity);
  /// stop().
  ~storage_reader();
  storage_reader(const storage_reader&) = delete;
  storage_reader& operator=(const storage_reader&) = delete;

  /// Queues `t`; false (and `t` dropped, never run) when `capacity` reads are waiting
  /// or the reader is stopped: the caller answers "busy". Exceptions escaping `t` are
  /// logged.
  [[nodiscard]] bool run(task t);
  /// Runs what is queued, then ends the thread. Idempotent.
  void stop();

 private:
  void work();

  std::unique_ptr<store> db_;
  const std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<task> queue_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once everything above is ready
};

}  // namespace bg::server
