#pragma once
/// @file wal_checkpointer.hpp
/// The checkpoints of a SQLite database in WAL mode, run on a thread of their own so
/// that the thread that commits never waits for one (issue 15: a checkpoint copies
/// about 1,000 pages into the database file and syncs it, several milliseconds during
/// which every command waiting for its commit waited too; it was most of gammond's p99
/// and p99.9 at 1,000 commands/s).

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

struct sqlite3;

namespace bg::server {

/// Watches the commits of one connection (`writer`) and checkpoints its database from
/// a second connection of its own, on its own thread, with SQLite's PASSIVE checkpoint
/// (it never blocks the writer nor a reader). It replaces SQLite's automatic checkpoint
/// on `writer` (sqlite3_wal_hook): once the write-ahead log holds `pages` pages (of the
/// database's page size, 4096 bytes by default) after a commit, the thread is woken;
/// it runs again while commits keep the log from being copied whole (a few rounds),
/// so that the writer's next transaction starts the log over. Bound: if the log
/// reaches 4 × `pages` all the same (the thread is starved, or a reader holds an old
/// snapshot), the writer checkpoints itself after that commit, as SQLite's automatic
/// checkpoint would.
///
/// Not copyable. Construct after `writer` is in WAL mode; destroy before closing it
/// (the destructor stops and joins the thread, closes its connection and takes the
/// hook off `writer`). Thread-safe counters.
class wal_checkpointer {
 public:
  /// Opens the second connection to the database file at `path` (the one `writer` has
  /// open), with `synchronous` set to `synchronous_pragma` ("FULL" or "NORMAL": the
  /// checkpoint syncs the file as the writer's setting asks) and the busy timeout, and
  /// starts the thread. `pages` must be at least 1. Throws storage_error (from
  /// sqlite_store.hpp) when the connection cannot be opened.
  wal_checkpointer(const std::string& path, sqlite3* writer, std::int64_t pages,
                   const char* synchronous_pragma, int busy_timeout_ms);
  ~wal_checkpointer();
  wal_checkpointer(const wal_checkpointer&) = delete;
  wal_checkpointer& operator=(const wal_checkpointer&) = delete;

  /// Checkpoints run on the thread so far (each round counts).
  [[nodiscard]] std::uint64_t background_checkpoints() const noexcept {
    return background_.load(std::memory_order_relaxed);
  }
  /// Checkpoints the writer ran itself because the log passed 4 × `pages`.
  [[nodiscard]] std::uint64_t writer_checkpoints() const noexcept {
    return inline_.load(std::memory_order_relaxed);
  }

 private:
  /// sqlite3_wal_hook's callback: on `writer`'s thread after each commit, with the log's
  /// size in pages.
  static int on_commit(void* self, sqlite3* db, const char* name, int pages);
  void run();

  sqlite3* writer_;
  sqlite3* db_ = nullptr;  // the thread's own connection
  std::int64_t pages_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool requested_ = false;  // under mutex_
  bool stop_ = false;       // under mutex_
  std::atomic<std::uint64_t> background_{0};
  std::atomic<std::uint64_t> inline_{0};
  std::uint64_t failures_ = 0;  // the thread's own: checkpoints that failed (not busy)
  std::thread thread_;
};

}  // namespace bg::server
