// Computer players at tables (issue 14 "Proof"): the real gammond with the real GNU
// Backgammon (scripts/setup installs it; $GNUBG names another one), driven by real
// WebSocket clients. Without gnubg these tests fail with a sentence: they do not skip.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <utility>

#include "bg/server/server_config.hpp"
#include "eventually.hpp"
#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "parse_flags.hpp"
#include "scripted_person.hpp"
#include "test_player.hpp"

using bg::test::events_named;
using bg::test::gammond_process;
using bg::test::is_phase;
using bg::test::player;
using scripted = bg::test::scripted_person;
using nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

/// The gnubg program: $GNUBG, else /usr/games/gnubg. REQUIREs it, with a sentence.
std::string gnubg_binary() {
  std::string path = "/usr/games/gnubg";
  if (const char* env = std::getenv("GNUBG"); env != nullptr && *env != '\0') path = env;
  INFO("these tests need GNU Backgammon at " << path
                                             << ": scripts/setup installs it (apt-get install "
                                                "gnubg), or set GNUBG to where it is");
  REQUIRE(fs::exists(path));
  return path;
}

/// gammond flags: bg::test::gammond_flags (reproducible dice, no rate limit in the way of
/// a test client) with gnubg_binary() as GNU Backgammon, then `more`.
std::vector<std::string> flags(int dice_seed, std::vector<std::string> more = {}) {
  more.insert(more.begin(), {"--gnubg", gnubg_binary()});
  return bg::test::gammond_flags(dice_seed, std::move(more));
}

