// Storage and durability against the real gammond (issue 11 items 3 and 4): a failed
// write is never announced, the finished match and its snapshot are atomic, a damaged
// database stops gammond, --sync, and `gammond backup` while gammond writes.
//
// Tests tagged [sqlite] are about the SQLite file itself (a quota in pages, PRAGMA
// quick_check, synchronous, the backup API, rows edited in the file): CTest labels them
// "sqlite" and scripts/test's pg stage, which runs the suite on PostgreSQL, leaves them
// out. Their PostgreSQL counterparts are in test_postgres_gammond.cpp.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <sys/wait.h>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "http_get.hpp"
#include "test_player.hpp"
#include "ws_client.hpp"

using bg::test::gammond_flags;
using bg::test::gammond_process;
using bg::test::player;
using bg::test::ws_client;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// One generous deadline for any awaited message (CI is a loaded 2-core machine).
constexpr auto deadline = 20s;

/// Runs `sql` on its own connection to `path`; returns the first column of the first
/// row as text ("" when none). REQUIREs success.
std::string sql(const std::filesystem::path& path, const std::string& query) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  sqlite3_busy_timeout(db, 10000);
  sqlite3_stmt* stmt = nullptr;
  const int prepared = sqlite3_prepare_v2(db, query.c_str(), -1, &stmt, nullptr);
  INFO(query << ": " << sqlite3_errmsg(db));
  REQUIRE(prepared == SQLITE_OK);
  const int rc = sqlite3_step(stmt);
  INFO(query << ": " << sqlite3_errmsg(db));
  REQUIRE((rc == SQLITE_ROW || rc == SQLITE_DONE));
  std::string out;
  if (rc == SQLITE_ROW && sqlite3_column_text(stmt, 0))
    out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

/// The line that moves the game at `st` on (opening roll, roll, or the first legal
/// play), and who must send it.
std::pair<std::string, std::string> next_move(const json& st) {
  const std::string phase = st["phase"];
  if (phase == "opening") return {"red", "/roll"};
  if (phase == "roll") return {st["to_act"], "/roll"};
  REQUIRE(phase == "move");
  REQUIRE_FALSE(st["legal"].empty());
  return {st["to_act"], "/move " + st["legal"][0].get<std::string>()};
}

/// Plays up to `changes` rolls and plays (next_move) at `t` while its game is in play,
/// each by the seated player whose turn it is; every one must be accepted.
void play_on(player& red, player& black, const std::string& t, int changes) {
  for (int i = 0; i < changes; ++i) {
    const json st = red.ok(t, "/board");
    if (st["phase"] != "opening" && st["phase"] != "roll" && st["phase"] != "move") break;
    const auto [side, line] = next_move(st);
    (side == "red" ? red : black).ok(t, line);
  }
}

/// The fields a player sees of a table's state (without `re`).
json visible(json st) {
  st.erase("re");
  return st;
}

/// Restarts `server` with GAMMOND_DB_MAX_PAGES=1 (the database may not grow past its
/// size), after giving it `rows` rows of `bytes` each of ballast below that size, which
/// the test deletes to make room as an operator would.
void restart_capped(gammond_process& server, int rows, int bytes) {
  server.stop();
  sql(server.database(), "CREATE TABLE ballast(x BLOB)");
  for (int i = 0; i < rows; ++i)
    sql(server.database(), "INSERT INTO ballast VALUES (zeroblob(" + std::to_string(bytes) + "))");
  ::setenv("GAMMOND_DB_MAX_PAGES", "1", 1);
  server.restart();
  ::unsetenv("GAMMOND_DB_MAX_PAGES");
}

std::string metrics(const gammond_process& server) {
  const auto r = server.get("/metrics");
  REQUIRE(r.status == 200);
  return r.body;
}

}  // namespace

