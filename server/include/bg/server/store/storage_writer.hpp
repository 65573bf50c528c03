#pragma once
/// @file storage_writer.hpp
/// Group commit: table changes are written on one thread, as many per SQLite
/// transaction as are waiting, so the cost of a commit (locks, the WAL append) is paid
/// once per batch rather than once per command, and no network thread waits on disk.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "bg/server/store/sqlite_store.hpp"

namespace bg::server {

/// Writes table_write batches to a storage on its own thread.
///
/// Each submitted write's continuation runs on the writer thread after the
/// transaction holding it has committed (or failed): a host announces a change only
/// from there, so a change is always on disk before anyone hears of it. Writes keep
/// their submission order. Thread-safe.
class storage_writer {
 public:
  /// Called once per write: `error` is empty when it is durable, else why it is not.
  using continuation = std::function<void(const std::string& error)>;

  /// Starts the writer thread for `db` (which must outlive this object).
  explicit storage_writer(storage& db);
  /// stop().
  ~storage_writer();
  storage_writer(const storage_writer&) = delete;
  storage_writer& operator=(const storage_writer&) = delete;

  /// Queues `w`; `then` runs on the writer thread once it is written. After stop()
  /// the write is done at once on the calling thread.
  void submit(table_write w, continuation then);
  /// Writes everything queued, runs its continuations, and ends the thread. Idempotent.
  void stop();
  /// How many transactions and writes so far (for the metrics and the bench).
  [[nodiscard]] std::uint64_t transactions() const;
  [[nodiscard]] std::uint64_t writes() const;

 private:
  struct job {
    table_write write;
    continuation then;
  };
  void run();
  void write_batch(std::deque<job>& batch);

  storage& db_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<job> queue_;
  bool stopping_ = false;
  bool stopped_ = false;
  std::uint64_t transactions_ = 0;
  std::uint64_t writes_ = 0;
  std::thread thread_;  // last: starts after everything above is ready
};

}  // namespace bg::server