/// A temporary directory, removed at the end of the test.
struct temp_dir {
  fs::path path;
  temp_dir() {
    std::string pattern = (fs::temp_directory_path() / "gammond-bots-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

/// The pids of gammond's gnubg processes, from /metrics' lines
/// `gammond_bot_process{pid="1234",level="expert",busy="false"} 1`.
std::vector<pid_t> gnubg_pids(const gammond_process& server) {
  const auto res = server.get("/metrics");
  REQUIRE(res.status == 200);
  std::vector<pid_t> pids;
  const std::string prefix = "gammond_bot_process{pid=\"";
  std::istringstream lines(res.body);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    const auto digits = line.substr(prefix.size(), line.find('"', prefix.size()) - prefix.size());
    REQUIRE_FALSE(digits.empty());
    REQUIRE(digits.find_first_not_of("0123456789") == std::string::npos);
    pids.push_back(static_cast<pid_t>(std::stol(digits)));
  }
  return pids;
}

}  // namespace

TEST_CASE("gnubg plays a whole 3-point match against a scripted player, cube included (R13, R14)",
          "[bots][gnubg][issue14]") {
  // Dice seed 30 (the verifiable dice of issue 13 derive each match's seed from it): several
  // games, with doubles of the person and of the bot.
  gammond_process server{flags(30)};
  player alice(server.port(), "alice");
  const std::string t = "bot-match";
  alice.ok(t, "/join red");
  alice.ok(t, "/option match 3");
  const auto seated = alice.ok(t, "/bot expert");
  CHECK(seated["players"]["black"] == "gnubg-expert");
  CHECK(seated["bots"]["black"] == "expert");
  CHECK(seated["bots"]["red"].is_null());
  CHECK(seated["present"]["black"] == true);
  alice.ok(t, "/start");

  scripted me{alice, t, "red"};
  // The person offers the cube when 8 pips ahead, and drops the bot's doubles when 12
  // pips or more behind (so the match lasts several games): the bot must take or drop
  // the person's doubles and offer its own.
  const auto lead = [](const json& st) {
    return st["pips"]["black"].get<int>() - st["pips"]["red"].get<int>();
  };
  me.double_when = [&](const json& st) { return lead(st) >= 5; };
  me.take_when = [&](const json& st) { return lead(st) > -12; };
  const auto last = me.play_until([](const json&) { return false; }, 4000);
  REQUIRE(last["phase"] == "match_over");
  INFO(server.log());
  CHECK(std::max(last["score"]["red"].get<int>(), last["score"]["black"].get<int>()) >= 3);
  CHECK(last["last_match_id"].is_number());

  // The person doubled; the bot answered each double with a take or a drop.
  REQUIRE(me.doubles >= 1);
  CHECK(last["game_number"].get<int>() >= 2);
  const auto person_doubles = events_named(alice, t, "doubled");
  int by_person = 0;
  for (const auto& d : person_doubles) by_person += d["side"] == "red" ? 1 : 0;
  CHECK(by_person == me.doubles);
  const auto takes = events_named(alice, t, "took");
  const auto drops = events_named(alice, t, "dropped");
  int bot_answers = 0;
  for (const auto& e : takes) bot_answers += e["side"] == "black" ? 1 : 0;
  for (const auto& e : drops) bot_answers += e["side"] == "black" ? 1 : 0;
  CHECK(bot_answers == me.doubles);
  // When the bot doubled, the person's take or drop followed.
  int bot_doubles = 0;
  int person_answers = 0;
  for (const auto& d : person_doubles) bot_doubles += d["side"] == "black" ? 1 : 0;
  for (const auto& e : takes) person_answers += e["side"] == "red" ? 1 : 0;
  for (const auto& e : drops) person_answers += e["side"] == "red" ? 1 : 0;
  CHECK(bot_doubles >= 1);
  CHECK(person_answers == bot_doubles);
  // Every play of the bot went through the table: moved events by black.
  CHECK_FALSE(events_named(alice, t, "moved").empty());
  CHECK(events_named(alice, t, "bot_failed").empty());
  CHECK(server.metric("gammond_bot_answers_total") >= 10);
  CHECK(server.metric("gammond_bot_failures_total") == 0);
  // The match is stored with the bot's name, as any other.
  const auto mat =
      server.get("/matches/" + std::to_string(last["last_match_id"].get<long>()) + ".mat");
  CHECK(mat.status == 200);
  CHECK_THAT(mat.body, Catch::Contains("gnubg-expert"));
  // A graceful stop ends gnubg's processes with gammond (and, under the sanitizers,
  // leaves nothing behind: exit code 0).
  const auto pids = gnubg_pids(server);
  REQUIRE_FALSE(pids.empty());
  CHECK(server.stop() == 0);
  for (const pid_t pid : pids) CHECK(bg::test::eventually([&] { return ::kill(pid, 0) != 0; }));
}

TEST_CASE("a gnubg process killed mid-game is replaced and the game finishes",
          "[bots][gnubg][issue14]") {
  gammond_process server{flags(1402)};
  player alice(server.port(), "alice");
  const std::string t = "bot-kill";
  alice.ok(t, "/join red");
  alice.ok(t, "/bot");
  alice.ok(t, "/start");  // free play: one game
  scripted me{alice, t, "red"};
  // Until the bot has answered a question (its gnubg process is running).
  me.play_until([&](const json&) { return server.metric("gammond_bot_answers_total") >= 2; });
  const auto before = gnubg_pids(server);
  REQUIRE_FALSE(before.empty());
  for (const pid_t pid : before) REQUIRE(::kill(pid, SIGKILL) == 0);
  // The pool notices the end by itself (the process's exit and the closed socket).
  CHECK(bg::test::eventually([&] { return server.metric("gammond_bot_process_ends_total") >= 1; }));
  const auto last = me.play_until([](const json&) { return false; });
  INFO(server.log());
  CHECK(last["phase"] == "match_over");
  CHECK(events_named(alice, t, "bot_failed").empty());
  const auto after = gnubg_pids(server);
  REQUIRE_FALSE(after.empty());
  for (const pid_t pid : after) CHECK(std::find(before.begin(), before.end(), pid) == before.end());
  CHECK(server.metric("gammond_bot_processes_started_total") >= 2);
}

TEST_CASE("a question that times out is asked again of a new gnubg process",
          "[bots][gnubg][issue14]") {
  gammond_process server{flags(1403, {"--bot-timeout", "2"})};
  player alice(server.port(), "alice");
  const std::string t = "bot-stall";
  alice.ok(t, "/join red");
  alice.ok(t, "/bot");
  alice.ok(t, "/start");
  scripted me{alice, t, "red"};
  me.play_until([&](const json&) { return server.metric("gammond_bot_answers_total") >= 2; });
  // The person's turn: stop every gnubg process (it stalls: no answer, no end), then
  // play on. The next question times out after 2 s; the process is killed, the
  // question asked again of a new one, and the game goes on.
  const auto stalled = gnubg_pids(server);
  REQUIRE_FALSE(stalled.empty());
  for (const pid_t pid : stalled) REQUIRE(::kill(pid, SIGSTOP) == 0);
  const auto last = me.play_until([](const json&) { return false; });
  INFO(server.log());
  CHECK(last["phase"] == "match_over");
  CHECK(server.metric("gammond_bot_timeouts_total") >= 1);
  CHECK(server.metric("gammond_bot_failures_total") == 0);
  CHECK(events_named(alice, t, "bot_failed").empty());
  for (const pid_t pid : stalled) {  // killed by the pool (a stopped process dies of SIGKILL)
    CHECK(bg::test::eventually([&] { return ::kill(pid, 0) != 0; }));
  }
}

TEST_CASE("a bot whose gnubg never answers resigns the game with a sentence (R18)",
          "[bots][gnubg][issue14]") {
  temp_dir dir;
  // A "gnubg" that never listens: every attempt times out.
  const auto silent = dir.path / "silent-gnubg";
  std::ofstream(silent) << "#!/bin/sh\nexec sleep 600\n";
  fs::permissions(silent, fs::perms::owner_all);
  gammond_process server{{"--dice-seed", "1404", "--gnubg", silent.string(), "--bot-timeout", "1",
                          "--bot-retries", "1"}};
  player alice(server.port(), "alice");
  const std::string t = "bot-silent";
  alice.ok(t, "/join red");
  alice.ok(t, "/bot");
  alice.ok(t, "/start");
  scripted me{alice, t, "red"};
  const auto offered =
      me.play_until([](const json& st) { return is_phase(st, {"resign_offered"}); });
  INFO(server.log());
  REQUIRE(offered["phase"] == "resign_offered");
  CHECK(offered["resign"]["by"] == "black");
  CHECK(offered["resign"]["kind"] == "backgammon");  // no checker off: all it could still lose
  const auto failed = events_named(alice, t, "bot_failed");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0]["name"] == "gnubg-expert");
  CHECK_THAT(failed[0]["text"].get<std::string>(),
             Catch::Contains("cannot answer") && Catch::Contains("resigns the game"));
  const auto over = alice.ok(t, "/accept");
  CHECK(over["phase"] == "match_over");
  CHECK(over["last_result"]["winner"] == "red");
  CHECK(server.metric("gammond_bot_failures_total") == 1);
  CHECK(server.metric("gammond_bot_timeouts_total") == 2);  // the first attempt and one retry
}

