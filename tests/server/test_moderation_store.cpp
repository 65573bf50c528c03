// Moderation in the store (issue 13): the schema migration from a version 4 database,
// the moderation log (also written with a table's change, in its transaction), bans of
// names and of their addresses, the names an account ignores, and a match closed before
// it finished. Real SQLite files in a scratch directory.

#include <string>
#include <vector>

#include <sqlite3.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "bg/server/store/record_json.hpp"
#include "bg/server/store/sqlite_store.hpp"
#include "record_builder.hpp"

namespace {

using bg::engine::match_kind;
using bg::engine::match_options;
using bg::engine::variant;
using bg::server::account;
using bg::server::ban;
using bg::server::moderation_action;
using bg::server::sqlite_store;
using bg::server::storage_error;
using bg::server::table_write;
using bg::test::play_random_match;
using bg::test::temp_dir;

/// The first column of the first row of `sql` on its own connection ("" when no row).
std::string query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  const int prepared = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
  INFO(sql << ": " << sqlite3_errmsg(db));
  REQUIRE(prepared == SQLITE_OK);
  std::string out;
  const int rc = sqlite3_step(stmt);
  REQUIRE((rc == SQLITE_ROW || rc == SQLITE_DONE));
  if (rc == SQLITE_ROW && sqlite3_column_text(stmt, 0))
    out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

/// Runs `sql` (several statements) on its own connection; returns SQLite's code.
int exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
  return rc;
}

const std::string some_hash = "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$aGFzaA";

moderation_action action(std::string what, std::string actor, std::string target,
                         std::string table = {}, std::string detail = {}) {
  return moderation_action{std::move(what), std::move(actor), std::move(target), std::move(table),
                           std::move(detail)};
}

ban ban_of(std::string key, std::string name, std::string address, std::int64_t until_ms) {
  ban b;
  b.name_key = std::move(key);
  b.name = std::move(name);
  b.address = std::move(address);
  b.by = "admin";
  b.until_ms = until_ms;
  return b;
}

}  // namespace

TEST_CASE("storage: issue 13: a version 4 database gets the moderation tables and keeps its data",
          "[storage][moderation]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  const auto old_match = play_random_match({variant::standard, match_kind::points, 1}, 3);
  // Given a version 4 database (this schema without what version 5 adds) with a match
  { sqlite_store made(path); }
  REQUIRE(exec(path,
               "DROP TABLE moderation; DROP TABLE bans; DROP TABLE ignores; "
               "ALTER TABLE matches DROP COLUMN unfinished; PRAGMA user_version = 4;") ==
          SQLITE_OK);
  REQUIRE(exec(path,
               "INSERT INTO matches VALUES (7, 'old', 'red', 'black', "
               "'{\"variant\":\"standard\",\"kind\":\"points\",\"length\":1}', '" +
                   bg::server::to_json_text(old_match) + "', 's', 'e', 1, 0, 1, 'then');") ==
          SQLITE_OK);
  // When this gammond opens it
  sqlite_store db(path);
  // Then it is at the current version, the old match is there and finished, and the new
  // tables are empty and usable
  CHECK(query(path, "PRAGMA user_version") == std::to_string(sqlite_store::schema_version));
  CHECK(sqlite_store::schema_version == 5);
  CHECK(query(path, "SELECT unfinished FROM matches WHERE id = 7") == "0");
  const auto loaded = db.load_match(7);
  REQUIRE(loaded);
  CHECK_FALSE(loaded->unfinished);
  CHECK(query(path, "SELECT count(*) FROM moderation") == "0");
  CHECK(db.active_bans(0).empty());
  db.record_moderation(action("broadcast", "admin", "", "", "hello"));
  CHECK(query(path, "SELECT detail FROM moderation") == "hello");
  // and the schema refuses an action it does not know
  CHECK(exec(path, "INSERT INTO moderation(at, action, actor) VALUES ('now', 'smite', 'x')") ==
        SQLITE_CONSTRAINT);
}

TEST_CASE(
    "storage: issue 13: moderation written with a table's change is logged in its transaction, "
    "a failed change logs nothing",
    "[storage][moderation]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  sqlite_store db(path);
  table_write kick;
  kick.name = "t1";
  kick.snapshot = R"({"seq":3})";
  kick.moderation = {action("kick", "alice", "mallory", "t1", "600 s"),
                     action("private", "alice", "", "t1", "on")};
  table_write broken;  // not JSON: refused by the schema, and its moderation with it
  broken.name = "t2";
  broken.snapshot = "not json";
  broken.moderation = {action("invite", "bob", "carol", "t2")};
  const auto errors = db.save_tables({kick, broken});
  CHECK(errors[0].empty());
  CHECK_FALSE(errors[1].empty());
  CHECK(query(path, "SELECT count(*) FROM moderation") == "2");
  CHECK(query(path,
              "SELECT actor || ' ' || action || ' ' || target || ' at ' || table_name || "
              "': ' || detail FROM moderation ORDER BY id") == "alice kick mallory at t1: 600 s");
  CHECK_FALSE(query(path, "SELECT at FROM moderation").empty());
  // A dropped table's moderation (a table closed by an administrator) is logged too
  table_write closed;
  closed.name = "t1";
  closed.drop = true;
  closed.moderation = {action("close", "admin", "", "t1", "match 4")};
  CHECK(db.save_tables({closed})[0].empty());
  CHECK(query(path, "SELECT count(*) FROM moderation WHERE action = 'close'") == "1");
  CHECK(db.load_tables().empty());
}

