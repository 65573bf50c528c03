#include "bg/server/store/sqlite_store.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>

#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include "bg/server/records/rating.hpp"
#include "bg/server/records/record_json.hpp"
#include "wal_checkpointer.hpp"

namespace bg::server {

namespace {

/// Migration i brings the schema from version i to i + 1. Append only; never edit a
/// migration that has shipped.
constexpr std::array<const char*, sqlite_store::schema_version> migrations{
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
    // 2 -> 3: each finished match's analysis by GNU Backgammon (issue 14). A row is
    // written pending with the match; the analysis queue marks it done or failed.
    R"sql(
CREATE TABLE analyses(
  match_id    INTEGER PRIMARY KEY NOT NULL REFERENCES matches(id),
  status      TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
  level       TEXT NOT NULL DEFAULT '',
  result      TEXT CHECK (result IS NULL OR json_valid(result)),
  reason      TEXT NOT NULL DEFAULT '',
  queued_at   TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX analyses_pending ON analyses(match_id) WHERE status = 'pending';
)sql",
    // 3 -> 4: accounts, their ratings per variant (RULES.md S1), and each account's
    // matches with its rating changes. A bot account has no password (cannot log in).
    R"sql(
CREATE TABLE accounts(
  id            INTEGER PRIMARY KEY,
  name_key      TEXT NOT NULL UNIQUE,
  name          TEXT NOT NULL,
  kind          TEXT NOT NULL DEFAULT 'player' CHECK (kind IN ('player', 'bot')),
  password_hash TEXT CHECK ((kind = 'player') = (password_hash IS NOT NULL)),
  created_at    TEXT NOT NULL,
  last_seen     TEXT
);
CREATE TABLE ratings(
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  variant    TEXT NOT NULL CHECK (variant IN ('standard', 'long')),
  rating     REAL NOT NULL DEFAULT 1500.0,
  experience INTEGER NOT NULL DEFAULT 0,
  played     INTEGER NOT NULL DEFAULT 0,
  won        INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, variant)
) WITHOUT ROWID;
CREATE INDEX ratings_by_rating ON ratings(variant, rating DESC);
CREATE TABLE account_matches(
  account_id        INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  match_id          INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
  side              TEXT NOT NULL CHECK (side IN ('red', 'black')),
  opponent          TEXT NOT NULL,
  won               INTEGER CHECK (won IN (0, 1)),
  rating_before     REAL,
  rating_after      REAL,
  experience_before INTEGER,
  experience_after  INTEGER,
  PRIMARY KEY (account_id, match_id)
) WITHOUT ROWID;
)sql",
    // 4 -> 5: moderation (issue 13): the log of every moderation action, the bans of
    // names and of the addresses they used, the names each account ignores, and the
    // matches an administrator closed before they finished.
    R"sql(
CREATE TABLE moderation(
  id         INTEGER PRIMARY KEY,
  at         TEXT NOT NULL,
  action     TEXT NOT NULL CHECK (action IN ('kick', 'private', 'invite', 'uninvite', 'ban',
                                             'unban', 'broadcast', 'close')),
  actor      TEXT NOT NULL,
  target     TEXT NOT NULL DEFAULT '',
  table_name TEXT NOT NULL DEFAULT '',
  detail     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX moderation_by_target ON moderation(target);
CREATE TABLE bans(
  name_key   TEXT NOT NULL,
  address    TEXT NOT NULL DEFAULT '',
  name       TEXT NOT NULL,
  banned_by  TEXT NOT NULL,
  created_at TEXT NOT NULL,
  until_ms   INTEGER,
  PRIMARY KEY (name_key, address)
) WITHOUT ROWID;
CREATE TABLE ignores(
  account_id   INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  ignored_key  TEXT NOT NULL,
  ignored_name TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  PRIMARY KEY (account_id, ignored_key)
) WITHOUT ROWID;
ALTER TABLE matches ADD COLUMN unfinished INTEGER NOT NULL DEFAULT 0 CHECK (unfinished IN (0, 1));
)sql",
    // 5 -> 6: sessions (issue 27): an account's remembered sign-ins, each under its
    // credential's SHA-256 (64 hex digits), with its times in ms since the Unix epoch.
    R"sql(
CREATE TABLE sessions(
  id         INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  label      TEXT NOT NULL DEFAULT '',
  created_ms INTEGER NOT NULL,
  used_ms    INTEGER NOT NULL,
  expires_ms INTEGER NOT NULL
);
CREATE INDEX sessions_by_account ON sessions(account_id);
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
  use& bind(int index, double value) {
    check(db_, sqlite3_bind_double(stmt_, index, value), "binding a value");
    return *this;
  }
  use& bind_null(int index) {
    check(db_, sqlite3_bind_null(stmt_, index), "binding a value");
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

struct sqlite_store::statements {
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
        load_table(db, "SELECT snapshot FROM tables WHERE name = ?1"),
        load_table_records(db, "SELECT entry FROM table_records WHERE table_name = ?1 ORDER BY id"),
        begin(db, "BEGIN IMMEDIATE"),
        commit(db, "COMMIT"),
        savepoint(db, "SAVEPOINT one_table"),
        release(db, "RELEASE one_table"),
        insert_match(
            db, std::string("INSERT INTO matches(table_name, red, black, options, record, "
                            "started_at, ended_at, score_red, score_black, games, "
                            "saved_at, id, unfinished) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
                            "?9, ?10, ") +
                    now_sql + ", ?11, ?12)"),
        max_match_id(db, "SELECT coalesce(max(id), 0) FROM matches"),
        load_match(db, "SELECT record FROM matches WHERE id = ?1"),
        match_count(db, "SELECT count(*) FROM matches"),
        queue_analysis(db, std::string("INSERT INTO analyses(match_id, status, queued_at) "
                                       "VALUES (?1, 'pending', ") +
                               now_sql + ")"),
        save_analysis(db,
                      std::string("INSERT INTO analyses(match_id, status, level, result, reason, "
                                  "queued_at, finished_at) VALUES (?1, ?2, ?3, ?4, ?5, ") +
                          now_sql + ", CASE WHEN ?2 = 'pending' THEN NULL ELSE " + now_sql +
                          " END) ON CONFLICT(match_id) DO UPDATE SET status = excluded.status, "
                          "level = excluded.level, result = excluded.result, reason = "
                          "excluded.reason, finished_at = excluded.finished_at"),
        load_analysis(db,
                      "SELECT status, level, result, reason, queued_at, finished_at FROM "
                      "analyses WHERE match_id = ?1"),
        pending_analyses(db,
                         "SELECT match_id FROM analyses WHERE status = 'pending' ORDER BY "
                         "match_id LIMIT ?1"),
        insert_account(db, std::string("INSERT INTO accounts(name_key, name, kind, password_hash, "
                                       "created_at) VALUES (?1, ?2, ?3, ?4, ") +
                               now_sql + ") ON CONFLICT(name_key) DO NOTHING"),
        insert_rating(db,
                      "INSERT INTO ratings(account_id, variant) VALUES (?1, 'standard'), (?1, "
                      "'long')"),
        find_account(db,
                     "SELECT id, name_key, name, kind, coalesce(password_hash, ''), created_at, "
                     "coalesce(last_seen, '') FROM accounts WHERE name_key = ?1"),
        account_ratings(db,
                        "SELECT variant, rating, experience, played, won FROM ratings WHERE "
                        "account_id = ?1"),
        set_password(db,
                     "UPDATE accounts SET password_hash = ?2 WHERE name_key = ?1 AND kind = "
                     "'player'"),
        set_last_seen(
            db, std::string("UPDATE accounts SET last_seen = ") + now_sql + " WHERE name_key = ?1"),
        account_keys(db, "SELECT name_key FROM accounts ORDER BY id"),
        rating_of(db,
                  "SELECT a.id, a.name, r.rating, r.experience FROM accounts a JOIN ratings r "
                  "ON r.account_id = a.id AND r.variant = ?2 WHERE a.name_key = ?1"),
        update_rating(db,
                      "UPDATE ratings SET rating = ?3, experience = ?4, played = played + 1, "
                      "won = won + ?5 WHERE account_id = ?1 AND variant = ?2"),
        insert_account_match(
            db,
            "INSERT INTO account_matches(account_id, match_id, side, opponent, won, "
            "rating_before, rating_after, experience_before, experience_after) VALUES (?1, "
            "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"),
        account_matches(
            db,
            "SELECT am.match_id, m.ended_at, m.options, am.side, am.opponent, m.score_red, "
            "m.score_black, am.won, am.rating_before, am.rating_after, am.experience_before, "
            "am.experience_after, a.name FROM account_matches am JOIN accounts a ON a.id = "
            "am.account_id JOIN matches m ON m.id = am.match_id WHERE a.name_key = ?1 AND "
            "am.match_id < ?2 ORDER BY am.match_id DESC LIMIT ?3"),
        leaderboard(db,
                    "SELECT a.name, r.rating, r.experience, r.played, r.won, a.kind FROM ratings r "
                    "JOIN accounts a ON a.id = r.account_id WHERE r.variant = ?1 AND "
                    "r.experience > 0 ORDER BY r.rating DESC, a.name_key LIMIT ?2"),
        record_moderation(db, std::string("INSERT INTO moderation(at, action, actor, target, "
                                          "table_name, detail) VALUES (") +
                                  now_sql + ", ?1, ?2, ?3, ?4, ?5)"),
        delete_bans(db, "DELETE FROM bans WHERE name_key = ?1"),
        insert_ban(db, std::string("INSERT INTO bans(name_key, address, name, banned_by, "
                                   "created_at, until_ms) VALUES (?1, ?2, ?3, ?4, ") +
                           now_sql + ", ?5)"),
        active_bans(db,
                    "SELECT name_key, address, name, banned_by, created_at, coalesce(until_ms, 0) "
                    "FROM bans WHERE until_ms IS NULL OR until_ms > ?1 ORDER BY created_at, "
                    "name_key, address"),
        ignored_by(db,
                   "SELECT i.ignored_name FROM ignores i JOIN accounts a ON a.id = i.account_id "
                   "WHERE a.name_key = ?1 ORDER BY i.created_at, i.ignored_key"),
        add_ignored(db, std::string("INSERT INTO ignores(account_id, ignored_key, ignored_name, "
                                    "created_at) SELECT id, ?2, ?3, ") +
                            now_sql + " FROM accounts WHERE name_key = ?1 ON CONFLICT DO NOTHING"),
        remove_ignored(db,
                       "DELETE FROM ignores WHERE ignored_key = ?2 AND account_id = (SELECT id "
                       "FROM accounts WHERE name_key = ?1)"),
        insert_session(db,
                       "INSERT INTO sessions(account_id, token_hash, label, created_ms, used_ms, "
                       "expires_ms) SELECT id, ?2, ?3, ?4, ?4, ?5 FROM accounts WHERE name_key = "
                       "?1 AND kind = 'player' ON CONFLICT DO NOTHING RETURNING id"),
        prune_sessions(db,
                       "DELETE FROM sessions WHERE account_id = (SELECT id FROM accounts WHERE "
                       "name_key = ?1) AND (expires_ms <= ?2 OR id NOT IN (SELECT s.id FROM "
                       "sessions s WHERE s.account_id = sessions.account_id ORDER BY s.used_ms "
                       "DESC, s.id DESC LIMIT ?3))"),
        find_session(db,
                     "SELECT s.id, a.name_key, s.label, s.created_ms, s.used_ms, s.expires_ms "
                     "FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.token_hash "
                     "= ?1"),
        touch_session(db, "UPDATE sessions SET used_ms = ?2, expires_ms = ?3 WHERE id = ?1"),
        delete_session(db, "DELETE FROM sessions WHERE id = ?1"),
        account_sessions(db,
                         "SELECT s.id, a.name_key, s.label, s.created_ms, s.used_ms, "
                         "s.expires_ms FROM sessions s JOIN accounts a ON a.id = s.account_id "
                         "WHERE a.name_key = ?1 AND s.expires_ms > ?2 ORDER BY s.used_ms DESC, "
                         "s.id DESC"),
        end_session(db,
                    "DELETE FROM sessions WHERE account_id = (SELECT id FROM accounts WHERE "
                    "name_key = ?1) AND (?2 = 0 OR id = ?2)") {}

  prepared save_table;
  prepared delete_table;
  prepared load_tables;
  prepared append_record;
  prepared delete_records;
  prepared load_records;
  prepared load_table;
  prepared load_table_records;
  prepared begin;
  prepared commit;
  /// A savepoint around each table write of a batch (write_one), prepared once: it is
  /// run twice per change on the writer thread.
  prepared savepoint;
  prepared release;
  prepared insert_match;
  prepared max_match_id;
  prepared load_match;
  prepared match_count;
  prepared queue_analysis;
  prepared save_analysis;
  prepared load_analysis;
  prepared pending_analyses;
  prepared insert_account;
  prepared insert_rating;
  prepared find_account;
  prepared account_ratings;
  prepared set_password;
  prepared set_last_seen;
  prepared account_keys;
  prepared rating_of;
  prepared update_rating;
  prepared insert_account_match;
  prepared account_matches;
  prepared leaderboard;
  prepared record_moderation;
  prepared delete_bans;
  prepared insert_ban;
  prepared active_bans;
  prepared ignored_by;
  prepared add_ignored;
  prepared remove_ignored;
  prepared insert_session;
  prepared prune_sessions;
  prepared find_session;
  prepared touch_session;
  prepared delete_session;
  prepared account_sessions;
  prepared end_session;
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
    {
      // A damaged file is refused before anything is written to it: the first read of
      // a file that is not a database fails here too.
      std::string findings;
      try {
        prepared qc(db_, "PRAGMA quick_check");
        use u(qc);
        while (u.step("checking " + path)) {
          const std::string line = column_text(u.get(), 0);
          if (line == "ok") continue;
          if (findings.size() < 2000) findings += (findings.empty() ? "" : "; ") + line;
        }
      } catch (const storage_error& e) {
        const int code = sqlite3_errcode(db_) & 0xFF;
        if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) throw storage_corrupt(e.what());
        throw;
      }
      if (!findings.empty())
        throw storage_corrupt("the database " + path + " fails PRAGMA quick_check: " + findings);
    }
    {
      // journal_mode answers with the mode in effect: anything but "wal" means the file
      // system refused it (and durability would not be what the header promises).
      prepared mode(db_, "PRAGMA journal_mode = WAL");
      use u(mode);
      if (!u.step("setting WAL mode on " + path) || column_text(u.get(), 0) != "wal")
        throw storage_error("cannot use WAL mode on " + path);
    }
    exec(options.sync == sync_mode::full ? "PRAGMA synchronous = FULL"
                                         : "PRAGMA synchronous = NORMAL");
    exec("PRAGMA foreign_keys = ON");
    migrate();
    if (options.max_pages > 0)
      exec(("PRAGMA max_page_count = " + std::to_string(options.max_pages)).c_str());
    stmts_ = std::make_unique<statements>(db_);
    {
      use u(stmts_->max_match_id);
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
      exec(migrations[static_cast<std::size_t>(v)]);
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
  use u(stmts_->release);
  u.step("releasing a savepoint");
}

std::optional<std::array<rating_change, 2>> sqlite_store::write_one(const table_write& w) {
  // A savepoint per write: a failing write is undone alone, the batch goes on.
  {
    use u(stmts_->savepoint);
    u.step("opening a savepoint");
  }
  try {
    std::optional<std::array<rating_change, 2>> ratings;
    if (w.drop) {
      {
        use u(stmts_->delete_table);
        u.bind(1, w.name);
        u.step("deleting table " + w.name);
      }
      use u(stmts_->delete_records);
      u.bind(1, w.name);
      u.step("deleting the record of table " + w.name);
      for (const auto& a : w.moderation) insert_moderation(a);
      release_savepoint();
      return ratings;
    }
    if (w.finished_match) {
      // The ratings are read, computed and kept in the record before it is stored; the
      // history rows name the stored match (a foreign key), so they follow it.
      match_record record = *w.finished_match;
      const bool any_account = !w.account_keys[0].empty() || !w.account_keys[1].empty();
      std::array<std::optional<std::pair<std::int64_t, rating_standing>>, 2> players;
      if (any_account) {
        for (std::size_t i = 0; i < 2; ++i) {
          if (w.account_keys[i].empty()) continue;
          use u(stmts_->rating_of);
          u.bind(1, w.account_keys[i]).bind(2, engine::to_string(record.options.game_variant));
          if (!u.step("reading a rating")) continue;  // no such account: a guest
          players[i] = {
              sqlite3_column_int64(u.get(), 0),
              rating_standing{sqlite3_column_double(u.get(), 2), sqlite3_column_int(u.get(), 3)}};
          if (!ratings) ratings.emplace();
          (*ratings)[i].name = column_text(u.get(), 1);
        }
      }
      std::array<std::optional<rating_standing>, 2> standing;
      std::array<std::string, 2> names;
      for (std::size_t i = 0; i < 2; ++i) {
        if (!players[i]) continue;
        standing[i] = players[i]->second;
        names[i] = (*ratings)[i].name;
      }
      ratings = rate_finished_match(w.rated, w.winner, standing, names, record.options.length);
      record.ratings = ratings;
      const bool rated = ratings.has_value();
      insert_match(record.id, record);
      for (std::size_t i = 0; i < 2; ++i) {
        if (!players[i]) continue;
        const auto s = static_cast<engine::side>(i);
        const std::int64_t won = w.winner && *w.winner == s ? 1 : 0;
        {
          use u(stmts_->update_rating);
          u.bind(1, players[i]->first)
              .bind(2, engine::to_string(record.options.game_variant))
              .bind(3, rated ? (*ratings)[i].after : players[i]->second.rating)
              .bind(4, std::int64_t{rated ? (*ratings)[i].experience_after
                                          : players[i]->second.experience})
              .bind(5, won);
          u.step("updating a rating");
        }
        use u(stmts_->insert_account_match);
        u.bind(1, players[i]->first)
            .bind(2, record.id)
            .bind(3, engine::to_string(s))
            .bind(4, record.players[1 - i]);
        if (w.winner) {
          u.bind(5, won);
        } else {
          u.bind_null(5);
        }
        if (rated) {
          u.bind(6, (*ratings)[i].before)
              .bind(7, (*ratings)[i].after)
              .bind(8, std::int64_t{(*ratings)[i].experience_before})
              .bind(9, std::int64_t{(*ratings)[i].experience_after});
        } else {
          u.bind_null(6).bind_null(7).bind_null(8).bind_null(9);
        }
        u.step("recording a match in an account's history");
      }
    }
    if (w.finished_match && w.analyse_match) {
      use u(stmts_->queue_analysis);
      u.bind(1, w.finished_match->id);
      u.step("queueing the analysis of match " + std::to_string(w.finished_match->id));
    }
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
    for (const auto& a : w.moderation) insert_moderation(a);
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
    use u(stmts_->begin);
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
    use u(stmts_->commit);
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

std::vector<saved_table> sqlite_store::load_tables() {
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

std::int64_t sqlite_store::reserve_match_id() {
  return next_match_id_.fetch_add(1);
}

void sqlite_store::insert_match(std::int64_t id, const match_record& record) {
  if (id <= 0) throw storage_error("a finished match has no id");
  const nlohmann::json options = record.options;
  match_record stored = record;
  stored.id = 0;  // the row id is the id; load_match() sets it
  const std::string text = to_json_text(stored);
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
      .bind(10, static_cast<std::int64_t>(record.games.size()))
      .bind(11, id)
      .bind(12, std::int64_t{record.unfinished ? 1 : 0});
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
    use u(stmts_->load_table);
    u.bind(1, name);
    if (!u.step("loading table " + out.name)) return std::nullopt;
    out.snapshot = column_text(u.get(), 0);
  }
  use u(stmts_->load_table_records);
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

std::int64_t sqlite_store::match_count() {
  const std::lock_guard lock(mutex_);
  use u(stmts_->match_count);
  if (!u.step("counting matches")) return 0;
  return sqlite3_column_int64(u.get(), 0);
}

std::optional<analysis_record> sqlite_store::load_analysis(std::int64_t match_id) {
  const std::lock_guard lock(mutex_);
  use u(stmts_->load_analysis);
  u.bind(1, match_id);
  if (!u.step("loading the analysis of match " + std::to_string(match_id))) return std::nullopt;
  analysis_record a;
  a.match_id = match_id;
  const auto status = analysis_status_from_string(column_text(u.get(), 0));
  if (!status)
    throw storage_error("the analysis of match " + std::to_string(match_id) +
                        " has an unknown status");
  a.status = *status;
  a.level = column_text(u.get(), 1);
  a.result = column_text(u.get(), 2);
  a.reason = column_text(u.get(), 3);
  a.queued_at = column_text(u.get(), 4);
  a.finished_at = column_text(u.get(), 5);
  return a;
}

void sqlite_store::save_analysis(const analysis_record& a) {
  const std::lock_guard lock(mutex_);
  use u(stmts_->save_analysis);
  u.bind(1, a.match_id).bind(2, to_string(a.status)).bind(3, a.level).bind(5, a.reason);
  if (!a.result.empty()) u.bind(4, a.result);
  u.step("saving the analysis of match " + std::to_string(a.match_id));
}

std::vector<std::int64_t> sqlite_store::pending_analyses(std::size_t limit) {
  const std::lock_guard lock(mutex_);
  std::vector<std::int64_t> ids;
  use u(stmts_->pending_analyses);
  u.bind(1, static_cast<std::int64_t>(
                std::min<std::size_t>(limit, std::numeric_limits<std::int64_t>::max())));
  while (u.step("listing the pending analyses")) ids.push_back(sqlite3_column_int64(u.get(), 0));
  return ids;
}

// ------------------------------------------------------------------------------------
// Accounts

std::optional<account> sqlite_store::create_account(const std::string& key, const std::string& name,
                                                    account::kind what,
                                                    const std::string& password_hash) {
  if (what == account::kind::player && password_hash.empty())
    throw storage_error("a player account needs a password hash");
  if (what == account::kind::bot && !password_hash.empty())
    throw storage_error("a bot account has no password");
  const std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    {
      use u(stmts_->insert_account);
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
      use u(stmts_->insert_rating);
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
    use u(stmts_->find_account);
    u.bind(1, key);
    if (!u.step("finding an account")) return std::nullopt;
    a.id = sqlite3_column_int64(u.get(), 0);
    a.key = column_text(u.get(), 1);
    a.name = column_text(u.get(), 2);
    a.what = column_text(u.get(), 3) == "bot" ? account::kind::bot : account::kind::player;
    a.password_hash = column_text(u.get(), 4);
    a.created_at = column_text(u.get(), 5);
    a.last_seen = column_text(u.get(), 6);
  }
  use u(stmts_->account_ratings);
  u.bind(1, a.id);
  while (u.step("reading ratings")) {
    const auto v = engine::variant_from_string(column_text(u.get(), 0));
    if (!v) continue;
    auto& st = a.standings[*v == engine::variant::standard ? 0 : 1];
    st.rating = sqlite3_column_double(u.get(), 1);
    st.experience = sqlite3_column_int(u.get(), 2);
    st.played = sqlite3_column_int(u.get(), 3);
    st.won = sqlite3_column_int(u.get(), 4);
  }
  return a;
}

std::optional<account> sqlite_store::find_account(std::string_view key) {
  const std::lock_guard lock(mutex_);
  return find_account_locked(key);
}

bool sqlite_store::set_password_hash(std::string_view key, const std::string& password_hash) {
  if (password_hash.empty()) throw storage_error("a player account needs a password hash");
  const std::lock_guard lock(mutex_);
  use u(stmts_->set_password);
  u.bind(1, key).bind(2, password_hash);
  u.step("changing a password");
  return sqlite3_changes(db_) > 0;
}

void sqlite_store::set_last_seen(std::string_view key) {
  const std::lock_guard lock(mutex_);
  use u(stmts_->set_last_seen);
  u.bind(1, key);
  u.step("recording when a player was last seen");
}

std::vector<std::string> sqlite_store::account_keys() {
  const std::lock_guard lock(mutex_);
  std::vector<std::string> keys;
  use u(stmts_->account_keys);
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
  use u(stmts_->account_matches);
  u.bind(1, key)
      .bind(2, before_id > 0 ? before_id : std::numeric_limits<std::int64_t>::max())
      .bind(3, static_cast<std::int64_t>(std::min<std::size_t>(limit, INT32_MAX)));
  while (u.step("reading a player's matches")) {
    account_match m;
    m.match_id = sqlite3_column_int64(u.get(), 0);
    m.ended_at = column_text(u.get(), 1);
    try {
      m.options = nlohmann::json::parse(column_text(u.get(), 2)).get<engine::match_options>();
    } catch (const nlohmann::json::exception& e) {
      throw storage_error("match " + std::to_string(m.match_id) +
                          " has unreadable options: " + e.what());
    }
    m.side = column_text(u.get(), 3) == "black" ? engine::side::black : engine::side::red;
    m.opponent = column_text(u.get(), 4);
    m.final_score = {sqlite3_column_int(u.get(), 5), sqlite3_column_int(u.get(), 6)};
    if (sqlite3_column_type(u.get(), 7) != SQLITE_NULL) m.won = sqlite3_column_int(u.get(), 7) != 0;
    if (sqlite3_column_type(u.get(), 8) != SQLITE_NULL) {
      m.rating = rating_change{column_text(u.get(), 12), sqlite3_column_double(u.get(), 8),
                               sqlite3_column_double(u.get(), 9), sqlite3_column_int(u.get(), 10),
                               sqlite3_column_int(u.get(), 11)};
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<leaderboard_entry> sqlite_store::leaderboard(engine::variant v, std::size_t limit) {
  std::vector<leaderboard_entry> out;
  if (limit == 0) return out;
  const std::lock_guard lock(mutex_);
  use u(stmts_->leaderboard);
  u.bind(1, engine::to_string(v))
      .bind(2, static_cast<std::int64_t>(std::min<std::size_t>(limit, INT32_MAX)));
  while (u.step("reading the ratings list")) {
    leaderboard_entry e;
    e.rank = static_cast<int>(out.size()) + 1;
    e.name = column_text(u.get(), 0);
    e.standing =
        account::standing{sqlite3_column_double(u.get(), 1), sqlite3_column_int(u.get(), 2),
                          sqlite3_column_int(u.get(), 3), sqlite3_column_int(u.get(), 4)};
    e.bot = column_text(u.get(), 5) == "bot";
    out.push_back(std::move(e));
  }
  return out;
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
  use u(stmts_->record_moderation);
  u.bind(1, a.action).bind(2, a.actor).bind(3, a.target).bind(4, a.table).bind(5, a.detail);
  u.step("logging a moderation action");
}

void sqlite_store::record_moderation(const moderation_action& a) {
  const std::lock_guard lock(mutex_);
  insert_moderation(a);
}

void sqlite_store::save_bans(const std::vector<ban>& bans, const moderation_action& a) {
  if (bans.empty()) throw storage_error("a ban needs a name");
  for (const auto& b : bans)
    if (b.name_key != bans.front().name_key)
      throw storage_error("the bans of one /ban are all of one name");
  const std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    {
      use u(stmts_->delete_bans);
      u.bind(1, bans.front().name_key);
      u.step("replacing a ban");
    }
    for (const auto& b : bans) {
      use u(stmts_->insert_ban);
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
      use u(stmts_->delete_bans);
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
  use u(stmts_->active_bans);
  u.bind(1, now_ms);
  while (u.step("reading the bans")) {
    ban b;
    b.name_key = column_text(u.get(), 0);
    b.address = column_text(u.get(), 1);
    b.name = column_text(u.get(), 2);
    b.by = column_text(u.get(), 3);
    b.created_at = column_text(u.get(), 4);
    b.until_ms = sqlite3_column_int64(u.get(), 5);
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<std::string> sqlite_store::ignored_by(std::string_view key) {
  const std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  use u(stmts_->ignored_by);
  u.bind(1, key);
  while (u.step("reading the names an account ignores")) out.push_back(column_text(u.get(), 0));
  return out;
}

void sqlite_store::set_ignored(std::string_view key, const std::string& ignored_key,
                               const std::string& ignored_name, bool on) {
  const std::lock_guard lock(mutex_);
  use u(on ? stmts_->add_ignored : stmts_->remove_ignored);
  u.bind(1, key).bind(2, ignored_key);
  if (on) u.bind(3, ignored_name);
  u.step(on ? "ignoring a name" : "no longer ignoring a name");
}

namespace {

/// A sessions row (id, name_key, label, created_ms, used_ms, expires_ms) of `stmt`.
login_session session_row(sqlite3_stmt* stmt) {
  login_session out;
  out.id = sqlite3_column_int64(stmt, 0);
  out.account_key = column_text(stmt, 1);
  out.label = column_text(stmt, 2);
  out.created_ms = sqlite3_column_int64(stmt, 3);
  out.used_ms = sqlite3_column_int64(stmt, 4);
  out.expires_ms = sqlite3_column_int64(stmt, 5);
  return out;
}

}  // namespace

std::int64_t sqlite_store::create_session(std::string_view key, const std::string& token_hash,
                                          const std::string& label, std::int64_t now_ms,
                                          std::int64_t expires_ms, std::size_t keep) {
  const std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    std::int64_t id = 0;
    {
      use u(stmts_->insert_session);
      u.bind(1, key).bind(2, token_hash).bind(3, label).bind(4, now_ms).bind(5, expires_ms);
      if (u.step("storing a session")) id = sqlite3_column_int64(u.get(), 0);
    }
    {
      use u(stmts_->prune_sessions);
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
    use u(stmts_->find_session);
    u.bind(1, token_hash);
    if (u.step("reading a session")) found = session_row(u.get());
  }
  if (!found) return std::nullopt;
  if (found->expires_ms <= now_ms) {
    use u(stmts_->delete_session);
    u.bind(1, found->id);
    u.step("forgetting an expired session");
    return std::nullopt;
  }
  use u(stmts_->touch_session);
  u.bind(1, found->id).bind(2, now_ms).bind(3, expires_ms);
  u.step("marking a session used");
  found->used_ms = now_ms;
  found->expires_ms = expires_ms;
  return found;
}

std::vector<login_session> sqlite_store::sessions_of(std::string_view key, std::int64_t now_ms) {
  const std::lock_guard lock(mutex_);
  std::vector<login_session> out;
  use u(stmts_->account_sessions);
  u.bind(1, key).bind(2, now_ms);
  while (u.step("reading an account's sessions")) out.push_back(session_row(u.get()));
  return out;
}

std::size_t sqlite_store::end_sessions(std::string_view key, std::int64_t id) {
  const std::lock_guard lock(mutex_);
  use u(stmts_->end_session);
  u.bind(1, key).bind(2, id);
  u.step("ending sessions");
  return static_cast<std::size_t>(sqlite3_changes(db_));
}

}  // namespace bg::server