TEST_CASE(
    "a write that fails (database full) is not announced: the sender gets storage_error and /board "
    "shows the last written state and /metrics counts it and the table keeps serving",
    "[issue11][durability][sqlite]") {
  gammond_process server{gammond_flags(11)};
  restart_capped(server, 1, 200000);
  player red(server.port(), "alice");
  player black(server.port(), "bob");
  const std::string t = "main";
  red.ok(t, "/join red");
  black.ok(t, "/join black");
  black.ok(t, "/start");

  // Play until a change no longer fits in the file.
  json failure;
  std::string failed_line;
  player* sender = nullptr;
  player* other = nullptr;
  json before;
  for (int i = 0; i < 600 && failure.is_null(); ++i) {
    const json st = red.ok(t, "/board");
    const auto [side, line] = next_move(st);
    sender = side == "red" ? &red : &black;
    other = side == "red" ? &black : &red;
    before = visible(st);
    const json reply = sender->say(t, line);
    if (reply["type"] == "error") {
      INFO(reply.dump());
      REQUIRE(reply["code"] == "storage_error");
      CHECK_FALSE(reply.value("message", "").empty());
      failure = reply;
      failed_line = line;
    }
  }
  INFO(server.log());
  REQUIRE_FALSE(failure.is_null());
  const auto seq = before["seq"].get<std::uint64_t>();

  // Nobody heard of the change: /board is the last written state, for both players.
  CHECK(visible(sender->ok(t, "/board")) == before);
  CHECK(visible(other->ok(t, "/board")) == before);
  for (const player* p : {&red, &black})
    for (const auto& s : p->states()) CHECK(s["seq"].get<std::uint64_t>() <= seq);
  CHECK_THAT(metrics(server), Catch::Contains("gammond_errors_total{code=\"storage_error\"} 1\n"));

  // The table keeps serving: chat (not written) reaches the other player.
  sender->say(t, "still here?");
  other->await([](const json& m) { return m.value("type", "") == "chat"; });

  // Messages that wait behind a failing write are handled against the rolled-back
  // table: the other player's /board, sent at once, sees the last written state.
  const auto again_id = sender->send(t, failed_line);
  const json board = other->ok(t, "/board");
  const json again_reply = sender->answer(again_id);
  CHECK(again_reply["code"] == "storage_error");
  CHECK(visible(board) == before);
  CHECK_THAT(metrics(server), Catch::Contains("gammond_errors_total{code=\"storage_error\"} 2\n"));

  // Room again (the operator deletes the ballast): the same command now goes through,
  // as the next change after the last written one.
  sql(server.database(), "DELETE FROM ballast");
  const json after = sender->ok(t, failed_line);
  CHECK(after["seq"].get<std::uint64_t>() == seq + 1);
  CHECK(other->await([&](const json& m) {
    return m.value("type", "") == "state" && m.value("seq", 0ULL) == seq + 1;
  })["seq"] == seq + 1);

  // What was announced is what a restart restores.
  server.restart();
  player again(server.port(), "carol");
  const json restored = again.ok(t, "/board");
  CHECK(restored["seq"] == seq + 2);  // carol's entrance is the one change since
  CHECK(restored["board"] == after["board"]);
}

