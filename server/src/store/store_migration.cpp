#include "bg/server/store/store_migration.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "bg/server/store/sqlite_store.hpp"
#include "store/postgres/pg_connection.hpp"

namespace bg::server {

namespace {

/// A read-only SQLite connection, closed with its scope.
class source_db {
 public:
  explicit source_db(const std::string& path) : path_(path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
      fail("cannot open " + path);
    sqlite3_busy_timeout(db_, 5000);
  }
  ~source_db() { sqlite3_close_v2(db_); }
  source_db(const source_db&) = delete;
  source_db& operator=(const source_db&) = delete;

  [[noreturn]] void fail(const std::string& what) const {
    throw storage_error(what + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory"));
  }
  void exec(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
      fail(std::string("reading ") + path_);
  }
  /// Runs `sql` with `id` bound to ?1 when given, calling `row` with each row's columns
  /// as text (nullopt for NULL; a REAL as the shortest text that reads back exactly).
  void each_row(const char* sql, const std::function<void(const std::vector<pg::param>&)>& row,
                std::optional<std::int64_t> id = std::nullopt) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &stmt, nullptr) != SQLITE_OK)
      fail(std::string("reading ") + path_);
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(stmt, sqlite3_finalize);
    if (id) sqlite3_bind_int64(stmt, 1, *id);
    const int columns = sqlite3_column_count(stmt);
    std::vector<pg::param> values(static_cast<std::size_t>(columns));
    int rc = SQLITE_ROW;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      for (int c = 0; c < columns; ++c) {
        auto& value = values[static_cast<std::size_t>(c)];
        const int type = sqlite3_column_type(stmt, c);
        if (type == SQLITE_NULL) {
          value.reset();
        } else if (type == SQLITE_FLOAT) {
          value = pg::real_text(sqlite3_column_double(stmt, c));
        } else {
          const auto* text = sqlite3_column_text(stmt, c);
          value.emplace(text ? reinterpret_cast<const char*>(text) : "",
                        static_cast<std::size_t>(sqlite3_column_bytes(stmt, c)));
        }
      }
      row(values);
    }
    if (rc != SQLITE_DONE) fail(std::string("reading ") + path_);
  }
  /// each_row() with NULL as "".
  void each(const char* sql, const std::function<void(const std::vector<std::string>&)>& row,
            std::optional<std::int64_t> id = std::nullopt) {
    std::vector<std::string> text;
    each_row(
        sql,
        [&](const std::vector<pg::param>& values) {
          text.resize(values.size());
          for (std::size_t c = 0; c < values.size(); ++c) text[c] = values[c].value_or("");
          row(text);
        },
        id);
  }
  std::int64_t count(const char* sql) {
    std::int64_t n = 0;
    each(sql, [&](const std::vector<std::string>& v) { n = std::stoll(v.at(0)); });
    return n;
  }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

constexpr const char* match_columns =
    "id, table_name, red, black, options, record, started_at, ended_at, score_red, "
    "score_black, games, saved_at, unfinished";

/// `column` (a timestamptz) as ISO 8601 UTC text with milliseconds, as SQLite writes it.
std::string iso_text(const std::string& column) {
  return "coalesce(to_char(" + column +
         " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), '')";
}

/// The ids of the matches to read back: the first, the last and up to 98 evenly spaced.
std::vector<std::int64_t> sample(const std::vector<std::int64_t>& ids) {
  constexpr std::size_t most = 100;
  if (ids.size() <= most) return ids;
  std::set<std::int64_t> chosen{ids.front(), ids.back()};
  for (std::size_t k = 1; chosen.size() < most && k < most; ++k)
    chosen.insert(ids[k * (ids.size() - 1) / (most - 1)]);
  return {chosen.begin(), chosen.end()};
}

