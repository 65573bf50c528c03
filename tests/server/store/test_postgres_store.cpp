// What only the PostgreSQL store has (issue 16): match ids in blocks from a sequence
// (no I/O on the caller's thread, unique among several gammond), a lost connection
// (a write in flight fails whole; the next call connects again), statement_timeout,
// synchronous_commit, concurrent schema creation, the URL's password kept out of
// messages, and `gammond migrate`'s copy from SQLite. The behaviours both stores share
// are in test_store_conformance.cpp.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bg/server/store/database_url.hpp"
#include "bg/server/store/open_store.hpp"
#include "bg/server/store/store_migration.hpp"
#include "eventually.hpp"
#include "record_builder.hpp"
#include "store_backends.hpp"

// Named, so that these helpers and another file's of the same name share a unity
// build (CMAKE_UNITY_BUILD).
namespace postgres_store_tests {

namespace {

using namespace std::chrono_literals;
using bg::engine::match_kind;
using bg::engine::match_options;
using bg::engine::variant;
using bg::server::postgres_options;
using bg::server::postgres_store;
using bg::server::sqlite_store;
using bg::server::storage_error;
using bg::server::table_write;
using bg::test::play_random_match;
using bg::test::postgres_backend;
using bg::test::postgres_server;
using bg::test::record_difference;
using bg::test::temp_dir;
using nlohmann::json;

table_write tw(std::string name, std::string snapshot, bool reset = false,
               std::vector<std::string> entries = {}) {
  table_write w;
  w.name = std::move(name);
  w.snapshot = std::move(snapshot);
  w.reset_record = reset;
  w.record_entries = std::move(entries);
  return w;
}

/// Makes every write of table `name` sleep `seconds` inside PostgreSQL (a trigger), so
/// that a test can act while that write is in flight.
void slow_writes_of(const postgres_backend& backend, const std::string& name, double seconds) {
  (void)backend.sql(
      "CREATE FUNCTION slow_down() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.name = '" +
      name + "' THEN PERFORM pg_sleep(" + std::to_string(seconds) +
      "); END IF; RETURN NEW; END $$");
  (void)backend.sql(
      "CREATE TRIGGER slow BEFORE INSERT OR UPDATE ON tables FOR EACH ROW EXECUTE FUNCTION "
      "slow_down()");
}

/// Closes every session a store opened (application_name gammond) on the database at
/// `url` from the server's side, as a restarted server or a network cut would; returns
/// how many.
int terminate_sessions(const std::string& url) {
  return std::stoi(postgres_server::query(
      url,
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = "
      "current_database() AND application_name = 'gammond' AND pid <> pg_backend_pid()"));
}

}  // namespace

// --- match ids ----------------------------------------------------------------------

TEST_CASE(
    "postgres: match ids come from the sequence in blocks and two stores on one database "
    "never hand out the same id",
    "[postgres]") {
  postgres_backend backend;
  postgres_options options;
  options.id_block = 10;
  postgres_store a(backend.url, options);
  postgres_store b(backend.url, options);
  std::set<std::int64_t> ids;
  std::size_t handed = 0;
  for (int i = 0; i < 100; ++i) {
    ids.insert(a.reserve_match_id());
    ids.insert(b.reserve_match_id());
    handed += 2;
    // Storage calls (the writer thread's) take the next block before one runs out.
    if (i % 3 == 0) (void)a.save_tables({tw("a", "{}")});
    if (i % 4 == 0) (void)b.load_tables();
  }
  CHECK(ids.size() == handed);
  CHECK(*ids.begin() > 0);
  // Whole blocks were taken: the sequence is past every id handed out.
  CHECK(std::stoll(backend.sql("SELECT last_value FROM match_ids")) >= *ids.rbegin());
}

TEST_CASE(
    "postgres: reserve_match_id needs no database: ids are handed out while PostgreSQL is "
    "down, and writes work again once it is back",
    "[postgres]") {
  postgres_server server;  // its own server: this test stops it
  const std::string url = server.create_database();
  postgres_store db(url);
  REQUIRE(db.save_tables({tw("t", R"({"n":1})")})[0].empty());
  server.stop();
  std::set<std::int64_t> ids;
  for (int i = 0; i < 400; ++i) ids.insert(db.reserve_match_id());
  CHECK(ids.size() == 400);
  // Writes fail whole while it is down, and say so.
  try {
    (void)db.save_tables({tw("t", R"({"n":2})")});
    FAIL("a write went through with PostgreSQL down");
  } catch (const storage_error& e) {
    INFO(e.what());
    CHECK_THAT(e.what(), Catch::Contains("PostgreSQL") || Catch::Contains("connect"));
  }
  CHECK_THROWS_AS((void)db.load_tables(), storage_error);
  server.start();
  CHECK(db.save_tables({tw("t", R"({"n":3})")})[0].empty());
  CHECK(db.load_table("t")->snapshot == R"({"n":3})");
  CHECK(db.reconnections() >= 1);
  CHECK(db.reserve_match_id() > *ids.rbegin());
}

// --- lost connections, timeouts -------------------------------------------------------

TEST_CASE(
    "postgres: a connection the server closed while idle is opened again and the next read "
    "and write go through",
    "[postgres]") {
  postgres_backend backend;
  postgres_store db(backend.url);
  REQUIRE(db.save_tables({tw("t", R"({"n":1})", true, {"{}"})})[0].empty());
  REQUIRE(terminate_sessions(backend.url) == 1);
  CHECK(db.load_tables().size() == 1);  // a read is retried on a new connection
  REQUIRE(terminate_sessions(backend.url) == 1);
  // Nothing of the batch reached the server before its BEGIN found the connection gone:
  // it is started again on a new one.
  CHECK(db.save_tables({tw("t", R"({"n":2})")})[0].empty());
  CHECK(db.load_table("t")->snapshot == R"({"n":2})");
  CHECK(db.reconnections() == 2);
}

TEST_CASE(
    "postgres: a batch whose connection is lost while it is in flight fails whole with "
    "storage_error and nothing of it is applied",
    "[postgres]") {
  postgres_backend backend;
  postgres_store db(backend.url);
  REQUIRE(db.save_tables({tw("slow", R"({"n":1})")})[0].empty());
  slow_writes_of(backend, "slow", 30);
  std::optional<std::string> error;
  std::thread writer([&] {
    try {
      (void)db.save_tables({tw("first", "{}", true, {"{}"}), tw("slow", R"({"n":2})")});
    } catch (const storage_error& e) {
      error = e.what();
    }
  });
  // The write is in flight once its session sleeps in the trigger.
  const bool sleeping = bg::test::eventually(
      [&] {
        return backend.sql(
                   "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                   "current_database() AND wait_event = 'PgSleep'") == "1";
      },
      20s);
  CHECK(terminate_sessions(backend.url) == 1);
  writer.join();
  REQUIRE(sleeping);
  REQUIRE(error.has_value());
  CHECK_THAT(*error, Catch::Contains("lost"));
  CHECK_FALSE(db.load_table("first").has_value());  // never half-applied
  CHECK(db.load_table("slow")->snapshot == R"({"n":1})");
  CHECK(backend.sql("SELECT count(*) FROM table_records") == "0");
  CHECK(db.save_tables({tw("first", "{}")})[0].empty());  // and the store goes on
}

TEST_CASE(
    "postgres: a write over the statement timeout is cancelled and left out alone, the "
    "rest of its batch is committed",
    "[postgres]") {
  postgres_backend backend;
  postgres_options options;
  options.statement_timeout_ms = 300;
  postgres_store db(backend.url, options);
  slow_writes_of(backend, "slow", 5);
  const auto errors =
      db.save_tables({tw("a", "{}"), tw("slow", "{}", true, {"{}"}), tw("b", "{}")});
  REQUIRE(errors.size() == 3);
  CHECK(errors[0].empty());
  CHECK_THAT(errors[1], Catch::Contains("statement timeout"));
  CHECK(errors[2].empty());
  CHECK(db.load_tables().size() == 2);
  CHECK_FALSE(db.load_table("slow").has_value());
}

// --- settings, schema, messages ---------------------------------------------------------

TEST_CASE("postgres: --sync full is synchronous_commit on and normal is off", "[postgres]") {
  postgres_backend backend;
  postgres_store full(backend.url);
  CHECK(full.synchronous_commit() == "on");
  postgres_options normal;
  normal.sync = bg::server::sync_mode::normal;
  postgres_store relaxed(backend.url, normal);
  CHECK(relaxed.synchronous_commit() == "off");
  CHECK_THAT(full.server_version(), Catch::StartsWith("1"));
}

TEST_CASE("postgres: several gammond opening a new database at once create its schema once",
          "[postgres]") {
  postgres_backend backend;
  constexpr int openers = 4;
  std::atomic<int> opened{0};
  std::vector<std::string> errors(openers);
  std::vector<std::thread> threads;
  for (int i = 0; i < openers; ++i)
    threads.emplace_back([&, i] {
      try {
        postgres_store db(backend.url);
        (void)db.save_tables({tw("t" + std::to_string(i), "{}")});
        ++opened;
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(i)] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& e : errors) CHECK(e.empty());
  CHECK(opened == openers);
  // Each version once: 1, 2, ... up to this build's.
  CHECK(backend.sql("SELECT count(DISTINCT version) || '/' || count(*) || '/' || max(version) "
                    "FROM schema_version") == std::to_string(postgres_store::schema_version) + "/" +
                                                  std::to_string(postgres_store::schema_version) +
                                                  "/" +
                                                  std::to_string(postgres_store::schema_version));
  CHECK(backend.sql("SELECT count(*) FROM tables") == std::to_string(openers));
}

TEST_CASE("postgres: the URL's password never appears in a message", "[postgres]") {
  postgres_backend backend;
  // The same server, a database that does not exist, a password with characters that
  // need percent-encoding.
  const auto at = backend.url.find("@/");
  const std::string url = backend.url.substr(0, at) + ":s3cr%40t-pw@/no_such_db" +
                          backend.url.substr(backend.url.find('?'));
  try {
    postgres_store db(url);
    FAIL("opened a database that does not exist");
  } catch (const storage_error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK_THAT(what, Catch::Contains("no_such_db"));
    CHECK_THAT(what, Catch::Contains("***"));
    CHECK(what.find("s3cr") == std::string::npos);
  }
}

TEST_CASE("postgres: a NUL byte in a name is refused, never cut short", "[postgres]") {
  postgres_backend backend;
  postgres_store db(backend.url);
  const auto errors = db.save_tables({tw(std::string("a\0b", 3), "{}"), tw("c", "{}")});
  CHECK_THAT(errors[0], Catch::Contains("NUL"));
  CHECK(errors[1].empty());
  CHECK(db.load_tables().size() == 1);
  CHECK_FALSE(db.load_table("a").has_value());
}

TEST_CASE("postgres: --db names a PostgreSQL URL or a SQLite path, shown without password",
          "[postgres]") {
  using bg::server::is_postgres_url;
  using bg::server::masked_database;
  using bg::server::scrub_password;
  CHECK(is_postgres_url("postgresql://db.example.org/gammond"));
  CHECK(is_postgres_url("postgres://u@/g?host=/run/postgresql"));
  CHECK_FALSE(is_postgres_url("gammond.db"));
  CHECK_FALSE(is_postgres_url("/var/lib/gammond/postgresql://x"));
  CHECK_FALSE(is_postgres_url("mysql://db/g"));
  CHECK(masked_database("gammond.db") == "gammond.db");
  CHECK(masked_database("postgresql://gammond:hunter2@db:5432/gammond") ==
        "postgresql://gammond:***@db:5432/gammond");
  CHECK(masked_database("postgresql://gammond@db/gammond") == "postgresql://gammond@db/gammond");
  CHECK(masked_database("postgres://u:p%40ss@h/d?sslmode=require&password=other") ==
        "postgres://u:***@h/d?sslmode=require&password=***");
  CHECK(masked_database("postgresql://u:a@b@h/d") == "postgresql://u:***@h/d");
  CHECK(masked_database("postgresql:///d?host=/tmp/x&password=pw&user=u") ==
        "postgresql:///d?host=/tmp/x&password=***&user=u");
  CHECK(scrub_password("FATAL: bad p@ss and p%40ss", "postgres://u:p%40ss@h/d") ==
        "FATAL: bad *** and ***");
  CHECK(scrub_password("nothing to hide", "gammond.db") == "nothing to hide");
}

TEST_CASE("postgres: open_store opens the backend --db names", "[postgres]") {
  postgres_backend backend;
  temp_dir dir;
  const bg::server::store_options options;
  auto pg = bg::server::open_store(backend.url, options);
  CHECK(dynamic_cast<postgres_store*>(pg.get()) != nullptr);
  auto lite = bg::server::open_store(dir.file("g.db"), options);
  CHECK(dynamic_cast<sqlite_store*>(lite.get()) != nullptr);
}

// --- gammond migrate ----------------------------------------------------------------------

TEST_CASE(
    "postgres: migrate copies a SQLite database's tables, journals and matches into an empty "
    "PostgreSQL one, and later ids follow the copied ones",
    "[postgres][migrate]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  std::vector<std::int64_t> ids;
  {
    sqlite_store lite(path);
    for (int i = 0; i < 130; ++i) {
      auto record = play_random_match({variant::standard, match_kind::points, 1 + i % 3},
                                      static_cast<std::uint64_t>(100 + i));
      if (i % 2 == 0) {
        ids.push_back(lite.save_match(record));
        continue;
      }
      // Archived by a table with its analysis queued; some analysed since, some failed.
      record.id = lite.reserve_match_id();
      table_write w = tw("archiver", "{}");
      w.finished_match = record;
      w.analyse_match = true;
      REQUIRE(lite.save_tables({w})[0].empty());
      ids.push_back(record.id);
      bg::server::analysis_record a;
      a.match_id = record.id;
      if (i % 3 == 0) {
        a.status = bg::server::analysis_status::done;
        a.level = "expert";
        a.result = json{{"match", record.id}, {"error_rate", 1.25}}.dump();
        lite.save_analysis(a);
      } else if (i % 5 == 0) {
        a.status = bg::server::analysis_status::failed;
        a.reason = "GNU Backgammon crashed twice on this match";
        lite.save_analysis(a);
      }
    }
    lite.delete_table("archiver");
    for (int t = 0; t < 12; ++t) {
      std::vector<std::string> journal;
      for (int e = 0; e <= t; ++e) journal.push_back(json{{"t", t}, {"e", e}}.dump());
      REQUIRE(lite.save_tables({tw("table " + std::to_string(t) + " \xc3\xa9",
                                   json{{"seq", t}}.dump(), true, journal)})[0]
                  .empty());
    }
  }
  postgres_backend backend;
  const auto report = bg::server::migrate_to_postgres(path, backend.url);
  CHECK(report.tables == 12);
  CHECK(report.record_entries == 12 * 13 / 2);
  CHECK(report.matches == 130);
  CHECK(report.analyses == 65);
  CHECK(report.tables_checked == 12);
  CHECK(report.matches_checked == 100);

  sqlite_store lite(path);
  postgres_store pg(backend.url);
  const auto expected = lite.load_tables();
  const auto copied = pg.load_tables();
  REQUIRE(copied.size() == expected.size());
  for (std::size_t i = 0; i < copied.size(); ++i) {
    CHECK(copied[i].name == expected[i].name);
    CHECK(copied[i].snapshot == expected[i].snapshot);
    CHECK(copied[i].record_journal == expected[i].record_journal);
  }
  CHECK(pg.match_count() == 130);
  for (const auto id : ids) {
    const auto a = lite.load_match(id);
    const auto b = pg.load_match(id);
    REQUIRE(b.has_value());
    CHECK(record_difference(*a, *b).empty());
    const auto x = lite.load_analysis(id);
    const auto y = pg.load_analysis(id);
    REQUIRE(x.has_value() == y.has_value());
    if (!x) continue;
    CHECK(x->status == y->status);
    CHECK(x->level == y->level);
    CHECK(x->result == y->result);
    CHECK(x->reason == y->reason);
    CHECK(x->queued_at == y->queued_at);
    CHECK(x->finished_at == y->finished_at);
  }
  CHECK(pg.pending_analyses(1000) == lite.pending_analyses(1000));
  CHECK(pg.reserve_match_id() > ids.back());
  CHECK(backend.sql("SELECT count(*) FROM matches WHERE saved_at IS NULL") == "0");
}

TEST_CASE(
    "postgres: migrate copies the accounts with their ratings (exactly), histories and times, "
    "and later accounts follow the copied ones",
    "[postgres][migrate][accounts]") {
  using bg::engine::side;
  using bg::server::account;
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  const std::string hash = "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$aGFzaA";
  std::vector<std::int64_t> ids;
  {
    sqlite_store lite(path);
    REQUIRE(lite.create_account("alice", "Alice", account::kind::player, hash));
    REQUIRE(lite.create_account("bob", "bob", account::kind::player, hash));
    REQUIRE(lite.create_account("gnubg", "gnubg", account::kind::bot, ""));
    lite.set_last_seen("alice");
    // Rated matches (ratings with every bit of their doubles), one against a guest, one
    // level basis session without a winner.
    for (int i = 0; i < 6; ++i) {
      auto record = play_random_match({variant::standard, match_kind::points, 1 + i % 3},
                                      static_cast<std::uint64_t>(40 + i), {}, "Alice", "bob");
      record.id = lite.reserve_match_id();
      table_write w = tw("rated", "{}");
      w.finished_match = record;
      w.winner = i % 3 == 0 ? side::black : side::red;
      w.account_keys = {"alice", i == 5 ? "" : "bob"};
      w.rated = i != 5;
      REQUIRE(lite.write_tables({w})[0].error.empty());
      ids.push_back(record.id);
    }
    auto level =
        play_random_match({variant::long_nardy, match_kind::basis, 0}, 9, {}, "bob", "gnubg");
    level.id = lite.reserve_match_id();
    table_write w = tw("level", "{}");
    w.finished_match = level;
    w.account_keys = {"bob", "gnubg"};
    REQUIRE(lite.write_tables({w})[0].error.empty());
    ids.push_back(level.id);
  }
  postgres_backend backend;
  const auto report = bg::server::migrate_to_postgres(path, backend.url);
  CHECK(report.accounts == 3);
  CHECK(report.accounts_checked == 3);
  CHECK(report.account_matches == 6 * 2 - 1 + 2);
  CHECK(report.matches == 7);

  sqlite_store lite(path);
  postgres_store pg(backend.url);
  CHECK(pg.account_keys() == lite.account_keys());
  for (const auto& key : lite.account_keys()) {
    const auto a = lite.find_account(key);
    const auto b = pg.find_account(key);
    REQUIRE(b);
    CHECK(b->id == a->id);
    CHECK(b->name == a->name);
    CHECK(b->what == a->what);
    CHECK(b->password_hash == a->password_hash);
    CHECK(b->created_at == a->created_at);
    CHECK(b->last_seen == a->last_seen);
    for (const auto v : {variant::standard, variant::long_nardy}) {
      CHECK(b->in(v).rating == a->in(v).rating);  // exactly
      CHECK(b->in(v).experience == a->in(v).experience);
      CHECK(b->in(v).played == a->in(v).played);
      CHECK(b->in(v).won == a->in(v).won);
    }
    const auto x = lite.account_matches(key, 0, 100);
    const auto y = pg.account_matches(key, 0, 100);
    REQUIRE(y.size() == x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      CHECK(y[i].match_id == x[i].match_id);
      CHECK(y[i].ended_at == x[i].ended_at);
      CHECK(y[i].side == x[i].side);
      CHECK(y[i].opponent == x[i].opponent);
      CHECK(y[i].won == x[i].won);
      CHECK(y[i].final_score == x[i].final_score);
      CHECK(y[i].rating == x[i].rating);
    }
  }
  CHECK(lite.find_account("alice")->in(variant::standard).rating != 1500.0);
  for (const auto v : {variant::standard, variant::long_nardy}) {
    const auto x = lite.leaderboard(v, 10);
    const auto y = pg.leaderboard(v, 10);
    REQUIRE(y.size() == x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      CHECK(y[i].name == x[i].name);
      CHECK(y[i].standing.rating == x[i].standing.rating);
    }
  }
  for (const auto id : ids) CHECK(pg.load_match(id) == lite.load_match(id));
  // A new account gets an id past the copied ones.
  const auto carol = pg.create_account("carol", "carol", account::kind::player, hash);
  REQUIRE(carol);
  CHECK(carol->id > lite.find_account("gnubg")->id);
}

TEST_CASE(
    "postgres: migrate copies the moderation log, the bans, the ignored names, the sessions and "
    "unfinished matches, and refuses a target that holds a ban",
    "[postgres][migrate][moderation]") {
  using bg::server::account;
  using bg::server::ban;
  using bg::server::moderation_action;
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  const auto banned = [](std::string key, std::string address, std::int64_t until_ms) {
    ban b;
    b.name_key = key;
    b.name = key;
    b.address = std::move(address);
    b.by = "admin";
    b.until_ms = until_ms;
    return b;
  };
  std::int64_t unfinished_id = 0;
  {
    sqlite_store lite(path);
    REQUIRE(lite.create_account("alice", "Alice", account::kind::player, "$argon2id$x"));
    REQUIRE(lite.create_account("bob", "bob", account::kind::player, "$argon2id$y"));
    lite.set_ignored("alice", "mallory", "Mallory", true);
    lite.set_ignored("alice", "eve", "eve", true);
    lite.set_ignored("bob", "alice", "Alice", true);
    lite.save_bans({banned("mallory", "", 0), banned("mallory", "10.0.0.1", 0)},
                   {"ban", "admin", "Mallory", "", "until unbanned, 10.0.0.1"});
    lite.save_bans({banned("eve", "", 4'102'444'800'000)}, {"ban", "admin", "eve", "", "24 h"});
    lite.record_moderation({"broadcast", "admin", "", "", "the server restarts at 't' \"now\""});
    auto record = play_random_match({variant::standard, match_kind::points, 5}, 21);
    record.games.back().result.reset();
    record.unfinished = true;
    record.closed_by = "admin";
    record.id = lite.reserve_match_id();
    unfinished_id = record.id;
    table_write w = tw("closing", "{}");
    w.finished_match = record;
    w.moderation = {moderation_action{"close", "admin", "", "closing", "match 1"}};
    REQUIRE(lite.save_tables({w})[0].empty());
    lite.save_match(play_random_match({variant::standard, match_kind::points, 1}, 22));
    // Two remembered sign-ins of alice's and one of bob's (issue 27).
    REQUIRE(lite.create_session("alice", std::string(64, 'a'), "Firefox on Linux",
                                1'764'000'000'000, 4'102'444'800'000, 5) > 0);
    REQUIRE(lite.create_session("alice", std::string(64, 'b'), "phone", 1'764'000'000'001,
                                4'102'444'800'000, 5) > 0);
    REQUIRE(lite.create_session("bob", std::string(64, 'c'), "", 1'764'000'000'002,
                                4'102'444'800'000, 5) > 0);
  }
  postgres_backend backend;
  const auto report = bg::server::migrate_to_postgres(path, backend.url);
  CHECK(report.sessions == 3);
  CHECK(report.sessions_checked == 3);
  CHECK(report.moderation == 4);
  CHECK(report.moderation_checked == 4);
  CHECK(report.bans == 3);
  CHECK(report.ignores == 3);
  CHECK(report.matches == 2);

  sqlite_store lite(path);
  postgres_store pg(backend.url);
  for (const std::int64_t at : {0LL, 4'102'444'799'999LL, 4'102'444'800'000LL}) {
    const auto x = lite.active_bans(at);
    const auto y = pg.active_bans(at);
    REQUIRE(y.size() == x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      CHECK(y[i].name_key == x[i].name_key);
      CHECK(y[i].address == x[i].address);
      CHECK(y[i].name == x[i].name);
      CHECK(y[i].by == x[i].by);
      CHECK(y[i].until_ms == x[i].until_ms);
      CHECK(y[i].created_at == x[i].created_at);
    }
  }
  CHECK(pg.active_bans(4'102'444'800'000).size() == 2);
  CHECK(pg.ignored_by("alice") == lite.ignored_by("alice"));
  CHECK(pg.ignored_by("bob") == std::vector<std::string>{"Alice"});
  // The sessions carried over sign their players in on PostgreSQL.
  const auto sessions = pg.sessions_of("alice", 1'764'000'000'100);
  REQUIRE(sessions.size() == 2);
  CHECK(sessions[0].label == "phone");  // most recently used first
  CHECK(sessions[1].label == "Firefox on Linux");
  const auto used = pg.use_session(std::string(64, 'c'), 1'764'000'000'200, 4'102'444'800'000);
  REQUIRE(used);
  CHECK(used->account_key == "bob");
  const auto closed = pg.load_match(unfinished_id);
  REQUIRE(closed);
  CHECK(closed->unfinished);
  CHECK(closed->closed_by == "admin");
  CHECK(closed == lite.load_match(unfinished_id));
  CHECK(backend.sql("SELECT count(*) FROM matches WHERE unfinished") == "1");
  CHECK(backend.sql("SELECT detail FROM moderation WHERE action = 'broadcast'") ==
        "the server restarts at 't' \"now\"");
  // A new record follows the copied ones.
  pg.record_moderation({"broadcast", "admin", "", "", "again"});
  CHECK(backend.sql("SELECT max(id) FROM moderation WHERE detail = 'again'") == "5");

  // A target holding only a ban is not empty.
  postgres_backend other;
  {
    postgres_store target(other.url);
    target.save_bans({banned("zed", "", 0)}, {"ban", "admin", "zed", "", ""});
  }
  try {
    (void)bg::server::migrate_to_postgres(path, other.url);
    FAIL("copied into a database that holds a ban");
  } catch (const storage_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("not empty"));
  }
  CHECK(other.sql("SELECT count(*) FROM matches") == "0");
}

TEST_CASE("postgres: migrate refuses a copy whose sessions read back different, and copies nothing",
          "[postgres][migrate]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  {
    sqlite_store lite(path);
    REQUIRE(
        lite.create_account("alice", "Alice", bg::server::account::kind::player, "$argon2id$x"));
    REQUIRE(lite.create_session("alice", std::string(64, 'a'), "laptop", 1'764'000'000'000,
                                4'102'444'800'000, 5) > 0);
  }
  postgres_backend backend;
  // The target's schema, with a trigger that changes every session's label on its way in
  // (what a faulty copy would do): the read-back must see it.
  { postgres_store target(backend.url); }
  (void)backend.sql(
      "CREATE FUNCTION relabel() RETURNS trigger AS $$ BEGIN NEW.label := 'other'; RETURN NEW; "
      "END $$ LANGUAGE plpgsql");
  (void)backend.sql(
      "CREATE TRIGGER relabel BEFORE INSERT ON sessions FOR EACH ROW EXECUTE FUNCTION relabel()");
  try {
    (void)bg::server::migrate_to_postgres(path, backend.url);
    FAIL("a copy whose sessions differ was kept");
  } catch (const storage_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("the session of account"));
    CHECK_THAT(e.what(), Catch::Contains("nothing was copied"));
  }
  CHECK(backend.sql("SELECT count(*) FROM sessions") == "0");
  CHECK(backend.sql("SELECT count(*) FROM accounts") == "0");
}