/// A stand-in for gnubg that serves `external` like gnubg 1.07 (the same start-up line,
/// one connection, one answer line per request) but always answers `answer`.
fs::path fake_gnubg(const fs::path& dir, const std::string& answer) {
  const auto path = dir / "fake-gnubg";
  std::ofstream(path)
      << "#!/usr/bin/env python3\n"
         "import socket, sys\n"
         "for line in sys.stdin:\n"
         "    if line.startswith('external '):\n"
         "        host, port = line.split()[1].rsplit(':', 1)\n"
         "        server = socket.socket()\n"
         "        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
         "        server.bind((host, int(port)))\n"
         "        server.listen(1)\n"
         "        print('Waiting for a connection from ' + host + ':' + port + '...', "
         "flush=True)\n"
         "        connection, _ = server.accept()\n"
         "        for request in connection.makefile('r'):\n"
         "            connection.sendall(b'"
      << answer
      << "\\n')\n"
         "        break\n";
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

TEST_CASE("an illegal play from gnubg is asked again, then the bot resigns",
          "[bots][gnubg][issue14]") {
  temp_dir dir;
  // Well formed, never legal at the start of a game: the table refuses it like a person's.
  gammond_process server{{"--dice-seed", "1411", "--gnubg", fake_gnubg(dir.path, "1/24").string()}};
  player alice(server.port(), "alice");
  const std::string t = "bot-illegal";
  alice.ok(t, "/join red");
  alice.ok(t, "/bot");
  alice.ok(t, "/start");
  scripted me{alice, t, "red"};
  const auto offered =
      me.play_until([](const json& st) { return is_phase(st, {"resign_offered"}); });
  INFO(server.log());
  REQUIRE(offered["phase"] == "resign_offered");
  CHECK(offered["resign"]["by"] == "black");
  const auto failed = events_named(alice, t, "bot_failed");
  REQUIRE(failed.size() == 1);
  CHECK_THAT(failed[0]["text"].get<std::string>(), Catch::Contains("refused"));
  CHECK(server.metric("gammond_bot_answers_total") == 2);  // asked twice, both refused
  CHECK_THAT(server.log(), Catch::Contains("refused"));
}

TEST_CASE("a malformed answer restarts the process, after the retries the bot resigns",
          "[bots][gnubg][issue14]") {
  temp_dir dir;
  gammond_process server{{"--dice-seed", "1412", "--gnubg", fake_gnubg(dir.path, "hello").string(),
                          "--bot-retries", "1"}};
  player alice(server.port(), "alice");
  const std::string t = "bot-malformed";
  alice.ok(t, "/join red");
  alice.ok(t, "/bot");
  alice.ok(t, "/start");
  scripted me{alice, t, "red"};
  const auto offered =
      me.play_until([](const json& st) { return is_phase(st, {"resign_offered"}); });
  INFO(server.log());
  REQUIRE(offered["phase"] == "resign_offered");
  const auto failed = events_named(alice, t, "bot_failed");
  REQUIRE(failed.size() == 1);
  CHECK_THAT(failed[0]["text"].get<std::string>(), Catch::Contains("answered \"hello\""));
  CHECK(server.metric("gammond_bot_malformed_total") == 2);  // the first attempt and one retry
  CHECK(server.metric("gammond_bot_processes_started_total") == 2);
}

TEST_CASE("without gnubg, /bot and /play bot answer no_bot with a sentence",
          "[bots][gnubg][issue14]") {
  gammond_process server{{"--gnubg", "/nonexistent/gnubg"}};
  player alice(server.port(), "alice");
  alice.ok("t", "/join");
  const auto r = alice.say("t", "/bot");
  REQUIRE(r["type"] == "error");
  CHECK(r["code"] == "no_bot");
  CHECK_THAT(r["message"].get<std::string>(), Catch::Contains("no computer player") &&
                                                  Catch::Contains("not installed") &&
                                                  Catch::Contains("/nonexistent/gnubg"));
  const auto p = alice.say("", "/play bot");
  REQUIRE(p["type"] == "error");
  CHECK(p["code"] == "no_bot");
  // No table was made for it: the lobby lists alice's table only.
  const auto list = alice.say("", "/tables");
  CHECK(list["total"] == 1);
  CHECK_THAT(server.log(), Catch::Contains("no computer players"));
  CHECK(server.metric("gammond_bot_processes") == 0);
}

TEST_CASE(
    "a gnubg seated at a table turned to long nardy gives its seat to the long bot of its level, "
    "and back",
    "[bots][gnubg][issue14]") {
  gammond_process server{flags(1405)};
  player alice(server.port(), "alice");
  alice.ok("t", "/join");
  alice.ok("t", "/bot intermediate");
  const auto long_table = alice.ok("t", "/option variant long");
  CHECK(long_table["players"]["black"] == "nardy-intermediate");
  CHECK(long_table["bots"]["black"] == "intermediate");
  const auto left = events_named(alice, "t", "left");
  REQUIRE(left.size() == 1);
  CHECK(left[0]["name"] == "gnubg-intermediate");
  CHECK_THAT(left[0]["text"].get<std::string>(), Catch::Contains("nardy-intermediate"));
  const auto back = alice.ok("t", "/option variant standard");
  CHECK(back["players"]["black"] == "gnubg-intermediate");
  // /bot at a long nardy table seats the long bot at once.
  alice.ok("t", "/leave");
  alice.ok("t", "/join");
  alice.ok("t", "/option variant long");
  CHECK(alice.ok("t", "/bot")["players"]["black"] == "nardy-expert");
}

TEST_CASE("/bot is refused to spectators, during a match and without a free seat",
          "[bots][gnubg][issue14]") {
  gammond_process server{flags(1406)};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  alice.ok("t", "/join red");
  bob.ok("t", "/board");
  bob.refused("t", "/bot", "not_seated");
  bob.ok("t", "/join black");
  alice.refused("t", "/bot", "table_full");
  bob.ok("t", "/leave");
  alice.refused("t", "/bot grandmaster", "bad_command");
  const auto st = alice.ok("t", "/bot beginner");
  CHECK(st["players"]["black"] == "gnubg-beginner");
  bob.refused("t", "/join black", "seat_taken");
  alice.ok("t", "/start");
  alice.refused("t", "/bot", "already_started");
  const auto who = alice.say("t", "/who");
  CHECK_THAT(who["text"].get<std::string>(), Catch::Contains("gnubg-beginner (computer)"));
  CHECK(who["data"]["bots"]["black"] == "beginner");
}

TEST_CASE("a computer player leaves with the last person at the table", "[bots][gnubg][issue14]") {
  gammond_process server{flags(1407)};
  player alice(server.port(), "alice");
  alice.ok("t", "/join");
  alice.ok("t", "/bot advanced");
  const auto left = alice.ok("t", "/leave");
  CHECK(left["players"]["red"].is_null());
  CHECK(left["players"]["black"].is_null());
  bool bot_left = false;
  for (const auto& e : events_named(alice, "t", "left")) bot_left |= e["name"] == "gnubg-advanced";
  CHECK(bot_left);
}

TEST_CASE("nobody may say hello with a computer player's name", "[bots][gnubg][issue14]") {
  gammond_process server{flags(1408)};
  for (const char* name : {"gnubg-expert", "GNUBG-Worldclass", "gnubg"}) {
    bg::test::ws_client c;
    c.connect("127.0.0.1", server.port());
    c.send_json({{"type", "hello"}, {"name", name}, {"id", 1}});
    const auto r = c.receive_until([](const json& m) { return m.contains("re"); });
    REQUIRE(r);
    CHECK((*r)["type"] == "error");
    CHECK((*r)["code"] == "reserved_name");
    CHECK_THAT((*r)["message"].get<std::string>(), Catch::Contains("computer player"));
  }
  player fan(server.port(), "gnubgfan");  // a name that only starts alike is a person's
  CHECK(fan.name() == "gnubgfan");
}

TEST_CASE("/play bot makes a table, seats the person and the bot, and starts",
          "[bots][gnubg][issue14]") {
  gammond_process server{flags(1409, {"--max-tables-per-client", "2"})};
  player alice(server.port(), "alice");
  const auto id = alice.send("", "/play bot intermediate standard match 1");
  const auto info = alice.answer(id);
  REQUIRE(info["type"] == "info");
  CHECK(info["topic"] == "play");
  const std::string t = info["data"]["table"];
  CHECK(info["data"]["bot"] == "gnubg-intermediate");
  CHECK(t.rfind("vs-gnubg-", 0) == 0);
  const auto st = alice.await_state(t, [](const json&) { return true; });
  CHECK(st["players"]["red"] == "alice");
  CHECK(st["players"]["black"] == "gnubg-intermediate");
  CHECK(st["options"]["match"] == 1);
  CHECK(st["game_number"] == 1);
  // The person who asked owns the table (issue 13); others may watch it: it is listed
  // and bob enters as a spectator (issue 27).
  CHECK(st["owner"] == "alice");
  CHECK(st["options"]["private"] == false);
  player bob(server.port(), "bob");
  CHECK(bob.ok("", "/tables")["total"] == 1);
  CHECK(bob.ok(t, "/board")["players"]["black"] == "gnubg-intermediate");
  // With private, nobody else may enter and it is not listed.
  player carol(server.port(), "carol");
  const auto hidden = carol.answer(carol.send("", "/play bot beginner private"));
  INFO(hidden.dump());
  REQUIRE(hidden["topic"] == "play");
  const std::string ct = hidden["data"]["table"];
  CHECK(carol.await_state(
            ct, [](const json& s) { return s["options"]["private"] == true; })["owner"] == "carol");
  CHECK(bob.ok("", "/tables")["total"] == 1);
  bob.refused(ct, "/board", "private_table");
  // The table is bounded like any other creation (two from this address: alice's and
  // carol's).
  const auto again = alice.say("", "/play bot");
  CHECK(again["code"] == "too_many_tables");
  // A /play line typed at a table goes to the lobby.
  const auto from_table = alice.say(t, "/play bot");
  CHECK(from_table["code"] == "too_many_tables");
  scripted me{alice, t, "red"};
  const auto last = me.play_until([](const json&) { return false; });
  CHECK(last["phase"] == "match_over");
}

TEST_CASE("a computer player's seat survives a restart and plays on", "[bots][gnubg][issue14]") {
  gammond_process server{flags(1410)};
  std::string token;
  const std::string t = "bot-restart";
  {
    player alice(server.port(), "alice");
    alice.ok(t, "/join red");
    alice.ok(t, "/option match 3");
    alice.ok(t, "/bot");
    alice.ok(t, "/start");
    scripted me{alice, t, "red"};
    me.play_until([&](const json&) { return server.metric("gammond_bot_answers_total") >= 2; });
    token = alice.token();
  }
  server.restart();
  player alice(server.port(), "alice", token);
  const auto st = alice.await_state(t, [](const json&) { return true; });
  CHECK(st["players"]["black"] == "gnubg-expert");
  CHECK(st["bots"]["black"] == "expert");
  CHECK(st["present"]["black"] == true);
  scripted me{alice, t, "red"};
  const auto before = server.metric("gammond_bot_answers_total");
  CHECK(before == 0);  // a new gammond: the bot has not been asked yet
  me.play_until([&](const json&) { return server.metric("gammond_bot_answers_total") >= 2; });
  CHECK(server.metric("gammond_bot_answers_total") >= 2);
}

TEST_CASE(
    "S1: a registered player who resigns a 1-point match to gnubg loses 10 rating points to it, "
    "and gnubg's account gains them",
    "[bots][gnubg][accounts][issue14]") {
  gammond_process server{flags(1413)};
  player alice(server.port(), "alice", {}, {{"type", "register"}, {"password", "alice's secret"}});
  const std::string t = "rated";
  alice.ok(t, "/join red");
  alice.ok(t, "/option match 1");
  const auto seated = alice.ok(t, "/bot");
  CHECK(seated["ratings"]["gnubg-expert"].get<double>() == Approx(1500.0));
  alice.ok(t, "/start");
  alice.await_state(t, [](const json& st) {
    return st["to_act"] == "red" && is_phase(st, {"roll", "move"});
  });
  // gnubg answers a resignation from its own evaluation: one point wins it the match.
  alice.ok(t, "/resign");
  const auto over = alice.await_event(t, "match_over");
  INFO(over.dump());
  REQUIRE(over.contains("ratings"));
  // Both new (1500, experience 0), n = 1: 4 * 1 * 1/2 * K 5 = 10 points.
  CHECK(over["ratings"]["black"]["name"] == "gnubg-expert");
  CHECK(over["ratings"]["black"]["after"].get<double>() == Approx(1510.0));
  CHECK(over["ratings"]["red"]["after"].get<double>() == Approx(1490.0));
  const auto whois = alice.ok("", "/whois gnubg-expert");
  CHECK(whois["data"]["bot"] == true);
  CHECK(whois["data"]["online"] == true);
  CHECK(whois["data"]["ratings"]["standard"]["rating"].get<double>() == Approx(1510.0));
  CHECK(whois["data"]["ratings"]["standard"]["experience"] == 1);
  CHECK(whois["data"]["ratings"]["long"]["experience"] == 0);
  const auto list = alice.ok("", "/ratings")["data"]["players"];
  REQUIRE(list.size() == 2);
  CHECK(list[0]["name"] == "gnubg-expert");
  CHECK(list[0]["bot"] == true);
}

TEST_CASE("the bot settings have flags and GAMMOND_ variables", "[bots][config][issue14]") {
  const auto parse = [](std::vector<std::string> args, std::map<std::string, std::string> env) {
    auto r = bg::test::parse_flags(std::move(args), std::move(env));
    return std::make_tuple(r.exit, std::move(r.config), std::move(r.err));
  };
  const bg::server::server_config defaults;
  CHECK(defaults.gnubg == "/usr/games/gnubg");
  CHECK(defaults.bot_processes == 2);
  const auto [exit, c, err] = parse(
      {"--gnubg", "/opt/gnubg", "--bot-processes", "3", "--bot-timeout", "9"},
      {{"GAMMOND_BOT_RETRIES", "4"}, {"GAMMOND_BOT_QUEUE", "12"}, {"GAMMOND_BOT_PROCESSES", "5"}});
  REQUIRE_FALSE(exit);
  CHECK(c.gnubg == "/opt/gnubg");
  CHECK(c.bot_processes == 3);  // the flag wins over its variable
  CHECK(c.bot_timeout == 9s);
  CHECK(c.bot_retries == 4);
  CHECK(c.bot_queue == 12);
  // issue 25: gnubg starts per minute, 60 unless set, 0 for no limit
  CHECK(defaults.bot_starts_per_minute == 60);
  CHECK(std::get<1>(parse({"--bot-starts-per-minute", "0"}, {})).bot_starts_per_minute == 0);
  CHECK(std::get<1>(parse({}, {{"GAMMOND_BOT_STARTS_PER_MINUTE", "7"}})).bot_starts_per_minute ==
        7);
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--bot-processes", "0"},
                                                               {"--bot-starts-per-minute", "-1"},
                                                               {"--bot-timeout", "0"},
                                                               {"--bot-retries", "11"},
                                                               {"--bot-queue", "0"},
                                                               {"--gnubg", ""}}) {
    const auto [code, config, message] = parse(bad, {});
    CHECK(code == 2);
    CHECK_THAT(message, Catch::Contains(bad[0]));
  }
}