TEST_CASE(
    "the finished match and its final snapshot are one write: when it fails neither match_over nor "
    "the match exists and when it succeeds both do",
    "[issue11][durability][sqlite]") {
  gammond_process server{gammond_flags(11)};
  // Ballast of about a page per row: room is made a page at a time.
  restart_capped(server, 80, 3500);
  const auto db = server.database();
  // `line` from `p`; while the file is full, one ballast row is deleted and it is sent
  // again (a refused change changes nothing, so sending it again is safe).
  const auto ok_making_room = [&](player& p, const std::string& line) {
    for (int tries = 0; tries < 80; ++tries) {
      const json r = p.say("main", line);
      if (r["type"] == "error" && r["code"] == "storage_error") {
        sql(db, "DELETE FROM ballast WHERE rowid = (SELECT min(rowid) FROM ballast)");
        continue;
      }
      INFO(line << " -> " << r.dump());
      REQUIRE(r["type"] != "error");
      return r;
    }
    FAIL("no room made for " << line);
    return json();
  };
  player red(server.port(), "alice");
  player black(server.port(), "bob");
  const std::string t = "main";
  red.ok(t, "/join red");
  black.ok(t, "/join black");
  red.ok(t, "/option match 3");
  black.ok(t, "/start");
  // A record longer than a page: storing it needs pages the file does not have.
  for (int i = 0; i < 160; ++i) {
    const json st = red.ok(t, "/board");
    if (st["phase"] != "opening" && st["phase"] != "roll" && st["phase"] != "move") break;
    const auto [side, line] = next_move(st);
    ok_making_room(side == "red" ? red : black, line);
  }
  REQUIRE(red.ok(t, "/board")["phase"] != "match_over");
  // 3 points: the match is over once accepted.
  ok_making_room(red, "/resign backgammon");
  const json offered = visible(black.ok(t, "/board"));
  const json refused = black.say(t, "/accept");
  INFO(refused.dump() << "\n" << server.log());
  REQUIRE(refused["type"] == "error");
  CHECK(refused["code"] == "storage_error");
  CHECK(visible(red.ok(t, "/board")) == offered);
  CHECK(sql(server.database(), "SELECT count(*) FROM matches") == "0");
  for (const player* p : {&red, &black})
    for (const auto& e : p->events()) CHECK(e.value("event", "") != "match_over");

  sql(server.database(), "DELETE FROM ballast");
  black.ok(t, "/accept");
  const json over = red.await([](const json& m) { return m.value("event", "") == "match_over"; });
  REQUIRE(over.contains("match_id"));
  const auto id = over["match_id"].get<std::int64_t>();
  CHECK(sql(server.database(), "SELECT count(*) FROM matches WHERE id = " + std::to_string(id)) ==
        "1");
  CHECK(sql(server.database(),
            "SELECT json_extract(snapshot, '$.last_match_id') FROM tables WHERE name = 'main'") ==
        std::to_string(id));
  const auto mat = server.get("/matches/" + std::to_string(id) + ".mat");
  CHECK(mat.status == 200);
  CHECK_THAT(mat.body, Catch::Contains("alice"));
}

TEST_CASE(
    "a database that fails PRAGMA quick_check stops gammond with exit code 2 and a sentence saying "
    "what to do",
    "[issue11][durability][sqlite]") {
  gammond_process server{gammond_flags(11)};
  {
    player red(server.port(), "alice");
    red.ok("main", "/join red");
  }
  REQUIRE(server.stop() == 0);  // the WAL is checkpointed into the file
  const auto size = std::filesystem::file_size(server.database());
  INFO("database of " << size << " bytes");
  REQUIRE(size >= 3 * 4096);
  {
    // Scribble over every b-tree page (2 and after); the header page stays readable.
    std::fstream f(server.database(), std::ios::in | std::ios::out | std::ios::binary);
    const std::string junk(1000, '\x5A');
    for (std::uintmax_t page = 1; (page + 1) * 4096 <= size; ++page) {
      f.seekp(static_cast<std::streamoff>(page * 4096));
      f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
    }
  }
  try {
    server.restart();
    FAIL("gammond started on a damaged database");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("exited with code 2"));
    CHECK_THAT(what, Catch::Contains("damaged"));
    CHECK_THAT(what, Catch::Contains("restore it from a backup"));
    CHECK_THAT(what, Catch::Contains(".recover"));
  }
}

namespace {

/// The value of the Prometheus sample `name` (with its labels) in `text`; -1 when absent.
long long sample_of(const std::string& text, const std::string& name) {
  const auto at = text.find("\n" + name + " ");
  if (at == std::string::npos) return -1;
  return std::stoll(text.substr(at + name.size() + 2));
}

/// Seats two players at `t`, starts the match and plays `changes` rolls and plays
/// (play_on).
void play_changes(gammond_process& server, const std::string& t, int changes) {
  player red(server.port(), "alice");
  player black(server.port(), "bob");
  red.ok(t, "/join red");
  black.ok(t, "/join black");
  black.ok(t, "/start");
  play_on(red, black, t, changes);
}

}  // namespace