TEST_CASE("postgres: migrate refuses a target that is not empty and changes nothing in it",
          "[postgres][migrate]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  {
    sqlite_store lite(path);
    lite.save_match(play_random_match({variant::standard, match_kind::points, 1}, 1));
  }
  postgres_backend backend;
  {
    postgres_store pg(backend.url);
    REQUIRE(pg.save_tables({tw("already", "{}")})[0].empty());
  }
  try {
    (void)bg::server::migrate_to_postgres(path, backend.url);
    FAIL("copied into a database that holds a table");
  } catch (const storage_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("not empty"));
  }
  CHECK(backend.sql("SELECT count(*) FROM matches") == "0");
  CHECK(backend.sql("SELECT string_agg(name, ',') FROM tables") == "already");
}

TEST_CASE("postgres: migrate refuses a damaged SQLite file and copies nothing",
          "[postgres][migrate]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  {
    sqlite_store lite(path);
    for (int i = 0; i < 200; ++i)
      lite.save_table("table" + std::to_string(i), json{{"pad", std::string(300, 'p')}}.dump());
  }
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(2 * 4096 + 8);
    const std::string junk(3000, '\xA5');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  postgres_backend backend;
  CHECK_THROWS_AS(bg::server::migrate_to_postgres(path, backend.url), bg::server::storage_corrupt);
  CHECK(backend.sql("SELECT count(*) FROM pg_tables WHERE tablename = 'tables'") == "0");
}

