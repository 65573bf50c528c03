// gammond end to end (issue 3 "Proof"): the real binary on an ephemeral port with a
// temporary SQLite database, driven by real WebSocket clients through whole games.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <thread>

#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "http_get.hpp"
#include "test_player.hpp"
#include "ws_client.hpp"

using bg::test::duel;
using bg::test::gammond_flags;
using bg::test::gammond_process;
using bg::test::player;
using bg::test::seat;
using bg::test::ws_client;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// The gnubg binary: $GNUBG, else /usr/games/gnubg (scripts/setup installs it).
std::string gnubg_binary() {
  if (const char* env = std::getenv("GNUBG"); env != nullptr && *env != '\0') return env;
  return "/usr/games/gnubg";
}

/// Runs tests/server/gnubg_import.py inside gnubg on `mat` and returns its report (the
/// "@@gnubg_import" JSON line). Fails the test when gnubg exits non-zero (or by a
/// signal), prints anything on stderr (a Python traceback, "Unknown keyword", ...: the
/// script captures what the import itself prints), reports no import, or prints no
/// report. Writes export.mat, gnubg-stderr.txt and gnubg-home/ into `dir`.
json gnubg_import(const std::string& mat_text, const std::filesystem::path& dir) {
  const auto file = dir / "export.mat";
  std::ofstream(file) << mat_text;
  const auto home = dir / "gnubg-home";
  const auto errors = dir / "gnubg-stderr.txt";
  std::filesystem::create_directories(home);
  // The paths come from mkdtemp and fixed names: no shell quoting issues.
  const std::string cmd = "HOME='" + home.string() + "' GNUBG_IMPORT_MAT='" + file.string() +
                          "' '" + gnubg_binary() + "' -t -q -r -p '" GNUBG_IMPORT_SCRIPT "' 2>'" +
                          errors.string() + "'";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe);
  std::string out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pclose(pipe);
  std::ifstream err_in(errors);
  const std::string err{std::istreambuf_iterator<char>(err_in), std::istreambuf_iterator<char>()};
  INFO("gnubg (" << gnubg_binary() << ") printed on stdout:\n"
                 << out << "\non stderr:\n"
                 << err << "\nwait status " << status);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  REQUIRE(err.empty());
  const std::string tag = "@@gnubg_import ";
  for (std::size_t start = 0; start < out.size();) {
    const auto end = out.find('\n', start);
    const auto line = out.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (line.rfind(tag, 0) == 0) {
      const auto j = json::parse(line.substr(tag.size()), nullptr, false);
      REQUIRE(j.is_object());
      REQUIRE(j.value("imported", false));
      return j;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  FAIL("gnubg_import.py printed no report line");
  return {};
}

}  // namespace

/// Exports the last finished match at `table` (/export by `who`), fetches its .mat and
/// has gnubg import it; checks gnubg's warnings are empty and the match length and
/// final score are those of `final_state`; returns gnubg's report.
json export_and_import(player& who, const std::string& table, const gammond_process& server,
                       const json& final_state, int match_length) {
  const auto info = who.ok(table, "/export");
  REQUIRE(info["type"] == "info");
  const std::string url = info["data"]["url"];
  const auto mat = bg::test::http_get("127.0.0.1", server.port(), url);
  REQUIRE(mat.status == 200);
  auto imported = gnubg_import(mat.body, server.directory());
  INFO(imported.dump() << "\n" << mat.body);
  CHECK(imported["warnings"].empty());
  CHECK(imported["match_length"] == match_length);
  CHECK(imported["final_score"][0] == final_state["score"]["red"]);
  CHECK(imported["final_score"][1] == final_state["score"]["black"]);
  return imported;
}