TEST_CASE("S1: a registered player's 1-point match against gnubg is rated, a guest's is not",
          "[bots][gnubg][accounts][issue14]") {
  gammond_process server{flags(1407)};
  player alice(server.port(), "alice", {}, {{"type", "register"}, {"password", "alice's secret"}});
  REQUIRE(alice.welcome()["account"]["registered"] == true);
  // `who` resigns a single game of a 1-point match at table `t` on its first turn;
  // gnubg accepts (it wins the match by it). Returns the match_over event.
  const auto resign = [](player& who, const std::string& t) {
    who.ok(t, "/join red");
    who.ok(t, "/option match 1");
    who.ok(t, "/bot expert");
    who.ok(t, "/start");
    who.await_state(t, [](const json& st) {
      return st["to_act"] == "red" && is_phase(st, {"roll", "move"});
    });
    who.ok(t, "/resign single");
    const auto over = who.await_event(t, "match_over");
    who.ok(t, "/leave");
    return over;
  };
  const auto rated = resign(alice, "g1");
  INFO(rated.dump());
  REQUIRE(rated.contains("ratings"));
  CHECK(rated["winner"] == "black");
  // Both new: D = 0, P_upset = 1/2, 4 sqrt(1) / 2 = 2 points at K = 5 (RULES.md S1).
  CHECK(rated["ratings"]["black"]["name"] == "gnubg-expert");
  CHECK(rated["ratings"]["black"]["after"].get<double>() == Approx(1510.0));
  CHECK(rated["ratings"]["red"]["after"].get<double>() == Approx(1490.0));
  const auto whois = alice.ok("", "/whois gnubg-expert");
  CHECK(whois["data"]["bot"] == true);
  CHECK(whois["data"]["online"] == true);  // GNU Backgammon is here
  CHECK(whois["data"]["ratings"]["standard"]["rating"].get<double>() == Approx(1510.0));
  CHECK(whois["data"]["ratings"]["standard"]["experience"] == 1);

  player guest(server.port(), "guest");
  const auto unrated = resign(guest, "g2");
  CHECK(unrated["winner"] == "black");
  CHECK_FALSE(unrated.contains("ratings"));
  const auto after = guest.ok("", "/whois gnubg-expert");
  CHECK(after["data"]["ratings"]["standard"]["rating"].get<double>() == Approx(1510.0));
  CHECK(after["data"]["ratings"]["standard"]["experience"] == 1);
  CHECK(after["data"]["ratings"]["standard"]["played"] == 2);
  const auto list = alice.ok("", "/ratings")["data"]["players"];
  REQUIRE(list.size() == 2);
  CHECK(list[0]["name"] == "gnubg-expert");
  CHECK(list[0]["bot"] == true);
}