/// Locks the target's tables against any gammond for the rest of the copy and checks
/// that they are empty. Throws storage_error when the target holds a table, a journal
/// entry, a match, an account, a moderation record or a ban (the message counts them).
void lock_empty_target(pg::connection& dst) {
  // No gammond may write the target meanwhile; it must be empty.
  dst.command("locking the target's tables",
              "LOCK TABLE tables, table_records, matches, accounts, moderation, bans IN EXCLUSIVE "
              "MODE");
  const auto held = dst.exec("counting what the target holds",
                             "SELECT (SELECT count(*) FROM tables), (SELECT count(*) FROM "
                             "table_records), (SELECT count(*) FROM matches), (SELECT "
                             "count(*) FROM accounts), (SELECT count(*) FROM moderation) + "
                             "(SELECT count(*) FROM bans)");
  if (held.integer(0, 0) + held.integer(0, 1) + held.integer(0, 2) + held.integer(0, 3) +
          held.integer(0, 4) >
      0)
    throw storage_error("the target database " + dst.masked_url() + " is not empty (" +
                        held.text(0, 0) + " tables, " + held.text(0, 1) + " journal entries, " +
                        held.text(0, 2) + " matches, " + held.text(0, 3) + " accounts, " +
                        held.text(0, 4) +
                        " moderation records and bans): gammond migrate copies into an empty "
                        "database only (make one with "
                        "createdb)");
}

/// Copies the tables in progress (their snapshots, by name) and then their record
/// journals (in the order written), counting them in `report`. Throws storage_error
/// when a row cannot be read or written.
void copy_tables(source_db& src, pg::connection& dst, migration_report& report) {
  src.each("SELECT name, snapshot, updated_at FROM tables ORDER BY name",
           [&](const std::vector<std::string>& v) {
             dst.exec("copying table " + v[0],
                      "INSERT INTO tables(name, snapshot, updated_at) "
                      "VALUES ($1, $2::json, $3::timestamptz)",
                      {v[0], v[1], v[2]});
             ++report.tables;
           });
  src.each("SELECT table_name, entry FROM table_records ORDER BY id",
           [&](const std::vector<std::string>& v) {
             dst.exec("copying a journal entry of table " + v[0],
                      "INSERT INTO table_records(table_name, entry) VALUES ($1, $2::json)",
                      {v[0], v[1]});
             ++report.record_entries;
           });
}

/// Copies the finished (and unfinished) matches under their own ids, counting them in
/// `report`, and returns their ids in order. Throws storage_error when a row cannot be
/// read or written.
std::vector<std::int64_t> copy_matches(source_db& src, pg::connection& dst,
                                       migration_report& report) {
  std::vector<std::int64_t> ids;
  src.each((std::string("SELECT ") + match_columns + " FROM matches ORDER BY id").c_str(),
           [&](const std::vector<std::string>& v) {
             dst.exec("copying match " + v[0],
                      "INSERT INTO matches(id, table_name, red, black, options, record, "
                      "started_at, ended_at, score_red, score_black, games, saved_at, "
                      "unfinished) VALUES ($1, $2, $3, $4, $5::json, $6::json, $7, $8, $9, "
                      "$10, $11, $12::timestamptz, $13::boolean)",
                      {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
                       v[12] == "0" ? "false" : "true"});
             ids.push_back(std::stoll(v[0]));
             ++report.matches;
           });
  return ids;
}

/// Copies the matches' analyses (schema 3 of SQLite) with their PR sums (schema 7, S7;
/// doubles copied exactly), counting them in `report`. Throws storage_error when a row
/// cannot be read or written.
void copy_analyses(source_db& src, pg::connection& dst, migration_report& report) {
  // NULL result, finished_at and sums come as NULL and go back as NULL.
  src.each_row(
      "SELECT match_id, status, level, result, reason, queued_at, finished_at, red_equity_lost, "
      "red_decisions, black_equity_lost, black_decisions FROM analyses ORDER BY match_id",
      [&](const std::vector<pg::param>& v) {
        dst.exec("copying the analysis of match " + v[0].value_or(""),
                 "INSERT INTO analyses(match_id, status, level, result, reason, queued_at, "
                 "finished_at, red_equity_lost, red_decisions, black_equity_lost, "
                 "black_decisions) VALUES ($1, $2, $3, $4::json, $5, $6::timestamptz, "
                 "$7::timestamptz, $8::double precision, $9::integer, $10::double precision, "
                 "$11::integer)",
                 v);
        ++report.analyses;
      });
}

