#pragma once
/// @file storage.hpp
/// SQLite persistence: table snapshots (so a restart restores every table) and
/// finished matches (for the record and the .mat export).

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bg/server/store/match_record.hpp"

struct sqlite3;

namespace bg::server {

/// A storage failure (cannot open, disk full, corrupt file). Thrown by storage; the
/// server logs it at the session/table boundary.
class storage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One table's change, written by storage::save_tables (see table_outcome).
struct table_write {
  std::string name;      ///< the table's name
  std::string snapshot;  ///< table::snapshot() as JSON text
  /// The record journal saved so far is void (a match began or was archived): it is
  /// deleted before `record_entries` are appended.
  bool reset_record = false;
  /// table_outcome::record_log entries as JSON text, appended in order.
  std::vector<std::string> record_entries;
};

/// A saved table: its snapshot and its record journal (entries in the order written).
struct saved_table {
  std::string name;
  std::string snapshot;
  std::vector<std::string> record_journal;
};

/// One SQLite database file in WAL mode (synchronous=NORMAL: a committed write
/// survives kill -9 of gammond). Thread-safe: one connection behind a mutex.
///
/// Schema (version in `PRAGMA user_version`, migrations applied at open):
/// - `tables(name TEXT PRIMARY KEY, snapshot TEXT (JSON), updated_at TEXT)`
/// - `table_records(id INTEGER PRIMARY KEY, table_name TEXT, entry TEXT (JSON))`: the
///   record journal of each table's match in progress, in id order (version 2)
/// - `matches(id INTEGER PRIMARY KEY, table_name, red, black, options (JSON), record
///   (JSON, see record_json.hpp), started_at, ended_at, score_red, score_black, games,
///   saved_at)`
/// Times are ISO 8601 UTC text. Every SQLite failure throws storage_error carrying
/// SQLite's message; the connection stays usable after a failed call.
class storage {
 public:
  /// The schema version this build writes (`PRAGMA user_version` after open).
  static constexpr int schema_version = 2;

  /// Opens or creates the file at `path` and its schema. Sets WAL, synchronous=NORMAL,
  /// foreign keys on and a busy timeout of `busy_timeout_ms` (waits that long for
  /// another connection's write lock). Throws storage_error when the file cannot be
  /// opened or created, is not an SQLite database, or has a newer schema version.
  explicit storage(const std::string& path, int busy_timeout_ms = 5000);
  ~storage();
  storage(const storage&) = delete;
  storage& operator=(const storage&) = delete;

  /// Inserts or replaces the snapshot (JSON text) of table `name`, keeping its record
  /// journal; durable on return. Throws storage_error when the snapshot is not valid
  /// JSON or on any SQLite failure.
  void save_table(std::string_view name, std::string_view snapshot_json);
  /// Writes every change in `writes` (in order) in one transaction: a group commit, so
  /// the cost of a commit is paid once for all of them. Returns one entry per write:
  /// empty when written, else SQLite's message (that write alone is left out; the
  /// others are committed). Throws storage_error when the transaction itself fails
  /// (then nothing was written).
  std::vector<std::string> save_tables(const std::vector<table_write>& writes);
  /// Forgets table `name` and its record journal.
  void delete_table(std::string_view name);
  /// Every saved table with its record journal, in name order.
  [[nodiscard]] std::vector<saved_table> load_tables();

  /// Stores a finished (or abandoned) match and returns its id (> 0). The record's own
  /// `id` is ignored: a new row is always inserted.
  std::int64_t save_match(const match_record& record);
  /// The match with `id` (its `id` member set), or nullopt. Throws storage_error when
  /// the stored record cannot be read back.
  [[nodiscard]] std::optional<match_record> load_match(std::int64_t id);
  /// How many matches are stored.
  [[nodiscard]] std::int64_t match_count();

 private:
  struct statements;  ///< the prepared statements, defined in storage.cpp

  void migrate();
  void exec(const char* sql);
  void write_one(const table_write& w);  ///< inside a transaction; mutex held

  std::mutex mutex_;
  sqlite3* db_ = nullptr;
  std::unique_ptr<statements> stmts_;
};

}  // namespace bg::server
