// Accounts in the store (issue 12): the FIBS rating formula (RULES.md S1) against
// figures computed by hand, and the SQLite schema's migration from a version 2 database
// (a real file in a scratch directory). What every store does with accounts, their
// histories and a rated match written in the transaction that archives it is in the
// conformance suite, test_store_conformance.cpp, run on SQLite and PostgreSQL alike.

#include <cmath>
#include <string>
#include <vector>

#include <sqlite3.h>
#include <catch2/catch.hpp>

#include "bg/server/records/rating.hpp"
#include "bg/server/records/record_json.hpp"
#include "bg/server/store/sqlite_store.hpp"
#include "record_builder.hpp"
#include "sqlite_file.hpp"

// Named, so that these helpers and another file's of the same name share a unity
// build (CMAKE_UNITY_BUILD).
namespace account_store_tests {

namespace {

using bg::engine::match_kind;
using bg::engine::match_options;
using bg::engine::variant;
using bg::server::account;
using bg::server::rate_match;
using bg::server::rating_k;
using bg::server::rating_standing;
using bg::server::sqlite_store;
using bg::test::play_random_match;
using bg::test::raw_exec;
using bg::test::raw_query;
using bg::test::temp_dir;

match_options points(int length, variant v = variant::standard) {
  return {v, match_kind::points, length};
}

/// A stand-in for a crypto_pwhash_str() text (the store keeps whatever it is given).
const std::string some_hash = "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$aGFzaA";

}  // namespace

// --- S1: the formula ---------------------------------------------------------------

TEST_CASE("S1: two new players, a 3-point match: the winner gains 17.32 and the loser loses it",
          "[rating][S1]") {
  // Given two players at 1500.00 with experience 0 (K = 5 each)
  const rating_standing a{1500.0, 0};
  const rating_standing b{1500.0, 0};
  // When a wins a match to 3
  const auto r = rate_match(a, b, 3);
  // Then D = 0, P_upset = 1/(10^0 + 1) = 1/2, points = 4 * sqrt(3) * 1/2 = 3.4641,
  // and each change is points * 5 = 10 * sqrt(3) = 17.3205
  CHECK(r.points == Approx(3.464101615).epsilon(1e-9));
  CHECK(r.winner.rating == Approx(1517.320508076).epsilon(1e-12));
  CHECK(r.loser.rating == Approx(1482.679491924).epsilon(1e-12));
  CHECK(std::round((r.winner.rating - 1500.0) * 100) / 100 == 17.32);
  // and each experience grows by n
  CHECK(r.winner.experience == 3);
  CHECK(r.loser.experience == 3);
}

TEST_CASE("S1: an upset moves 4*sqrt(n)*P_fav, each player by their own K", "[rating][S1]") {
  // Given the players after the first match: 1517.3205 and 1482.6795, experience 3
  // (K = 5 - 3/100 = 4.97), D = 20*sqrt(3)
  const rating_standing favourite{1500.0 + 10 * std::sqrt(3.0), 3};
  const rating_standing underdog{1500.0 - 10 * std::sqrt(3.0), 3};
  // When the underdog wins another match to 3
  const auto r = rate_match(underdog, favourite, 3);
  // Then D*sqrt(n)/2000 = 20*sqrt(3)*sqrt(3)/2000 = 0.03, P_upset = 1/(10^0.03 + 1) =
  // 0.482737, P_fav = 0.517263, points = 4*sqrt(3)*0.517263 = 3.583700, change =
  // 3.583700 * 4.97 = 17.810988
  CHECK(r.points == Approx(3.583699893).epsilon(1e-9));
  CHECK(r.winner.rating - underdog.rating == Approx(17.810988467).epsilon(1e-9));
  CHECK(favourite.rating - r.loser.rating == Approx(17.810988467).epsilon(1e-9));
  CHECK(r.winner.experience == 6);
  CHECK(r.loser.experience == 6);
}

TEST_CASE("S1: the favourite's win moves 4*sqrt(n)*P_upset and K is max(1, 5 - experience/100)",
          "[rating][S1]") {
  CHECK(rating_k(0) == 5.0);
  CHECK(rating_k(150) == 3.5);
  CHECK(rating_k(400) == 1.0);
  CHECK(rating_k(1000) == 1.0);
  // Given a favourite at 1600 (experience 150, K = 3.5) and an underdog at 1400
  // (experience 450, K = 1)
  const rating_standing favourite{1600.0, 150};
  const rating_standing underdog{1400.0, 450};
  // When the favourite wins a match to 5
  const auto r = rate_match(favourite, underdog, 5);
  // Then D*sqrt(5)/2000 = 200*2.236068/2000 = 0.2236068, P_upset = 1/(10^0.2236068 + 1)
  // = 0.374052, points = 4*sqrt(5)*0.374052 = 3.345620; the favourite gains
  // 3.345620*3.5 = 11.709671, the underdog loses 3.345620*1
  CHECK(r.points == Approx(3.345620275).epsilon(1e-9));
  CHECK(r.winner.rating == Approx(1611.709670964).epsilon(1e-12));
  CHECK(r.loser.rating == Approx(1396.654379725).epsilon(1e-12));
  CHECK(r.winner.experience == 155);
  CHECK(r.loser.experience == 455);
}

TEST_CASE("S1: a finished match is rated only when it counts, has a winner and two accounts",
          "[rating][S1]") {
  using bg::engine::side;
  using bg::server::rate_finished_match;
  const std::array<std::optional<rating_standing>, 2> both{rating_standing{1600.0, 150},
                                                           rating_standing{1400.0, 450}};
  const std::array<std::string, 2> names{"Alice", "bob"};
  // Black (the underdog at 1400) wins a match to 5: the sides keep their places.
  const auto r = rate_finished_match(true, side::black, both, names, 5);
  REQUIRE(r);
  const auto upset = bg::server::rate_match(*both[1], *both[0], 5);
  CHECK((*r)[0].name == "Alice");
  CHECK((*r)[0].before == 1600.0);
  CHECK((*r)[0].after == upset.loser.rating);
  CHECK((*r)[0].experience_before == 150);
  CHECK((*r)[0].experience_after == 155);
  CHECK((*r)[1].name == "bob");
  CHECK((*r)[1].before == 1400.0);
  CHECK((*r)[1].after == upset.winner.rating);
  CHECK((*r)[1].after > 1400.0);
  CHECK((*r)[1].experience_after == 455);
  // Unrated: the table says it does not count, no winner, or a guest on either side.
  CHECK_FALSE(rate_finished_match(false, side::black, both, names, 5));
  CHECK_FALSE(rate_finished_match(true, std::nullopt, both, names, 5));
  CHECK_FALSE(rate_finished_match(true, side::red, {both[0], std::nullopt}, names, 5));
  CHECK_FALSE(rate_finished_match(true, side::red, {std::nullopt, both[1]}, names, 5));
}

// --- the schema --------------------------------------------------------------------

TEST_CASE("storage: a version 2 database is migrated to accounts and keeps its data",
          "[storage][accounts]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  // Given a database made by the version 2 schema (migrations 1 and 2 as they shipped)
  // with a table, its record journal and a finished match
  const auto old_match = play_random_match(points(1), 3);
  REQUIRE(raw_exec(path,
                   "CREATE TABLE tables(name TEXT PRIMARY KEY NOT NULL, snapshot TEXT NOT NULL "
                   "CHECK (json_valid(snapshot)), updated_at TEXT NOT NULL);"
                   "CREATE TABLE matches(id INTEGER PRIMARY KEY, table_name TEXT NOT NULL, red "
                   "TEXT NOT NULL, black TEXT NOT NULL, options TEXT NOT NULL CHECK "
                   "(json_valid(options)), record TEXT NOT NULL CHECK (json_valid(record)), "
                   "started_at TEXT NOT NULL, ended_at TEXT NOT NULL, score_red INTEGER NOT "
                   "NULL, score_black INTEGER NOT NULL, games INTEGER NOT NULL, saved_at TEXT "
                   "NOT NULL);"
                   "CREATE INDEX matches_by_red ON matches(red);"
                   "CREATE INDEX matches_by_black ON matches(black);"
                   "CREATE TABLE table_records(id INTEGER PRIMARY KEY, table_name TEXT NOT NULL, "
                   "entry TEXT NOT NULL);"
                   "CREATE INDEX table_records_by_table ON table_records(table_name, id);"
                   "INSERT INTO tables VALUES ('old', '{\"version\":2}', 'then');"
                   "INSERT INTO table_records(table_name, entry) VALUES ('old', '{\"op\":1}');"
                   "INSERT INTO matches VALUES (7, 'old', 'Red Player', 'black', "
                   "'{\"variant\":\"standard\",\"kind\":\"points\",\"length\":1}', '" +
                       bg::server::to_json_text(old_match) +
                       "', 's', 'e', 1, 0, 1, 'then');"
                       "PRAGMA user_version = 2;") == SQLITE_OK);
  // When this gammond opens it
  {
    sqlite_store db(path);
    // Then it is at the current version with the account tables, and the old data is
    // all there
    CHECK(raw_query(path, "PRAGMA user_version") == std::to_string(sqlite_store::schema_version));
    CHECK(raw_query(path, "SELECT count(*) FROM accounts") == "0");
    CHECK(raw_query(path, "SELECT count(*) FROM ratings") == "0");
    CHECK(raw_query(path, "SELECT count(*) FROM account_matches") == "0");
    const auto tables = db.load_tables();
    REQUIRE(tables.size() == 1);
    CHECK(tables[0].snapshot == R"({"version":2})");
    CHECK(tables[0].record_journal == std::vector<std::string>{R"({"op":1})"});
    const auto loaded = db.load_match(7);
    REQUIRE(loaded);
    CHECK_FALSE(loaded->ratings);  // an old record has no ratings
    CHECK(loaded->players == old_match.players);
    CHECK(db.reserve_match_id() == 8);
    // and accounts work on it
    REQUIRE(db.create_account("alice", "Alice", account::kind::player, some_hash));
  }
  // And opening it again migrates nothing twice
  sqlite_store again(path);
  CHECK(raw_query(path, "PRAGMA user_version") == std::to_string(sqlite_store::schema_version));
  CHECK(again.find_account("alice"));
}

}  // namespace account_store_tests
