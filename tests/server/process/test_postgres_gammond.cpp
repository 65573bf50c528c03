// gammond on PostgreSQL against the real gammond (issue 16): what the SQLite-only
// durability tests check through the file (test_durability.cpp [sqlite]) checked through
// PostgreSQL instead (a refused write, a refused archive, the server gone and back),
// `gammond migrate` from a database gammond wrote, and the URL's password kept out of
// the log. The rest of the suite runs on PostgreSQL in scripts/test's pg stage.

#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "eventually.hpp"
#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "postgres_server.hpp"
#include "test_player.hpp"

using bg::test::duel;
using bg::test::gammond_process;
using bg::test::player;
using bg::test::postgres_server;
using bg::test::seat;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// gammond flags: the database `url`, then bg::test::gammond_flags (reproducible dice, no
/// rate limit in a test's way) and `more`.
std::vector<std::string> flags(const std::string& url, std::vector<std::string> more = {}) {
  std::vector<std::string> f{"--db", url};
  auto rest = bg::test::gammond_flags(11, std::move(more));
  f.insert(f.end(), rest.begin(), rest.end());
  return f;
}

/// A database of its own on the shared server, dropped at the end.
struct database {
  std::string url = postgres_server::shared().create_database();
  database() = default;
  ~database() { postgres_server::shared().drop_database(url); }
  database(const database&) = delete;
  database& operator=(const database&) = delete;
  [[nodiscard]] std::string sql(const std::string& query) const {
    return postgres_server::query(url, query);
  }
};

/// Makes PostgreSQL refuse every write of table `table` ("tables" or "matches") while
/// the table `refuse` has a row: what a full disk, a lost privilege or a constraint
/// would do, under the test's control.
void refuse_writes_to(const database& db, const std::string& table) {
  (void)db.sql("CREATE TABLE refuse(why text)");
  (void)db.sql(
      "CREATE FUNCTION refuse_writes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF EXISTS "
      "(SELECT 1 FROM refuse) THEN RAISE EXCEPTION 'writes refused by the test'; END IF; "
      "RETURN NEW; END $$");
  (void)db.sql("CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON " + table +
               " FOR EACH ROW EXECUTE FUNCTION refuse_writes()");
}

/// The fields a player sees of a table's state (without `re`).
json visible(json st) {
  st.erase("re");
  return st;
}

/// Runs a shell command; returns its exit code (128 + signal when killed) and its
/// stdout and stderr together.
std::pair<int, std::string> run(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen((command + " 2>&1").c_str(), "r"), ::pclose);
  REQUIRE(pipe);
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe.get())) > 0;)
    out.append(buffer, n);
  const int status = ::pclose(pipe.release());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return {code, out};
}

/// A temporary directory, removed with its contents at the end.
struct scratch_dir {
  std::filesystem::path path;
  scratch_dir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "gammond-migrate-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
};

std::string shell_quoted(const std::string& text) {
  return "'" + text + "'";
}

}  // namespace

TEST_CASE(
    "gammond on PostgreSQL: a write PostgreSQL refuses is not announced: the sender gets "
    "storage_error, /board shows the last written state, and play goes on once writes are "
    "accepted again",
    "[postgres]") {
  database db;
  gammond_process server{flags(db.url)};
  refuse_writes_to(db, "tables");
  player red(server.port(), "alice");
  player black(server.port(), "bob");
  seat(red, black, "main");
  duel d{red, black, "main"};
  d.play_until([](const json& s) { return s["phase"] == "roll"; });
  for (int i = 0; i < 4; ++i) d.step();
  const json before = visible(d.play_until([](const json& s) { return s["phase"] == "roll"; }));
  const auto seq = before["seq"].get<std::uint64_t>();
  player& sender = d.by_side(before["to_act"]);
  player& other = &sender == &red ? black : red;
  const std::string line = "/roll";

  (void)db.sql("INSERT INTO refuse VALUES ('test')");
  const json refused = sender.say("main", line);
  INFO(refused.dump() << "\n" << server.log());
  REQUIRE(refused["type"] == "error");
  CHECK(refused["code"] == "storage_error");
  CHECK(visible(other.ok("main", "/board")) == before);
  CHECK(visible(sender.ok("main", "/board")) == before);
  for (const player* p : {&red, &black})
    for (const auto& s : p->states()) CHECK(s["seq"].get<std::uint64_t>() <= seq);

  (void)db.sql("DELETE FROM refuse");
  const json after = sender.ok("main", line);
  CHECK(after["seq"].get<std::uint64_t>() == seq + 1);
  server.restart();
  player carol(server.port(), "carol");
  const json restored = carol.ok("main", "/board");
  CHECK(restored["seq"] == seq + 2);  // carol's entrance is the one change since
  CHECK(restored["dice"] == after["dice"]);
  CHECK(restored["board"] == after["board"]);
}

