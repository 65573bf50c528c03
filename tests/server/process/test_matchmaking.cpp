// Matchmaking (RULES.md S5) through the real gammond: /seek and /unseek in the lobby,
// pairs seated at a new table where their match starts, the queue's bounds and the
// misuse a stranger may try.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "test_player.hpp"

using bg::test::gammond_flags;
using bg::test::gammond_process;
using bg::test::player;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// gammond with room for many tables from one address (every test player is on 127.0.0.1).
std::vector<std::string> flags(std::vector<std::string> more = {}) {
  more.insert(more.end(), {"--max-tables-per-client", "50"});
  return gammond_flags(30, more);
}

/// The `info` (topic "play") that tells `p` where its /seek seated it.
json paired(player& p) {
  return p.await([](const json& m) { return m["type"] == "info" && m["topic"] == "play"; });
}

}  // namespace

TEST_CASE("S5 two /seek requests that overlap are seated at a new table and their match starts",
          "[matchmaking][gammond][S5]") {
  gammond_process server{flags()};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  // alice asks for 3 or 5 points: she waits, told what she asked for.
  const auto waiting = alice.ok("", "/seek match 3,5");
  REQUIRE(waiting["type"] == "info");
  CHECK(waiting["topic"] == "seek");
  CHECK(waiting["data"]["status"] == "waiting");
  CHECK(waiting["data"]["variant"] == "standard");
  CHECK(waiting["data"]["lengths"] == json::array({3, 5}));
  CHECK(waiting["data"]["clock"].is_null());  // any clock
  CHECK(waiting["data"]["window"] == 100);
  CHECK(waiting["data"]["rating"] == 1500);  // a guest counts as 1500
  CHECK(waiting["data"]["waiting"]["standard"] == 1);
  // bob asks for 5 with a clock: their choices overlap on 5 points and bob's clock.
  const auto second = bob.ok("", "/seek match 5 clock 5 12");
  CHECK(second["topic"] == "seek");
  const auto to_alice = paired(alice);
  const auto to_bob = paired(bob);
  const std::string t = to_alice["data"]["table"];
  CHECK(t.rfind("match-", 0) == 0);
  CHECK(to_bob["data"]["table"] == t);
  CHECK(to_alice["data"]["opponent"] == "bob");
  CHECK(to_alice["data"]["side"] == "red");  // the longer waiter
  CHECK(to_bob["data"]["side"] == "black");
  const auto st = alice.await_state(t, [](const json& s) { return s["game_number"] == 1; });
  CHECK(st["players"]["red"] == "alice");
  CHECK(st["players"]["black"] == "bob");
  CHECK(st["options"]["match"] == 5);
  CHECK(st["options"]["clock"]["minutes"] == 5);
  CHECK(st["phase"] == "opening");
  CHECK(bob.await_state(t, [](const json& s) { return s["game_number"] == 1; })["players"]["red"] ==
        "alice");
  // The match is theirs to play: the opening roll is accepted from either.
  CHECK(alice.ok(t, "/roll")["type"] == "state");
  // Paired, nobody waits any more.
  alice.refused("", "/unseek", "not_seeking");
  bob.refused("", "/unseek", "not_seeking");
}

TEST_CASE(
    "S5 /seek answers misuse with a code and a sentence: a bad line, a full queue, no "
    "request to withdraw",
    "[matchmaking][gammond][S5]") {
  gammond_process server{flags({"--max-seeks", "1"})};
  player carol(server.port(), "carol");
  player dave(server.port(), "dave");
  for (const char* bad : {"/seek match 0", "/seek chess", "/seek clock 999", "/seek bot after 0"})
    carol.refused("", bad, "bad_command");
  CHECK(carol.ok("", "/seek long")["data"]["waiting"]["long"] == 1);
  // The queue holds one request: dave's is refused, and his /unseek finds none.
  const auto full = dave.say("", "/seek");
  CHECK(full["code"] == "too_many_seeks");
  CHECK_FALSE(full["message"].get<std::string>().empty());
  dave.refused("", "/unseek", "not_seeking");
  // carol's second /seek replaces her first, even with the queue full.
  const auto again = carol.ok("", "/seek standard match 7");
  CHECK(again["data"]["waiting"]["standard"] == 1);
  CHECK(again["data"]["waiting"]["long"] == 0);
  const auto gone = carol.ok("", "/unseek");
  CHECK(gone["topic"] == "seek");
  CHECK(gone["data"]["status"] == "cancelled");
  carol.refused("", "/unseek", "not_seeking");
  // Typed at a table, /seek goes to the lobby like /play bot.
  CHECK(dave.ok("t1", "/seek long")["data"]["status"] == "waiting");
}

