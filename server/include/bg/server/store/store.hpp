#pragma once
/// @file store.hpp
/// The storage interface the game service uses: table snapshots with their record
/// journals (so a restart restores every table), finished matches (for the record and
/// the .mat export) and their analyses by GNU Backgammon. sqlite_store implements it
/// (DESIGN.md "server/").

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bg/server/store/analysis_record.hpp"
#include "bg/server/store/match_record.hpp"

namespace bg::server {

/// A storage failure (cannot open, disk full, corrupt file). Thrown by a store; the
/// server answers the client whose change it was with the error `storage_error`.
class storage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The database file is damaged (`PRAGMA quick_check` failed, or SQLite reports
/// corruption when opening it). gammond refuses to start on it (exit code 2).
class storage_corrupt : public storage_error {
 public:
  using storage_error::storage_error;
};

/// One table's change, written by store::save_tables (see table_outcome). Either a
/// snapshot with its record journal entries (and the match it finished, if any), or,
/// with `drop`, the table's removal.
struct table_write {
  std::string name;      ///< the table's name
  std::string snapshot;  ///< table::snapshot() as JSON text (ignored with `drop`)
  /// The record journal saved so far is void (a match began or was archived): it is
  /// deleted before `record_entries` are appended.
  bool reset_record = false;
  /// table_outcome::record_log entries as JSON text, appended in order.
  std::vector<std::string> record_entries;
  /// The match this change finished, stored with its `id` (reserved earlier with
  /// store::reserve_match_id()) in the same transaction as the snapshot: the archived
  /// match and the snapshot that announces it are written together or not at all.
  std::optional<match_record> finished_match;
  /// With `finished_match`: its analysis is queued, i.e. a pending analysis_record is
  /// written in the same transaction (so a restart finds every archived match whose
  /// analysis is not finished, store::pending_analyses()).
  bool analyse_match = false;
  /// The table is forgotten: its snapshot and record journal are deleted.
  bool drop = false;
};

/// A saved table: its snapshot and its record journal (entries in the order written).
struct saved_table {
  std::string name;
  std::string snapshot;
  std::vector<std::string> record_journal;
};

/// How hard a commit waits for the disk (`--sync`).
enum class sync_mode : unsigned char {
  /// Every commit is on stable storage before it returns: survives kill -9, an OS
  /// crash and a power cut (SQLite `synchronous=FULL` in WAL mode).
  full,
  /// Commits reach the OS but not necessarily the disk: survives kill -9 of gammond;
  /// an OS crash or a power cut may lose the last commits (never corrupts the file).
  normal,
};

/// Where gammond keeps its tables and matches. Implementations are thread-safe.
/// Every failure throws storage_error with a sentence saying what failed.
class store {
 public:
  virtual ~store() = default;

  /// Writes every change in `writes` (in order) in one transaction: a group commit, so
  /// the cost of a commit is paid once for all of them. Returns one entry per write:
  /// empty when written, else why not (that write alone is left out, all of it: its
  /// snapshot, journal entries and finished match; the others are committed). Throws
  /// storage_error when the transaction itself fails (then nothing was written).
  virtual std::vector<std::string> save_tables(const std::vector<table_write>& writes) = 0;
  /// Forgets table `name` and its record journal.
  virtual void delete_table(std::string_view name) = 0;
  /// Every saved table with its record journal, in name order.
  [[nodiscard]] virtual std::vector<saved_table> load_tables() = 0;
  /// Table `name` as last written (nullopt when it is not saved).
  [[nodiscard]] virtual std::optional<saved_table> load_table(std::string_view name) = 0;

  /// A new match id (> 0), never handed out before by this store: a table names its
  /// finished match in `match_over` before the write that stores it. No I/O. An id
  /// whose write failed is never used (ids may have gaps).
  [[nodiscard]] virtual std::int64_t reserve_match_id() = 0;
  /// Stores a finished (or abandoned) match under a new id and returns it (> 0). The
  /// record's own `id` is ignored.
  virtual std::int64_t save_match(const match_record& record) = 0;
  /// The match with `id` (its `id` member set), or nullopt. Throws storage_error when
  /// the stored record cannot be read back.
  [[nodiscard]] virtual std::optional<match_record> load_match(std::int64_t id) = 0;
  /// How many matches are stored.
  [[nodiscard]] virtual std::int64_t match_count() = 0;

  /// The analysis of match `match_id`, or nullopt when none was ever queued for it (a
  /// long nardy match, a match finished while analysis was off, an unknown id).
  [[nodiscard]] virtual std::optional<analysis_record> load_analysis(std::int64_t match_id) = 0;
  /// Writes `a` (status, result, reason, level) for its match, inserting the row when
  /// there is none; the store sets finished_at (now, unless pending) and keeps
  /// queued_at (now for a new row). Throws storage_error (also when the match does not
  /// exist, or `result` is not JSON).
  virtual void save_analysis(const analysis_record& a) = 0;
  /// The ids of the matches whose analysis is pending, smallest (oldest) first, at most
  /// `limit` of them.
  [[nodiscard]] virtual std::vector<std::int64_t> pending_analyses(std::size_t limit) = 0;
};

}  // namespace bg::server