TEST_CASE(
    "gammond on PostgreSQL: a finished match and its final snapshot are one write: when the "
    "archive is refused neither match_over nor the match exists, and when it succeeds both do",
    "[postgres]") {
  database db;
  gammond_process server{flags(db.url)};
  refuse_writes_to(db, "matches");
  player red(server.port(), "alice");
  player black(server.port(), "bob");
  seat(red, black, "main", "/option match 1");
  red.ok("main", "/roll");  // the opening roll
  red.ok("main", "/resign");
  (void)db.sql("INSERT INTO refuse VALUES ('test')");
  const json offered = visible(black.ok("main", "/board"));
  const json refused = black.say("main", "/accept");
  INFO(refused.dump() << "\n" << server.log());
  REQUIRE(refused["type"] == "error");
  CHECK(refused["code"] == "storage_error");
  CHECK(visible(red.ok("main", "/board")) == offered);
  CHECK(db.sql("SELECT count(*) FROM matches") == "0");
  for (const player* p : {&red, &black})
    for (const auto& e : p->events()) CHECK(e.value("event", "") != "match_over");

  (void)db.sql("DELETE FROM refuse");
  black.ok("main", "/accept");
  const json over = red.await([](const json& m) { return m.value("event", "") == "match_over"; });
  REQUIRE(over.contains("match_id"));
  const auto id = std::to_string(over["match_id"].get<std::int64_t>());
  CHECK(db.sql("SELECT count(*) FROM matches WHERE id = " + id) == "1");
  CHECK(db.sql("SELECT snapshot->>'last_match_id' FROM tables WHERE name = 'main'") == id);
  const auto mat = server.get("/matches/" + id + ".mat");
  CHECK(mat.status == 200);
  CHECK_THAT(mat.body, Catch::Contains("alice"));
}

TEST_CASE(
    "gammond on PostgreSQL: PostgreSQL stopped under gammond: a change meanwhile fails with "
    "storage_error, the table waits for the store and nothing half-written is kept, and once it "
    "is back play goes on and a restart restores it",
    "[postgres]") {
  postgres_server own;  // this test stops its server
  const std::string url = own.create_database();
  gammond_process server{flags(url, {"--db-connect-timeout", "2"})};
  player red(server.port(), "alice");
  player black(server.port(), "bob");
  seat(red, black, "main", "/option match 3");
  duel d{red, black, "main"};
  d.play_until([](const json& s) { return s["phase"] == "roll"; });
  for (int i = 0; i < 4; ++i) d.step();
  const json before = visible(d.play_until([](const json& s) { return s["phase"] == "roll"; }));
  const auto seq = before["seq"].get<std::uint64_t>();
  player& sender = d.by_side(before["to_act"]);
  player& other = &sender == &red ? black : red;

  own.stop();
  const json refused = sender.say("main", "/roll");
  INFO(refused.dump() << "\n" << server.log());
  REQUIRE(refused["type"] == "error");
  CHECK(refused["code"] == "storage_error");
  // The table cannot read its last written state either: it holds this /board until it
  // can (it would otherwise answer from a change that was never written).
  const auto board_id = other.send("main", "/board");
  own.start();
  const json board = other.answer(board_id);
  CHECK(visible(board) == before);
  for (const player* p : {&red, &black})
    for (const auto& s : p->states()) CHECK(s["seq"].get<std::uint64_t>() <= seq);

  const json rolled = sender.ok("main", "/roll");
  CHECK(rolled["seq"].get<std::uint64_t>() == seq + 1);
  CHECK_THAT(server.log(), Catch::Contains("cannot read back its last written state"));
  CHECK_THAT(server.log(), Catch::Contains("back at its last written state"));
  server.restart();
  player carol(server.port(), "carol");
  const json restored = carol.ok("main", "/board");
  CHECK(restored["dice"] == rolled["dice"]);
  CHECK(restored["board"] == rolled["board"]);
}