TEST_CASE("gammond: a free game is played to the end and scored by pip count (R12)",
          "[server][gammond]") {
  gammond_process server{gammond_flags(11)};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  seat(alice, bob, "free");
  duel d{alice, bob, "free"};
  const auto st = d.play_until([](const json& s) { return s["phase"] == "match_over"; });
  REQUIRE(st["phase"] == "match_over");
  const std::string winner = st["last_result"]["winner"];
  const std::string loser = winner == "red" ? "black" : "red";
  CHECK(st["score"][winner] == st["pips"][loser]);
  CHECK(st["last_result"]["points"] == st["pips"][loser]);
  CHECK(st["board"]["off"][winner] == 15);
}

TEST_CASE("gammond: a match to 3 with double, take, redouble, drop and the Crawford game",
          "[server][gammond]") {
  gammond_process server{gammond_flags(5)};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  seat(alice, bob, "m3", "/option match 3");
  duel d{alice, bob, "m3"};
  d.step();  // opening roll
  d.play_until([](const json& s) { return s["phase"] == "roll"; });
  auto st = d.fresh();
  REQUIRE(st["phase"] == "roll");
  player& doubler = d.by_side(st["to_act"]);
  player& taker = &doubler == &alice ? bob : alice;
  doubler.ok("m3", "/double");
  doubler.refused("m3", "/take", "not_your_turn");
  st = taker.ok("m3", "/take");
  CHECK(st["cube"]["value"] == 2);
  doubler.refused("m3", "/double", "not_cube_owner");  // R14.3: the taker owns the cube
  // Play on until the taker is to roll, then redouble; the doubler drops.
  d.play_until([&](const json& s) {
    return s["phase"] == "roll" && d.by_side(s["to_act"]).name() == taker.name();
  });
  st = d.fresh();
  REQUIRE(st["phase"] == "roll");
  doubler.refused("m3", "/double", "not_your_turn");
  taker.ok("m3", "/double");
  st = doubler.ok("m3", "/drop");
  const std::string taker_side = st["players"]["red"] == taker.name() ? "red" : "black";
  CHECK(st["score"][taker_side] == 2);
  CHECK(st["crawford"] == true);
  CHECK(st["phase"] == "opening");
  // The Crawford game refuses /double (R15).
  d.step();
  d.play_until([](const json& s) { return s["phase"] == "roll"; });
  st = d.fresh();
  CHECK(st["may_double"] == false);
  d.by_side(st["to_act"]).refused("m3", "/double", "crawford");
  // Finish the match by playing it out.
  st = d.play_until([](const json& s) { return s["phase"] == "match_over"; }, 20000);
  REQUIRE(st["phase"] == "match_over");
  CHECK((st["score"]["red"] >= 3 || st["score"]["black"] >= 3));
  // The finished match is exported as .mat and gnubg imports it with the same score.
  export_and_import(alice, "m3", server, st, 3);
}

TEST_CASE("gammond: S4 the .mat header carries the revealed dice seed, and gnubg imports it",
          "[server][gammond][dice]") {
  gammond_process server{gammond_flags(17)};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  seat(alice, bob, "ms", "/option match 1");
  duel d{alice, bob, "ms"};
  const auto st = d.play_until([](const json& s) { return s["phase"] == "match_over"; }, 20000);
  REQUIRE(st["phase"] == "match_over");
  const std::string url = "/matches/" + std::to_string(st["last_match_id"].get<int>()) + ".mat";
  const auto mat = bg::test::http_get("127.0.0.1", server.port(), url);
  REQUIRE(mat.status == 200);
  const auto record = bg::test::http_get(
      "127.0.0.1", server.port(), "/api/matches/" + std::to_string(st["last_match_id"].get<int>()));
  REQUIRE(record.status == 200);
  const auto dice = json::parse(record.body)["dice"];
  INFO(mat.body);
  CHECK(mat.body.find("; [Comment \"dice seed " + dice["seed"].get<std::string>() +
                      ", SHA-256 commitment " + dice["commitment"].get<std::string>() + "\"]\n") !=
        std::string::npos);
  export_and_import(alice, "ms", server, st, 1);  // no warning from gnubg
}

