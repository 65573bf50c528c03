// Accounts in the store (issue 12): the FIBS rating formula (RULES.md S1) against
// figures computed by hand, the schema migration from a version 2 database, accounts
// and their histories, and a rated match written in the transaction that archives it.
// Real SQLite files in a scratch directory.

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

namespace {

using bg::engine::match_kind;
using bg::engine::match_options;
using bg::engine::side;
using bg::engine::variant;
using bg::server::account;
using bg::server::rate_match;
using bg::server::rating_k;
using bg::server::rating_standing;
using bg::server::sqlite_store;
using bg::server::storage_error;
using bg::server::table_write;
using bg::test::play_random_match;
using bg::test::raw_exec;
using bg::test::raw_query;
using bg::test::temp_dir;

match_options points(int length, variant v = variant::standard) {
  return {v, match_kind::points, length};
}

/// A stand-in for a crypto_pwhash_str() text (the store keeps whatever it is given).
const std::string some_hash = "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$aGFzaA";

/// The write of table `t` finishing `record` (id reserved) between `red` and `black`
/// (name keys, "" for a guest), won by `winner`, rated when `rated`.
table_write finishing(sqlite_store& db, bg::server::match_record record, std::string red,
                      std::string black, side winner, bool rated, const std::string& t = "t") {
  table_write w;
  w.name = t;
  w.snapshot = R"({"finished":true})";
  w.reset_record = true;
  record.id = db.reserve_match_id();
  w.finished_match = std::move(record);
  w.winner = winner;
  w.account_keys = {std::move(red), std::move(black)};
  w.rated = rated;
  return w;
}

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

TEST_CASE("storage: accounts are created once per key, with 1500 and 0 per variant (S1)",
          "[storage][accounts]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  sqlite_store db(path);
  // Given a new account
  const auto made = db.create_account("alice", "Alice", account::kind::player, some_hash);
  REQUIRE(made);
  CHECK(made->id > 0);
  CHECK(made->name == "Alice");
  CHECK(made->key == "alice");
  CHECK(made->password_hash == some_hash);
  CHECK_FALSE(made->created_at.empty());
  CHECK(made->last_seen.empty());
  for (const auto v : {variant::standard, variant::long_nardy}) {
    CHECK(made->in(v).rating == 1500.0);
    CHECK(made->in(v).experience == 0);
    CHECK(made->in(v).played == 0);
    CHECK(made->in(v).won == 0);
  }
  // Then the key cannot be registered again, and nothing of the second try is kept
  CHECK_FALSE(db.create_account("alice", "ALICE", account::kind::player, some_hash));
  CHECK(raw_query(path, "SELECT count(*) FROM accounts") == "1");
  CHECK(raw_query(path, "SELECT count(*) FROM ratings") == "2");
  CHECK(db.account_keys() == std::vector<std::string>{"alice"});
  // A player needs a hash; a bot has none and cannot get one
  CHECK_THROWS_AS(db.create_account("bob", "bob", account::kind::player, ""), storage_error);
  CHECK_THROWS_AS(db.create_account("bot", "bot", account::kind::bot, some_hash), storage_error);
  const auto bot = db.create_account("gnubg", "gnubg", account::kind::bot, "");
  REQUIRE(bot);
  CHECK(bot->what == account::kind::bot);
  CHECK(bot->password_hash.empty());
  CHECK_FALSE(db.set_password_hash("gnubg", some_hash));
  // the schema itself refuses a player without a password and a bot with one
  CHECK(raw_exec(path,
                 "INSERT INTO accounts(name_key, name, kind, password_hash, created_at) VALUES "
                 "('carol', 'carol', 'player', NULL, 'now')") == SQLITE_CONSTRAINT);
  CHECK(raw_exec(path,
                 "INSERT INTO accounts(name_key, name, kind, password_hash, created_at) VALUES "
                 "('dave', 'dave', 'bot', 'x', 'now')") == SQLITE_CONSTRAINT);
  // The password hash changes; last seen is recorded
  REQUIRE(db.set_password_hash("alice", "$argon2id$other"));
  db.set_last_seen("alice");
  const auto found = db.find_account("alice");
  REQUIRE(found);
  CHECK(found->password_hash == "$argon2id$other");
  CHECK_FALSE(found->last_seen.empty());
  CHECK_FALSE(db.find_account("nobody"));
  CHECK_FALSE(db.set_password_hash("nobody", some_hash));
}

TEST_CASE(
    "storage: a rated match is rated in the transaction that archives it (S1), and its record "
    "keeps the ratings",
    "[storage][accounts][S1]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  sqlite_store db(path);
  REQUIRE(db.create_account("alice", "Alice", account::kind::player, some_hash));
  REQUIRE(db.create_account("bob", "bob", account::kind::player, some_hash));
  // Given a finished 3-point match, alice red, bob black, won by alice
  auto record = play_random_match(points(3), 11, {}, "Alice", "bob");
  // When it is written rated
  const auto w = finishing(db, record, "alice", "bob", side::red, true);
  const auto outcomes = db.write_tables({w});
  REQUIRE(outcomes.size() == 1);
  REQUIRE(outcomes[0].error.empty());
  // Then the outcome has both ratings before and after: +-17.3205 (two new players)
  REQUIRE(outcomes[0].ratings);
  const auto& r = *outcomes[0].ratings;
  CHECK(r[0].name == "Alice");
  CHECK(r[1].name == "bob");
  CHECK(r[0].before == 1500.0);
  CHECK(r[0].after == Approx(1500.0 + 10 * std::sqrt(3.0)).epsilon(1e-12));
  CHECK(r[1].after == Approx(1500.0 - 10 * std::sqrt(3.0)).epsilon(1e-12));
  CHECK(r[0].experience_before == 0);
  CHECK(r[0].experience_after == 3);
  CHECK(r[1].experience_after == 3);
  // and the accounts, the stored record and the histories say the same
  const auto alice = db.find_account("alice");
  const auto bob = db.find_account("bob");
  REQUIRE(alice);
  REQUIRE(bob);
  CHECK(alice->in(variant::standard).rating == r[0].after);
  CHECK(alice->in(variant::standard).experience == 3);
  CHECK(alice->in(variant::standard).played == 1);
  CHECK(alice->in(variant::standard).won == 1);
  CHECK(bob->in(variant::standard).rating == r[1].after);
  CHECK(bob->in(variant::standard).played == 1);
  CHECK(bob->in(variant::standard).won == 0);
  CHECK(alice->in(variant::long_nardy).rating == 1500.0);  // the other variant is apart
  CHECK(alice->in(variant::long_nardy).played == 0);
  const auto stored = db.load_match(w.finished_match->id);
  REQUIRE(stored);
  REQUIRE(stored->ratings);
  CHECK(*stored->ratings == r);
  const auto history = db.account_matches("bob", 0, 10);
  REQUIRE(history.size() == 1);
  CHECK(history[0].match_id == w.finished_match->id);
  CHECK(history[0].side == side::black);
  CHECK(history[0].opponent == "Alice");
  CHECK(history[0].won == false);
  CHECK(history[0].options == points(3));
  CHECK(history[0].final_score == record.final_score);
  REQUIRE(history[0].rating);
  CHECK(*history[0].rating == r[1]);
  const auto leaders = db.leaderboard(variant::standard, 10);
  REQUIRE(leaders.size() == 2);
  CHECK(leaders[0].rank == 1);
  CHECK(leaders[0].name == "Alice");
  CHECK(leaders[1].name == "bob");
  CHECK(leaders[1].standing.rating == r[1].after);
  CHECK(db.leaderboard(variant::long_nardy, 10).empty());  // nobody rated in long yet

  // When bob wins the next one (an upset between players of experience 3)
  const auto w2 = finishing(db, play_random_match(points(3), 12, {}, "Alice", "bob"), "alice",
                            "bob", side::black, true);
  const auto second = db.write_tables({w2});
  REQUIRE(second[0].ratings);
  // Then the figures of the hand-computed upset (17.810988 each, K = 4.97)
  CHECK((*second[0].ratings)[1].after - (*second[0].ratings)[1].before ==
        Approx(17.810988467).epsilon(1e-9));
  CHECK((*second[0].ratings)[0].before - (*second[0].ratings)[0].after ==
        Approx(17.810988467).epsilon(1e-9));
  // and the history pages from the newest down
  const auto page1 = db.account_matches("alice", 0, 1);
  REQUIRE(page1.size() == 1);
  CHECK(page1[0].match_id == w2.finished_match->id);
  const auto page2 = db.account_matches("alice", page1[0].match_id, 1);
  REQUIRE(page2.size() == 1);
  CHECK(page2[0].match_id == w.finished_match->id);
  CHECK(db.account_matches("alice", page2[0].match_id, 1).empty());
}

TEST_CASE(
    "storage: an unrated match counts in the accounts' histories but moves no rating (S1) and a "
    "failed write rates nothing",
    "[storage][accounts][S1]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  sqlite_store db(path);
  REQUIRE(db.create_account("alice", "alice", account::kind::player, some_hash));
  REQUIRE(db.create_account("bob", "bob", account::kind::player, some_hash));
  // A match against a guest: in alice's history and counts, no rating change
  const auto guest = finishing(db, play_random_match(points(3), 4, {}, "alice", "guest"), "alice",
                               "", side::red, false);
  const auto o1 = db.write_tables({guest});
  REQUIRE(o1[0].error.empty());
  CHECK_FALSE(o1[0].ratings);
  auto alice = db.find_account("alice");
  CHECK(alice->in(variant::standard).rating == 1500.0);
  CHECK(alice->in(variant::standard).experience == 0);
  CHECK(alice->in(variant::standard).played == 1);
  CHECK(alice->in(variant::standard).won == 1);
  const auto h = db.account_matches("alice", 0, 10);
  REQUIRE(h.size() == 1);
  CHECK(h[0].opponent == "guest");
  CHECK_FALSE(h[0].rating);
  CHECK_FALSE(db.load_match(guest.finished_match->id)->ratings);

  // "rated" without a winner (a level basis session) rates nothing either
  auto level = finishing(db, play_random_match({variant::long_nardy, match_kind::basis, 0}, 5),
                         "alice", "bob", side::red, true);
  level.winner.reset();
  const auto o2 = db.write_tables({level});
  REQUIRE(o2[0].error.empty());
  CHECK_FALSE(o2[0].ratings);
  alice = db.find_account("alice");
  CHECK(alice->in(variant::long_nardy).played == 1);
  CHECK(alice->in(variant::long_nardy).won == 0);
  CHECK(alice->in(variant::long_nardy).experience == 0);
  CHECK(db.account_matches("bob", 0, 10).at(0).won == std::nullopt);

  // A rated write whose snapshot fails: no match, no rating, no history row
  auto broken = finishing(db, play_random_match(points(3), 6, {}, "alice", "bob"), "alice", "bob",
                          side::red, true);
  broken.snapshot = "not json";
  const auto o3 = db.write_tables({broken});
  CHECK_FALSE(o3[0].error.empty());
  CHECK_FALSE(o3[0].ratings);
  CHECK_FALSE(db.load_match(broken.finished_match->id));
  CHECK(db.find_account("alice")->in(variant::standard).rating == 1500.0);
  CHECK(db.find_account("bob")->in(variant::standard).played == 0);
  CHECK(raw_query(path, "SELECT count(*) FROM account_matches WHERE match_id = " +
                            std::to_string(broken.finished_match->id)) == "0");
}