TEST_CASE(
    "gammond migrate: a SQLite database gammond wrote is copied into PostgreSQL, where gammond "
    "restores its tables and serves its matches, numbering new matches after them",
    "[postgres][migrate]") {
  const scratch_dir dir;
  const auto file = dir.path / "source.db";
  gammond_process source{{"--db", file.string(), "--dice-seed", "5", "--commands-per-second",
                          "100000", "--command-burst", "100000"}};
  json live_before;
  std::int64_t finished_id = 0;
  std::string alice_token;
  std::string bob_token;
  {
    player red(source.port(), "alice");
    player black(source.port(), "bob");
    seat(red, black, "done", "/option match 1");
    red.ok("done", "/roll");
    red.ok("done", "/resign");
    black.ok("done", "/accept");
    finished_id =
        red.await([](const json& m) { return m.value("event", "") == "match_over"; })["match_id"]
            .get<std::int64_t>();
    seat(red, black, "live", "/option match 3");
    duel d{red, black, "live"};
    for (int i = 0; i < 9; ++i) d.step();
    live_before = visible(d.fresh());
    alice_token = red.token();
    bob_token = black.token();
  }
  // The finished match's table is forgotten once nobody is there: wait until the lobby no
  // longer lists it, so that the stop does not save it first (the tsan stage saw 2 tables).
  {
    player look(source.port(), "carol");
    REQUIRE(bg::test::eventually([&] {
      const auto list = look.ok("", "/tables");
      for (const auto& t : list["tables"])
        if (t.value("name", "") == "done") return false;
      return true;
    }));
  }
  REQUIRE(source.stop() == 0);

  database db;
  const std::string gammond = shell_quoted(GAMMOND_BINARY);
  // Bad usage: 2.
  CHECK(run(gammond + " migrate --from " + shell_quoted(file.string())).first == 2);
  CHECK(run(gammond + " migrate --from " + shell_quoted(file.string()) + " --to other.db").first ==
        2);
  // A URL with a password (trust authentication ignores it): never printed.
  const auto at = db.url.find("@/");
  const std::string with_password = db.url.substr(0, at) + ":pa55word@/" + db.url.substr(at + 2);
  const auto [code, out] = run(gammond + " migrate --from " + shell_quoted(file.string()) +
                               " --to " + shell_quoted(with_password));
  INFO(out);
  REQUIRE(code == 0);
  // The finished match's table was forgotten once empty: the one in progress is left.
  CHECK_THAT(out, Catch::Contains("copied 1 table(s)"));
  CHECK_THAT(out, Catch::Contains("1 match(es)"));
  CHECK_THAT(out, Catch::Contains("read back equal"));
  CHECK_THAT(out, Catch::Contains(":***@"));
  CHECK(out.find("pa55word") == std::string::npos);
  // Again: the target is not empty now.
  const auto [again, again_out] = run(gammond + " migrate --from " + shell_quoted(file.string()) +
                                      " --to " + shell_quoted(db.url));
  CHECK(again == 1);
  CHECK_THAT(again_out, Catch::Contains("not empty"));

  gammond_process pg{{"--db", db.url, "--dice-seed", "5", "--commands-per-second", "100000",
                      "--command-burst", "100000"}};
  const auto mat = pg.get("/matches/" + std::to_string(finished_id) + ".mat");
  CHECK(mat.status == 200);
  CHECK_THAT(mat.body, Catch::Contains("alice"));
  player red(pg.port(), "", alice_token);
  CHECK(red.welcome()["name"] == "alice");
  const json live_after = visible(red.ok("live", "/board"));
  for (const char* key :
       {"phase", "turn", "dice", "board", "cube", "score", "position_id", "match_id", "players"}) {
    INFO(key);
    CHECK(live_after[key] == live_before[key]);
  }
  // A new match is numbered after the copied ones.
  player black(pg.port(), "", bob_token);
  seat(red, black, "next", "/option match 1");
  red.ok("next", "/roll");
  red.ok("next", "/resign");
  black.ok("next", "/accept");
  const auto next_id =
      red.await([](const json& m) { return m.value("event", "") == "match_over"; })["match_id"]
          .get<std::int64_t>();
  CHECK(next_id > finished_id);
}

TEST_CASE(
    "gammond on PostgreSQL: the log shows the URL with its password masked and --sync normal "
    "as synchronous_commit off, and --db-max-pages and gammond backup refuse a URL with a sentence",
    "[postgres]") {
  database db;
  const auto at = db.url.find("@/");
  const std::string with_password = db.url.substr(0, at) + ":t0ps3cret@/" + db.url.substr(at + 2);
  {
    gammond_process server{{"--db", with_password, "--sync", "normal"}};
    const std::string log = server.log();
    INFO(log);
    CHECK_THAT(log, Catch::Contains(":***@"));
    CHECK_THAT(log, Catch::Contains("synchronous_commit=off"));
    CHECK(log.find("t0ps3cret") == std::string::npos);
  }
  const std::string gammond = shell_quoted(GAMMOND_BINARY);
  const auto [pages, pages_out] =
      run(gammond + " --port 0 --db " + shell_quoted(with_password) + " --db-max-pages 100");
  CHECK(pages == 2);
  CHECK_THAT(pages_out, Catch::Contains("--db-max-pages"));
  CHECK(pages_out.find("t0ps3cret") == std::string::npos);
  const auto [backup, backup_out] =
      run(gammond + " backup --db " + shell_quoted(with_password) + " --to /tmp/never-written.db");
  CHECK(backup == 2);
  CHECK_THAT(backup_out, Catch::Contains("pg_dump"));
  CHECK(backup_out.find("t0ps3cret") == std::string::npos);
}

TEST_CASE(
    "gammond on PostgreSQL: a database that cannot be reached stops gammond at start with "
    "exit code 1 and a sentence naming it",
    "[postgres]") {
  const std::string nowhere = "postgresql://gammond:hidden@/gammond?host=" +
                              (std::filesystem::temp_directory_path() / "no-such-dir").string();
  try {
    gammond_process server{{"--db", nowhere, "--db-connect-timeout", "1"}, 20s};
    FAIL("gammond started without its database");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("exited with code 1"));
    CHECK_THAT(what, Catch::Contains("cannot open the database postgresql://gammond:***@"));
    CHECK(what.find("hidden") == std::string::npos);
  }
}
