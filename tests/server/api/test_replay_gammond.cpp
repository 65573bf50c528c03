// GET /api/matches/ID/replay through the real gammond (PROTOCOL.md "Match replay"): a
// match played over WebSocket to its end replays with one step per recorded action after
// each game's start, ending on the board the players last saw; a private table's match
// is read only with a player's token; an unknown match is a JSON 404.

#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "test_player.hpp"

namespace {

using bg::test::duel;
using bg::test::gammond_flags;
using bg::test::gammond_process;
using bg::test::player;
using bg::test::seat;
using nlohmann::json;

/// GET `target` as JSON: its status and body (REQUIREs a JSON body).
std::pair<unsigned, json> get_json(const gammond_process& server, const std::string& target) {
  const auto r = server.get(target);
  INFO(target << " -> " << r.status << " " << r.body);
  REQUIRE(r.content_type() == "application/json");
  return {r.status, json::parse(r.body)};
}

/// Plays a 1-point match at `table` (`private_table`: alice's private table, bob
/// invited) that the side on roll resigns right after the opening roll and the other
/// accepts (R18); returns its replay route, /api/matches/ID/replay.
std::string resigned_match(player& alice, player& bob, const std::string& table,
                           bool private_table) {
  if (private_table) {
    alice.ok(table, "/option private on");
    alice.ok(table, "/invite bob");
  }
  seat(alice, bob, table, "/option match 1");
  alice.say(table, "/roll");  // the opening roll decides who moves
  const std::string turn = alice.ok(table, "/board")["turn"];
  player& mover = turn == "red" ? alice : bob;
  player& other = turn == "red" ? bob : alice;
  mover.ok(table, "/resign");
  const json over = other.ok(table, "/accept");
  REQUIRE(over["phase"] == "match_over");
  return "/api/matches/" + std::to_string(over["last_match_id"].get<std::int64_t>()) + "/replay";
}

}  // namespace

TEST_CASE(
    "R2-R6 R14 a match played to its end replays step by step to the board its players "
    "last saw",
    "[replay][gammond]") {
  gammond_process server{gammond_flags(9)};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  // Given a 3-point match where the first side on roll doubles and is taken (R14), then
  // random legal plays to the end
  seat(alice, bob, "t1", "/option match 3");
  duel d{alice, bob, "t1"};
  d.step();  // the opening roll
  d.step();  // the opening play
  const json before_double = d.fresh();
  REQUIRE(before_double["phase"] == "roll");
  const std::string doubler = before_double["to_act"];
  d.by_side(doubler).ok("t1", "/double");
  d.by_side(doubler == "red" ? "black" : "red").ok("t1", "/take");
  const json last = d.play_until([](const json& st) { return st["phase"] == "match_over"; });
  REQUIRE(last["phase"] == "match_over");
  const std::int64_t id = last["last_match_id"].get<std::int64_t>();

  // When the record and its replay are read
  const auto [record_status, record] = get_json(server, "/api/matches/" + std::to_string(id));
  REQUIRE(record_status == 200);
  const auto [status, replay] = get_json(server, "/api/matches/" + std::to_string(id) + "/replay");

  // Then every game has its start and one step per recorded action, and no problem
  REQUIRE(status == 200);
  CHECK(replay["match_id"] == id);
  CHECK(replay["match"]["players"] == json{{"red", "alice"}, {"black", "bob"}});
  CHECK(replay["match"]["length"] == 3);
  CHECK(replay["truncated"] == false);
  REQUIRE(replay["games"].size() == record["games"].size());
  for (std::size_t i = 0; i < record["games"].size(); ++i) {
    INFO("game " << i + 1);
    const json& g = replay["games"][i];
    CHECK_FALSE(g.contains("problem"));
    CHECK(g["steps"].size() == record["games"][i]["actions"].size() + 1);
    CHECK(g["result"] == record["games"][i]["result"]);
  }
  // The cube action of game 1, as the players saw it
  const json& steps = replay["games"][0]["steps"];
  REQUIRE(steps.size() > 4);
  CHECK(steps[2]["what"] == "double");
  CHECK(steps[2]["who"] == doubler);
  CHECK(steps[2]["position_id"] == before_double["position_id"]);
  CHECK(steps[3]["what"] == "take");
  CHECK(steps[3]["cube"] == json{{"value", 2}, {"owner", doubler == "red" ? "black" : "red"}});
  // And the last game ends on the board and pips of the last state both players saw
  const json& final_step = replay["games"].back()["steps"].back();
  for (player* p : {&alice, &bob}) {
    const json seen =
        p->await_state("t1", [](const json& st) { return st["phase"] == "match_over"; });
    CHECK(final_step["board"] == seen["board"]);
    CHECK(final_step["pips"] == seen["pips"]);
  }
}

TEST_CASE(
    "a private table's replay answers 404 without a player's token and 200 with one, and an "
    "unknown match is a JSON 404",
    "[replay][gammond]") {
  gammond_process server{gammond_flags(9)};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  player carol(server.port(), "carol");
  // Given a 1-point match at alice's private table, resigned after the opening roll
  const std::string route = resigned_match(alice, bob, "t1", true);

  // Then nobody's token and a stranger's are answered as for no such match
  for (const std::string& query : {std::string(), "?token=" + carol.token()}) {
    const auto [status, body] = get_json(server, route + query);
    CHECK(status == 404);
    CHECK(body["error"] == "unknown_match");
  }
  // And each player reads it: the start, the offer and the acceptance
  for (const player* p : {&alice, &bob}) {
    const auto [status, body] = get_json(server, route + "?token=" + p->token());
    REQUIRE(status == 200);
    const json& steps = body["games"][0]["steps"];
    REQUIRE(steps.size() == 3);
    CHECK(steps[1]["what"] == "resign_offer");
    CHECK(steps[1]["resign"] == "single");
    CHECK(steps[2]["what"] == "resign_accept");
  }
  // And a match that does not exist has the analysis's 404 body
  const auto [status, body] = get_json(server, "/api/matches/999/replay");
  CHECK(status == 404);
  CHECK(body == json{{"error", "unknown_match"},
                     {"message", "there is no match 999"},
                     {"say", {{"key", "analysis.no_match"}, {"args", {{"id", "999"}}}}}});
  // And a path with no number in it is no match route
  CHECK(server.get("/api/matches/abc/replay").status == 404);
}

TEST_CASE(
    "the flag --replay-max-steps bounds the replay's steps and the answer says it is truncated",
    "[replay][gammond]") {
  auto f = gammond_flags(9);
  f.insert(f.end(), {"--replay-max-steps", "2"});
  gammond_process server{f};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  // Given a public match of 3 steps: the start, a resignation and its acceptance
  const std::string route = resigned_match(alice, bob, "t1", false);
  // When its replay is read from a server that gives 2 steps at most
  const auto [status, body] = get_json(server, route);
  // Then it has the first 2 and says it is truncated
  REQUIRE(status == 200);
  CHECK(body["truncated"] == true);
  REQUIRE(body["games"].size() == 1);
  CHECK(body["games"][0]["steps"].size() == 2);
}
