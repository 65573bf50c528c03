#include "wal_checkpointer.hpp"

#include <string>

#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include "bg/server/store/store.hpp"

namespace bg::server {

namespace {

/// How many times the log may pass `pages` before the writer checkpoints itself.
constexpr std::int64_t writer_bound = 4;
/// Rounds the thread runs at most per wake-up while commits keep it from copying the
/// whole log (each round copies what was committed during the one before).
constexpr int rounds = 4;

}  // namespace

wal_checkpointer::wal_checkpointer(const std::string& path, sqlite3* writer, std::int64_t pages,
                                   const char* synchronous_pragma, int busy_timeout_ms)
    : writer_(writer), pages_(pages < 1 ? 1 : pages) {
  const int rc =
      sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  const auto fail = [&](const std::string& what) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw storage_error("the checkpoint connection to " + path + ": " + what + ": " + message);
  };
  if (rc != SQLITE_OK) fail("cannot open it");
  if (sqlite3_busy_timeout(db_, busy_timeout_ms) != SQLITE_OK) fail("setting the busy timeout");
  const std::string sync = std::string("PRAGMA synchronous = ") + synchronous_pragma;
  if (sqlite3_exec(db_, sync.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
    fail("setting synchronous");
  thread_ = std::thread([this] { run(); });
  // From here on SQLite's automatic checkpoint on `writer` is off (the hook replaces it).
  sqlite3_wal_hook(writer_, &wal_checkpointer::on_commit, this);
}

wal_checkpointer::~wal_checkpointer() {
  sqlite3_wal_hook(writer_, nullptr, nullptr);
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
  sqlite3_close_v2(db_);
}

int wal_checkpointer::on_commit(void* self, sqlite3* db, const char* name, int pages) {
  auto& c = *static_cast<wal_checkpointer*>(self);
  if (pages < c.pages_) return SQLITE_OK;
  if (pages >= c.pages_ * writer_bound) {
    // The thread has not kept the log short: copy it here, as SQLite's own automatic
    // checkpoint does (PASSIVE; a checkpoint already running on the thread makes this
    // one give up at once, and the next commit tries again).
    if (sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr) ==
        SQLITE_OK)
      c.inline_.fetch_add(1, std::memory_order_relaxed);
    return SQLITE_OK;
  }
  {
    std::lock_guard lock(c.mutex_);
    if (c.requested_) return SQLITE_OK;
    c.requested_ = true;
  }
  c.wake_.notify_one();
  return SQLITE_OK;
}

void wal_checkpointer::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return requested_ || stop_; });
    if (stop_) return;
    lock.unlock();
    for (int round = 0; round < rounds; ++round) {
      int log = 0;
      int copied = 0;
      const int rc =
          sqlite3_wal_checkpoint_v2(db_, "main", SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
      if (rc != SQLITE_OK) {
        // SQLITE_BUSY: the writer is checkpointing itself; anything else is worth a line,
        // the first time and then once every 1,000 (an I/O error would fail on every
        // wake-up; the writer's bound keeps the log from growing without end meanwhile).
        if ((rc & 0xFF) != SQLITE_BUSY && failures_++ % 1000 == 0)
          spdlog::warn("storage: WAL checkpoint failed ({} time(s) so far): {}", failures_,
                       sqlite3_errmsg(db_));
        break;
      }
      background_.fetch_add(1, std::memory_order_relaxed);
      if (copied >= log) break;  // all copied: the writer's next transaction starts it over
    }
    lock.lock();
    requested_ = false;
  }
}

}  // namespace bg::server