TEST_CASE("gammond: a basis session with /continue then /stop (R16)", "[server][gammond]") {
  gammond_process server{gammond_flags(3)};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  seat(alice, bob, "b", "/option match basis");
  duel d{alice, bob, "b"};
  d.step();
  auto st = d.fresh();
  player& resigner = d.by_side(st["to_act"]);
  player& other = &resigner == &alice ? bob : alice;
  resigner.ok("b", "/resign gammon");
  st = other.ok("b", "/accept");
  CHECK(st["phase"] == "game_over");
  CHECK(st["last_result"]["points"] == 2);
  alice.ok("b", "/continue");
  st = bob.ok("b", "/continue");
  CHECK(st["phase"] == "opening");
  CHECK(st["game_number"] == 2);
  d.step();
  st = d.fresh();
  player& r2 = d.by_side(st["to_act"]);
  r2.ok("b", "/resign");
  (&r2 == &alice ? bob : alice).ok("b", "/accept");
  st = alice.ok("b", "/stop");
  CHECK(st["phase"] == "match_over");
}

TEST_CASE("gammond: resignations accepted and rejected (R18)", "[server][gammond]") {
  gammond_process server{gammond_flags(8)};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  seat(alice, bob, "r", "/option match 5");
  duel d{alice, bob, "r"};
  d.step();
  auto st = d.fresh();
  player& mover = d.by_side(st["to_act"]);
  player& other = &mover == &alice ? bob : alice;
  mover.ok("r", "/resign backgammon");
  mover.refused("r", "/accept", "not_your_turn");
  st = other.ok("r", "/reject");
  CHECK(st["phase"] == "move");
  mover.ok("r", "/resign gammon");
  st = other.ok("r", "/accept");
  const std::string other_side = st["players"]["red"] == other.name() ? "red" : "black";
  CHECK(st["score"][other_side] == 2);
  CHECK(st["game_number"] == 2);
}

TEST_CASE("gammond: a spectator sees every state the players see", "[server][gammond]") {
  gammond_process server{gammond_flags(4)};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  player carol(server.port(), "carol");
  carol.ok("s", "/board");  // enters the table
  seat(alice, bob, "s");
  duel d{alice, bob, "s"};
  for (int i = 0; i < 30; ++i) d.step();
  const auto last = d.fresh();
  carol.refused("s", "/roll", "not_seated");
  // The last change reaches her (no fixed wait: the state with the last seq).
  carol.await_state("s", [&](const json& m) { return m["seq"] == last["seq"]; });
  const auto& seen = carol.seqs("s");
  REQUIRE_FALSE(seen.empty());
  // Every change after carol arrived reached her, in order, without a gap.
  for (std::size_t i = 1; i < seen.size(); ++i) CHECK(seen[i] == seen[i - 1] + 1);
  CHECK(seen.back() == last["seq"].get<std::uint64_t>());
  CHECK(carol.state("s")["board"] == last["board"]);
}

TEST_CASE(
    "gammond: a spectator's states after a change carry no legal plays but a forced one, the "
    "players' do",
    "[server][gammond][issue15]") {
  gammond_process server{gammond_flags(4)};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  player carol(server.port(), "carol");
  carol.ok("s", "/board");
  seat(alice, bob, "s");
  duel d{alice, bob, "s"};
  int checked = 0;
  for (int i = 0; i < 40 && checked < 3; ++i) {
    const auto st = d.step();
    if (st["phase"] != "move") continue;
    // The state of this change as each of them received it.
    const auto seq = st["seq"];
    const auto at = [&](player& p) {
      return p.await_state("s", [&](const json& m) { return m["seq"] == seq; });
    };
    const auto red = at(alice);
    const auto black = at(bob);
    const auto watching = at(carol);
    CHECK_FALSE(red["legal"].empty());
    CHECK(red["legal"] == black["legal"]);
    CHECK(red["legal_moves"] == black["legal_moves"]);
    // A forced play is listed to the spectator too (its client shows it); more are not.
    const bool forced = red["legal"].size() == 1;
    CHECK(watching["legal"] == (forced ? red["legal"] : json::array()));
    CHECK(watching["legal_moves"] == (forced ? red["legal_moves"] : json::array()));
    // Apart from the lists (and `re`, on the copy of the one who acted), the same state.
    auto same = red;
    same.erase("re");
    if (!forced) {
      same["legal"] = json::array();
      same["legal_moves"] = json::array();
    }
    auto seen = watching;
    seen.erase("re");
    CHECK(seen == same);
    // Asked for, the spectator's board is the full state.
    CHECK(carol.ok("s", "/board")["legal"] == red["legal"]);
    ++checked;
  }
  CHECK(checked == 3);
}

