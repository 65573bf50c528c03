#include "bg/server/store/sqlite_store.hpp"

#include <array>
#include <climits>
#include <string>
#include <utility>

#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include "bg/server/store/record_json.hpp"

namespace bg::server {

namespace {

/// Migration i brings the schema from version i to i + 1. Append only; never edit a
/// migration that has shipped.
constexpr std::array<const char*, storage::schema_version> migrations{
    // 0 -> 1: table snapshots and finished matches.
    R"sql(
CREATE TABLE tables(
  name       TEXT PRIMARY KEY NOT NULL,
  snapshot   TEXT NOT NULL CHECK (json_valid(snapshot)),
  updated_at TEXT NOT NULL
);
CREATE TABLE matches(
  id          INTEGER PRIMARY KEY,
  table_name  TEXT NOT NULL,
  red         TEXT NOT NULL,
  black       TEXT NOT NULL,
  options     TEXT NOT NULL CHECK (json_valid(options)),
  record      TEXT NOT NULL CHECK (json_valid(record)),
  started_at  TEXT NOT NULL,
  ended_at    TEXT NOT NULL,
  score_red   INTEGER NOT NULL,
  score_black INTEGER NOT NULL,
  games       INTEGER NOT NULL,
  saved_at    TEXT NOT NULL
);
CREATE INDEX matches_by_red ON matches(red);
CREATE INDEX matches_by_black ON matches(black);
)sql",
    // 1 -> 2: each table's match record as a journal of changes (table snapshots
    // version 2 no longer carry the whole record).
    R"sql(
CREATE TABLE table_records(
  id         INTEGER PRIMARY KEY,
  table_name TEXT NOT NULL,
  entry      TEXT NOT NULL
);
CREATE INDEX table_records_by_table ON table_records(table_name, id);
)sql",
};

/// SQLite's clock as ISO 8601 UTC with milliseconds.
constexpr const char* now_sql = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

