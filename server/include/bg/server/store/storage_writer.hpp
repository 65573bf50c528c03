#pragma once
/// @file storage_writer.hpp
/// Group commit: table changes are written on one thread, as many per transaction as
/// are waiting, so the cost of a commit (locks, the WAL append, the fsync) is paid once
/// per batch rather than once per command, and no network thread waits on disk.

#include <array>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "bg/server/store/store.hpp"

namespace bg::server {

/// What became of one submitted write.
struct write_result {
  /// Empty when the write is durable, else why it is not (then nothing of it was
  /// written: the table is on disk as it was before).
  std::string error;
  /// After a failure: the table as last written, read back on the writer thread
  /// (nullopt when it was never written or was dropped). Unset when `error` is empty.
  std::optional<saved_table> last_written;
  /// After a failure: why the table could not be read back either ("" when it was).
  std::string reload_error;
  /// A written rated match's ratings before and after, [red, black]
  /// (table_write::rated, write_outcome::ratings); unset otherwise.
  std::optional<std::array<rating_change, 2>> ratings;
  /// Cluster (issue 16): refused by the fencing check (write_outcome::fenced): this
  /// node no longer owns the table; it must drop it, never announce the change.
  bool fenced = false;
  /// Cluster: with `fenced`, a new table's first write lost its claim to another live
  /// node (write_outcome::claim_lost): created there meanwhile, not a stale write.
  bool claim_lost = false;
  /// Cluster: the epoch this node owns the table at (write_outcome::epoch); 0 otherwise.
  std::int64_t epoch = 0;
};

/// Writes table_write batches to a store on its own thread, and runs reads (the .mat
/// export) there too, so that no I/O thread and no lock holder touches the database.
///
/// Each submitted write's continuation runs on the writer thread after the
/// transaction holding it has committed (or failed): a host announces a change only
/// from there, so a change is always on disk before anyone hears of it. Writes and
/// reads keep their submission order. Thread-safe.
class storage_writer {
 public:
  /// Called once per write with what became of it.
  using continuation = std::function<void(write_result& result)>;
  /// A read (or any work) to run on the writer thread, with the store.
  using task = std::function<void(store& db)>;

  /// Starts the writer thread for `db` (which must outlive this object).
  explicit storage_writer(store& db);
  /// stop().
  ~storage_writer();
  storage_writer(const storage_writer&) = delete;
  storage_writer& operator=(const storage_writer&) = delete;

  /// Queues `w`; `then` runs on the writer thread once it is written (or failed).
  /// After stop() the write is done at once on the calling thread.
  void submit(table_write w, continuation then);
  /// Queues `t` to run on the writer thread between two batches. After stop() it runs
  /// at once on the calling thread. Exceptions escaping `t` are logged.
  void run(task t);
  /// Writes everything queued, runs its continuations, and ends the thread. Idempotent.
  void stop();
  /// Transactions committed and table writes they held, counted together.
  struct counts {
    std::uint64_t transactions = 0;  ///< group commits (each holds >= 1 write)
    std::uint64_t writes = 0;        ///< table writes, failed ones included
  };
  /// Both counters so far, read under one lock so that a reader never sees a
  /// transaction without its writes (for the metrics and the shutdown log).
  [[nodiscard]] counts totals() const;

 private:
  struct job {
    table_write write;
    continuation then;
    task work;  ///< set for a run() job (then `write` is unused)
  };
  void loop();
  void do_jobs(std::deque<job>& jobs);
  void write_batch(std::deque<job>& batch);

  store& db_;
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
