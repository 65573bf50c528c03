#include "sqlite_statements.hpp"

#include <climits>

#include "store/store_core.hpp"

namespace bg::server::sqlite {

namespace {

/// SQLite's clock as ISO 8601 UTC with milliseconds.
constexpr const char* now_sql = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

}  // namespace

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

// --- prepared, use -------------------------------------------------------------------

prepared::prepared(sqlite3* db, const std::string& sql) : db_(db) {
  check(db,
        sqlite3_prepare_v3(db, sql.c_str(), text_size(sql), SQLITE_PREPARE_PERSISTENT, &stmt_,
                           nullptr),
        "preparing a statement");
}

use& use::bind(int index, std::string_view text) {
  check(db_, sqlite3_bind_text(stmt_, index, text.data(), text_size(text), SQLITE_TRANSIENT),
        "binding a value");
  return *this;
}

use& use::bind(int index, std::int64_t value) {
  check(db_, sqlite3_bind_int64(stmt_, index, value), "binding a value");
  return *this;
}

use& use::bind(int index, double value) {
  check(db_, sqlite3_bind_double(stmt_, index, value), "binding a value");
  return *this;
}

use& use::bind_null(int index) {
  check(db_, sqlite3_bind_null(stmt_, index), "binding a value");
  return *this;
}

bool use::step(std::string_view what) {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, what);
}

bool use::step(std::string_view what, std::string_view name) {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string said(what);
  said += name;
  fail(db_, said);
}

// --- the statements, by topic ----------------------------------------------------------

table_statements::table_statements(sqlite3* db)
    : save_table(db,
                 "INSERT INTO tables(name, snapshot, updated_at) VALUES (?1, ?2, ?3) "
                 "ON CONFLICT(name) DO UPDATE SET snapshot = excluded.snapshot, "
                 "updated_at = excluded.updated_at"),
      delete_table(db, "DELETE FROM tables WHERE name = ?1"),
      load_tables(db, "SELECT name, snapshot FROM tables ORDER BY name"),
      append_record(db, "INSERT INTO table_records(table_name, entry) VALUES (?1, ?2)"),
      delete_records(db, "DELETE FROM table_records WHERE table_name = ?1"),
      load_records(db, "SELECT table_name, entry FROM table_records ORDER BY table_name, id"),
      load_table(db, "SELECT snapshot FROM tables WHERE name = ?1"),
      load_table_records(db, "SELECT entry FROM table_records WHERE table_name = ?1 ORDER BY id") {}

transaction_statements::transaction_statements(sqlite3* db)
    : begin(db, "BEGIN IMMEDIATE"),
      commit(db, "COMMIT"),
      savepoint(db, "SAVEPOINT one_table"),
      release(db, "RELEASE one_table") {}

