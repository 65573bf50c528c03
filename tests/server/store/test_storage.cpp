// What only the SQLite store has (sqlite_store.hpp): its file (WAL, sync, checkpoints,
// max_pages, quick_check, a SIGKILL), its migrations and sqlite_store::save_table; and
// the match record's JSON (record_json.hpp). Real database files in a scratch directory.
// What every store does is in the conformance suite, test_store_conformance.cpp.

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

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
using bg::server::match_record;
using bg::server::sqlite_store;
using bg::server::storage_error;
using bg::server::table_write;
using bg::test::play_random_match;
using bg::test::raw_query;
using bg::test::record_difference;
using bg::test::temp_dir;
using nlohmann::json;

match_options points(int length) {
  return {variant::standard, match_kind::points, length};
}

}  // namespace

// --- JSON -------------------------------------------------------------------------

TEST_CASE("json: engine values have their documented shapes", "[storage][json]") {
  CHECK(json(bg::engine::side::black) == "black");
  CHECK(json(bg::engine::roll{3, 5}) == json::array({3, 5}));
  CHECK(json(bg::engine::win_kind::backgammon) == "backgammon");
  CHECK(json(bg::engine::end_reason::dropped) == "dropped");
  CHECK(json(match_options{variant::long_nardy, match_kind::points, 7}) ==
        json{{"variant", "long"}, {"kind", "points"}, {"length", 7}});
  CHECK(json(bg::engine::game_result{bg::engine::side::red, bg::engine::win_kind::gammon,
                                     bg::engine::end_reason::resigned, 4}) ==
        json{{"winner", "red"}, {"kind", "gammon"}, {"reason", "resigned"}, {"points", 4}});
  const auto o = json{{"variant", "nardy"}, {"kind", "basis"}}.get<match_options>();
  CHECK(o == match_options{variant::long_nardy, match_kind::basis, 0});
}

TEST_CASE("json: a recorded match survives the round trip exactly", "[storage][json]") {
  for (const int length : {1, 3, 7}) {
    const auto record = play_random_match(points(length), static_cast<std::uint64_t>(length));
    const auto back = bg::server::match_record_from_json_text(bg::server::to_json_text(record));
    CHECK(record_difference(record, back).empty());
  }
}

TEST_CASE("json: bad input throws nlohmann's exceptions", "[storage][json]") {
  CHECK_THROWS_AS(json("green").get<bg::engine::side>(), json::exception);
  CHECK_THROWS_AS(json(3).get<bg::engine::side>(), json::type_error);
  CHECK_THROWS_AS(json::array({0, 7}).get<bg::engine::roll>(), json::other_error);
  CHECK_THROWS_AS(json::array({1}).get<bg::engine::roll>(), json::other_error);
  CHECK_THROWS_AS(json("triple").get<bg::engine::win_kind>(), json::other_error);
  CHECK_THROWS_AS((json{{"variant", "hyper"}, {"kind", "points"}}.get<match_options>()),
                  json::other_error);
  CHECK_THROWS_AS((json{{"what", "jump"}, {"who", "red"}}.get<bg::server::record_action>()),
                  json::other_error);
  CHECK_THROWS_AS(json::object().get<match_record>(), json::out_of_range);
  CHECK_THROWS_AS(bg::server::match_record_from_json_text("{not json"), json::parse_error);
}

// --- storage ----------------------------------------------------------------------

TEST_CASE("storage: a new database is in WAL mode at the current schema version", "[storage]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  sqlite_store db(path);
  CHECK(raw_query(path, "PRAGMA journal_mode") == "wal");
  CHECK(raw_query(path, "PRAGMA user_version") == std::to_string(sqlite_store::schema_version));
  CHECK(raw_query(path, "SELECT count(*) FROM sqlite_master WHERE name IN ('tables', 'matches')") ==
        "2");
}

TEST_CASE("storage: table snapshots are saved and replaced and listed by name and deleted",
          "[storage]") {
  temp_dir dir;
  sqlite_store db(dir.file("gammond.db"));
  CHECK(db.load_tables().empty());
  db.save_table("zeta", R"({"n":1})");
  db.save_table("alpha", R"({"n":2})");
  db.save_table("zeta", R"({"n":3})");  // replaces
  const auto tables = db.load_tables();
  REQUIRE(tables.size() == 2);
  CHECK(tables[0].name == "alpha");
  CHECK(tables[0].snapshot == R"({"n":2})");
  CHECK(tables[1].name == "zeta");
  CHECK(tables[1].snapshot == R"({"n":3})");
  CHECK(tables[1].record_journal.empty());
  db.delete_table("alpha");
  db.delete_table("never-existed");
  REQUIRE(db.load_tables().size() == 1);
  CHECK(db.load_tables()[0].name == "zeta");
}