namespace {

/// Two cluster nodes' stores, a and b (lease 60 s), on one fresh database, both alive.
struct two_nodes {
  postgres_backend backend;
  postgres_store a{backend.url, options("a")};
  postgres_store b{backend.url, options("b")};
  two_nodes() {
    (void)backend.sql(
        "INSERT INTO cluster_nodes(id, path, heartbeat_at, started_at) VALUES ('a', '/n/a', "
        "now(), now()), ('b', '/n/b', now(), now())");
  }
  static postgres_options options(const std::string& node) {
    postgres_options o;
    o.node = node;
    o.lease_ms = 60'000;
    return o;
  }
};

}  // namespace

TEST_CASE(
    "postgres: fencing: a node's first write claims a table at epoch 1, journal rows carry node "
    "and epoch, a write at a stale epoch or after the node's lease is refused whole, and a live "
    "owner's table cannot be claimed",
    "[postgres][cluster]") {
  two_nodes nodes;
  auto& backend = nodes.backend;
  auto& a = nodes.a;
  auto& b = nodes.b;

  auto first = tw("t", R"({"n":1})", true, {R"({"e":1})"});
  first.seat_keys = {"alice", "bob"};
  const auto claimed = a.write_tables({first});
  REQUIRE(claimed.front().error.empty());
  CHECK(claimed.front().epoch == 1);
  CHECK_FALSE(claimed.front().fenced);
  CHECK(backend.sql("SELECT node || ':' || epoch FROM table_owners WHERE table_name = 't'") ==
        "a:1");
  CHECK(backend.sql("SELECT node || ':' || epoch FROM table_records WHERE table_name = 't'") ==
        "a:1");
  CHECK(backend.sql("SELECT string_agg(name_key, ',' ORDER BY name_key) FROM table_seats") ==
        "alice,bob");

  // b cannot take a table whose owner is alive, neither new (epoch 0) nor by guessing.
  for (const std::int64_t epoch : {0, 1}) {
    auto w = tw("t", R"({"n":"b"})", false, {R"({"e":"b"})"});
    w.epoch = epoch;
    const auto refused = b.write_tables({w});
    CHECK(refused.front().fenced);
    // A first write that lost the table to a live node is a creation race, not stale.
    CHECK(refused.front().claim_lost == (epoch == 0));
    CHECK_FALSE(refused.front().error.empty());
  }
  // a's heartbeat gets old: b claims it (as its sweep does), and a's next write, at its
  // old epoch, is refused whole, in a batch with another table that is written.
  (void)backend.sql(
      "UPDATE cluster_nodes SET heartbeat_at = now() - interval '2 minutes' "
      "WHERE id = 'a'");
  auto take = tw("t", R"({"n":2})", false, {R"({"e":2})"});
  const auto taken = b.write_tables({take});
  REQUIRE(taken.front().error.empty());
  CHECK(taken.front().epoch == 2);
  (void)backend.sql("UPDATE cluster_nodes SET heartbeat_at = now() WHERE id = 'a'");
  auto stale = tw("t", R"({"n":"stale"})", false, {R"({"e":"stale"})"});
  stale.epoch = 1;
  auto other = tw("u", R"({"n":1})");
  const auto outcomes = a.write_tables({stale, other});
  CHECK(outcomes[0].fenced);
  CHECK_FALSE(outcomes[0].claim_lost);
  CHECK(outcomes[1].error.empty());
  CHECK(backend.sql("SELECT snapshot::text FROM tables WHERE name = 't'") == R"({"n":2})");
  CHECK(backend.sql("SELECT count(*) FROM table_records WHERE table_name = 't' AND node = 'a'") ==
        "1");
  CHECK(backend.sql("SELECT node || ':' || epoch FROM table_records WHERE table_name = 't' ORDER "
                    "BY id DESC LIMIT 1") == "b:2");
  // The seats are rewritten with each snapshot (a name kept, one gone, one new).
  auto seats = tw("t", R"({"n":3})");
  seats.epoch = 2;
  seats.seat_keys = {"bob", "carol"};
  REQUIRE(b.write_tables({seats}).front().error.empty());
  CHECK(backend.sql("SELECT string_agg(name_key, ',' ORDER BY name_key) FROM table_seats") ==
        "bob,carol");
  // A node whose own lease expired writes nothing, even its own table.
  (void)backend.sql(
      "UPDATE cluster_nodes SET heartbeat_at = now() - interval '2 minutes' "
      "WHERE id = 'b'");
  auto late = tw("t", R"({"n":"late"})");
  late.epoch = 2;
  CHECK(b.write_tables({late}).front().fenced);
  CHECK(backend.sql("SELECT snapshot::text FROM tables WHERE name = 't'") == R"({"n":3})");
}

