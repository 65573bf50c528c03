// The long nardy computer player at tables (issue 14): the real gammond, driven by real
// WebSocket clients. The long bot needs no program: these tests start gammond without
// GNU Backgammon (--gnubg pointing nowhere), so they also show it does not need one.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "scripted_person.hpp"
#include "test_player.hpp"

using bg::test::events_named;
using bg::test::gammond_process;
using bg::test::is_phase;
using bg::test::player;
using bg::test::scripted_person;
using nlohmann::json;

namespace {

/// gammond flags: bg::test::gammond_flags (reproducible dice, no rate limit in a test's
/// way) without GNU Backgammon (--gnubg pointing nowhere), then `more`.
std::vector<std::string> flags(int dice_seed, std::vector<std::string> more = {}) {
  more.insert(more.begin(), {"--gnubg", "/nonexistent/gnubg"});
  return bg::test::gammond_flags(dice_seed, std::move(more));
}

/// The lead in pips of `side` ("red" or "black") in state `st`.
int lead_of(const json& st, const std::string& side) {
  const std::string other = side == "red" ? "black" : "red";
  return st["pips"][other].get<int>() - st["pips"][side].get<int>();
}

/// How many events named `name` at `table` were by `side`.
int by_side(const player& p, const std::string& table, const std::string& name,
            const std::string& side) {
  int n = 0;
  for (const auto& e : events_named(p, table, name)) n += e.value("side", "") == side ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("the long nardy bot plays a whole 3-point match against a scripted player, cube included",
          "[bots][long_bot][issue14]") {
  gammond_process server{flags(41)};
  player alice(server.port(), "alice");
  const std::string t = "nardy-match";
  alice.ok(t, "/join red");
  alice.ok(t, "/option variant long");
  alice.ok(t, "/option match 3");
  const auto seated = alice.ok(t, "/bot");
  CHECK(seated["players"]["black"] == "nardy-expert");
  CHECK(seated["bots"]["black"] == "expert");
  CHECK(seated["present"]["black"] == true);
  CHECK(seated["options"]["variant"] == "long");
  alice.ok(t, "/start");

  scripted_person me{alice, t, "red"};
  // The person doubles a centred cube when not behind in the race, and drops the bot's
  // doubles, so the match lasts several games with the cube in play both ways.
  me.double_when = [](const json& st) {
    return st["cube"]["value"] == 1 && lead_of(st, "red") >= 0;
  };
  me.take_when = [](const json&) { return false; };
  const auto last = me.play_until([](const json&) { return false; }, 6000);
  INFO(server.log());
  REQUIRE(last["phase"] == "match_over");
  CHECK(std::max(last["score"]["red"].get<int>(), last["score"]["black"].get<int>()) >= 3);
  CHECK(last["game_number"].get<int>() >= 2);

  // The person doubled and the bot answered each double; the bot doubled and the person
  // answered.
  REQUIRE(me.doubles >= 1);
  CHECK(by_side(alice, t, "doubled", "red") == me.doubles);
  CHECK(by_side(alice, t, "took", "black") + by_side(alice, t, "dropped", "black") == me.doubles);
  const int bot_doubles = by_side(alice, t, "doubled", "black");
  CHECK(bot_doubles >= 1);
  CHECK(by_side(alice, t, "took", "red") + by_side(alice, t, "dropped", "red") == bot_doubles);
  // Every play of the bot went through the table's checks, none refused.
  CHECK(by_side(alice, t, "moved", "black") >= 20);
  CHECK(events_named(alice, t, "bot_failed").empty());
  CHECK_THAT(server.log(), !Catch::Contains("nardy-expert sent"));
  CHECK(server.metric("gammond_long_bot_answers_total") >= 20);
  CHECK(server.metric("gammond_long_bot_refused_total") == 0);
  CHECK(server.metric("gammond_bot_processes") == 0);  // no gnubg took part
  // The match is stored with the bot's name, as any other (long nardy has no .mat form:
  // its record is read as JSON).
  const auto stored =
      server.get("/api/matches/" + std::to_string(last["last_match_id"].get<long>()));
  REQUIRE(stored.status == 200);
  CHECK(json::parse(stored.body)["players"][1] == "nardy-expert");  // [red, black]
}

TEST_CASE("/play bot long makes a long nardy table with the long bot and starts",
          "[bots][long_bot][issue14]") {
  gammond_process server{flags(42)};
  player alice(server.port(), "alice");
  const auto id = alice.send("", "/play bot beginner long match 1");
  const auto info = alice.answer(id);
  INFO(info.dump());
  REQUIRE(info["type"] == "info");
  CHECK(info["topic"] == "play");
  const std::string t = info["data"]["table"];
  CHECK(t.rfind("vs-nardy-", 0) == 0);
  CHECK(info["data"]["bot"] == "nardy-beginner");
  const auto st = alice.await_state(t, [](const json&) { return true; });
  CHECK(st["players"]["red"] == "alice");
  CHECK(st["players"]["black"] == "nardy-beginner");
  CHECK(st["bots"]["black"] == "beginner");
  CHECK(st["options"]["variant"] == "long");
  CHECK(st["options"]["match"] == 1);
  CHECK(st["game_number"] == 1);
  scripted_person me{alice, t, "red"};
  const auto last = me.play_until([](const json&) { return false; }, 4000);
  CHECK(last["phase"] == "match_over");
  CHECK(events_named(alice, t, "bot_failed").empty());
  // A standard game still needs GNU Backgammon, which this server does not have.
  const auto standard = alice.say("", "/play bot");
  CHECK(standard["code"] == "no_bot");
}

TEST_CASE("a long bot's seat survives a restart and plays on", "[bots][long_bot][issue14]") {
  gammond_process server{flags(43)};
  std::string token;
  const std::string t = "nardy-restart";
  {
    player alice(server.port(), "alice");
    alice.ok(t, "/join red");
    alice.ok(t, "/option variant long");
    alice.ok(t, "/option match 3");
    alice.ok(t, "/bot worldclass");
    alice.ok(t, "/start");
    scripted_person me{alice, t, "red"};
    me.play_until(
        [&](const json&) { return server.metric("gammond_long_bot_answers_total") >= 3; });
    token = alice.token();
  }
  server.restart();
  player alice(server.port(), "alice", token);
  const auto st = alice.await_state(t, [](const json&) { return true; });
  CHECK(st["players"]["black"] == "nardy-worldclass");
  CHECK(st["bots"]["black"] == "worldclass");
  CHECK(st["present"]["black"] == true);
  CHECK(server.metric("gammond_long_bot_answers_total") == 0);  // a new gammond
  scripted_person me{alice, t, "red"};
  const auto last = me.play_until([](const json&) { return false; }, 6000);
  INFO(server.log());
  CHECK(last["phase"] == "match_over");
  CHECK(server.metric("gammond_long_bot_answers_total") >= 3);
  CHECK(events_named(alice, t, "bot_failed").empty());
}

TEST_CASE(
    "without GNU Backgammon the long bot still sits down, and a standard table cannot take it over",
    "[bots][long_bot][issue14]") {
  gammond_process server{flags(44)};
  player alice(server.port(), "alice");
  const std::string t = "nardy-swap";
  alice.ok(t, "/join");
  alice.refused(t, "/bot", "no_bot");  // standard: GNU Backgammon is not there
  alice.ok(t, "/option variant long");
  const auto seated = alice.ok(t, "/bot advanced");
  CHECK(seated["players"]["black"] == "nardy-advanced");
  // Back to standard would need gnubg-advanced: refused, nothing changes.
  alice.refused(t, "/option variant standard", "no_bot");
  const auto st = alice.ok(t, "/board");
  CHECK(st["options"]["variant"] == "long");
  CHECK(st["players"]["black"] == "nardy-advanced");
  const auto who = alice.say(t, "/who");
  CHECK_THAT(who["text"].get<std::string>(), Catch::Contains("nardy-advanced (computer)"));
}