TEST_CASE("storage: a version 1 database is migrated and keeps its tables", "[storage]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  {
    // The schema as version 1 shipped it (storage.cpp's first migration).
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                            nullptr) == SQLITE_OK);
    const char* v1 =
        "CREATE TABLE tables(name TEXT PRIMARY KEY NOT NULL, snapshot TEXT NOT NULL CHECK "
        "(json_valid(snapshot)), updated_at TEXT NOT NULL); CREATE TABLE matches(id INTEGER "
        "PRIMARY KEY, table_name TEXT NOT NULL, red TEXT NOT NULL, black TEXT NOT NULL, "
        "options TEXT NOT NULL, record TEXT NOT NULL, started_at TEXT NOT NULL, ended_at "
        "TEXT NOT NULL, score_red INTEGER NOT NULL, score_black INTEGER NOT NULL, games "
        "INTEGER NOT NULL, saved_at TEXT NOT NULL); INSERT INTO tables VALUES ('old', "
        "'{\"version\":1}', 'then'); PRAGMA user_version = 1;";
    CHECK(sqlite3_exec(raw, v1, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(raw);
  }
  sqlite_store db(path);
  CHECK(raw_query(path, "PRAGMA user_version") == std::to_string(sqlite_store::schema_version));
  // Version 9 rebuilt `tables` without SQLite's JSON check, keeping its rows.
  CHECK(raw_query(path, "SELECT sql FROM sqlite_master WHERE name = 'tables'").find("json_valid") ==
        std::string::npos);
  const auto tables = db.load_tables();
  REQUIRE(tables.size() == 1);
  CHECK(tables[0].snapshot == R"({"version":1})");
  CHECK(tables[0].record_journal.empty());
}

TEST_CASE("storage: a snapshot that is not JSON is refused with storage_error", "[storage]") {
  temp_dir dir;
  sqlite_store db(dir.file("gammond.db"));
  CHECK_THROWS_AS(db.save_table("t", "{oops"), storage_error);
  CHECK(db.load_tables().empty());
  db.save_table("t", "{}");  // the connection is still usable
  CHECK(db.load_tables().size() == 1);
}

TEST_CASE("storage: data written before close is there after reopening", "[storage]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  const auto record = play_random_match(points(3), 9);
  std::int64_t id = 0;
  {
    sqlite_store db(path);
    db.save_table("t1", R"({"phase":"roll"})");
    id = db.save_match(record);
  }
  sqlite_store db(path);
  REQUIRE(db.load_tables().size() == 1);
  CHECK(db.load_tables()[0].snapshot == R"({"phase":"roll"})");
  CHECK(db.match_count() == 1);
  auto loaded = db.load_match(id);
  REQUIRE(loaded.has_value());
  auto expected = record;
  expected.id = id;
  CHECK(record_difference(expected, *loaded).empty());
}

TEST_CASE("storage: two threads writing at once through one storage lose nothing", "[storage]") {
  temp_dir dir;
  sqlite_store db(dir.file("gammond.db"));
  const auto record = play_random_match(points(1), 3);
  constexpr int per_thread = 150;
  auto writer = [&](const std::string& prefix) {
    for (int i = 0; i < per_thread; ++i) {
      db.save_table(prefix + std::to_string(i), R"({"i":)" + std::to_string(i) + "}");
      if (i % 10 == 0) db.save_match(record);
      (void)db.load_tables().size();
    }
  };
  std::thread a(writer, "a");
  std::thread b(writer, "b");
  a.join();
  b.join();
  CHECK(db.load_tables().size() == 2 * per_thread);
  CHECK(db.match_count() == 2 * (per_thread / 10));
}

TEST_CASE("storage: two connections to one file in two threads wait for each other's locks",
          "[storage]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  sqlite_store first(path);
  sqlite_store second(path);
  constexpr int per_thread = 150;
  auto writer = [&](sqlite_store& db, const std::string& prefix) {
    for (int i = 0; i < per_thread; ++i) db.save_table(prefix + std::to_string(i), "{}");
  };
  std::thread a(writer, std::ref(first), "a");
  std::thread b(writer, std::ref(second), "b");
  a.join();
  b.join();
  CHECK(first.load_tables().size() == 2 * per_thread);
  CHECK(second.load_tables().size() == 2 * per_thread);
}