TEST_CASE(
    "the flag --db-checkpoint-pages reaches the store: with 4 the checkpoint thread copies the log "
    "(counted in /metrics with the group commits), with 0 it never runs",
    "[issue15][durability][sqlite]") {
  {
    gammond_process server{gammond_flags(11, {"--db-checkpoint-pages", "4"})};
    play_changes(server, "main", 30);
    // The thread runs on its own time: a bounded wait for its first round.
    std::string text;
    for (int i = 0; i < 200; ++i) {
      text = metrics(server);
      if (sample_of(text, "gammond_db_checkpoints_total{by=\"thread\"}") > 0) break;
      std::this_thread::sleep_for(50ms);
    }
    INFO(text);
    CHECK(sample_of(text, "gammond_db_checkpoints_total{by=\"thread\"}") > 0);
    CHECK(sample_of(text, "gammond_db_checkpoints_total{by=\"writer\"}") >= 0);
    const auto writes = sample_of(text, "gammond_db_writes_total");
    const auto transactions = sample_of(text, "gammond_db_transactions_total");
    CHECK(writes >= 30);  // the joins, the start and every roll and play
    CHECK(transactions >= 1);
    CHECK(transactions <= writes);
  }
  {
    gammond_process server{gammond_flags(11, {"--db-checkpoint-pages", "0"})};
    play_changes(server, "main", 30);
    const std::string text = metrics(server);
    INFO(text);
    CHECK(sample_of(text, "gammond_db_checkpoints_total{by=\"thread\"}") == 0);
    CHECK(sample_of(text, "gammond_db_checkpoints_total{by=\"writer\"}") == 0);
    CHECK(sample_of(text, "gammond_db_writes_total") >= 30);
  }
}

TEST_CASE("the flag --sync is full by default and normal on request and refuses other values",
          "[issue11][durability][sqlite]") {
  {
    gammond_process server{gammond_flags(11)};
    CHECK_THAT(server.log(), Catch::Contains("synchronous=FULL"));
  }
  {
    gammond_process server{gammond_flags(11, {"--sync", "normal"})};
    CHECK_THAT(server.log(), Catch::Contains("synchronous=NORMAL"));
  }
  const std::string out =
      (std::filesystem::temp_directory_path() / "gammond-sync-bad.txt").string();
  const int status = std::system(
      (std::string("'") + GAMMOND_BINARY + "' --sync sometimes > '" + out + "' 2>&1").c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Catch::Contains("--sync"));
  std::filesystem::remove(out);
}

