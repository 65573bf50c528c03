// Tournaments (RULES.md S6) through the real gammond: a Swiss of 16 with a player who
// never comes back, a knockout of 6, an arena, a kill -9 in the middle of a round, and
// the misuse a stranger may try. Every match is played by scripted players: both come
// to the table, the opening is rolled, the side on turn resigns and the other accepts.
#include <catch2/catch.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "test_player.hpp"
#include "tournament_play.hpp"

using bg::test::check_swiss_standings;
using bg::test::field;
using bg::test::gammond_flags;
using bg::test::gammond_process;
using bg::test::pairing_of;
using bg::test::play_round;
using bg::test::player;
using bg::test::register_field;
using bg::test::resign_out;
using bg::test::round_tables;
using bg::test::swiss_by_hand;
using bg::test::tournament_until;
using nlohmann::json;
using namespace std::chrono_literals;

// Named, so that these helpers and another file's of the same name share a unity
// build (CMAKE_UNITY_BUILD).
namespace tournaments_tests {

namespace {

const std::string root_password = "correct horse battery";

/// gammond with root as an administrator, room for the tournaments' tables, and a short
/// grace period (an absent player forfeits after `grace_seconds`, 3 s by default).
std::vector<std::string> flags(std::vector<std::string> more = {},
                               const std::string& grace_seconds = "3") {
  more.insert(more.begin(), {"--admins", "root", "--max-tables-per-client", "50", "--grace-period",
                             grace_seconds});
  return gammond_flags(31, std::move(more));
}

}  // namespace

TEST_CASE(
    "S6 a Swiss of 16 over 3 rounds of 1-point matches: no rematch, a player who left "
    "forfeits, standings by wins then Buchholz",
    "[tournament][gammond][S6]") {
  gammond_process server{flags()};
  server.create_admin("root", root_password);
  player root(server.port(), "root", {}, json{{"password", root_password}});
  const auto made =
      root.ok("", "/tournament create night swiss rounds 3 match 1 clock 1 0 start +6");
  CHECK(made["topic"] == "tournament");
  CHECK(made["data"]["status"] == "registering");
  auto players = register_field(server.port(), 16, "night");
  // p16 goes for good before the start: each of its matches is forfeited (S3).
  players["p16"].reset();
  std::set<std::pair<std::string, std::string>> met;
  for (int round = 1; round <= 3; ++round) {
    const auto tables = round_tables(players, round);
    CHECK(tables.size() == 8);  // 16 players: no bye
    for (const auto& [t, pair] : tables) {
      const auto key = std::minmax(pair.first, pair.second);
      CHECK(met.insert(key).second);  // nobody meets anyone twice
      if (round == 1) {
        // Round 1: the top half against the bottom half (all rated 1500: by name).
        CHECK(pair.first.substr(1) < pair.second.substr(1));
      }
    }
    play_round(players, tables);
  }
  const auto final_view =
      tournament_until(*players["p01"], [](const json& v) { return v["status"] == "finished"; });
  // The API says the same, and the standings are those of S6 computed from its rounds.
  const auto api = server.get("/api/tournaments/night");
  REQUIRE(api.status == 200);
  const auto view = json::parse(api.body);
  CHECK(view == final_view);
  CHECK(view["kind"] == "swiss");
  REQUIRE(view["rounds"].size() == 3);
  const auto by_hand = swiss_by_hand(view);
  int rank = 0;
  std::pair<int, int> last{99, 99};
  for (const auto& s : view["standings"]) {
    CHECK(s["rank"] == ++rank);
    const std::string name = s["name"];
    CHECK(s["wins"] == by_hand.at(name).first);
    CHECK(s["points"] == s["wins"]);
    CHECK(s["buchholz"] == by_hand.at(name).second);
    const std::pair<int, int> key{s["wins"], s["buchholz"]};
    CHECK(key <= last);  // wins, then Buchholz
    last = key;
  }
  // The player who left lost all three, each by forfeit.
  CHECK(by_hand.at("p16").first == 0);
  CHECK(view["standings"].back()["wins"] == 0);
  // Every pairing has its table, its match id and its winner.
  for (const auto& round : view["rounds"])
    for (const auto& p : round) {
      CHECK(p["table"].is_string());
      CHECK(p["match_id"].is_number());
      CHECK(p["winner"].is_string());
    }
  const auto list = json::parse(server.get("/api/tournaments").body);
  REQUIRE(list["tournaments"].size() == 1);
  CHECK(list["tournaments"][0]["status"] == "finished");
}

TEST_CASE("S6 a knockout of 6: byes to the two top seeds, then one champion",
          "[tournament][gammond][S6]") {
  gammond_process server{flags()};
  server.create_admin("root", root_password);
  player root(server.port(), "root", {}, json{{"password", root_password}});
  root.ok("", "/tournament create cup knockout match 1 start +4");
  auto players = register_field(server.port(), 6, "cup");
  // Round 1: 8 seats, so seeds 1 and 2 (p01, p02) have byes; 3-6, 4-5 play.
  auto tables = round_tables(players, 1);
  CHECK(tables.size() == 2);
  std::set<std::string> in_round;
  for (const auto& [t, pair] : tables) in_round.insert({pair.first, pair.second});
  CHECK(in_round == std::set<std::string>{"p03", "p04", "p05", "p06"});
  std::set<std::string> in{"p01", "p02"};
  for (const auto& [t, w] : play_round(players, tables)) in.insert(w);
  tables = round_tables(players, 2, in);  // the semi-finals: p01 and p02 come in
  CHECK(tables.size() == 2);
  in.clear();
  for (const auto& [t, w] : play_round(players, tables)) in.insert(w);
  tables = round_tables(players, 3, in);  // the final
  REQUIRE(tables.size() == 1);
  const auto winners = play_round(players, tables);
  const auto view = tournament_until(root, [](const json& v) { return v["status"] == "finished"; });
  CHECK(view["bracket"].size() == 3);
  CHECK(view["standings"][0]["name"] == winners.begin()->second);
  CHECK(view["standings"][0]["rank"] == 1);
  CHECK(view["standings"][0]["wins"] == 3);  // the final, the semi and the first round
}

TEST_CASE("S6 an arena pairs players again as they finish, scores 2 a win doubled on a streak",
          "[tournament][gammond][S6]") {
  // A minute of 6 s: the 2-minute arena lasts 12 s. The players come to each pairing one
  // after the other: a long grace period, so that none forfeits while waiting its turn.
  gammond_process server{flags({"--clock-minute-seconds", "6"}, "60")};
  server.create_admin("root", root_password);
  player root(server.port(), "root", {}, json{{"password", root_password}});
  root.ok("", "/tournament create blitz arena minutes 2 match 1 start +4");
  auto players = register_field(server.port(), 8, "blitz");
  root.ok("", "/tournament blitz");  // root watches
  // Play every pairing as it comes until the arena ends.
  std::map<std::string, int> played;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  json view;
  while (std::chrono::steady_clock::now() < deadline) {
    view = root.await([](const json& m) { return m["type"] == "tournament"; }, 60s)["tournament"];
    if (view["status"] == "finished") break;
    for (const auto& p : view["rounds"].empty() ? json::array() : view["rounds"][0]) {
      if (!p["winner"].is_null() || !p["table"].is_string()) continue;
      const std::string t = p["table"];
      if (played.count(t) != 0) continue;
      played[t] = 1;
      resign_out(*players[p["red"]], *players[p["black"]], t);
    }
  }
  REQUIRE(view["status"] == "finished");
  CHECK(played.size() >= 8);  // each player played twice at least
  // S6's scoring from the pairings, in order: 2 a win (1-point resignations are single
  // wins), doubled after two wins in a row, 0 a loss.
  std::map<std::string, std::pair<int, int>> score;  // points, streak
  for (const auto& p : view["rounds"][0]) {
    if (!p["winner"].is_string()) continue;
    const std::string w = p["winner"];
    const std::string l = p["red"] == w ? p["black"] : p["red"];
    auto& ws = score[w];
    ws.first += ws.second >= 2 ? 4 : 2;
    ++ws.second;
    score[l].second = 0;
  }
  int last = 1 << 20;
  for (const auto& s : view["standings"]) {
    CHECK(s["points"] == score[s["name"]].first);
    CHECK(s["points"] <= last);
    last = s["points"];
  }
}

TEST_CASE(
    "S6 a tournament killed (kill -9) during round 2 resumes and finishes with the "
    "right standings",
    "[tournament][gammond][S6][durability]") {
  // A long grace period: nobody forfeits while the server is down and the players come
  // back one after the other (a round made while they are away would reach none of them).
  gammond_process server{flags({}, "60")};
  server.create_admin("root", root_password);
  auto root =
      std::make_unique<player>(server.port(), "root", "", json{{"password", root_password}});
  root->ok("", "/tournament create crash swiss rounds 3 match 1 start +4");
  auto players = register_field(server.port(), 6, "crash");
  play_round(players, round_tables(players, 1));
  const auto round2 = round_tables(players, 2);
  REQUIRE(round2.size() == 3);
  // One match of round 2 ends before the crash, two are in play.
  const auto& first = *round2.begin();
  resign_out(*players[first.second.first], *players[first.second.second], first.first);
  // The director's write of that result is durable before anyone hears of it.
  tournament_until(*players[first.second.first], [&](const json& v) {
    if (v["rounds"].size() < 2) return false;  // (a view of round 1, read before)
    for (const auto& p : v["rounds"][1])
      if (p["table"] == first.first) return p["winner"].is_string();
    return false;
  });
  std::map<std::string, std::string> tokens;
  for (const auto& [n, p] : players) tokens[n] = p->token();
  players.clear();
  root.reset();
  server.restart(SIGKILL);
  // Everyone comes back (a seat's holder with its resume token); the two tables in play
  // are there, their matches started.
  field back;
  for (const auto& [n, token] : tokens) back[n] = std::make_unique<player>(server.port(), n, token);
  for (auto it = std::next(round2.begin()); it != round2.end(); ++it)
    resign_out(*back[it->second.first], *back[it->second.second], it->first);
  back["p01"]->ok("", "/tournament crash");
  play_round(back, round_tables(back, 3));
  const auto view =
      tournament_until(*back["p01"], [](const json& v) { return v["status"] == "finished"; });
  REQUIRE(view["rounds"].size() == 3);
  CHECK(check_swiss_standings(view) == 9);  // 3 rounds of 3 matches, each with one winner
}

TEST_CASE("S6 tournament commands answer misuse with a code and a sentence",
          "[tournament][gammond][S6]") {
  gammond_process server{flags({"--max-tournaments", "2", "--max-registrations", "1"})};
  server.create_admin("root", root_password);
  player root(server.port(), "root", {}, json{{"password", root_password}});
  player guest(server.port(), "guest");
  // Only administrators create (by default); bad lines are bad commands.
  guest.refused("", "/tournament create mine swiss", "not_allowed");
  for (const char* bad :
       {"/tournament create x chess", "/tournament create x swiss rounds 0",
        "/tournament create x knockout rounds 3", "/tournament create x arena clock 5",
        "/tournament create x swiss start 25:00", "/tournament create x swiss min 9 max 4",
        "/tournament adjudicate x t1 bob", "/tournament"})
    root.refused("", bad, "bad_command");
  {
    const auto bad = root.say("", "/tournament create a:b swiss");
    CHECK(bad["code"] == "bad_tournament_name");
    CHECK(bad["say"]["key"] == "tournament.bad_name_characters");
    CHECK_THAT(bad["message"].get<std::string>(),
               Catch::StartsWith("that tournament name cannot be used: a name may not hold"));
  }
  root.ok("", "/tournament create small knockout max 2 start +600");
  root.refused("", "/tournament create SMALL swiss", "tournament_exists");
  root.ok("", "/tournament create other swiss start +600");
  root.refused("", "/tournament create third swiss", "too_many_tournaments");
  // Registration: full, twice, one open tournament per name here, unknown names.
  player a(server.port(), "anna");
  player b(server.port(), "bert");
  player c(server.port(), "cleo");
  a.ok("", "/register small");
  a.refused("", "/register small", "already_registered");
  a.refused("", "/register other", "too_many_registrations");
  b.ok("", "/register small");
  c.refused("", "/register small", "tournament_full");
  c.refused("", "/register nosuch", "unknown_tournament");
  c.refused("", "/withdraw small", "not_registered");
  c.refused("", "/tournament nosuch", "unknown_tournament");
  guest.refused("", "/tournament cancel small", "not_allowed");
  guest.refused("", "/tournament adjudicate small small-r1-1 anna because", "not_admin");
  // A withdrawal frees the place; a ban withdraws the name.
  b.ok("", "/withdraw");
  c.ok("", "/register small");
  root.ok("", "/ban cleo");
  const auto view = root.ok("", "/tournament small");
  REQUIRE(view["type"] == "tournament");
  CHECK(view["tournament"]["players"] == json::array({"anna"}));
  // Cancelled, it takes nobody any more.
  CHECK(root.ok("", "/tournament cancel small")["data"]["status"] == "cancelled");
  b.refused("", "/register small", "tournament_started");
  root.refused("", "/tournament cancel small", "tournament_over");
  const auto list = guest.ok("", "/tournaments");
  CHECK(list["topic"] == "tournaments");
  CHECK(list["data"]["tournaments"].size() == 2);
  CHECK(server.get("/api/tournaments/nosuch").status == 404);
}

}  // namespace tournaments_tests