TEST_CASE("gammond: a player who drops keeps the seat and resumes with the token",
          "[server][gammond]") {
  gammond_process server{gammond_flags(6)};
  player alice(server.port(), "alice");
  std::string token;
  {
    player bob(server.port(), "bob");
    seat(alice, bob, "d", "/option match 3");
    token = bob.token();
  }  // bob's connection closes
  // The server notices and tells the table: wait for that state (no fixed wait).
  const auto gone = alice.await_state("d", [](const json& m) {
    return (m["players"]["red"] == "bob" && m["present"]["red"] == false) ||
           (m["players"]["black"] == "bob" && m["present"]["black"] == false);
  });
  auto st = alice.ok("d", "/board");
  const std::string bob_side = st["players"]["red"] == "bob" ? "red" : "black";
  CHECK(gone["present"][bob_side] == false);
  CHECK(st["present"][bob_side] == false);
  CHECK(st["players"][bob_side] == "bob");
  // The name is held: a newcomer cannot take it without the token.
  {
    ws_client intruder;
    intruder.connect("127.0.0.1", server.port());
    intruder.send_json({{"type", "hello"}, {"name", "bob"}});
    auto e = intruder.receive_json();
    REQUIRE(e);
    CHECK((*e)["code"] == "name_taken");
  }
  player bob2(server.port(), "", token);
  CHECK(bob2.welcome()["name"] == "bob");
  CHECK(bob2.welcome()["resumed"] == true);
  // The resumed session gets the table's state (no fixed wait: the state itself).
  const auto back = bob2.await_state("d", [](const json&) { return true; });
  CHECK(back["phase"] == "opening");
  st = alice.ok("d", "/board");
  CHECK(st["present"][bob_side] == true);
}

TEST_CASE("gammond: an absent player forfeits after the grace period", "[server][gammond]") {
  gammond_process server{gammond_flags(9, {"--grace-period", "1"})};
  player alice(server.port(), "alice");
  {
    player bob(server.port(), "bob");
    seat(alice, bob, "g", "/option match 1");
  }
  // The forfeit is announced to the table when the grace period ends: wait for that
  // state (under await's generous deadline, not a polling loop of fixed sleeps).
  const auto over =
      alice.await_state("g", [](const json& m) { return m["phase"] == "match_over"; });
  CHECK(over["last_result"]["reason"] == "forfeit");
  const auto st = alice.ok("g", "/board");
  CHECK(st["phase"] == "match_over");
  CHECK(st["last_result"]["reason"] == "forfeit");
}

TEST_CASE("gammond: killed with SIGKILL mid-game and restarted, the table is intact",
          "[server][gammond]") {
  gammond_process server{gammond_flags(12)};
  json before;
  std::string alice_token;
  std::string bob_token;
  {
    player alice(server.port(), "alice");
    player bob(server.port(), "bob");
    seat(alice, bob, "k", "/option match 5");
    duel d{alice, bob, "k"};
    for (int i = 0; i < 15; ++i) d.step();
    alice.ok("k", "/board");
    d.play_until([](const json& s) { return s["phase"] == "move"; });
    before = d.fresh();
    alice_token = alice.token();
    bob_token = bob.token();
    server.stop(SIGKILL);
  }
  server.restart(SIGKILL);
  player alice(server.port(), "", alice_token);
  player bob(server.port(), "", bob_token);
  CHECK(alice.welcome()["name"] == "alice");
  auto after = alice.ok("k", "/board");
  for (const char* key : {"phase", "turn", "dice", "board", "pips", "cube", "score", "legal",
                          "position_id", "match_id", "game_number", "players"}) {
    INFO(key);
    CHECK(after[key] == before[key]);
  }
  // And the match goes on to its end; its record holds the plays from before the kill
  // too (the journal), so gnubg imports the exported match without a complaint.
  duel d{alice, bob, "k"};
  d.step();
  const auto st = d.play_until([](const json& s) { return s["phase"] == "match_over"; }, 20000);
  REQUIRE(st["phase"] == "match_over");
  const auto imported = export_and_import(alice, "k", server, st, 5);
  REQUIRE_FALSE(imported["games"].empty());
  CHECK(imported["games"][0]["moves"].get<int>() > 7);  // the plays before the kill
}