TEST_CASE(
    "gammond backup makes a consistent copy while gammond writes that passes quick_check and holds "
    "the tables and matches",
    "[issue11][durability][sqlite]") {
  gammond_process server{gammond_flags(11)};
  player red(server.port(), "alice");
  player black(server.port(), "bob");
  red.ok("done", "/join red");
  black.ok("done", "/join black");
  red.ok("done", "/option match 1");
  black.ok("done", "/start");
  red.ok("done", "/roll");  // the opening roll: play begins
  red.ok("done", "/resign");
  black.ok("done", "/accept");  // one finished match
  red.ok("live", "/join red");
  black.ok("live", "/join black");
  black.ok("live", "/start");

  const auto dir = server.directory();
  // Copies are taken while the players keep writing, between their commands.
  for (int copy = 0; copy < 3; ++copy) {
    play_on(red, black, "live", 10);
    const auto to = dir / ("copy" + std::to_string(copy) + ".db");
    const std::string cmd = std::string("'") + GAMMOND_BINARY + "' backup --db '" +
                            server.database().string() + "' --to '" + to.string() + "' > '" +
                            (dir / "backup.log").string() + "' 2>&1";
    const int status = std::system(cmd.c_str());
    std::ifstream in(dir / "backup.log");
    const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(log);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    CHECK(sql(to, "PRAGMA quick_check") == "ok");
    CHECK(sql(to, "SELECT count(*) FROM matches") == "1");
    CHECK(sql(to, "SELECT group_concat(name) FROM (SELECT name FROM tables ORDER BY name)") ==
          "done,live");
  }
  // A copy never overwrites a file.
  const std::string again = std::string("'") + GAMMOND_BINARY + "' backup --db '" +
                            server.database().string() + "' --to '" + (dir / "copy0.db").string() +
                            "' > /dev/null 2>&1";
  const int status = std::system(again.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
}

TEST_CASE(
    "after a restart the lobby lists every restored table as it was written, and not a private one",
    "[issue15][durability]") {
  gammond_process server{gammond_flags(11)};
  {
    player red(server.port(), "alice");
    player black(server.port(), "bob");
    red.ok("kept", "/join red");
    black.ok("kept", "/join black");
    black.ok("kept", "/start");
    red.ok("hidden", "/join red");  // the owner
    black.ok("hidden", "/join black");
    red.ok("hidden", "/option private on");
    black.ok("hidden", "/start");
  }
  server.restart();
  player watcher(server.port(), "watcher");
  const json tables = watcher.ok("", "/tables");
  std::map<std::string, json> by_name;
  for (const auto& t : tables["tables"]) by_name[t.value("name", "")] = t;
  REQUIRE(by_name.count("kept") == 1);  // listed before anyone comes back
  CHECK(by_name["kept"]["players"] == json{{"red", "alice"}, {"black", "bob"}});
  CHECK(by_name["kept"]["phase"] == "opening");
  CHECK(by_name.count("hidden") == 0);
}

TEST_CASE(
    "a table left idle leaves the lobby for good once its last change is written (the lobby "
    "summary follows the written state)",
    "[issue11][durability]") {
  gammond_process server{gammond_flags(11)};
  player visitor(server.port(), "visitor");
  player watcher(server.port(), "watcher");
  const auto listed = [&](const std::string& name) {
    const json tables = watcher.ok("", "/tables");
    for (const auto& t : tables["tables"])
      if (t.value("name", "") == name) return true;
    return false;
  };
  visitor.ok("x", "/board");  // enters x: a new table, written, listed
  CHECK(listed("x"));
  visitor.send_message({{"type", "exit"}, {"table", "x"}});
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (listed("x") && std::chrono::steady_clock::now() < until) {
  }
  CHECK_FALSE(listed("x"));
  // Later writes (another table) do not bring it back.
  visitor.ok("y", "/board");
  watcher.ok("y", "/board");
  CHECK_FALSE(listed("x"));
  CHECK(listed("y"));
}

namespace {

/// Runs `gammond tables ARGS` (stderr folded into stdout); returns its exit status and
/// output.
std::pair<int, std::string> gammond_tables(const std::string& args) {
  const std::string cmd = std::string("'") + GAMMOND_BINARY + "' tables " + args + " 2>&1";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = ::pclose(pipe);
  REQUIRE(WIFEXITED(status));
  return {WEXITSTATUS(status), out};
}

}  // namespace

TEST_CASE(
    "gammond tables rebuilds each saved table from its snapshot and journal as a restart does and "
    "prints the position its players last saw",
    "[issue16][durability]") {
  gammond_process server{gammond_flags(11)};
  player red(server.port(), "alice");
  player black(server.port(), "bob");
  bg::test::seat(red, black, "t1", "/option match 3");
  bg::test::duel d{red, black, "t1"};
  int steps = 0;
  d.play_until([&](const json& st) { return ++steps > 25 && st["phase"] == "move"; });
  const json last = red.ok("t1", "/board");
  REQUIRE(last["phase"] == "move");

  // While gammond runs (it only reads), by --db as gammond was started.
  const auto [status, out] = gammond_tables("--db '" + server.db() + "'");
  INFO(out);
  REQUIRE(status == 0);
  json view;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const json v = json::parse(line);
    if (v["table"] == "t1") view = v;
  }
  REQUIRE(view.is_object());
  CHECK(view["ok"] == true);
  CHECK(view["seq"] == last["seq"]);
  for (const char* key : {"position_id", "match_id", "phase", "dice", "board", "game_number"})
    CHECK(view[key] == last[key]);
  CHECK(view["players"] == json{{"red", "alice"}, {"black", "bob"}});
  CHECK(view["journal_entries"].get<int>() > 25);
  // The journal alone, its plays made again through the engine, reaches the same position.
  if (last["phase"] == "roll" || last["phase"] == "move") {
    CHECK(view["journal_agrees"] == true);
    CHECK(view["journal_position_id"] == last["position_id"]);
    CHECK(view["journal_game"]["rolls_contiguous"] == true);
    CHECK(view["journal_game"]["plays"].get<int>() > 5);
    CHECK(view["journal_game"]["rolls"].get<int>() >= view["journal_game"]["plays"].get<int>());
    CHECK(view["dice_commitment"] == last["dice_commitment"]);
  }

  // One table by name; an unknown name and a missing --db say why.
  const auto [one_status, one] = gammond_tables("--db '" + server.db() + "' --table t1");
  CHECK(one_status == 0);
  CHECK(json::parse(one)["position_id"] == last["position_id"]);
  const auto [unknown_status, unknown] = gammond_tables("--db '" + server.db() + "' --table nope");
  CHECK(unknown_status == 1);
  CHECK_THAT(unknown, Catch::Contains("no table nope is saved"));
  const auto [usage_status, usage] = gammond_tables("--bogus");
  CHECK(usage_status == 2);
  CHECK_THAT(usage, Catch::Contains("usage: gammond tables --db DB"));
}

