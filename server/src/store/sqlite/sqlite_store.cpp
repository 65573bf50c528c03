#include "bg/server/store/sqlite_store.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <utility>

#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include "sqlite_schema.hpp"
#include "sqlite_statements.hpp"
#include "store/store_core.hpp"
#include "wal_checkpointer.hpp"

namespace bg::server {

namespace {

using sqlite::check;
using sqlite::column_text;
using sqlite::fail;
using sqlite::prepared;
using sqlite::use;

/// Now as SQLite's strftime('%Y-%m-%dT%H:%M:%fZ', 'now') writes it (UTC, milliseconds:
/// "2026-12-02T07:31:05.123Z"), taken here rather than by SQLite in every statement.
std::string utc_now_text() {
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch());
  const std::time_t secs = static_cast<std::time_t>(ms.count() / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  std::array<char, 32> buf{};
  const int n = std::snprintf(buf.data(), buf.size(), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                              tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                              tm.tm_sec, static_cast<int>(ms.count() % 1000));
  return std::string(buf.data(), static_cast<std::size_t>(n));
}

/// Refuses a damaged file before anything is written to it: `PRAGMA quick_check` on
/// `db` (the file at `path`). Throws storage_corrupt when it finds damage, or when the
/// file is not a database (its first read fails here too), else storage_error.
void refuse_damaged(sqlite3* db, const std::string& path) {
  std::string findings;
  try {
    prepared qc(db, "PRAGMA quick_check");
    use u(qc);
    while (u.step("checking " + path)) {
      const std::string line = column_text(u.get(), 0);
      if (line == "ok") continue;
      if (findings.size() < 2000) findings += (findings.empty() ? "" : "; ") + line;
    }
  } catch (const storage_error& e) {
    const int code = sqlite3_errcode(db) & 0xFF;
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) throw storage_corrupt(e.what());
    throw;
  }
  if (!findings.empty())
    throw storage_corrupt("the database " + path + " fails PRAGMA quick_check: " + findings);
}

/// Sets WAL mode on `db` (the file at `path`). journal_mode answers with the mode in
/// effect: anything but "wal" means the file system refused it (and durability would
/// not be what the header promises), and throws storage_error.
void use_wal(sqlite3* db, const std::string& path) {
  prepared mode(db, "PRAGMA journal_mode = WAL");
  use u(mode);
  if (!u.step("setting WAL mode on " + path) || column_text(u.get(), 0) != "wal")
    throw storage_error("cannot use WAL mode on " + path);
}

}  // namespace

/// The statements of one table write (store_core::write_table) on a sqlite_store, its
/// mutex held and its transaction open.
class sqlite_store::writer final : public store_core::table_writer {
 public:
  explicit writer(sqlite_store& store) noexcept : store_(store), s_(*store.stmts_) {}