/// Copies the accounts (schema 4 of SQLite) under their own ids, moves the account id
/// sequence past them, then copies their ratings (doubles copied exactly) and their
/// histories; counts accounts and history rows in `report`. Throws storage_error when a
/// row cannot be read or written.
void copy_accounts(source_db& src, pg::connection& dst, migration_report& report) {
  std::int64_t last_account = 0;
  src.each_row(
      "SELECT id, name_key, name, kind, password_hash, created_at, last_seen, lang FROM "
      "accounts ORDER BY id",
      [&](const std::vector<pg::param>& v) {
        dst.exec("copying account " + v[2].value_or(""),
                 "INSERT INTO accounts(id, name_key, name, kind, password_hash, created_at, "
                 "last_seen, lang) VALUES ($1, $2, $3, $4, $5, $6::timestamptz, "
                 "$7::timestamptz, $8)",
                 v);
        last_account = std::stoll(v[0].value_or("0"));
        ++report.accounts;
      });
  if (last_account > 0)
    dst.exec("moving the account id sequence past the copied accounts",
             "SELECT setval(pg_get_serial_sequence('accounts', 'id'), $1::bigint)",
             {std::to_string(last_account)});
  src.each_row(
      "SELECT account_id, variant, rating, experience, played, won FROM ratings ORDER BY "
      "account_id, variant",
      [&](const std::vector<pg::param>& v) {
        dst.exec("copying a rating",
                 "INSERT INTO ratings(account_id, variant, rating, experience, played, won) "
                 "VALUES ($1, $2, $3, $4, $5, $6)",
                 v);
      });
  src.each_row(
      "SELECT account_id, match_id, side, opponent, won, rating_before, rating_after, "
      "experience_before, experience_after FROM account_matches ORDER BY match_id, account_id",
      [&](std::vector<pg::param> v) {
        if (v[4]) v[4] = *v[4] == "0" ? "false" : "true";  // won: 0/1 to boolean
        dst.exec("copying a match of an account's history",
                 "INSERT INTO account_matches(account_id, match_id, side, opponent, won, "
                 "rating_before, rating_after, experience_before, experience_after) VALUES "
                 "($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                 v);
        ++report.account_matches;
      });
}

/// Copies the moderation log (schema 5 of SQLite) under its own ids and moves its id
/// sequence past them, then the bans (a NULL until_ms stays NULL: until /unban) and the
/// names each account ignores, counting all three in `report`. Throws storage_error when
/// a row cannot be read or written.
void copy_moderation(source_db& src, pg::connection& dst, migration_report& report) {
  std::int64_t last_action = 0;
  src.each_row(
      "SELECT id, at, action, actor, target, table_name, detail FROM moderation ORDER BY id",
      [&](const std::vector<pg::param>& v) {
        dst.exec("copying a moderation record",
                 "INSERT INTO moderation(id, at, action, actor, target, table_name, detail) "
                 "OVERRIDING SYSTEM VALUE VALUES ($1, $2::timestamptz, $3, $4, $5, $6, $7)",
                 v);
        last_action = std::stoll(v[0].value_or("0"));
        ++report.moderation;
      });
  if (last_action > 0)
    dst.exec("moving the moderation id sequence past the copied records",
             "SELECT setval(pg_get_serial_sequence('moderation', 'id'), $1::bigint)",
             {std::to_string(last_action)});
  src.each_row(
      "SELECT name_key, address, name, banned_by, created_at, until_ms FROM bans ORDER BY "
      "name_key, address",
      [&](const std::vector<pg::param>& v) {
        dst.exec("copying a ban",
                 "INSERT INTO bans(name_key, address, name, banned_by, created_at, until_ms) "
                 "VALUES ($1, $2, $3, $4, $5::timestamptz, $6)",
                 v);
        ++report.bans;
      });
  src.each_row(
      "SELECT account_id, ignored_key, ignored_name, created_at FROM ignores ORDER BY "
      "account_id, ignored_key",
      [&](const std::vector<pg::param>& v) {
        dst.exec("copying an ignored name",
                 "INSERT INTO ignores(account_id, ignored_key, ignored_name, created_at) VALUES "
                 "($1, $2, $3, $4::timestamptz)",
                 v);
        ++report.ignores;
      });
}

/// Copies the remembered sign-ins (schema 6 of SQLite), so that the players signed in
/// stay signed in, counting them in `report`. Throws storage_error when a row cannot be
/// read or written.
void copy_sessions(source_db& src, pg::connection& dst, migration_report& report) {
  src.each_row(
      "SELECT account_id, token_hash, label, created_ms, used_ms, expires_ms FROM sessions "
      "ORDER BY id",
      [&](const std::vector<pg::param>& v) {
        dst.exec("copying a session",
                 "INSERT INTO sessions(account_id, token_hash, label, created_ms, used_ms, "
                 "expires_ms) VALUES ($1, $2, $3, $4, $5, $6)",
                 v);
        ++report.sessions;
      });
}

/// Moves the `match_ids` sequence past the largest of the copied matches' `ids` (never
/// back from where it stands); nothing when none was copied. Throws storage_error when
/// the statement fails.
void move_match_ids(pg::connection& dst, const std::vector<std::int64_t>& ids) {
  if (!ids.empty())
    dst.exec("moving the match id sequence past the copied matches",
             "SELECT setval('match_ids', GREATEST($1::bigint, (SELECT last_value FROM match_ids)))",
             {std::to_string(ids.back())});
}

/// Throws storage_error: the copy differs from the source at `sqlite_path` in `what`.
[[noreturn]] void copy_differs(const std::string& sqlite_path, const std::string& what) {
  throw storage_error("the copy differs from " + sqlite_path + " (" + what +
                      "): nothing was copied");
}

/// Reads `pg_sql` back from the target and `sqlite_sql` from the source, both in the
/// same order, and returns how many rows they have; each row must be the same text,
/// column for column. Throws storage_error (copy_differs) naming `differs(row)` for the
/// first source row that differs, "the number of `what`" when the counts differ.
int read_back(source_db& src, pg::connection& dst, const std::string& sqlite_path,
              const std::string& what, const std::string& pg_sql, const char* sqlite_sql,
              const std::function<std::string(const std::vector<std::string>&)>& differs) {
  const auto back = dst.exec("reading the " + what + " back", pg_sql.c_str());
  int row = 0;
  src.each(sqlite_sql, [&](const std::vector<std::string>& v) {
    bool same = row < back.rows();
    for (std::size_t c = 0; same && c < v.size(); ++c)
      same = back.text(row, static_cast<int>(c)) == v[c];
    if (!same) copy_differs(sqlite_path, differs(v));
    ++row;
  });
  if (row != back.rows()) copy_differs(sqlite_path, "the number of " + what);
  return row;
}

/// Checks that the target holds as many tables, journal entries and matches as the
/// source and as were copied (`report`). Throws storage_error (copy_differs) otherwise.
void check_table_counts(source_db& src, pg::connection& dst, const std::string& sqlite_path,
                        const migration_report& report) {
  const auto copied = dst.exec("counting the copy",
                               "SELECT (SELECT count(*) FROM tables), (SELECT count(*) FROM "
                               "table_records), (SELECT count(*) FROM matches)");
  if (copied.integer(0, 0) != src.count("SELECT count(*) FROM tables") ||
      copied.integer(0, 0) != report.tables)
    copy_differs(sqlite_path, "the number of tables");
  if (copied.integer(0, 1) != src.count("SELECT count(*) FROM table_records") ||
      copied.integer(0, 1) != report.record_entries)
    copy_differs(sqlite_path, "the number of journal entries");
  if (copied.integer(0, 2) != src.count("SELECT count(*) FROM matches") ||
      copied.integer(0, 2) != report.matches)
    copy_differs(sqlite_path, "the number of matches");
}

/// Reads every table and every journal entry back, in bytewise name order on both
/// sides (SQLite's BINARY, PostgreSQL's "C"): the rows must be the same, one for one.
/// Counts the tables in `report.tables_checked`. Throws storage_error (copy_differs)
/// naming the first table that differs.
void check_tables(source_db& src, pg::connection& dst, const std::string& sqlite_path,
                  migration_report& report) {
  report.tables_checked =
      read_back(src, dst, sqlite_path, "tables",
                "SELECT name, snapshot FROM tables ORDER BY name COLLATE \"C\"",
                "SELECT name, snapshot FROM tables ORDER BY name",
                [](const std::vector<std::string>& v) { return "tables of table " + v[0]; });
  read_back(src, dst, sqlite_path, "journal entries",
            "SELECT table_name, entry FROM table_records ORDER BY table_name COLLATE \"C\", id",
            "SELECT table_name, entry FROM table_records ORDER BY table_name, id",
            [](const std::vector<std::string>& v) { return "journal entries of table " + v[0]; });
}

/// Checks that the target holds as many analyses, accounts, ratings and history rows as
/// the source (and analyses, accounts and history rows as were copied: `report`).
/// Throws storage_error (copy_differs) otherwise.
void check_analysis_and_account_counts(source_db& src, pg::connection& dst,
                                       const std::string& sqlite_path,
                                       const migration_report& report) {
  const auto analyses = dst.exec("counting the copied analyses", "SELECT count(*) FROM analyses");
  if (analyses.integer(0, 0) != src.count("SELECT count(*) FROM analyses") ||
      analyses.integer(0, 0) != report.analyses)
    copy_differs(sqlite_path, "the number of analyses");
  const auto people =
      dst.exec("counting the copied accounts",
               "SELECT (SELECT count(*) FROM accounts), (SELECT count(*) FROM ratings), "
               "(SELECT count(*) FROM account_matches)");
  if (people.integer(0, 0) != src.count("SELECT count(*) FROM accounts") ||
      people.integer(0, 0) != report.accounts)
    copy_differs(sqlite_path, "the number of accounts");
  if (people.integer(0, 1) != src.count("SELECT count(*) FROM ratings"))
    copy_differs(sqlite_path, "the number of ratings");
  if (people.integer(0, 2) != src.count("SELECT count(*) FROM account_matches") ||
      people.integer(0, 2) != report.account_matches)
    copy_differs(sqlite_path, "the number of account histories");
}

/// Reads every account back (its times as SQLite wrote them), counted in
/// `report.accounts_checked`, then every rating (compared as numbers: both texts read
/// back exactly). Throws storage_error (copy_differs) naming the first account or
/// rating that differs, or "the number of accounts".
void check_accounts(source_db& src, pg::connection& dst, const std::string& sqlite_path,
                    migration_report& report) {
  report.accounts_checked = read_back(
      src, dst, sqlite_path, "accounts",
      "SELECT id, name_key, name, kind, coalesce(password_hash, ''), " + iso_text("created_at") +
          ", " + iso_text("last_seen") + ", coalesce(lang, '') FROM accounts ORDER BY id",
      "SELECT id, name_key, name, kind, coalesce(password_hash, ''), created_at, "
      "coalesce(last_seen, ''), coalesce(lang, '') FROM accounts ORDER BY id",
      [](const std::vector<std::string>& v) { return "account " + v[2]; });
  const auto ratings = dst.exec("reading the ratings back",
                                "SELECT account_id, variant, rating, experience, played, won "
                                "FROM ratings ORDER BY account_id, variant");
  int row = 0;
  src.each_row(
      "SELECT account_id, variant, rating, experience, played, won FROM ratings ORDER BY "
      "account_id, variant",
      [&](const std::vector<pg::param>& v) {
        bool same = row < ratings.rows() && v[2] && ratings.real(row, 2) == std::stod(*v[2]);
        for (int c : {0, 1, 3, 4, 5})
          same = same && ratings.text(row, c) == v[static_cast<std::size_t>(c)].value_or("");
        if (!same) copy_differs(sqlite_path, "the rating of account " + v[0].value_or(""));
        ++row;
      });
}

/// Reads every moderation record, ban and ignored name back, with its times as SQLite
/// wrote them; the moderation records are counted in `report.moderation_checked`, and
/// each count must be the copied one (`report`). Throws storage_error (copy_differs)
/// naming the kind of row that differs.
void check_moderation(source_db& src, pg::connection& dst, const std::string& sqlite_path,
                      migration_report& report) {
  const auto named = [](const char* what) {
    return [what](const std::vector<std::string>&) { return std::string(what); };
  };
  report.moderation_checked = read_back(
      src, dst, sqlite_path, "moderation records",
      "SELECT id, " + iso_text("at") +
          ", action, actor, target, table_name, detail FROM moderation ORDER BY id",
      "SELECT id, at, action, actor, target, table_name, detail FROM moderation ORDER BY id",
      named("moderation records"));
  if (report.moderation_checked != report.moderation)
    copy_differs(sqlite_path, "the number of moderation records");
  if (read_back(src, dst, sqlite_path, "bans",
                "SELECT name_key, address, name, banned_by, " + iso_text("created_at") +
                    ", coalesce(until_ms::text, '') FROM bans ORDER BY name_key COLLATE \"C\", "
                    "address COLLATE \"C\"",
                "SELECT name_key, address, name, banned_by, created_at, coalesce(until_ms, '') "
                "FROM bans ORDER BY name_key, address",
                named("bans")) != report.bans)
    copy_differs(sqlite_path, "the number of bans");
  if (read_back(src, dst, sqlite_path, "ignored names",
                "SELECT account_id, ignored_key, ignored_name, " + iso_text("created_at") +
                    " FROM ignores ORDER BY account_id, ignored_key COLLATE \"C\"",
                "SELECT account_id, ignored_key, ignored_name, created_at FROM ignores ORDER "
                "BY account_id, ignored_key",
                named("ignored names")) != report.ignores)
    copy_differs(sqlite_path, "the number of ignored names");
}

/// Checks that every remembered sign-in reads back equal (its account, credential hash,
/// label and times), as many as were copied (`report.sessions`), counting them in
/// `report.sessions_checked`. Throws storage_error (copy_differs) otherwise.
void check_sessions(source_db& src, pg::connection& dst, const std::string& sqlite_path,
                    migration_report& report) {
  const char* columns = "SELECT account_id, token_hash, label, created_ms, used_ms, expires_ms ";
  report.sessions_checked =
      read_back(src, dst, sqlite_path, "sessions",
                std::string(columns) + "FROM sessions ORDER BY token_hash COLLATE \"C\"",
                (std::string(columns) + "FROM sessions ORDER BY token_hash").c_str(),
                [](const std::vector<std::string>& v) { return "the session of account " + v[0]; });
  if (report.sessions_checked != report.sessions)
    copy_differs(sqlite_path, "the number of sessions");
}

/// Reads match `id` back: every column but saved_at must be the source's text (its
/// unfinished flag as 0 or 1). Throws storage_error (copy_differs) "match `id`" when it
/// differs or is missing.
void check_match(source_db& src, pg::connection& dst, const std::string& sqlite_path,
                 std::int64_t id) {
  const auto back = dst.exec("reading match " + std::to_string(id) + " back",
                             "SELECT id, table_name, red, black, options, record, started_at, "
                             "ended_at, score_red, score_black, games, CASE WHEN unfinished THEN "
                             "'1' ELSE '0' END FROM matches WHERE id = $1",
                             {std::to_string(id)});
  bool found = false;
  src.each((std::string("SELECT ") + match_columns + " FROM matches WHERE id = ?1").c_str(),
           [&](const std::vector<std::string>& v) {
             found = back.rows() == 1;
             for (int c = 0; found && c < 11; ++c)
               found = back.text(0, c) == v[static_cast<std::size_t>(c)];
             found = found && back.text(0, 11) == v.at(12);
           },
           id);
  if (!found) copy_differs(sqlite_path, "match " + std::to_string(id));
}

/// Reads the analysis of match `id` back, if it has one, with its times as SQLite wrote
/// them. Throws storage_error (copy_differs) "the analysis of match `id`" when it
/// differs or when one side has it and the other not.
void check_analysis(source_db& src, pg::connection& dst, const std::string& sqlite_path,
                    std::int64_t id) {
  const auto analysis = dst.exec(
      "reading the analysis of match " + std::to_string(id) + " back",
      "SELECT match_id, status, level, coalesce(result::text, ''), reason, coalesce(to_char("
      "queued_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), ''), "
      "coalesce(to_char(finished_at AT TIME ZONE 'UTC', "
      "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), '') FROM analyses WHERE match_id = $1",
      {std::to_string(id)});
  int rows = 0;
  src.each(
      "SELECT match_id, status, level, result, reason, queued_at, finished_at FROM analyses "
      "WHERE match_id = ?1",
      [&](const std::vector<std::string>& v) {
        bool same = analysis.rows() == 1;
        for (int c = 0; same && c < 7; ++c)
          same = analysis.text(0, c) == v[static_cast<std::size_t>(c)];
        if (!same) copy_differs(sqlite_path, "the analysis of match " + std::to_string(id));
        ++rows;
      },
      id);
  if (rows != analysis.rows())
    copy_differs(sqlite_path, "the analysis of match " + std::to_string(id));
}

/// Reads the rows of match `id` in its players' histories back: the texts equal, won as
/// a boolean, the ratings before and after as numbers (NULL where SQLite has NULL).
/// Throws storage_error (copy_differs) "the histories of match `id`" when they differ.
void check_histories(source_db& src, pg::connection& dst, const std::string& sqlite_path,
                     std::int64_t id) {
  const auto history =
      dst.exec("reading the histories of match " + std::to_string(id) + " back",
               "SELECT account_id, side, opponent, won, rating_before, rating_after, "
               "experience_before, experience_after FROM account_matches WHERE match_id = $1 ORDER "
               "BY account_id",
               {std::to_string(id)});
  int rows = 0;
  src.each_row(
      "SELECT account_id, side, opponent, won, rating_before, rating_after, "
      "experience_before, experience_after FROM account_matches WHERE match_id = ?1 ORDER "
      "BY account_id",
      [&](const std::vector<pg::param>& v) {
        const int r = rows++;
        const auto at = [&](int c) -> const pg::param& { return v[static_cast<std::size_t>(c)]; };
        bool same = r < history.rows();
        for (int c : {0, 1, 2, 6, 7}) same = same && history.text(r, c) == at(c).value_or("");
        same = same && history.is_null(r, 3) == !at(3) &&
               (!at(3) || (history.text(r, 3) == "t") == (*at(3) != "0"));
        for (int c : {4, 5})
          same = same && history.is_null(r, c) == !at(c) &&
                 (!at(c) || history.real(r, c) == std::stod(*at(c)));
        if (!same) copy_differs(sqlite_path, "the histories of match " + std::to_string(id));
      },
      id);
  if (rows != history.rows())
    copy_differs(sqlite_path, "the histories of match " + std::to_string(id));
}

/// Reads a sample of the copied matches (`ids`, in order: see sample()) back, each with
/// its analysis and its place in its players' histories, counting the matches in
/// `report.matches_checked`. Throws storage_error (copy_differs) at the first difference.
void check_matches(source_db& src, pg::connection& dst, const std::string& sqlite_path,
                   const std::vector<std::int64_t>& ids, migration_report& report) {
  for (const auto id : sample(ids)) {
    check_match(src, dst, sqlite_path, id);
    ++report.matches_checked;
    check_analysis(src, dst, sqlite_path, id);
    check_histories(src, dst, sqlite_path, id);
  }
}

}  // namespace

