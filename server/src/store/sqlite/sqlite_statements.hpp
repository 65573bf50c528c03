#pragma once
/// @file sqlite_statements.hpp
/// sqlite_store's SQL (private to the store library): the helpers that prepare, bind
/// and step a SQLite statement, a result row for the shared core's mappers
/// (store_core::row), and sqlite_store's prepared statements by topic. Values are
/// always bound (?1, ?2, ...), never pasted into SQL.

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "bg/server/store/sqlite_store.hpp"
#include "store/store_core.hpp"

namespace bg::server::sqlite {

/// Throws storage_error: `what`, then SQLite's message for `db` ("out of memory" when
/// `db` is null).
[[noreturn]] void fail(sqlite3* db, std::string_view what);
/// fail(db, what) unless `rc` is SQLITE_OK, SQLITE_DONE or SQLITE_ROW.
void check(sqlite3* db, int rc, std::string_view what);
/// `text`'s size as SQLite's int. Throws storage_error ("text too long to store") past
/// INT_MAX bytes.
[[nodiscard]] int text_size(std::string_view text);
/// Column `column` (from 0) of the row `stmt` stands on, as text ("" for NULL).
[[nodiscard]] std::string column_text(sqlite3_stmt* stmt, int column);

/// One prepared statement, finalized with its owner.
class prepared {
 public:
  /// Prepares `sql` on `db` (persistent: it is run many times). Throws storage_error.
  prepared(sqlite3* db, const std::string& sql);
  ~prepared() { sqlite3_finalize(stmt_); }
  prepared(const prepared&) = delete;
  prepared& operator=(const prepared&) = delete;