[[noreturn]] void fail(sqlite3* db, std::string_view what) {
  throw storage_error(std::string(what) + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

void check(sqlite3* db, int rc, std::string_view what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) fail(db, what);
}

int text_size(std::string_view text) {
  if (text.size() > static_cast<std::size_t>(INT_MAX))
    throw storage_error("text too long to store");
  return static_cast<int>(text.size());
}

std::string column_text(sqlite3_stmt* stmt, int column) {
  const auto* text = sqlite3_column_text(stmt, column);
  const int size = sqlite3_column_bytes(stmt, column);
  if (!text) return {};
  return {reinterpret_cast<const char*>(text), static_cast<std::size_t>(size)};
}

/// One prepared statement, finalized with its owner.
class prepared {
 public:
  prepared(sqlite3* db, const std::string& sql) : db_(db) {
    check(db,
          sqlite3_prepare_v3(db, sql.c_str(), text_size(sql), SQLITE_PREPARE_PERSISTENT, &stmt_,
                             nullptr),
          "preparing a statement");
  }
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
/// an exception leaves the scope), so the statement holds no lock afterwards.
class use {
 public:
  explicit use(const prepared& p) : db_(p.db()), stmt_(p.get()) {}
  ~use() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  use(const use&) = delete;
  use& operator=(const use&) = delete;

  use& bind(int index, std::string_view text) {
    check(db_, sqlite3_bind_text(stmt_, index, text.data(), text_size(text), SQLITE_TRANSIENT),
          "binding a value");
    return *this;
  }
  use& bind(int index, std::int64_t value) {
    check(db_, sqlite3_bind_int64(stmt_, index, value), "binding a value");
    return *this;
  }
  /// Steps once: true when a row is ready, false when done.
  bool step(std::string_view what) {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, what);
  }
  [[nodiscard]] sqlite3_stmt* get() const noexcept { return stmt_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

}  // namespace

struct storage::statements {
  explicit statements(sqlite3* db)
      : save_table(db,
                   std::string("INSERT INTO tables(name, snapshot, updated_at) VALUES (?1, ?2, ") +
                       now_sql +
                       ") ON CONFLICT(name) DO UPDATE SET snapshot = excluded.snapshot, "
                       "updated_at = excluded.updated_at"),
        delete_table(db, "DELETE FROM tables WHERE name = ?1"),
        load_tables(db, "SELECT name, snapshot FROM tables ORDER BY name"),
        append_record(db, "INSERT INTO table_records(table_name, entry) VALUES (?1, ?2)"),
        delete_records(db, "DELETE FROM table_records WHERE table_name = ?1"),
        load_records(db, "SELECT table_name, entry FROM table_records ORDER BY table_name, id"),
        begin(db, "BEGIN IMMEDIATE"),
        commit(db, "COMMIT"),
        insert_match(db,
                     std::string("INSERT INTO matches(table_name, red, black, options, record, "
                                 "started_at, ended_at, score_red, score_black, games, "
                                 "saved_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ") +
                         now_sql + ")"),
        load_match(db, "SELECT record FROM matches WHERE id = ?1"),
        match_count(db, "SELECT count(*) FROM matches") {}

  prepared save_table;
  prepared delete_table;
  prepared load_tables;
  prepared append_record;
  prepared delete_records;
  prepared load_records;
  prepared begin;
  prepared commit;
  prepared insert_match;
  prepared load_match;
  prepared match_count;
};

storage::storage(const std::string& path, int busy_timeout_ms) {
  const int rc =
      sqlite3_open_v2(path.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  try {
    if (rc != SQLITE_OK) fail(db_, "cannot open database " + path);
    check(db_, sqlite3_extended_result_codes(db_, 1), "setting up " + path);
    check(db_, sqlite3_busy_timeout(db_, busy_timeout_ms), "setting up " + path);
    {
      // journal_mode answers with the mode in effect: anything but "wal" means the file
      // system refused it (and durability would not be what the header promises).
      prepared mode(db_, "PRAGMA journal_mode = WAL");
      use u(mode);
      if (!u.step("setting WAL mode on " + path) || column_text(u.get(), 0) != "wal")
        throw storage_error("cannot use WAL mode on " + path);
    }
    exec("PRAGMA synchronous = NORMAL");
    exec("PRAGMA foreign_keys = ON");
    migrate();
    stmts_ = std::make_unique<statements>(db_);
  } catch (...) {
    stmts_.reset();
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

storage::~storage() {
  stmts_.reset();  // finalize before closing
  sqlite3_close_v2(db_);
}

void storage::exec(const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw storage_error(std::string("executing \"") + std::string(sql).substr(0, 60) +
                        "\": " + text);
  }
}

void storage::migrate() {
  // IMMEDIATE takes the write lock first, so two processes opening a new file at once
  // do not both migrate it.
  exec("BEGIN IMMEDIATE");
  try {
    int version = 0;
    {
      prepared get(db_, "PRAGMA user_version");
      use u(get);
      if (u.step("reading the schema version")) version = sqlite3_column_int(u.get(), 0);
    }
    if (version > schema_version)
      throw storage_error("the database has schema version " + std::to_string(version) +
                          ", newer than this gammond's " + std::to_string(schema_version));
    for (int v = version; v < schema_version; ++v) {
      exec(migrations[static_cast<std::size_t>(v)]);
      exec(("PRAGMA user_version = " + std::to_string(v + 1)).c_str());
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void storage::save_table(std::string_view name, std::string_view snapshot_json) {
  // The same path as gammond's group commits, a batch of one.
  const auto errors =
      save_tables({table_write{std::string(name), std::string(snapshot_json), false, {}}});
  if (!errors.front().empty()) throw storage_error(errors.front());
}

void storage::write_one(const table_write& w) {
  // A savepoint per write: a failing write is undone alone, the batch goes on.
  exec("SAVEPOINT one_table");
  try {
    {
      use u(stmts_->save_table);
      u.bind(1, w.name).bind(2, w.snapshot);
      u.step("saving table " + w.name);
    }
    if (w.reset_record) {
      use u(stmts_->delete_records);
      u.bind(1, w.name);
      u.step("resetting the record of table " + w.name);
    }
    for (const auto& entry : w.record_entries) {
      use u(stmts_->append_record);
      u.bind(1, w.name).bind(2, entry);
      u.step("recording at table " + w.name);
    }
    exec("RELEASE one_table");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK TO one_table; RELEASE one_table", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<std::string> storage::save_tables(const std::vector<table_write>& writes) {
  std::vector<std::string> errors(writes.size());
  if (writes.empty()) return errors;
  const std::lock_guard lock(mutex_);
  {
    use u(stmts_->begin);
    u.step("beginning a transaction");
  }
  try {
    for (std::size_t i = 0; i < writes.size(); ++i) {
      try {
        write_one(writes[i]);
      } catch (const storage_error& e) {
        errors[i] = e.what();
      }
    }
    use u(stmts_->commit);
    u.step("committing");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return errors;
}

void storage::delete_table(std::string_view name) {
  const std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    {
      use u(stmts_->delete_table);
      u.bind(1, name);
      u.step("deleting table " + std::string(name));
    }
    {
      use u(stmts_->delete_records);
      u.bind(1, name);
      u.step("deleting the record of table " + std::string(name));
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<saved_table> storage::load_tables() {
  const std::lock_guard lock(mutex_);
  std::vector<saved_table> out;
  {
    use u(stmts_->load_tables);
    while (u.step("loading tables"))
      out.push_back(saved_table{column_text(u.get(), 0), column_text(u.get(), 1), {}});
  }
  // Both lists are in name order: one merge pass attaches each journal to its table
  // (journals of tables without a snapshot are ignored).
  use u(stmts_->load_records);
  std::size_t i = 0;
  while (u.step("loading the record journals")) {
    const std::string name = column_text(u.get(), 0);
    while (i < out.size() && out[i].name < name) ++i;
    if (i < out.size() && out[i].name == name)
      out[i].record_journal.push_back(column_text(u.get(), 1));
  }
  return out;
}

std::int64_t storage::save_match(const match_record& record) {
  const nlohmann::json options = record.options;
  match_record stored = record;
  stored.id = 0;  // the row id is the id; load_match() sets it
  const std::string text = to_json_text(stored);

  const std::lock_guard lock(mutex_);
  use u(stmts_->insert_match);
  u.bind(1, record.table)
      .bind(2, record.players[0])
      .bind(3, record.players[1])
      .bind(4, options.dump())
      .bind(5, text)
      .bind(6, record.started_at)
      .bind(7, record.ended_at)
      .bind(8, std::int64_t{record.final_score[0]})
      .bind(9, std::int64_t{record.final_score[1]})
      .bind(10, static_cast<std::int64_t>(record.games.size()));
  u.step("saving a match");
  return sqlite3_last_insert_rowid(db_);
}

std::optional<match_record> storage::load_match(std::int64_t id) {
  std::string text;
  {
    const std::lock_guard lock(mutex_);
    use u(stmts_->load_match);
    u.bind(1, id);
    if (!u.step("loading match " + std::to_string(id))) return std::nullopt;
    text = column_text(u.get(), 0);
  }
  try {
    match_record record = match_record_from_json_text(text);
    record.id = id;
    return record;
  } catch (const nlohmann::json::exception& e) {
    throw storage_error("match " + std::to_string(id) + " has an unreadable record: " + e.what());
  }
}

std::int64_t storage::match_count() {
  const std::lock_guard lock(mutex_);
  use u(stmts_->match_count);
  if (!u.step("counting matches")) return 0;
  return sqlite3_column_int64(u.get(), 0);
}

}  // namespace bg::server