migration_report migrate_to_postgres(const std::string& sqlite_path, const std::string& url,
                                     const postgres_options& options) {
  // As gammond opens them: the source checked and brought to this schema, the
  // target's schema made.
  { sqlite_store source(sqlite_path); }
  { postgres_store target(url, options); }

  source_db src(sqlite_path);
  pg::connection dst(url, {options.connect_timeout_s, options.statement_timeout_ms,
                           options.sync == sync_mode::full ? "on" : "off"});
  migration_report report;
  src.exec("BEGIN");  // one read transaction: one committed state of the source
  dst.command("beginning the copy", "BEGIN");
  try {
    lock_empty_target(dst);
    copy_tables(src, dst, report);
    const auto ids = copy_matches(src, dst, report);
    copy_analyses(src, dst, report);
    copy_accounts(src, dst, report);
    copy_moderation(src, dst, report);
    copy_sessions(src, dst, report);
    move_match_ids(dst, ids);

    // Check: the counts, every table with its journal, every account, moderation record,
    // ban, ignored name and session, a sample of the matches.
    check_table_counts(src, dst, sqlite_path, report);
    check_tables(src, dst, sqlite_path, report);
    check_analysis_and_account_counts(src, dst, sqlite_path, report);
    check_accounts(src, dst, sqlite_path, report);
    check_moderation(src, dst, sqlite_path, report);
    check_sessions(src, dst, sqlite_path, report);
    check_matches(src, dst, sqlite_path, ids, report);
    dst.command("committing the copy", "COMMIT");
  } catch (...) {
    if (dst.connected()) {
      try {
        dst.command("rolling back the copy", "ROLLBACK");
      } catch (const storage_error&) {
      }
    }
    throw;
  }
  return report;
}

}  // namespace bg::server