  [[nodiscard]] sqlite3* db() const noexcept { return db_; }
  [[nodiscard]] sqlite3_stmt* get() const noexcept { return stmt_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

/// One use of a prepared statement: binds, steps, and resets it when done (also when
/// an exception leaves the scope), so the statement holds no lock afterwards. Every
/// bind throws storage_error when SQLite refuses it.
class use {
 public:
  explicit use(const prepared& p) : db_(p.db()), stmt_(p.get()) {}
  ~use() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  use(const use&) = delete;
  use& operator=(const use&) = delete;

  /// Binds `text` to parameter `index` (from 1).
  use& bind(int index, std::string_view text);
  /// Binds `value` to parameter `index` (from 1).
  use& bind(int index, std::int64_t value);
  /// Binds `value` to parameter `index` (from 1).
  use& bind(int index, double value);
  /// Binds NULL to parameter `index` (from 1).
  use& bind_null(int index);
  /// Steps once: true when a row is ready, false when done. Throws storage_error
  /// ("`what`: SQLite's message") when the step fails.
  bool step(std::string_view what);
  /// step(), said as "`what``name`" on failure (the text is put together only then).
  bool step(std::string_view what, std::string_view name);
  [[nodiscard]] sqlite3_stmt* get() const noexcept { return stmt_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

/// The row a statement stands on, for the shared core's mappers: SQLite's own column
/// reads (an integer through sqlite3_column_int64, a truth value is an integer not 0).
class row final : public store_core::row {
 public:
  explicit row(const use& u) noexcept : stmt_(u.get()) {}
  [[nodiscard]] std::string text(int column) const override { return column_text(stmt_, column); }
  [[nodiscard]] std::int64_t integer(int column) const override {
    return sqlite3_column_int64(stmt_, column);
  }
  [[nodiscard]] double real(int column) const override {
    return sqlite3_column_double(stmt_, column);
  }
  [[nodiscard]] bool boolean(int column) const override {
    return sqlite3_column_int(stmt_, column) != 0;
  }
  [[nodiscard]] bool is_null(int column) const override {
    return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
  }

 private:
  sqlite3_stmt* stmt_;
};

/// Table snapshots and their record journals.
struct table_statements {
  explicit table_statements(sqlite3* db);  ///< prepares them; throws storage_error
  prepared
      save_table;  ///< ?1 name, ?2 snapshot, ?3 updated_at (ISO 8601 UTC): inserted or replaced
  prepared delete_table;        ///< ?1 name
  prepared load_tables;         ///< (name, snapshot) in name order
  prepared append_record;       ///< ?1 table, ?2 entry
  prepared delete_records;      ///< ?1 table
  prepared load_records;        ///< (table_name, entry) in name, then id order
  prepared load_table;          ///< ?1 name: (snapshot)
  prepared load_table_records;  ///< ?1 table: (entry) in id order
};

/// The transaction of a batch of writes, with a savepoint around each write.
struct transaction_statements {
  explicit transaction_statements(sqlite3* db);  ///< prepares them; throws storage_error
  prepared begin;                                ///< BEGIN IMMEDIATE
  prepared commit;                               ///< COMMIT
  /// A savepoint around each table write of a batch (write_one), prepared once: it is
  /// run twice per change on the writer thread.
  prepared savepoint;
  prepared release;  ///< RELEASE of the savepoint
};

/// Finished matches.
struct match_statements {
  explicit match_statements(sqlite3* db);  ///< prepares them; throws storage_error
  /// ?1 table, ?2 red, ?3 black, ?4 options, ?5 record, ?6 started_at, ?7 ended_at,
  /// ?8 score_red, ?9 score_black, ?10 games, ?11 id, ?12 unfinished (store_core::match_row)
  prepared insert_match;
  prepared max_match_id;  ///< the largest id stored, 0 for none
  prepared load_match;    ///< ?1 id: (record)
  prepared match_count;   ///< (count)
};

/// Analyses by GNU Backgammon.
struct analysis_statements {
  explicit analysis_statements(sqlite3* db);  ///< prepares them; throws storage_error
  prepared queue_analysis;                    ///< ?1 match id: a pending row
  /// ?1 match, ?2 status, ?3 level, ?4 result, ?5 reason, ?6 .. ?9 red's equity lost and
  /// decisions, black's (S7; NULL unless done)
  prepared save_analysis;
  prepared load_analysis;     ///< ?1 match id: store_core::analysis_of's row
  prepared pending_analyses;  ///< ?1 limit: (match_id), smallest first
};

/// Accounts, their ratings and their histories.
struct account_statements {
  explicit account_statements(sqlite3* db);  ///< prepares them; throws storage_error
  prepared insert_account;        ///< ?1 key, ?2 name, ?3 kind, ?4 hash; nothing when taken
  prepared insert_rating;         ///< ?1 account id: both variants at the start
  prepared find_account;          ///< ?1 key: store_core::account_of's row
  prepared account_ratings;       ///< ?1 account id: store_core::add_standing's rows
  prepared set_password;          ///< ?1 key, ?2 hash (players only)
  prepared set_last_seen;         ///< ?1 key
  prepared set_lang;              ///< ?1 key, ?2 language ("" = NULL)
  prepared account_keys;          ///< (name_key) in id order
  prepared rating_of;             ///< ?1 key, ?2 variant: (id, name, rating, experience)
  prepared update_rating;         ///< ?1 id, ?2 variant, ?3 rating, ?4 experience, ?5 won
  prepared insert_account_match;  ///< ?1 .. ?9: store_core::history_entry
  prepared account_matches;       ///< ?1 key, ?2 below id, ?3 limit: account_match_of's rows
  prepared leaderboard;           ///< ?1 variant, ?2 limit: leaderboard_entry_of's rows
  prepared leaderboard_by_pr;     ///< the same, the best all-time PR first (S7)
  prepared account_performance;   ///< ?1 key, ?2 since: performance_sums_of's row (S7)
};

/// The moderation log, bans and ignore lists.
struct moderation_statements {
  explicit moderation_statements(sqlite3* db);  ///< prepares them; throws storage_error
  prepared record_moderation;  ///< ?1 action, ?2 actor, ?3 target, ?4 table, ?5 detail
  prepared delete_bans;        ///< ?1 name key
  prepared insert_ban;         ///< ?1 key, ?2 address, ?3 name, ?4 by, ?5 until_ms or NULL
  prepared active_bans;        ///< ?1 now_ms: store_core::ban_of's rows, oldest first
  prepared ignored_by;         ///< ?1 key: (ignored_name) in order
  prepared add_ignored;        ///< ?1 key, ?2 ignored key, ?3 ignored name
  prepared remove_ignored;     ///< ?1 key, ?2 ignored key
};

/// Remembered sign-ins.
struct session_statements {
  explicit session_statements(sqlite3* db);  ///< prepares them; throws storage_error
  prepared insert_session;    ///< ?1 key, ?2 hash, ?3 label, ?4 now, ?5 expires: (id)
  prepared prune_sessions;    ///< ?1 key, ?2 now, ?3 how many to keep
  prepared find_session;      ///< ?1 hash: store_core::login_session_of's row
  prepared touch_session;     ///< ?1 id, ?2 used, ?3 expires
  prepared delete_session;    ///< ?1 id
  prepared account_sessions;  ///< ?1 key, ?2 now: login_session_of's rows
  prepared end_session;       ///< ?1 key, ?2 id (0: all)
};

}  // namespace bg::server::sqlite

namespace bg::server {

/// Every prepared statement of a sqlite_store, by topic (prepared at open).
struct sqlite_store::statements {
  /// Prepares them all on `db`. Throws storage_error.
  explicit statements(sqlite3* db)
      : tables(db),
        transaction(db),
        matches(db),
        analyses(db),
        accounts(db),
        moderation(db),
        sessions(db) {}

  sqlite::table_statements tables;
  sqlite::transaction_statements transaction;
  sqlite::match_statements matches;
  sqlite::analysis_statements analyses;
  sqlite::account_statements accounts;
  sqlite::moderation_statements moderation;
  sqlite::session_statements sessions;
};

}  // namespace bg::server