TEST_CASE(
    "storage: an unusable path or a corrupt file raises storage_error with SQLite's "
    "message",
    "[storage]") {
  temp_dir dir;
  SECTION("the parent of the path is a regular file") {
    std::ofstream(dir.file("plain")) << "x";
    try {
      sqlite_store db(dir.file("plain") + "/gammond.db");
      FAIL("opened a database under a regular file");
    } catch (const storage_error& e) {
      CHECK_THAT(e.what(), Catch::Contains("unable to open database file"));
    }
  }
  SECTION("the file is not a database") {
    std::ofstream(dir.file("junk.db")) << std::string(8192, 'J');
    try {
      sqlite_store db(dir.file("junk.db"));
      FAIL("opened a junk file as a database");
    } catch (const storage_error& e) {
      CHECK_THAT(e.what(), Catch::Contains("file is not a database"));
    }
  }
  SECTION("the schema is newer than this build") {
    const auto path = dir.file("future.db");
    { sqlite_store db(path); }
    raw_query(path, "PRAGMA user_version = 99");
    CHECK_THROWS_AS(sqlite_store(path), storage_error);
  }
}

TEST_CASE(
    "storage: a table saved just before the process is killed with SIGKILL is still "
    "there",
    "[storage]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  { sqlite_store init(path); }  // create the schema before forking
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The child: save, report, and wait to be killed. Never return into Catch.
    ::close(ready[0]);
    try {
      sqlite_store db(path);
      db.save_table("survivor", R"({"saved":"before kill"})");
      const char ok = 'k';
      if (::write(ready[1], &ok, 1) != 1) ::_exit(2);
      for (;;) ::pause();
    } catch (...) {
      ::_exit(3);
    }
  }
  ::close(ready[1]);
  char got = 0;
  const auto n = ::read(ready[0], &got, 1);
  ::close(ready[0]);
  REQUIRE(::kill(child, SIGKILL) == 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(n == 1);  // the child saved (else it exited without writing)
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  // The write sits in the WAL (no checkpoint ran): recovery must replay it.
  CHECK(std::filesystem::file_size(path + "-wal") > 0);
  sqlite_store db(path);
  const auto tables = db.load_tables();
  REQUIRE(tables.size() == 1);
  CHECK(tables[0].name == "survivor");
  CHECK(tables[0].snapshot == R"({"saved":"before kill"})");
}

// --- issue 11: durability settings, damaged files ------------------------------------

TEST_CASE("storage: sync full is the default and sync normal is honoured", "[storage][issue11]") {
  temp_dir dir;
  {
    sqlite_store db(dir.file("default.db"));
    CHECK(db.synchronous() == 2);  // FULL
  }
  bg::server::sqlite_options normal;
  normal.sync = bg::server::sync_mode::normal;
  sqlite_store db(dir.file("normal.db"), normal);
  CHECK(db.synchronous() == 1);  // NORMAL
}

namespace {

/// Writes `n` changes of table `t` (each a snapshot of about 20 KB, five pages) and
/// returns the last snapshot written.
std::string write_big_changes(sqlite_store& db, int n) {
  std::string last;
  for (int i = 0; i < n; ++i) {
    table_write w;
    w.name = "t";
    w.snapshot =
        json{{"n", i}, {"pad", std::string(20 * 1024, static_cast<char>('a' + i % 26))}}.dump();
    REQUIRE(db.save_tables({w}) == std::vector<std::string>{""});
    last = w.snapshot;
  }
  return last;
}

std::uintmax_t file_size_or_zero(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}

}  // namespace

