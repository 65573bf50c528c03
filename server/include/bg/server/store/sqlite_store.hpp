#pragma once
/// @file sqlite_store.hpp
/// The SQLite implementation of store (store.hpp), and the online backup of its file.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bg/server/records/match_record.hpp"
#include "bg/server/store/store.hpp"

struct sqlite3;

namespace bg::server {

class wal_checkpointer;

/// How a sqlite_store opens its file (gammond's --sync, --db-max-pages).
struct sqlite_options {
  /// How long a write waits for another connection's lock, in milliseconds.
  int busy_timeout_ms = 5000;
  /// `PRAGMA synchronous`: FULL (default) or NORMAL, see sync_mode.
  sync_mode sync = sync_mode::full;
  /// `PRAGMA max_page_count` (pages of `PRAGMA page_size`, 4096 bytes by default): the
  /// file may not grow past it, a write that would is refused with SQLITE_FULL ("database
  /// or disk is full") and undone. 0: SQLite's own limit. A file already bigger keeps
  /// its size (SQLite never lowers the limit below the current size).
  std::int64_t max_pages = 0;
  /// Write-ahead log pages (4096 bytes each by default) after which a thread of the
  /// store's own copies the log into the database file (wal_checkpointer, issue 15: the
  /// committing thread never waits for a checkpoint; the writer still does one itself
  /// past 4 times this). 0: SQLite's automatic checkpoint, run by the committing thread
  /// at 1,000 pages.
  std::int64_t checkpoint_pages = 10000;
};

/// One SQLite database file in WAL mode; with sync_mode::full (the default) a commit
/// survives a power cut, with sync_mode::normal it survives kill -9 of gammond.
/// Thread-safe: one connection behind a mutex.
///
/// Schema (version in `PRAGMA user_version`, migrations applied at open):
/// - `tables(name TEXT PRIMARY KEY, snapshot TEXT (JSON), updated_at TEXT)`
/// - `table_records(id INTEGER PRIMARY KEY, table_name TEXT, entry TEXT (JSON))`: the
///   record journal of each table's match in progress, in id order (version 2)
/// - `matches(id INTEGER PRIMARY KEY, table_name, red, black, options (JSON), record
///   (JSON, see record_json.hpp), started_at, ended_at, score_red, score_black, games,
///   saved_at)`
/// - `analyses(match_id INTEGER PRIMARY KEY REFERENCES matches, status ('pending', 'done',
///   'failed'), level, result (JSON, NULL unless done), reason, queued_at, finished_at)`:
///   each match's analysis by GNU Backgammon (version 3)
/// - `accounts(id INTEGER PRIMARY KEY, name_key TEXT UNIQUE, name, kind ('player' |
///   'bot'), password_hash (crypto_pwhash_str text; NULL exactly for a bot, which cannot
///   log in), created_at, last_seen)` (version 4)
/// - `ratings(account_id, variant ('standard' | 'long'), rating REAL, experience,
///   played, won)`: one row per account and variant (version 4)
/// - `account_matches(account_id, match_id, side, opponent, won (1, 0 or NULL for a
///   level basis session), rating_before, rating_after, experience_before,
///   experience_after (NULL unless rated))`: each account's history and rating history
///   (version 4)
/// - `moderation(id, at, action ('kick', 'private', 'invite', 'uninvite', 'ban', 'unban',
///   'broadcast', 'close'), actor, target, table_name, detail)`: every moderation action
///   (version 5)
/// - `bans(name_key, address ('' for the name itself), name, banned_by, created_at,
///   until_ms (ms since the Unix epoch; NULL: until /unban))` (version 5)
/// - `ignores(account_id, ignored_key, ignored_name, created_at)`: the names each account
///   ignores (version 5)
/// - `matches.unfinished` (0 or 1): the match's table was closed by an administrator
///   before it finished (version 5)
/// - `sessions(id, account_id, token_hash, label, created_ms, used_ms, expires_ms)`: the
///   accounts' remembered sign-ins (version 6)
/// - `analyses.red_equity_lost`, `red_decisions`, `black_equity_lost`, `black_decisions`:
///   each side's PR sums (RULES.md S7) of a done analysis, NULL otherwise; the analyses
///   done before were filled in from their results by the migration (version 7)
/// - `accounts.lang`: the account's language, a catalogue tag, or NULL (version 8)
/// - `tables.snapshot` without SQLite's CHECK (json_valid(...)): a snapshot that is not a
///   table's own (table_write::snapshot_is_json) is checked before it is written, and a
///   damaged one is skipped at restore (version 9)
/// Times are ISO 8601 UTC text. Every SQLite failure throws storage_error carrying
/// SQLite's message; the connection stays usable after a failed call.
class sqlite_store final : public store {
 public:
  /// The schema version this build writes (`PRAGMA user_version` after open).
  static constexpr int schema_version = 9;

  /// Opens or creates the file at `path` and its schema. Runs `PRAGMA quick_check`
  /// first and throws storage_corrupt when it fails (or the file is not a database).
  /// Sets WAL, `synchronous` from `options.sync`, `max_page_count`, foreign keys on and
  /// the busy timeout. Throws storage_error when the file cannot be opened or created,
  /// or has a newer schema version.
  sqlite_store(const std::string& path, const sqlite_options& options);
  /// sqlite_store(path, {busy_timeout_ms}) with the other options at their defaults.
  explicit sqlite_store(const std::string& path, int busy_timeout_ms = 5000);
  ~sqlite_store() override;
  sqlite_store(const sqlite_store&) = delete;
  sqlite_store& operator=(const sqlite_store&) = delete;