  std::optional<store_core::match_player> rating_of(const std::string& key,
                                                    std::string_view variant) override {
    use u(s_.accounts.rating_of);
    u.bind(1, key).bind(2, variant);
    if (!u.step("reading a rating")) return std::nullopt;  // no such account: a guest
    return store_core::match_player{
        sqlite3_column_int64(u.get(), 0), column_text(u.get(), 1),
        rating_standing{sqlite3_column_double(u.get(), 2), sqlite3_column_int(u.get(), 3)}};
  }
  void insert_match(const match_record& record) override { store_.insert_match(record.id, record); }
  void update_standing(const store_core::standing_update& update) override {
    use u(s_.accounts.update_rating);
    u.bind(1, update.account_id)
        .bind(2, update.variant)
        .bind(3, update.rating)
        .bind(4, std::int64_t{update.experience})
        .bind(5, std::int64_t{update.won ? 1 : 0});
    u.step("updating a rating");
  }
  void insert_history(const store_core::history_entry& entry) override {
    use u(s_.accounts.insert_account_match);
    u.bind(1, entry.account_id)
        .bind(2, entry.match_id)
        .bind(3, engine::to_string(entry.side))
        .bind(4, entry.opponent);
    if (entry.won) {
      u.bind(5, std::int64_t{*entry.won ? 1 : 0});
    } else {
      u.bind_null(5);
    }
    if (entry.rating) {
      u.bind(6, entry.rating->before)
          .bind(7, entry.rating->after)
          .bind(8, std::int64_t{entry.rating->experience_before})
          .bind(9, std::int64_t{entry.rating->experience_after});
    } else {
      u.bind_null(6).bind_null(7).bind_null(8).bind_null(9);
    }
    u.step("recording a match in an account's history");
  }
  void queue_analysis(std::int64_t match_id) override {
    use u(s_.analyses.queue_analysis);
    u.bind(1, match_id);
    u.step("queueing the analysis of match " + std::to_string(match_id));
  }
  void save_table(const table_write& w) override {
    // The JSON check the schema had before version 9, for snapshots that did not come
    // from a table's own writer (table_write::snapshot_is_json).
    if (!w.snapshot_is_json && !nlohmann::json::accept(w.snapshot))
      throw storage_error("saving table " + w.name + ": the snapshot is not JSON");
    {
      use u(s_.tables.save_table);
      u.bind(1, w.name).bind(2, w.snapshot).bind(3, utc_now_text());
      u.step("saving table ", w.name);
    }
    if (w.reset_record) {
      use u(s_.tables.delete_records);
      u.bind(1, w.name);
      u.step("resetting the record of table ", w.name);
    }
    for (const auto& entry : w.record_entries) {
      use u(s_.tables.append_record);
      u.bind(1, w.name).bind(2, entry);
      u.step("recording at table ", w.name);
    }
  }
  void drop_table(const table_write& w) override {
    {
      use u(s_.tables.delete_table);
      u.bind(1, w.name);
      u.step("deleting table " + w.name);
    }
    use u(s_.tables.delete_records);
    u.bind(1, w.name);
    u.step("deleting the record of table " + w.name);
  }
  void insert_moderation(const moderation_action& a) override { store_.insert_moderation(a); }

 private:
  sqlite_store& store_;
  statements& s_;
};

sqlite_store::sqlite_store(const std::string& path, int busy_timeout_ms)
    : sqlite_store(path, sqlite_options{busy_timeout_ms, sync_mode::full, 0}) {}