namespace {

/// The socket inodes process `pid` holds ("socket:[123]" links in /proc/PID/fd).
std::set<std::string> sockets_of(pid_t pid) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path("/proc") / std::to_string(pid) / "fd", ec)) {
    const auto target = fs::read_symlink(e.path(), ec).string();
    if (!ec && target.rfind("socket:", 0) == 0) out.insert(target);
  }
  return out;
}

/// The person's turn by scripted_person's rule (wait_turn()).
bool person_acts(const json& st, const std::string& side) {
  if (is_phase(st, {"match_over"})) return true;
  if (is_phase(st, {"game_over"})) return !st["continuing"].value(side, false);
  return st["to_act"] == side && is_phase(st, {"roll", "move", "cube_offered", "resign_offered"});
}

/// Plays as `me` until the match waits for the bot (state.bot_thinking); returns that
/// state. REQUIREs that the match is not over first.
json play_until_bot_thinks(scripted& me) {
  for (int i = 0; i < 400; ++i) {
    const auto st = me.me.await_state(me.table, [&](const json& s) {
      return s.value("bot_thinking", false) || person_acts(s, me.side);
    });
    if (st.value("bot_thinking", false)) return st;
    INFO("table " << me.table << ": " << st.dump());
    REQUIRE_FALSE(is_phase(st, {"match_over"}));
    me.act(st);
  }
  FAIL("the bot never had to think at " << me.table);
  return {};
}

}  // namespace