match_statements::match_statements(sqlite3* db)
    : insert_match(db, std::string("INSERT INTO matches(table_name, red, black, options, record, "
                                   "started_at, ended_at, score_red, score_black, games, "
                                   "saved_at, id, unfinished) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                                   "?8, ?9, ?10, ") +
                           now_sql + ", ?11, ?12)"),
      max_match_id(db, "SELECT coalesce(max(id), 0) FROM matches"),
      load_match(db, "SELECT record FROM matches WHERE id = ?1"),
      match_count(db, "SELECT count(*) FROM matches") {}

analysis_statements::analysis_statements(sqlite3* db)
    : queue_analysis(db, std::string("INSERT INTO analyses(match_id, status, queued_at) "
                                     "VALUES (?1, 'pending', ") +
                             now_sql + ")"),
      save_analysis(db, std::string("INSERT INTO analyses(match_id, status, level, result, reason, "
                                    "queued_at, finished_at, red_equity_lost, red_decisions, "
                                    "black_equity_lost, black_decisions) VALUES (?1, ?2, ?3, ?4, "
                                    "?5, ") +
                            now_sql + ", CASE WHEN ?2 = 'pending' THEN NULL ELSE " + now_sql +
                            " END, ?6, ?7, ?8, ?9) ON CONFLICT(match_id) DO UPDATE SET status = "
                            "excluded.status, level = excluded.level, result = excluded.result, "
                            "reason = excluded.reason, finished_at = excluded.finished_at, "
                            "red_equity_lost = excluded.red_equity_lost, red_decisions = "
                            "excluded.red_decisions, black_equity_lost = "
                            "excluded.black_equity_lost, black_decisions = "
                            "excluded.black_decisions"),
      load_analysis(db,
                    "SELECT status, level, result, reason, queued_at, finished_at FROM "
                    "analyses WHERE match_id = ?1"),
      pending_analyses(db,
                       "SELECT match_id FROM analyses WHERE status = 'pending' ORDER BY "
                       "match_id LIMIT ?1") {}

account_statements::account_statements(sqlite3* db)
    : insert_account(db, std::string("INSERT INTO accounts(name_key, name, kind, password_hash, "
                                     "created_at) VALUES (?1, ?2, ?3, ?4, ") +
                             now_sql + ") ON CONFLICT(name_key) DO NOTHING"),
      insert_rating(db,
                    "INSERT INTO ratings(account_id, variant) VALUES (?1, 'standard'), (?1, "
                    "'long')"),
      find_account(db,
                   "SELECT id, name_key, name, kind, coalesce(password_hash, ''), created_at, "
                   "coalesce(last_seen, ''), coalesce(lang, '') FROM accounts WHERE name_key = ?1"),
      account_ratings(db,
                      "SELECT variant, rating, experience, played, won FROM ratings WHERE "
                      "account_id = ?1"),
      set_password(db,
                   "UPDATE accounts SET password_hash = ?2 WHERE name_key = ?1 AND kind = "
                   "'player'"),
      set_last_seen(
          db, std::string("UPDATE accounts SET last_seen = ") + now_sql + " WHERE name_key = ?1"),
      set_lang(db, "UPDATE accounts SET lang = nullif(?2, '') WHERE name_key = ?1"),
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
          "am.experience_after, a.name, " +
              store_core::pr_side_sum("equity_lost") + ", " + store_core::pr_side_sum("decisions") +
              " FROM account_matches am JOIN accounts a ON a.id = am.account_id JOIN matches m "
              "ON m.id = am.match_id LEFT JOIN analyses an ON an.match_id = am.match_id AND "
              "an.status = 'done' WHERE a.name_key = ?1 AND am.match_id < ?2 ORDER BY "
              "am.match_id DESC LIMIT ?3"),
      // The page of the list first, then the PR sums of its lines only.
      leaderboard(db,
                  "SELECT l.name, l.rating, l.experience, l.played, l.won, l.kind, " +
                      store_core::line_pr_sums() +
                      " FROM (SELECT a.id, a.name, a.name_key, r.rating, r.experience, r.played, "
                      "r.won, a.kind FROM ratings r JOIN accounts a ON a.id = r.account_id WHERE "
                      "r.variant = ?1 AND r.experience > 0 ORDER BY r.rating DESC, a.name_key "
                      "LIMIT ?2) l ORDER BY l.rating DESC, l.name_key"),
      leaderboard_by_pr(
          db, "WITH p AS (SELECT am.account_id, " + store_core::pr_sum("equity_lost") +
                  " AS lost, " + store_core::pr_sum("decisions") +
                  " AS decisions FROM account_matches am JOIN analyses an ON an.match_id = "
                  "am.match_id AND an.status = 'done' GROUP BY am.account_id) SELECT a.name, "
                  "r.rating, r.experience, r.played, r.won, a.kind, p.lost, p.decisions FROM "
                  "ratings r JOIN accounts a ON a.id = r.account_id LEFT JOIN p ON p.account_id = "
                  "a.id WHERE r.variant = ?1 AND r.experience > 0 ORDER BY CASE WHEN p.decisions "
                  "> 0 THEN 0 ELSE 1 END, p.lost / nullif(p.decisions, 0), r.rating DESC, "
                  "a.name_key LIMIT ?2"),
      account_performance(
          db, "SELECT " + store_core::pr_sum("equity_lost") + ", " +
                  store_core::pr_sum("decisions") + ", count(" +
                  store_core::pr_side_sum("decisions") +
                  ") FROM account_matches am JOIN accounts a ON a.id = am.account_id JOIN matches "
                  "m ON m.id = am.match_id JOIN analyses an ON an.match_id = am.match_id AND "
                  "an.status = 'done' WHERE a.name_key = ?1 AND m.ended_at >= ?2") {}

moderation_statements::moderation_statements(sqlite3* db)
    : record_moderation(db, std::string("INSERT INTO moderation(at, action, actor, target, "
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
                     "FROM accounts WHERE name_key = ?1)") {}

session_statements::session_statements(sqlite3* db)
    : insert_session(db,
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

}  // namespace bg::server::sqlite