sqlite_store::sqlite_store(const std::string& path, const sqlite_options& options) {
  const int rc =
      sqlite3_open_v2(path.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  try {
    if (rc != SQLITE_OK) fail(db_, "cannot open database " + path);
    check(db_, sqlite3_extended_result_codes(db_, 1), "setting up " + path);
    check(db_, sqlite3_busy_timeout(db_, options.busy_timeout_ms), "setting up " + path);
    refuse_damaged(db_, path);
    use_wal(db_, path);
    exec(options.sync == sync_mode::full ? "PRAGMA synchronous = FULL"
                                         : "PRAGMA synchronous = NORMAL");
    exec("PRAGMA foreign_keys = ON");
    migrate();
    if (options.max_pages > 0)
      exec(("PRAGMA max_page_count = " + std::to_string(options.max_pages)).c_str());
    stmts_ = std::make_unique<statements>(db_);
    {
      use u(stmts_->matches.max_match_id);
      if (u.step("reading the last match id"))
        next_match_id_.store(sqlite3_column_int64(u.get(), 0) + 1);
    }
    if (options.checkpoint_pages > 0)
      checkpointer_ = std::make_unique<wal_checkpointer>(
          path, db_, options.checkpoint_pages, options.sync == sync_mode::full ? "FULL" : "NORMAL",
          options.busy_timeout_ms);
  } catch (...) {
    checkpointer_.reset();
    stmts_.reset();
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

sqlite_store::~sqlite_store() {
  checkpointer_.reset();  // its thread stopped and its hook off before the connection closes
  stmts_.reset();         // finalize before closing
  sqlite3_close_v2(db_);
}

void sqlite_store::exec(const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw storage_error(std::string("executing \"") + std::string(sql).substr(0, 60) +
                        "\": " + text);
  }
}

void sqlite_store::migrate() {
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
      exec(sqlite::migrations()[static_cast<std::size_t>(v)]);
      exec(("PRAGMA user_version = " + std::to_string(v + 1)).c_str());
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void sqlite_store::save_table(std::string_view name, std::string_view snapshot_json) {
  // The same path as gammond's group commits, a batch of one.
  table_write w;
  w.name = std::string(name);
  w.snapshot = std::string(snapshot_json);
  const auto outcomes = write_tables({std::move(w)});
  if (!outcomes.front().error.empty()) throw storage_error(outcomes.front().error);
}

void sqlite_store::release_savepoint() {
  use u(stmts_->transaction.release);
  u.step("releasing a savepoint");
}

std::optional<std::array<rating_change, 2>> sqlite_store::write_one(const table_write& w) {
  // A savepoint per write: a failing write is undone alone, the batch goes on.
  {
    use u(stmts_->transaction.savepoint);
    u.step("opening a savepoint");
  }
  try {
    writer write(*this);
    auto ratings = store_core::write_table(w, write);
    release_savepoint();
    return ratings;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK TO one_table; RELEASE one_table", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<write_outcome> sqlite_store::write_tables(const std::vector<table_write>& writes) {
  std::vector<write_outcome> outcomes(writes.size());
  if (writes.empty()) return outcomes;
  const std::lock_guard lock(mutex_);
  {
    use u(stmts_->transaction.begin);
    u.step("beginning a transaction");
  }
  try {
    for (std::size_t i = 0; i < writes.size(); ++i) {
      try {
        outcomes[i].ratings = write_one(writes[i]);
      } catch (const storage_error& e) {
        // After SQLITE_FULL or an I/O error SQLite may have rolled the whole
        // transaction back: then nothing of the batch is written.
        if (sqlite3_get_autocommit(db_)) throw;
        outcomes[i] = write_outcome{e.what(), std::nullopt};
      }
    }
    use u(stmts_->transaction.commit);
    u.step("committing");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return outcomes;
}

void sqlite_store::delete_table(std::string_view name) {
  const std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    {
      use u(stmts_->tables.delete_table);
      u.bind(1, name);
      u.step("deleting table " + std::string(name));
    }
    {
      use u(stmts_->tables.delete_records);
      u.bind(1, name);
      u.step("deleting the record of table " + std::string(name));
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<saved_table> sqlite_store::load_tables() {
  const std::lock_guard lock(mutex_);
  std::vector<saved_table> out;
  {
    use u(stmts_->tables.load_tables);
    while (u.step("loading tables"))
      out.push_back(saved_table{column_text(u.get(), 0), column_text(u.get(), 1), {}});
  }
  // Both lists are in name order: one merge pass attaches each journal to its table
  // (journals of tables without a snapshot are ignored).
  use u(stmts_->tables.load_records);
  store_core::journal_merge journals(out);
  while (u.step("loading the record journals"))
    journals.add(column_text(u.get(), 0), column_text(u.get(), 1));
  return out;
}

std::int64_t sqlite_store::reserve_match_id() {
  return next_match_id_.fetch_add(1);
}

void sqlite_store::insert_match(std::int64_t id, const match_record& record) {
  const auto row = store_core::match_row_of(id, record);
  use u(stmts_->matches.insert_match);
  u.bind(1, row.table)
      .bind(2, row.red)
      .bind(3, row.black)
      .bind(4, row.options)
      .bind(5, row.record)
      .bind(6, row.started_at)
      .bind(7, row.ended_at)
      .bind(8, row.score_red)
      .bind(9, row.score_black)
      .bind(10, row.games)
      .bind(11, row.id)
      .bind(12, std::int64_t{row.unfinished ? 1 : 0});
  u.step("saving match " + std::to_string(id));
}

std::int64_t sqlite_store::save_match(const match_record& record) {
  const std::int64_t id = reserve_match_id();
  const std::lock_guard lock(mutex_);
  insert_match(id, record);
  return id;
}

std::optional<saved_table> sqlite_store::load_table(std::string_view name) {
  const std::lock_guard lock(mutex_);
  saved_table out{std::string(name), {}, {}};
  {
    use u(stmts_->tables.load_table);
    u.bind(1, name);
    if (!u.step("loading table " + out.name)) return std::nullopt;
    out.snapshot = column_text(u.get(), 0);
  }
  use u(stmts_->tables.load_table_records);
  u.bind(1, name);
  while (u.step("loading the record journal of table " + out.name))
    out.record_journal.push_back(column_text(u.get(), 0));
  return out;
}

std::uint64_t sqlite_store::background_checkpoints() const noexcept {
  return checkpointer_ ? checkpointer_->background_checkpoints() : 0;
}

std::uint64_t sqlite_store::writer_checkpoints() const noexcept {
  return checkpointer_ ? checkpointer_->writer_checkpoints() : 0;
}

int sqlite_store::synchronous() {
  const std::lock_guard lock(mutex_);
  prepared p(db_, "PRAGMA synchronous");
  use u(p);
  return u.step("reading PRAGMA synchronous") ? sqlite3_column_int(u.get(), 0) : -1;
}

std::optional<match_record> sqlite_store::load_match(std::int64_t id) {
  std::string text;
  {
    const std::lock_guard lock(mutex_);
    use u(stmts_->matches.load_match);
    u.bind(1, id);
    if (!u.step("loading match " + std::to_string(id))) return std::nullopt;
    text = column_text(u.get(), 0);
  }
  return store_core::match_of(id, text);
}

std::int64_t sqlite_store::match_count() {
  const std::lock_guard lock(mutex_);
  use u(stmts_->matches.match_count);
  if (!u.step("counting matches")) return 0;
  return sqlite3_column_int64(u.get(), 0);
}

std::optional<analysis_record> sqlite_store::load_analysis(std::int64_t match_id) {
  const std::lock_guard lock(mutex_);
  use u(stmts_->analyses.load_analysis);
  u.bind(1, match_id);
  if (!u.step("loading the analysis of match " + std::to_string(match_id))) return std::nullopt;
  return store_core::analysis_of(match_id, sqlite::row(u));
}

void sqlite_store::save_analysis(const analysis_record& a) {
  const std::lock_guard lock(mutex_);
  use u(stmts_->analyses.save_analysis);
  u.bind(1, a.match_id).bind(2, to_string(a.status)).bind(3, a.level).bind(5, a.reason);
  if (!a.result.empty()) u.bind(4, a.result);
  if (const auto sums = store_core::analysis_pr_sums(a)) {
    u.bind(6, (*sums)[0].equity_lost).bind(7, static_cast<std::int64_t>((*sums)[0].decisions));
    u.bind(8, (*sums)[1].equity_lost).bind(9, static_cast<std::int64_t>((*sums)[1].decisions));
  }
  u.step("saving the analysis of match " + std::to_string(a.match_id));
}

std::vector<std::int64_t> sqlite_store::pending_analyses(std::size_t limit) {
  const std::lock_guard lock(mutex_);
  std::vector<std::int64_t> ids;
  use u(stmts_->analyses.pending_analyses);
  u.bind(1, store_core::analysis_limit(limit));
  while (u.step("listing the pending analyses")) ids.push_back(sqlite3_column_int64(u.get(), 0));
  return ids;
}

// ------------------------------------------------------------------------------------
// Accounts

std::optional<account> sqlite_store::create_account(const std::string& key, const std::string& name,
                                                    account::kind what,
                                                    const std::string& password_hash) {
  store_core::check_new_account(what, password_hash);
  const std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    {
      use u(stmts_->accounts.insert_account);
      u.bind(1, key).bind(2, name).bind(3, std::string_view(to_string(what)));
      if (what == account::kind::player) {
        u.bind(4, password_hash);
      } else {
        u.bind_null(4);
      }
      u.step("registering " + name);
    }
    if (sqlite3_changes(db_) == 0) {  // the key is registered already
      exec("ROLLBACK");
      return std::nullopt;
    }
    const std::int64_t id = sqlite3_last_insert_rowid(db_);
    {
      use u(stmts_->accounts.insert_rating);
      u.bind(1, id);
      u.step("rating " + name);
    }
    auto made = find_account_locked(key);
    exec("COMMIT");
    return made;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::optional<account> sqlite_store::find_account_locked(std::string_view key) {
  account a;
  {
    use u(stmts_->accounts.find_account);
    u.bind(1, key);
    if (!u.step("finding an account")) return std::nullopt;
    a = store_core::account_of(sqlite::row(u));
  }
  use u(stmts_->accounts.account_ratings);
  u.bind(1, a.id);
  while (u.step("reading ratings")) store_core::add_standing(a, sqlite::row(u));
  return a;
}

std::optional<account> sqlite_store::find_account(std::string_view key) {
  const std::lock_guard lock(mutex_);
  return find_account_locked(key);
}

bool sqlite_store::set_password_hash(std::string_view key, const std::string& password_hash) {
  store_core::check_password_hash(password_hash);
  const std::lock_guard lock(mutex_);
  use u(stmts_->accounts.set_password);
  u.bind(1, key).bind(2, password_hash);
  u.step("changing a password");
  return sqlite3_changes(db_) > 0;
}

void sqlite_store::set_last_seen(std::string_view key) {
  const std::lock_guard lock(mutex_);
  use u(stmts_->accounts.set_last_seen);
  u.bind(1, key);
  u.step("recording when a player was last seen");
}

void sqlite_store::set_account_lang(std::string_view key, const std::string& lang) {
  const std::lock_guard lock(mutex_);
  use u(stmts_->accounts.set_lang);
  u.bind(1, key).bind(2, lang);
  u.step("recording a player's language");
}

std::vector<std::string> sqlite_store::account_keys() {
  const std::lock_guard lock(mutex_);
  std::vector<std::string> keys;
  use u(stmts_->accounts.account_keys);
  while (u.step("listing the accounts")) keys.push_back(column_text(u.get(), 0));
  return keys;
}

bool sqlite_store::move_name_key(std::string_view from, std::string_view to) {
  const std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    {
      prepared taken(db_, "SELECT 1 FROM accounts WHERE name_key = ?1");
      use u(taken);
      u.bind(1, to);
      if (u.step("reading an account's key")) {
        exec("ROLLBACK");
        return false;
      }
    }
    // A ban or an ignore list's entry already under the new key wins over the old one.
    for (const char* sql : {"UPDATE accounts SET name_key = ?2 WHERE name_key = ?1",
                            "UPDATE OR IGNORE bans SET name_key = ?2 WHERE name_key = ?1",
                            "DELETE FROM bans WHERE name_key = ?1 AND ?2 IS NOT NULL",
                            "UPDATE OR IGNORE ignores SET ignored_key = ?2 WHERE ignored_key = ?1",
                            "DELETE FROM ignores WHERE ignored_key = ?1 AND ?2 IS NOT NULL"}) {
      prepared update(db_, sql);
      use u(update);
      u.bind(1, from).bind(2, to);
      u.step("moving a name's key");
    }
    exec("COMMIT");
    return true;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<account_match> sqlite_store::account_matches(std::string_view key,
                                                         std::int64_t before_id,
                                                         std::size_t limit) {
  std::vector<account_match> out;
  if (limit == 0) return out;
  const std::lock_guard lock(mutex_);
  use u(stmts_->accounts.account_matches);
  u.bind(1, key)
      .bind(2, store_core::history_bound(before_id))
      .bind(3, store_core::row_limit(limit));
  while (u.step("reading a player's matches"))
    out.push_back(store_core::account_match_of(sqlite::row(u)));
  return out;
}

std::vector<leaderboard_entry> sqlite_store::leaderboard(engine::variant v, std::size_t limit,
                                                         leaderboard_order order) {
  std::vector<leaderboard_entry> out;
  if (limit == 0) return out;
  const std::lock_guard lock(mutex_);
  use u(order == leaderboard_order::pr ? stmts_->accounts.leaderboard_by_pr
                                       : stmts_->accounts.leaderboard);
  u.bind(1, engine::to_string(v)).bind(2, store_core::row_limit(limit));
  while (u.step("reading the ratings list"))
    out.push_back(
        store_core::leaderboard_entry_of(sqlite::row(u), static_cast<int>(out.size()) + 1));
  return out;
}

performance_sums sqlite_store::account_performance(std::string_view key, std::string_view since) {
  const std::lock_guard lock(mutex_);
  use u(stmts_->accounts.account_performance);
  u.bind(1, key).bind(2, since);
  if (!u.step("reading a player's performance rating")) return {};
  return store_core::performance_sums_of(sqlite::row(u));
}

namespace {

/// An sqlite3 connection, closed with its scope.
struct connection {
  sqlite3* db = nullptr;
  connection() = default;
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;
  ~connection() { sqlite3_close_v2(db); }
};

}  // namespace

std::string quick_check(const std::string& path) {
  connection c;
  if (sqlite3_open_v2(path.c_str(), &c.db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
    return "cannot open " + path + ": " + (c.db ? sqlite3_errmsg(c.db) : "out of memory");
  sqlite3_busy_timeout(c.db, 5000);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(c.db, "PRAGMA quick_check", -1, &stmt, nullptr) != SQLITE_OK)
    return std::string("cannot check ") + path + ": " + sqlite3_errmsg(c.db);
  std::string findings;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const auto* text = sqlite3_column_text(stmt, 0);
    const std::string line = text ? reinterpret_cast<const char*>(text) : "";
    if (line != "ok") findings += (findings.empty() ? "" : "; ") + line;
  }
  if (rc != SQLITE_DONE)
    findings += std::string(findings.empty() ? "" : "; ") + sqlite3_errmsg(c.db);
  sqlite3_finalize(stmt);
  return findings;
}

void backup_database(const std::string& from, const std::string& to) {
  if (std::error_code ec; std::filesystem::exists(to, ec))
    throw storage_error(to + " already exists: give a new file to copy to");
  connection src;
  if (sqlite3_open_v2(from.c_str(), &src.db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
    fail(src.db, "cannot open the database " + from);
  sqlite3_busy_timeout(src.db, 5000);
  {
    // Opening does not read the file: make sure it is a database first.
    sqlite3_stmt* stmt = nullptr;
    const int rc =
        sqlite3_prepare_v2(src.db, "SELECT count(*) FROM sqlite_schema", -1, &stmt, nullptr);
    const int step = rc == SQLITE_OK ? sqlite3_step(stmt) : rc;
    sqlite3_finalize(stmt);
    if (step != SQLITE_ROW) fail(src.db, "cannot read the database " + from);
  }
  connection dst;
  if (sqlite3_open_v2(to.c_str(), &dst.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK)
    fail(dst.db, "cannot create " + to);
  sqlite3_backup* b = sqlite3_backup_init(dst.db, "main", src.db, "main");
  if (!b) fail(dst.db, "cannot start the backup to " + to);
  // One step copies every page under one read transaction: the copy is one committed
  // state, and in WAL mode gammond goes on committing meanwhile.
  int rc = SQLITE_OK;
  for (int tries = 0; tries < 100; ++tries) {
    rc = sqlite3_backup_step(b, -1);
    if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) break;
    sqlite3_sleep(50);
  }
  sqlite3_backup_finish(b);
  std::string problem;
  if (rc != SQLITE_DONE) problem = std::string("copying: ") + sqlite3_errstr(rc);
  sqlite3_close_v2(dst.db);
  dst.db = nullptr;
  if (problem.empty()) {
    const auto findings = quick_check(to);
    if (!findings.empty()) problem = "the copy fails PRAGMA quick_check: " + findings;
  }
  if (!problem.empty()) {
    std::error_code ec;
    std::filesystem::remove(to, ec);
    throw storage_error("backup of " + from + " to " + to + " failed: " + problem);
  }
}

}  // namespace bg::server

namespace bg::server {

// ------------------------------------------------------------------------------------
// Moderation (issue 13)

void sqlite_store::insert_moderation(const moderation_action& a) {
  use u(stmts_->moderation.record_moderation);
  u.bind(1, a.action).bind(2, a.actor).bind(3, a.target).bind(4, a.table).bind(5, a.detail);
  u.step("logging a moderation action");
}

void sqlite_store::record_moderation(const moderation_action& a) {
  const std::lock_guard lock(mutex_);
  insert_moderation(a);
}

void sqlite_store::save_bans(const std::vector<ban>& bans, const moderation_action& a) {
  store_core::check_bans(bans);
  const std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    {
      use u(stmts_->moderation.delete_bans);
      u.bind(1, bans.front().name_key);
      u.step("replacing a ban");
    }
    for (const auto& b : bans) {
      use u(stmts_->moderation.insert_ban);
      u.bind(1, b.name_key).bind(2, b.address).bind(3, b.name).bind(4, b.by);
      if (b.until_ms > 0) {
        u.bind(5, b.until_ms);
      } else {
        u.bind_null(5);
      }
      u.step("saving a ban");
    }
    insert_moderation(a);
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::size_t sqlite_store::lift_bans(std::string_view name_key, const moderation_action& a) {
  const std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    std::size_t lifted = 0;
    {
      use u(stmts_->moderation.delete_bans);
      u.bind(1, name_key);
      u.step("lifting a ban");
      lifted = static_cast<std::size_t>(sqlite3_changes(db_));
    }
    if (lifted > 0) insert_moderation(a);
    exec("COMMIT");
    return lifted;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<ban> sqlite_store::active_bans(std::int64_t now_ms) {
  const std::lock_guard lock(mutex_);
  std::vector<ban> out;
  use u(stmts_->moderation.active_bans);
  u.bind(1, now_ms);
  while (u.step("reading the bans")) out.push_back(store_core::ban_of(sqlite::row(u)));
  return out;
}

std::vector<std::string> sqlite_store::ignored_by(std::string_view key) {
  const std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  use u(stmts_->moderation.ignored_by);
  u.bind(1, key);
  while (u.step("reading the names an account ignores")) out.push_back(column_text(u.get(), 0));
  return out;
}

void sqlite_store::set_ignored(std::string_view key, const std::string& ignored_key,
                               const std::string& ignored_name, bool on) {
  const std::lock_guard lock(mutex_);
  use u(on ? stmts_->moderation.add_ignored : stmts_->moderation.remove_ignored);
  u.bind(1, key).bind(2, ignored_key);
  if (on) u.bind(3, ignored_name);
  u.step(on ? "ignoring a name" : "no longer ignoring a name");
}

std::int64_t sqlite_store::create_session(std::string_view key, const std::string& token_hash,
                                          const std::string& label, std::int64_t now_ms,
                                          std::int64_t expires_ms, std::size_t keep) {
  const std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    std::int64_t id = 0;
    {
      use u(stmts_->sessions.insert_session);
      u.bind(1, key).bind(2, token_hash).bind(3, label).bind(4, now_ms).bind(5, expires_ms);
      if (u.step("storing a session")) id = sqlite3_column_int64(u.get(), 0);
    }
    {
      use u(stmts_->sessions.prune_sessions);
      u.bind(1, key).bind(2, now_ms).bind(3, static_cast<std::int64_t>(keep));
      u.step("forgetting old sessions");
    }
    exec("COMMIT");
    return id;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::optional<login_session> sqlite_store::use_session(const std::string& token_hash,
                                                       std::int64_t now_ms,
                                                       std::int64_t expires_ms) {
  const std::lock_guard lock(mutex_);
  std::optional<login_session> found;
  {
    use u(stmts_->sessions.find_session);
    u.bind(1, token_hash);
    if (u.step("reading a session")) found = store_core::login_session_of(sqlite::row(u));
  }
  if (!found) return std::nullopt;
  if (found->expires_ms <= now_ms) {
    use u(stmts_->sessions.delete_session);
    u.bind(1, found->id);
    u.step("forgetting an expired session");
    return std::nullopt;
  }
  use u(stmts_->sessions.touch_session);
  u.bind(1, found->id).bind(2, now_ms).bind(3, expires_ms);
  u.step("marking a session used");
  found->used_ms = now_ms;
  found->expires_ms = expires_ms;
  return found;
}

std::vector<login_session> sqlite_store::sessions_of(std::string_view key, std::int64_t now_ms) {
  const std::lock_guard lock(mutex_);
  std::vector<login_session> out;
  use u(stmts_->sessions.account_sessions);
  u.bind(1, key).bind(2, now_ms);
  while (u.step("reading an account's sessions"))
    out.push_back(store_core::login_session_of(sqlite::row(u)));
  return out;
}

std::size_t sqlite_store::end_sessions(std::string_view key, std::int64_t id) {
  const std::lock_guard lock(mutex_);
  use u(stmts_->sessions.end_session);
  u.bind(1, key).bind(2, id);
  u.step("ending sessions");
  return static_cast<std::size_t>(sqlite3_changes(db_));
}

}  // namespace bg::server