  /// Inserts or replaces the snapshot (JSON text) of table `name`, keeping its record
  /// journal; durable on return. Throws storage_error when the snapshot is not valid
  /// JSON or on any SQLite failure.
  void save_table(std::string_view name, std::string_view snapshot_json);
  /// Writes every change in `writes` (in order) in one transaction: a group commit, so
  /// the cost of a commit is paid once for all of them. Returns one outcome per write:
  /// its error is empty when written, else SQLite's message (that write alone is left
  /// out; the others are committed). Throws storage_error when the transaction itself
  /// fails (then nothing was written). A rated match is rated in the same transaction.
  std::vector<write_outcome> write_tables(const std::vector<table_write>& writes) override;
  void delete_table(std::string_view name) override;
  [[nodiscard]] std::vector<saved_table> load_tables() override;
  [[nodiscard]] std::optional<saved_table> load_table(std::string_view name) override;

  /// The next id after the largest stored at open (then counted in memory).
  [[nodiscard]] std::int64_t reserve_match_id() override;
  std::int64_t save_match(const match_record& record) override;
  [[nodiscard]] std::optional<match_record> load_match(std::int64_t id) override;
  [[nodiscard]] std::int64_t match_count() override;
  [[nodiscard]] std::optional<analysis_record> load_analysis(std::int64_t match_id) override;
  void save_analysis(const analysis_record& a) override;
  [[nodiscard]] std::vector<std::int64_t> pending_analyses(std::size_t limit) override;

  std::optional<account> create_account(const std::string& key, const std::string& name,
                                        account::kind what,
                                        const std::string& password_hash) override;
  [[nodiscard]] std::optional<account> find_account(std::string_view key) override;
  bool set_password_hash(std::string_view key, const std::string& password_hash) override;
  void set_last_seen(std::string_view key) override;
  void set_account_lang(std::string_view key, const std::string& lang) override;
  [[nodiscard]] std::vector<std::string> account_keys() override;
  bool move_name_key(std::string_view from, std::string_view to) override;
  [[nodiscard]] std::vector<account_match> account_matches(std::string_view key,
                                                           std::int64_t before_id,
                                                           std::size_t limit) override;
  [[nodiscard]] std::vector<leaderboard_entry> leaderboard(
      engine::variant v, std::size_t limit,
      leaderboard_order order = leaderboard_order::rating) override;
  [[nodiscard]] performance_sums account_performance(std::string_view key,
                                                     std::string_view since) override;
  void record_moderation(const moderation_action& a) override;
  void save_bans(const std::vector<ban>& bans, const moderation_action& a) override;
  std::size_t lift_bans(std::string_view name_key, const moderation_action& a) override;
  [[nodiscard]] std::vector<ban> active_bans(std::int64_t now_ms) override;
  [[nodiscard]] std::vector<std::string> ignored_by(std::string_view key) override;
  void set_ignored(std::string_view key, const std::string& ignored_key,
                   const std::string& ignored_name, bool on) override;
  std::int64_t create_session(std::string_view key, const std::string& token_hash,
                              const std::string& label, std::int64_t now_ms,
                              std::int64_t expires_ms, std::size_t keep) override;
  std::optional<login_session> use_session(const std::string& token_hash, std::int64_t now_ms,
                                           std::int64_t expires_ms) override;
  [[nodiscard]] std::vector<login_session> sessions_of(std::string_view key,
                                                       std::int64_t now_ms) override;
  std::size_t end_sessions(std::string_view key, std::int64_t id) override;

  /// `PRAGMA synchronous` as SQLite reports it: 2 (FULL) or 1 (NORMAL).
  [[nodiscard]] int synchronous();
  /// Checkpoints run so far by the store's checkpoint thread (0 with
  /// sqlite_options::checkpoint_pages 0), and by the committing thread because the log
  /// passed its bound.
  [[nodiscard]] std::uint64_t background_checkpoints() const noexcept;
  [[nodiscard]] std::uint64_t writer_checkpoints() const noexcept;

 private:
  struct statements;  ///< the prepared statements (store/sqlite/sqlite_statements.hpp)
  class writer;       ///< one table write's statements (store/sqlite/sqlite_store.cpp)

  void migrate();
  void exec(const char* sql);
  /// Inside write_one, mutex held: RELEASE of its savepoint (a prepared statement).
  /// Throws storage_error.
  void release_savepoint();
  /// Inside a transaction, mutex held: one table_write; returns a rated match's ratings.
  std::optional<std::array<rating_change, 2>> write_one(const table_write& w);
  [[nodiscard]] std::optional<account> find_account_locked(std::string_view key);
  void insert_match(std::int64_t id, const match_record& record);  ///< mutex held
  void insert_moderation(const moderation_action& a);              ///< mutex held

  std::mutex mutex_;
  sqlite3* db_ = nullptr;
  std::unique_ptr<statements> stmts_;
  std::unique_ptr<wal_checkpointer> checkpointer_;  ///< null: SQLite's own checkpoints
  std::atomic<std::int64_t> next_match_id_{1};
};

/// `PRAGMA quick_check` of the SQLite file at `path` (opened read-only): empty when it
/// passes, else SQLite's findings (or why the file could not be read).
[[nodiscard]] std::string quick_check(const std::string& path);

/// Copies the database at `from` to the new file `to` with SQLite's online backup API:
/// a consistent copy of one committed state, taken while gammond may be writing (WAL
/// lets the copy read while gammond commits). The copy is checked with quick_check.
/// Throws storage_error when `to` exists, either file cannot be opened, the copy
/// fails, or the copy does not pass quick_check (then `to` is removed).
void backup_database(const std::string& from, const std::string& to);

}  // namespace bg::server