TEST_CASE("S5 a request goes with its connection, and nobody is paired with a name they ignore",
          "[matchmaking][gammond][S5]") {
  gammond_process server{flags()};
  {
    player erin(server.port(), "erin");
    erin.ok("", "/seek");
  }  // erin goes offline: her request with her
  player frank(server.port(), "frank");
  player gina(server.port(), "gina");
  frank.ok("", "/ignore gina");
  CHECK(frank.ok("", "/seek")["data"]["waiting"]["standard"] == 1);
  // gina overlaps with frank, but frank ignores her: both wait.
  CHECK(gina.ok("", "/seek")["data"]["waiting"]["standard"] == 2);
  // harry overlaps with both: he is paired with frank, who waited longest.
  player harry(server.port(), "harry");
  harry.ok("", "/seek");
  CHECK(paired(frank)["data"]["opponent"] == "harry");
  CHECK(paired(harry)["data"]["opponent"] == "frank");
  const auto still = gina.ok("", "/seek match 1");  // gina still waits (replaced)
  CHECK(still["data"]["waiting"]["standard"] == 1);
}

TEST_CASE("S5 a request that asked for a computer player after a wait plays one when nobody comes",
          "[matchmaking][gammond][S5]") {
  gammond_process server{flags()};
  player ivy(server.port(), "ivy");
  // Long nardy: its computer players need no program.
  ivy.ok("", "/seek long match 1 bot after 1");
  const auto play =
      ivy.await([](const json& m) { return m["type"] == "info" && m["topic"] == "play"; }, 15s);
  CHECK(play["data"]["bot"] == "nardy-expert");
  const std::string t = play["data"]["table"];
  const auto st = ivy.await_state(t, [](const json& s) { return s["game_number"] == 1; });
  CHECK(st["options"]["variant"] == "long");
  CHECK(st["options"]["match"] == 1);
  ivy.refused("", "/unseek", "not_seeking");
}

namespace {

/// The next `lobby` message (the count of players waiting, S5) that `p` reads.
json lobby_count(player& p) {
  return p.await([](const json& m) { return m["type"] == "lobby"; })["seeking"];
}

}  // namespace

TEST_CASE(
    "S5 every lobby client sees how many players wait per variant, pushed as requests come "
    "and go, a burst's changes together",
    "[matchmaking][gammond][S5]") {
  // Given pushes at most every 3 s (far more than the two lines of a burst below take)
  gammond_process server{flags({"--seek-count-interval", "3"})};
  player olga(server.port(), "olga");  // idle in the lobby: she never seeks
  player paul(server.port(), "paul");
  // The lobby list carries the count too.
  const auto tables = olga.ok("", "/tables");
  CHECK(tables["seeking"] == json({{"standard", 0}, {"long", 0}}));
  // When paul seeks long backgammon, olga is told at once (no push for 3 s before).
  const auto first_change = std::chrono::steady_clock::now();
  paul.ok("", "/seek long");
  CHECK(lobby_count(olga) == json({{"standard", 0}, {"long", 1}}));
  CHECK(olga.ok("", "/tables")["seeking"]["long"] == 1);
  // When quinn seeks and paul withdraws within the interval, olga gets one push that says
  // both, once the interval is over: never the count between them.
  {
    player quinn(server.port(), "quinn");
    quinn.ok("", "/seek standard");
    paul.ok("", "/unseek");
    const auto after = lobby_count(olga);
    CHECK(after == json({{"standard", 1}, {"long", 0}}));
    CHECK(std::chrono::steady_clock::now() - first_change >= 3s);  // not before the interval
    std::size_t pushes = 0;
    for (const auto& m : olga.received()) pushes += m["type"] == "lobby" ? 1U : 0U;
    CHECK(pushes == 2);
  }  // quinn goes offline: her request with her, and the count drops
  CHECK(lobby_count(olga) == json({{"standard", 0}, {"long", 0}}));
}