TEST_CASE("a gnubg started by gammond holds none of gammond's sockets (listening or clients')",
          "[bots][gnubg]") {
  gammond_process server{flags(2501)};
  // Clients connected before gnubg starts: their sockets are open in gammond when it forks.
  std::vector<std::unique_ptr<player>> watchers;
  for (int i = 0; i < 6; ++i)
    watchers.push_back(std::make_unique<player>(server.port(), "watcher" + std::to_string(i)));
  player alice(server.port(), "alice");
  const std::string t = "bot-sockets";
  alice.ok(t, "/join red");
  alice.ok(t, "/bot beginner");
  alice.ok(t, "/start");
  scripted me{alice, t, "red"};
  me.play_until([&](const json&) { return server.metric("gammond_bot_answers_total") >= 1; });
  const auto pids = gnubg_pids(server);
  REQUIRE_FALSE(pids.empty());
  const auto gammond_sockets = sockets_of(server.pid());
  REQUIRE(gammond_sockets.size() >= 8);  // the listening socket, 7 clients, gnubg's
  for (const pid_t pid : pids) {
    const auto held = sockets_of(pid);
    std::vector<std::string> shared;
    for (const auto& s : held)
      if (gammond_sockets.count(s) != 0) shared.push_back(s);
    INFO("gnubg " << pid << " holds " << held.size() << " sockets, " << shared.size()
                  << " of them gammond's");
    CHECK(shared.empty());
    CHECK(held.size() <= 2);  // its own: the `external` listener or its one connection
  }
}

