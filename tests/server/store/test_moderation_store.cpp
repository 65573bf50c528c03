// Moderation in the SQLite file (issue 13): the schema migration from a version 4
// database. What every store does with moderation (the log written with a table's
// change, bans, ignores, a match closed before it finished) is in the conformance suite,
// test_store_conformance.cpp, run on SQLite and PostgreSQL alike.

#include <string>
#include <vector>

#include <sqlite3.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "bg/server/records/record_json.hpp"
#include "bg/server/store/sqlite_store.hpp"
#include "record_builder.hpp"
#include "sqlite_file.hpp"

namespace {

using bg::engine::match_kind;
using bg::engine::match_options;
using bg::engine::variant;
using bg::server::moderation_action;
using bg::server::sqlite_store;
using bg::test::play_random_match;
using bg::test::raw_exec;
using bg::test::raw_query;
using bg::test::temp_dir;

moderation_action action(std::string what, std::string actor, std::string target,
                         std::string table = {}, std::string detail = {}) {
  return moderation_action{std::move(what), std::move(actor), std::move(target), std::move(table),
                           std::move(detail)};
}

}  // namespace

TEST_CASE("storage: a version 4 database gets the moderation tables and keeps its data",
          "[storage][moderation]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  const auto old_match = play_random_match({variant::standard, match_kind::points, 1}, 3);
  // Given a version 4 database (this schema without what version 5 adds) with a match
  { sqlite_store made(path); }
  REQUIRE(raw_exec(
              path,
              "ALTER TABLE analyses DROP COLUMN red_equity_lost; ALTER TABLE analyses DROP "
              "COLUMN red_decisions; ALTER TABLE analyses DROP COLUMN black_equity_lost; ALTER "
              "TABLE analyses DROP COLUMN black_decisions; "
              "ALTER TABLE accounts DROP COLUMN lang; "
              "DROP TABLE sessions; DROP TABLE moderation; DROP TABLE bans; DROP TABLE ignores; "
              "ALTER TABLE matches DROP COLUMN unfinished; PRAGMA user_version = 4;") == SQLITE_OK);
  REQUIRE(raw_exec(path,
                   "INSERT INTO matches VALUES (7, 'old', 'red', 'black', "
                   "'{\"variant\":\"standard\",\"kind\":\"points\",\"length\":1}', '" +
                       bg::server::to_json_text(old_match) + "', 's', 'e', 1, 0, 1, 'then');") ==
          SQLITE_OK);
  // When this gammond opens it
  sqlite_store db(path);
  // Then it is at the current version, the old match is there and finished, and the new
  // tables are empty and usable
  CHECK(raw_query(path, "PRAGMA user_version") == std::to_string(sqlite_store::schema_version));
  CHECK(sqlite_store::schema_version == 9);
  CHECK(raw_query(path, "SELECT unfinished FROM matches WHERE id = 7") == "0");
  const auto loaded = db.load_match(7);
  REQUIRE(loaded);
  CHECK_FALSE(loaded->unfinished);
  CHECK(raw_query(path, "SELECT count(*) FROM moderation") == "0");
  CHECK(db.active_bans(0).empty());
  db.record_moderation(action("broadcast", "admin", "", "", "hello"));
  CHECK(raw_query(path, "SELECT detail FROM moderation") == "hello");
  // and the schema refuses an action it does not know
  CHECK(raw_exec(path, "INSERT INTO moderation(at, action, actor) VALUES ('now', 'smite', 'x')") ==
        SQLITE_CONSTRAINT);
}