TEST_CASE(
    "gammond: a whole long nardy game through the server, from the heads (L1) to the last checker "
    "off (L6, L7)",
    "[server][gammond][long]") {
  gammond_process server{gammond_flags(21)};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  seat(alice, bob, "ln", "/option variant long");
  auto st = alice.ok("ln", "/board");
  CHECK(st["variant"] == "long");
  // L1 in board numbering: black's 15 on board point 1, red's 15 on board point 13.
  CHECK(st["board"]["points"][0] == -15);
  CHECK(st["board"]["points"][12] == 15);
  duel d{alice, bob, "ln"};
  st = d.play_until([](const json& s) { return s["phase"] == "match_over"; }, 6000);
  REQUIRE(st["phase"] == "match_over");
  const std::string winner = st["last_result"]["winner"];
  CHECK(st["board"]["off"][winner] == 15);
  CHECK((st["last_result"]["kind"] == "single" || st["last_result"]["kind"] == "gammon"));
}

// The gnubg import helper must not pass what gnubg failed (issue 11.10): a stand-in
// for gnubg that prints a perfect report, then exits non-zero or complains on stderr,
// must fail the helper. [!shouldfail]: each case passes only when the helper fails it.
namespace {

/// Writes an executable stand-in for gnubg into `dir` that prints a clean import
/// report, then runs `tail` (shell); sets $GNUBG to it for the scope of the object.
class fake_gnubg {
 public:
  fake_gnubg(const std::filesystem::path& dir, const std::string& tail)
      : path_{dir / "fake-gnubg"} {
    std::ofstream(path_) << "#!/bin/sh\n"
                            "echo '@@gnubg_import {\"imported\": true, \"match_length\": 1, "
                            "\"final_score\": [1, 0], \"messages\": [], \"warnings\": []}'\n"
                         << tail << "\n";
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all);
    ::setenv("GNUBG", path_.c_str(), 1);
  }
  ~fake_gnubg() { ::unsetenv("GNUBG"); }
  fake_gnubg(const fake_gnubg&) = delete;
  fake_gnubg& operator=(const fake_gnubg&) = delete;

 private:
  std::filesystem::path path_;
};

/// A scratch directory for one test, removed at the end.
struct scratch_dir {
  std::filesystem::path path;
  scratch_dir() {
    std::string templ = (std::filesystem::temp_directory_path() / "gammond-gnubg-XXXXXX").string();
    REQUIRE(::mkdtemp(templ.data()) != nullptr);
    path = templ;
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

TEST_CASE("gammond: the gnubg import helper fails when gnubg exits non-zero",
          "[server][gammond][gnubg][!shouldfail]") {
  scratch_dir dir;
  fake_gnubg gnubg{dir.path, "exit 3"};
  const auto report = gnubg_import("any", dir.path);
  CHECK(report["imported"] == true);  // the report looks perfect: only the exit code is wrong
}

TEST_CASE("gammond: the gnubg import helper fails when gnubg prints an error",
          "[server][gammond][gnubg][!shouldfail]") {
  scratch_dir dir;
  fake_gnubg gnubg{dir.path, "echo 'Traceback (most recent call last):' >&2; exit 0"};
  const auto report = gnubg_import("any", dir.path);
  CHECK(report["imported"] == true);
}