TEST_CASE(
    "a full bots' queue makes the tables wait (state.bot_thinking): no bot resigns, and "
    "its seat cannot be claimed",
    "[bots][gnubg]") {
  // One process, one question waiting at most: with gnubg stopped, the third table's
  // question is refused (bot_busy), and was answered by a resignation before.
  gammond_process server{flags(2502, {"--bot-processes", "1", "--bot-queue", "1", "--bot-timeout",
                                      "120", "--idle-limit", "1"})};
  player first(server.port(), "first");
  const auto id = first.send("", "/play bot beginner standard match 1");
  const std::string t0 = first.answer(id)["data"]["table"];
  scripted warm{first, t0, "red"};
  warm.play_until([&](const json&) { return server.metric("gammond_bot_answers_total") >= 1; });
  const auto pids = gnubg_pids(server);
  REQUIRE(pids.size() == 1);
  REQUIRE(::kill(pids[0], SIGSTOP) == 0);  // every question stalls from now on

  std::vector<std::unique_ptr<player>> people;
  std::vector<std::unique_ptr<scripted>> scripts;
  for (int i = 0; i < 5; ++i) {
    people.push_back(std::make_unique<player>(server.port(), "person" + std::to_string(i)));
    const auto ask = people.back()->send("", "/play bot beginner standard match 1");
    const std::string t = people.back()->answer(ask)["data"]["table"];
    scripts.push_back(std::make_unique<scripted>(scripted{*people.back(), t, "red"}));
    const auto st = play_until_bot_thinks(*scripts.back());
    CHECK(st["bot_thinking"] == true);
  }
  // Some questions were refused for the full queue, and asked again since.
  CHECK(bg::test::eventually([&] { return server.metric("gammond_bot_refused_total") >= 3; }));
  for (std::size_t i = 0; i < scripts.size(); ++i) {
    auto& p = *people[i];
    const auto& t = scripts[i]->table;
    // Past the idle limit too, a thinking bot's game is not claimed.
    const auto claim = p.say(t, "/claim");
    CHECK(claim["type"] == "error");
    CHECK(claim["code"] == "bot_thinking");
    CHECK(p.latest(t)["bot_thinking"] == true);
    CHECK_FALSE(is_phase(p.latest(t), {"resign_offered", "match_over"}));
  }
  REQUIRE(::kill(pids[0], SIGCONT) == 0);
  // Every table plays on to its end; no bot gave up.
  for (std::size_t i = 0; i < scripts.size(); ++i) {
    const auto last = scripts[i]->play_until([](const json&) { return false; });
    INFO(server.log());
    CHECK(last["phase"] == "match_over");
    CHECK(events_named(*people[i], scripts[i]->table, "bot_failed").empty());
  }
  CHECK(server.metric("gammond_bot_failures_total") == 0);
}
