// One tournament's state machine (RULES.md S6) without a server: registration and its
// refusals, the start (or the cancellation under the minimum), rounds moved on by
// results, withdrawals that forfeit, adjudication, an arena's end, and the stored form.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "bg/server/tournament/tournament.hpp"

using namespace bg::server;

namespace {

/// Match ids from 1, as a store would reserve them.
struct ids {
  std::int64_t next = 1;
  std::int64_t operator()() { return next++; }
};

tournament_terms terms_of(tournament_kind k, int min = 2, int max = 8) {
  tournament_terms t;
  t.kind = k;
  t.rounds = 2;
  t.minutes = 10;
  t.start_ms = 1000;
  t.min_players = min;
  t.max_players = max;
  return t;
}

/// A tournament with players A, B, C... rated 2000, 1900, 1800...
tournament with_players(tournament_kind k, int n, int max = 8) {
  tournament t("cup", "root", terms_of(k, 2, max), 0);
  for (int i = 0; i < n; ++i)
    REQUIRE_FALSE(t.enter(std::string(1, static_cast<char>('A' + i)), 2000.0 - 100.0 * i, 10));
  return t;
}

/// The pairings in play (no winner) with a table.
std::vector<tournament_pairing> in_play(const tournament& t) {
  std::vector<tournament_pairing> out;
  for (const auto& p : t.pairings())
    if (!p.winner && !p.table.empty()) out.push_back(p);
  return out;
}

}  // namespace

TEST_CASE("S6 registration closes at the start, refuses a full field and a second entry",
          "[tournament][S6]") {
  auto t = with_players(tournament_kind::knockout, 2, 3);
  CHECK(t.enter("a", 1500, 20)->code == "already_registered");  // names by name key
  CHECK_FALSE(t.enter("C", 1500, 20));
  CHECK(t.enter("D", 1500, 20)->code == "tournament_full");
  CHECK_FALSE(t.withdraw("C", 30));  // before the start: the place is free again
  CHECK(t.withdraw("C", 30)->code == "not_registered");
  ids id;
  CHECK_FALSE(t.tick(999, id));  // not yet
  CHECK(t.tick(1000, id));
  CHECK(t.status() == tournament_status::running);
  CHECK(t.enter("E", 1500, 1001)->code == "tournament_started");
}

TEST_CASE("S6 a tournament under its minimum at the start is cancelled", "[tournament][S6]") {
  tournament t("cup", "root", terms_of(tournament_kind::swiss, 4), 0);
  REQUIRE_FALSE(t.enter("A", 1500, 1));
  REQUIRE_FALSE(t.enter("B", 1500, 1));
  ids id;
  CHECK(t.tick(1000, id));
  CHECK(t.status() == tournament_status::cancelled);
  CHECK(t.view()["end_reason"] == "fewer than 4 players at the start");
  CHECK(t.cancel(2000)->code == "tournament_over");
}

TEST_CASE("S6 a knockout moves on as its matches end, and a withdrawal forfeits the match in play",
          "[tournament][S6]") {
  auto t = with_players(tournament_kind::knockout, 4);
  ids id;
  REQUIRE(t.tick(1000, id));
  auto seat = t.take_new_pairings();
  REQUIRE(seat.size() == 2);  // A-D, B-C (seeded)
  CHECK(seat[0].red == "A");
  CHECK(seat[0].black == "D");
  CHECK(seat[0].match_id == 1);
  CHECK(seat[0].table == "cup-r1-1");
  CHECK(t.match_finished("cup-r1-1", std::string("D"), win_kind::single, 2000, id));
  CHECK_FALSE(t.match_finished("cup-r1-1", std::string("A"), win_kind::single, 2000, id));
  CHECK(t.round() == 1);
  // C withdraws while playing B: B wins that match, and the final D-B is made.
  CHECK_FALSE(t.withdraw("C", 2100));
  CHECK(t.tick(2200, id));
  CHECK(t.round() == 2);
  const auto final_round = in_play(t);
  REQUIRE(final_round.size() == 1);
  CHECK(final_round[0].red == "D");
  CHECK(final_round[0].black == "B");
  // An administrator settles it (the match cannot finish), with the reason kept.
  CHECK(t.adjudicate("cup-r2-1", "nobody", "x", 2300, id)->code == "not_registered");
  CHECK_FALSE(t.adjudicate("cup-r2-1", "b", "the table froze", 2300, id));
  CHECK(t.adjudicate("cup-r2-1", "B", "again", 2300, id)->code == "pairing_over");
  CHECK(t.status() == tournament_status::finished);
  const auto s = t.standings();
  CHECK(s[0].name == "B");  // the walkover, then the final
  CHECK(s[0].wins == 2);
  CHECK(t.view()["rounds"][1][0]["how"] == "adjudicated");
  CHECK(t.view()["rounds"][1][0]["reason"] == "the table froze");
}

TEST_CASE("S6 a match closed unfinished waits for an adjudication", "[tournament][S6]") {
  auto t = with_players(tournament_kind::swiss, 2);
  ids id;
  REQUIRE(t.tick(1000, id));
  CHECK(t.match_finished("cup-r1-1", std::nullopt, win_kind::single, 1500, id));
  CHECK(t.view()["rounds"][0][0]["how"] == "unfinished");
  CHECK(t.round() == 1);
  CHECK_FALSE(t.adjudicate("cup-r1-1", "A", "closed by mistake", 1600, id));
  CHECK(t.round() == 2);  // the Swiss goes on: A meets B again only since nobody else is left
}

TEST_CASE("S6 an arena stops pairing at its end and finishes once its matches end",
          "[tournament][S6]") {
  auto t = with_players(tournament_kind::arena, 5);
  t.set_minute_ms(1000);  // 10 "minutes" of 1 s
  ids id;
  REQUIRE(t.tick(1000, id));
  CHECK(in_play(t).size() == 2);  // one waits
  CHECK(t.view()["waiting"].size() == 1);
  const auto first = in_play(t)[0];
  CHECK(t.match_finished(first.table, first.red, win_kind::gammon, 2000, id));
  CHECK(in_play(t).size() == 2);  // the two back in the pool: one paired with the waiter
  CHECK(t.player(first.red)->arena.points == 3);
  CHECK(t.tick(11'000, id));  // the end: nobody is paired any more
  CHECK(t.view()["waiting"].empty());
  for (const auto& p : in_play(t)) t.match_finished(p.table, p.red, win_kind::single, 12'000, id);
  CHECK(t.status() == tournament_status::finished);
}

TEST_CASE("S6 a tournament's stored form gives back the same tournament", "[tournament][S6]") {
  auto t = with_players(tournament_kind::arena, 4);
  ids id;
  REQUIRE(t.tick(1000, id));
  const auto p = in_play(t)[0];
  REQUIRE(t.match_finished(p.table, p.black, win_kind::backgammon, 1500, id));
  REQUIRE_FALSE(t.withdraw("D", 1600));
  const auto doc = t.to_json();
  const auto back = tournament::from_json(doc);
  CHECK(back.to_json() == doc);
  CHECK(back.view() == t.view());
  auto broken = doc;
  broken["status"] = "paused";
  CHECK_THROWS(tournament::from_json(broken));
  CHECK_THROWS(tournament::from_json(nlohmann::json::object()));
}