TEST_CASE(
    "postgres: two nodes whose group commits create the same new tables in opposite orders never "
    "deadlock: each table is claimed by exactly one of them, the other told claim_lost",
    "[postgres][cluster]") {
  two_nodes nodes;
  auto& backend = nodes.backend;
  auto& a = nodes.a;
  auto& b = nodes.b;
  // Rounds of 12 new tables each: a's batch lists them in one order, b's in the other,
  // both committed at once (before the fix, PostgreSQL broke such cycles by failing one
  // node's claim with "deadlock detected", and that node kept an unwritten copy).
  constexpr int rounds = 30;
  constexpr int per_round = 12;
  int a_won = 0;
  int b_won = 0;
  for (int round = 0; round < rounds; ++round) {
    std::vector<table_write> forward;
    for (int i = 0; i < per_round; ++i) {
      auto w = tw("r" + std::to_string(round) + "-" + std::to_string(i), R"({"n":1})", true,
                  {R"({"e":1})"});
      w.seat_keys = {"p" + std::to_string(i)};
      forward.push_back(std::move(w));
    }
    std::vector<table_write> backward(forward.rbegin(), forward.rend());
    std::vector<bg::server::write_outcome> by_a;
    std::vector<bg::server::write_outcome> by_b;
    std::thread ta([&] { by_a = a.write_tables(forward); });
    std::thread tb([&] { by_b = b.write_tables(backward); });
    ta.join();
    tb.join();
    REQUIRE(by_a.size() == per_round);
    REQUIRE(by_b.size() == per_round);
    for (int i = 0; i < per_round; ++i) {
      const auto& x = by_a[static_cast<std::size_t>(i)];
      const auto& y = by_b[static_cast<std::size_t>(per_round - 1 - i)];
      INFO("round " << round << " table " << i << ": a '" << x.error << "', b '" << y.error << "'");
      // Exactly one claimed it; the other lost the claim, and nothing else failed.
      CHECK(x.error.empty() != y.error.empty());
      CHECK((x.error.empty() || (x.fenced && x.claim_lost)));
      CHECK((y.error.empty() || (y.fenced && y.claim_lost)));
      a_won += x.error.empty() ? 1 : 0;
      b_won += y.error.empty() ? 1 : 0;
    }
  }
  CHECK(a_won + b_won == rounds * per_round);
  CHECK(backend.sql("SELECT count(*) FROM table_owners") == std::to_string(rounds * per_round));
  CHECK(backend.sql("SELECT count(*) FROM tables") == std::to_string(rounds * per_round));
}

}  // namespace postgres_store_tests