TEST_CASE(
    "S2 a graceful stop on one I/O thread saves 1,000 tables in parallel within "
    "--stop-timeout, and a running clock's time used until the stop is kept",
    "[server][durability][shutdown]") {
  // Given gammond on a single I/O thread (a 1-vCPU host) with 1,000 tables with someone
  // seated at each, and one clocked match whose clock runs.
  gammond_process server{{"--threads", "1", "--max-tables", "2000", "--max-tables-per-client",
                          "2000", "--commands-per-second", "100000", "--command-burst", "100000",
                          "--stop-timeout", "20"}};
  std::vector<std::unique_ptr<player>> visitors;
  for (int v = 0; v < 10; ++v) {
    visitors.push_back(std::make_unique<player>(server.port(), "visitor" + std::to_string(v)));
    std::vector<std::string> ids;
    for (int t = 0; t < 100; ++t)
      ids.push_back(
          visitors.back()->send("t" + std::to_string(v) + "-" + std::to_string(t), "/join red"));
    for (const auto& id : ids) REQUIRE(visitors.back()->answer(id).value("type", "") == "state");
  }
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  bg::test::seat(alice, bob, "clocked", "/option clock 1 0");
  alice.ok("clocked", "/roll");
  const json st = alice.ok("clocked", "/board");
  const std::string running = st["clock"]["running"];
  REQUIRE(st["clock"][running] == 60'000);
  std::this_thread::sleep_for(1200ms);  // the running clock uses a second of its bank

  // When it gets SIGTERM while the seated players keep changing their tables (/option
  // tutor, not waited for), so that changes are on their way to the disk as it stops.
  std::atomic<bool> stop_sending{false};
  std::thread sender([&] {
    try {
      for (int round = 0; !stop_sending; ++round)
        for (int v = 0; v < 10 && !stop_sending; ++v)
          visitors[static_cast<std::size_t>(v)]->send(
              "t" + std::to_string(v) + "-" + std::to_string(round % 100),
              (round / 100) % 2 == 0 ? "/option tutor on" : "/option tutor off");
    } catch (const std::exception&) {
      // the connection closed: gammond is stopping
    }
  });
  std::this_thread::sleep_for(300ms);
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = server.stop(SIGTERM, 120s);
  const auto took = std::chrono::steady_clock::now() - t0;
  stop_sending = true;
  sender.join();

  // Then it stops cleanly within --stop-timeout (one table at a time with a 5 s wait each,
  // as before, would take over an hour), with every table saved...
  INFO(server.log().substr(server.log().size() > 4000 ? server.log().size() - 4000 : 0));
  CHECK(rc == 0);
  CHECK(took < 20s);
  CHECK(server.log().find("did not save") == std::string::npos);
  CHECK(server.log().find("saved 1001 table(s)") != std::string::npos);
  // ...and the time the running clock used until the stop is kept (S2).
  server.restart();
  player again(server.port(), "alice2");
  const json back = again.ok("clocked", "/board");
  CHECK(back["clock"][running].get<std::int64_t>() < 59'000);
  CHECK(back["clock"][running].get<std::int64_t>() > 50'000);
}