TEST_CASE(
    "storage: the write-ahead log is checkpointed on a thread of the store's own, keeps its bound, "
    "and loses nothing",
    "[storage][issue15]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  bg::server::sqlite_options options;
  options.checkpoint_pages = 8;  // a checkpoint every other write or so
  std::string last;
  {
    sqlite_store db(path, options);
    last = write_big_changes(db, 300);  // 1,500 pages in all
    // The thread runs on its own time: wait (a bounded while) for its first rounds.
    for (int i = 0; i < 500 && db.background_checkpoints() == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(db.background_checkpoints() > 0);
    INFO("checkpoints by the thread " << db.background_checkpoints() << ", by the writer "
                                      << db.writer_checkpoints());
    // Without checkpoints the log would hold all 1,500 pages (6 MB); it never passes the
    // writer's bound of 4 x 8 pages by more than a write (4,120 bytes a page in the log).
    CHECK(file_size_or_zero(path + "-wal") < 100 * 4120);
    // What a second connection reads is the last write.
    CHECK(raw_query(path, "SELECT json_extract(snapshot, '$.n') FROM tables WHERE name = 't'") ==
          "299");
    CHECK(db.load_table("t")->snapshot == last);
  }
  // Closed and opened again: everything is there and the file is sound.
  CHECK(bg::server::quick_check(path).empty());
  sqlite_store again(path, options);
  CHECK(again.load_table("t")->snapshot == last);
}

TEST_CASE("storage: checkpoint_pages 0 leaves the checkpoints to SQLite", "[storage][issue15]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  bg::server::sqlite_options options;
  options.checkpoint_pages = 0;
  sqlite_store db(path, options);
  const auto last = write_big_changes(db, 300);
  CHECK(db.background_checkpoints() == 0);
  CHECK(db.writer_checkpoints() == 0);
  // SQLite's automatic checkpoint (1,000 pages) bounds the log all the same.
  CHECK(file_size_or_zero(path + "-wal") < 1100 * 4120);
  CHECK(db.load_table("t")->snapshot == last);
}

TEST_CASE(
    "storage: past max_pages a write fails as full and leaves the table as last written and freed "
    "pages are used again",
    "[storage][issue11]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  { sqlite_store init(path); }
  // Ballast an operator can delete later to make room (pages below the cap).
  raw_query(path, "CREATE TABLE ballast(x BLOB)");
  raw_query(path, "INSERT INTO ballast VALUES (zeroblob(200000))");
  bg::server::sqlite_options capped;
  capped.max_pages = 1;  // never below the current size: the file may not grow at all
  sqlite_store db(path, capped);
  table_write first;
  first.name = "t";
  first.snapshot = R"({"n":1})";
  REQUIRE(db.save_tables({first}) == std::vector<std::string>{""});
  table_write big = first;
  big.snapshot = json{{"n", 2}, {"pad", std::string(64 * 1024, 'x')}}.dump();
  // SQLITE_FULL ends the whole transaction: the batch fails as one.
  CHECK_THROWS_WITH(db.save_tables({big}), Catch::Contains("full"));
  CHECK(db.load_table("t")->snapshot == R"({"n":1})");
  // Another connection frees pages (as an operator would make room): they are reused.
  raw_query(path, "DELETE FROM ballast");
  CHECK(db.save_tables({big}) == std::vector<std::string>{""});
  CHECK(db.load_table("t")->snapshot == big.snapshot);
}

TEST_CASE("storage: a file that fails PRAGMA quick_check is refused with storage_corrupt",
          "[storage][issue11]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  {
    sqlite_store db(path);
    for (int i = 0; i < 200; ++i)
      db.save_table("table" + std::to_string(i), json{{"pad", std::string(300, 'p')}}.dump());
  }  // the last connection checkpoints the WAL into the file
  REQUIRE(bg::server::quick_check(path).empty());
  {
    // Scribble over the middle of page 3 (a b-tree page): the header stays readable.
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(2 * 4096 + 8);
    const std::string junk(3000, '\xA5');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  CHECK_FALSE(bg::server::quick_check(path).empty());
  CHECK_THROWS_AS(sqlite_store(path), bg::server::storage_corrupt);
}

// --- issue 14: the analyses table -----------------------------------------------------

namespace {

/// Writes `record` as the match a table finished, under a new id; returns the id.
std::int64_t archive(sqlite_store& db, match_record record, bool analyse) {
  table_write w;
  w.name = "t";
  w.snapshot = "{}";
  record.id = db.reserve_match_id();
  w.finished_match = record;
  w.analyse_match = analyse;
  REQUIRE(db.save_tables({w}) == std::vector<std::string>{""});
  return record.id;
}

}  // namespace

TEST_CASE("storage: a version 2 database gets the analyses table and keeps its matches",
          "[storage][analysis]") {
  temp_dir dir;
  const auto path = dir.file("gammond.db");
  std::int64_t id = 0;
  {
    sqlite_store db(path);
    id = archive(db, play_random_match(points(1), 5), false);
  }
  // Back to version 2: the analyses table (version 3), the accounts' tables (version
  // 4), moderation's (version 5) and the sessions (version 6) did not exist yet.
  raw_query(path, "DROP TABLE sessions");
  raw_query(path, "DROP TABLE moderation");
  raw_query(path, "DROP TABLE bans");
  raw_query(path, "DROP TABLE ignores");
  raw_query(path, "ALTER TABLE matches DROP COLUMN unfinished");
  raw_query(path, "DROP TABLE account_matches");
  raw_query(path, "DROP TABLE ratings");
  raw_query(path, "DROP TABLE accounts");
  raw_query(path, "DROP TABLE analyses");
  raw_query(path, "PRAGMA user_version = 2");
  sqlite_store db(path);
  CHECK(raw_query(path, "PRAGMA user_version") == std::to_string(sqlite_store::schema_version));
  CHECK(db.load_match(id));
  CHECK_FALSE(db.load_analysis(id));
  CHECK(db.pending_analyses(10).empty());
}