TEST_CASE("storage: issue 13: a name's bans are replaced together, expire and are lifted together",
          "[storage][moderation]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  sqlite_store db(path);
  // Given mallory banned until t = 5000 ms with two addresses, and eve until unbanned
  db.save_bans(
      {ban_of("mallory", "Mallory", "", 5000), ban_of("mallory", "Mallory", "10.0.0.1", 5000),
       ban_of("mallory", "Mallory", "10.0.0.2", 5000)},
      action("ban", "admin", "Mallory", "", "1 h"));
  db.save_bans({ban_of("eve", "eve", "", 0)}, action("ban", "admin", "eve"));
  // Then all hold before 5000 and only eve's after
  auto now = db.active_bans(4999);
  CHECK(now.size() == 4);
  now = db.active_bans(5000);
  REQUIRE(now.size() == 1);
  CHECK(now[0].name_key == "eve");
  CHECK(now[0].until_ms == 0);
  CHECK(now[0].active(1'000'000'000'000));
  CHECK(now[0].by == "admin");
  CHECK_FALSE(now[0].created_at.empty());
  // When mallory is banned again, the new ban replaces the old one (one address now)
  db.save_bans(
      {ban_of("mallory", "Mallory", "", 9000), ban_of("mallory", "Mallory", "10.0.0.3", 9000)},
      action("ban", "admin", "Mallory"));
  now = db.active_bans(6000);
  CHECK(now.size() == 3);
  CHECK(query(path, "SELECT count(*) FROM bans WHERE name_key = 'mallory'") == "2");
  // Lifting a name lifts its addresses and is logged; lifting nothing logs nothing
  CHECK(db.lift_bans("mallory", action("unban", "admin", "Mallory")) == 2);
  CHECK(db.lift_bans("mallory", action("unban", "admin", "Mallory")) == 0);
  CHECK(db.active_bans(0).size() == 1);
  CHECK(query(path,
              "SELECT group_concat(action, ',') FROM (SELECT action FROM moderation ORDER "
              "BY id)") == "ban,ban,ban,unban");
  // Bans of nobody, or of two names at once, are refused and write nothing
  CHECK_THROWS_AS(db.save_bans({}, action("ban", "admin", "")), storage_error);
  CHECK_THROWS_AS(
      db.save_bans({ban_of("a", "a", "", 0), ban_of("b", "b", "", 0)}, action("ban", "admin", "a")),
      storage_error);
  CHECK(query(path, "SELECT count(*) FROM moderation") == "4");
}

TEST_CASE("storage: issue 13: the names an account ignores are kept in order, once each",
          "[storage][moderation]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  sqlite_store db(path);
  REQUIRE(db.create_account("alice", "Alice", account::kind::player, some_hash));
  db.set_ignored("alice", "mallory", "Mallory", true);
  db.set_ignored("alice", "eve", "eve", true);
  db.set_ignored("alice", "mallory", "MALLORY", true);  // once: the first spelling stays
  CHECK(db.ignored_by("alice") == std::vector<std::string>{"Mallory", "eve"});
  db.set_ignored("alice", "mallory", "mallory", false);
  CHECK(db.ignored_by("alice") == std::vector<std::string>{"eve"});
  db.set_ignored("alice", "nobody", "nobody", false);  // not ignored: nothing to do
  // An unknown account ignores nobody and keeps nothing
  db.set_ignored("zed", "eve", "eve", true);
  CHECK(db.ignored_by("zed").empty());
  CHECK(query(path, "SELECT count(*) FROM ignores") == "1");
  // and it survives closing the file
}

TEST_CASE("storage: issue 13: a match closed before it finished is stored as unfinished",
          "[storage][moderation]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  sqlite_store db(path);
  auto record = play_random_match({variant::standard, match_kind::points, 5}, 11);
  record.games.back().result.reset();  // closed in the middle of its last game
  record.unfinished = true;
  record.closed_by = "admin";
  table_write w;
  w.name = "t1";
  w.drop = false;
  w.snapshot = "{}";
  record.id = db.reserve_match_id();
  w.finished_match = record;
  REQUIRE(db.save_tables({w})[0].empty());
  CHECK(query(path, "SELECT unfinished FROM matches WHERE id = " + std::to_string(record.id)) ==
        "1");
  const auto loaded = db.load_match(record.id);
  REQUIRE(loaded);
  CHECK(loaded->unfinished);
  CHECK(loaded->closed_by == "admin");
  CHECK_FALSE(loaded->games.back().result);
  const auto json = nlohmann::json::parse(bg::server::to_json_text(*loaded));
  CHECK(json["unfinished"] == true);
  CHECK(json["closed_by"] == "admin");
  // A finished match says nothing of it
  const auto finished = nlohmann::json::parse(
      bg::server::to_json_text(play_random_match({variant::standard, match_kind::points, 1}, 2)));
  CHECK_FALSE(finished.contains("unfinished"));
}
