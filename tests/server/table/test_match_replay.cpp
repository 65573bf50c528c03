// The replay of a stored match (match_replay.hpp, PROTOCOL.md "Match replay"): records
// made by the engine as a table makes them (record_builder.hpp) are replayed, and every
// step's board, pips, cube and Position ID is checked against what the engine showed
// while the match was played; records the rules refuse give a problem, never an
// exception; the answer is bounded.

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "bg/engine/board.hpp"
#include "bg/engine/dice_source.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/position_id.hpp"
#include "bg/i18n/catalogue.hpp"
#include "bg/server/api/analysis_view.hpp"
#include "bg/server/api/match_replay.hpp"
#include "record_builder.hpp"

namespace {

using bg::engine::match_kind;
using bg::engine::match_options;
using bg::engine::side;
using bg::engine::variant;
using bg::server::match_record;
using bg::server::record_action;
using bg::server::replay_json;
using bg::test::play_random_match;
using bg::test::random_policy;
using bg::test::recorder;
using nlohmann::json;

match_options points(int length, variant v = variant::standard) {
  return {v, match_kind::points, length};
}

/// A board as the `state` message gives it (table_views.cpp): R1 numbering, bar and off.
json board_json(const bg::engine::board_view& b) {
  return {{"points", b.points},
          {"bar", {{"red", b.bar[0]}, {"black", b.bar[1]}}},
          {"off", {{"red", b.off[0]}, {"black", b.off[1]}}}};
}

/// The position of `v` before the first play, drawn on the fixed board.
json starting_board(variant v) {
  return board_json(bg::engine::to_board(bg::engine::position::starting(v), side::red, v));
}

/// What the engine shows while a match is recorded: after each action the board and
/// pips, and before it the Position ID from the side on turn.
struct seen {
  std::vector<json> boards;
  std::vector<json> pips;
  std::vector<std::string> ids_before;
};

/// Runs `action` on `rec` and notes what the engine showed around it.
template <typename Action>
void watch(recorder& rec, seen& s, Action action) {
  s.ids_before.push_back(bg::engine::position_id(rec.match().current_game().current()));
  action();
  const auto b = rec.match().current_game().board();
  s.boards.push_back(board_json(b));
  s.pips.push_back({{"red", b.pips[0]}, {"black", b.pips[1]}});
}

std::size_t steps_in_all(const json& replay) {
  std::size_t n = 0;
  for (const auto& g : replay["games"]) n += g["steps"].size();
  return n;
}

std::string step_name(record_action::kind k) {
  switch (k) {
    case record_action::kind::play:
      return "play";
    case record_action::kind::pass:
      return "pass";
    case record_action::kind::double_offer:
      return "double";
    case record_action::kind::take:
      return "take";
    case record_action::kind::drop:
      return "drop";
    case record_action::kind::resign_offer:
      return "resign_offer";
    case record_action::kind::resign_accept:
      return "resign_accept";
    case record_action::kind::resign_reject:
      return "resign_reject";
    case record_action::kind::forfeit:
      return "forfeit";
  }
  return "?";
}

/// The pip count of each side counted from a standard board (R1: red moves 1 -> 24,
/// black 24 -> 1; the bar is 25 pips away).
json standard_pips_of(const json& board) {
  int red = 25 * board["bar"]["red"].get<int>();
  int black = 25 * board["bar"]["black"].get<int>();
  for (int i = 0; i < 24; ++i) {
    const int n = board["points"][static_cast<std::size_t>(i)].get<int>();
    if (n > 0) red += n * (24 - i);
    if (n < 0) black += -n * (i + 1);
  }
  return {{"red", red}, {"black", black}};
}

}  // namespace

TEST_CASE(
    "R2 R6 R14 a replay starts each game from the opening roll and gives the board, pips, "
    "cube and Position ID of every play, double, take and drop as the engine had them",
    "[replay]") {
  // Given a 3-point match: red wins the opening 3-1 and plays 8/5 6/5; black doubles,
  // red takes; black plays 6-5; red redoubles to 4 and black drops
  recorder rec(points(3), "alice", "bob");
  bg::engine::scripted_dice dice({3, 1, 6, 5});
  rec.opening(dice);
  seen s;
  watch(rec, s, [&] { rec.play(side::red, std::string_view("8/5 6/5")); });
  watch(rec, s, [&] { rec.offer_double(side::black); });
  watch(rec, s, [&] { rec.take(side::red); });
  watch(rec, s, [&] {
    rec.roll(side::black, dice);
    rec.play(side::black, std::size_t{0});
  });
  watch(rec, s, [&] { rec.offer_double(side::red); });
  s.ids_before.push_back(bg::engine::position_id(rec.match().current_game().current()));
  const json board_before_drop = s.boards.back();
  rec.drop(side::black);
  const match_record& record = rec.record();
  REQUIRE(record.games.size() == 2);  // the match goes on: game 2 has not started

  // When it is replayed
  const json r = replay_json(12, record);

  // Then the answer names the match as the analysis does
  CHECK(r["match_id"] == 12);
  CHECK(r["match"]["players"] == json{{"red", "alice"}, {"black", "bob"}});
  CHECK(r["match"]["variant"] == "standard");
  CHECK(r["match"]["length"] == 3);
  CHECK(r["truncated"] == false);
  REQUIRE(r["games"].size() == 2);
  const json& g = r["games"][0];
  CHECK(g["number"] == 1);
  CHECK(g["score_before"] == json{{"red", 0}, {"black", 0}});
  CHECK(g["crawford"] == false);
  CHECK(g["first"] == "red");
  CHECK(g["result"] ==
        json{{"winner", "red"}, {"kind", "single"}, {"reason", "dropped"}, {"points", 2}});
  CHECK_FALSE(g.contains("problem"));
  const json& steps = g["steps"];
  REQUIRE(steps.size() == record.games[0].actions.size() + 1);
  REQUIRE(steps.size() == 7);

  // The start: the opening roll as red plays it, the starting position, a centred cube
  const json& start = steps[0];
  CHECK(start["what"] == "start");
  CHECK(start["who"] == "red");
  CHECK(start["dice"] == json::array({3, 1}));
  CHECK(start["board"] == starting_board(variant::standard));
  CHECK(start["pips"] == json{{"red", 167}, {"black", 167}});
  CHECK(start["cube"] == json{{"value", 1}, {"owner", "center"}});
  CHECK_FALSE(start.contains("position_id"));

  // R6: red's play, with the Position ID of the position before it (the starting one)
  const json& play = steps[1];
  CHECK(play["what"] == "play");
  CHECK(play["who"] == "red");
  CHECK(play["dice"] == json::array({3, 1}));
  CHECK(play["play"] == "8/5 6/5");
  CHECK(play["position_id"] == "4HPwATDgc/ABMA");
  CHECK(play["board"] == s.boards[0]);
  CHECK(play["pips"] == json{{"red", 163}, {"black", 167}});
  CHECK(play["cube"] == json{{"value", 1}, {"owner", "center"}});

  // R14.1: black's double offers 2 from the middle; R14.2: red's take owns it
  CHECK(steps[2]["what"] == "double");
  CHECK(steps[2]["who"] == "black");
  CHECK(steps[2]["cube"] == json{{"value", 2}, {"owner", "center"}, {"offered_by", "black"}});
  CHECK(steps[2]["board"] == s.boards[0]);
  CHECK(steps[3]["what"] == "take");
  CHECK(steps[3]["who"] == "red");
  CHECK(steps[3]["cube"] == json{{"value", 2}, {"owner", "red"}});

  // Black's 6-5, rolled and played through the engine
  CHECK(steps[4]["what"] == "play");
  CHECK(steps[4]["who"] == "black");
  CHECK(steps[4]["dice"] == json::array({6, 5}));
  CHECK(steps[4]["play"] == record.games[0].actions[3].play);
  CHECK(steps[4]["board"] == s.boards[3]);
  CHECK(steps[4]["pips"] == s.pips[3]);

  // R14.3: the owner redoubles to 4; R14.2: the drop leaves the cube at 2, red's
  CHECK(steps[5]["what"] == "double");
  CHECK(steps[5]["cube"] == json{{"value", 4}, {"owner", "red"}, {"offered_by", "red"}});
  CHECK(steps[6]["what"] == "drop");
  CHECK(steps[6]["who"] == "black");
  CHECK(steps[6]["cube"] == json{{"value", 2}, {"owner", "red"}});
  CHECK(steps[6]["board"] == board_before_drop);

  // Every step after the start: the board and pips the engine showed after it, and the
  // Position ID it showed before it (from the side on turn)
  for (std::size_t i = 1; i < steps.size(); ++i) {
    INFO("step " << i);
    CHECK(steps[i]["position_id"] == s.ids_before[i - 1]);
    if (i < steps.size() - 1) {
      CHECK(steps[i]["board"] == s.boards[i - 1]);
      CHECK(steps[i]["pips"] == s.pips[i - 1]);
    }
  }

  // Game 2 has not had its opening roll: its start has no dice and no result yet
  const json& g2 = r["games"][1];
  CHECK(g2["score_before"] == json{{"red", 2}, {"black", 0}});
  CHECK(g2["result"].is_null());
  REQUIRE(g2["steps"].size() == 1);
  CHECK(g2["steps"][0]["dice"] == json::array());
  CHECK(g2["steps"][0]["board"] == starting_board(variant::standard));
}

TEST_CASE("R6.4 a roll with no legal play is a pass step that moves no checker", "[replay]") {
  // Given a random match with a recorded pass
  for (std::uint64_t seed = 1; seed < 200; ++seed) {
    const auto record = play_random_match(points(1), seed);
    for (std::size_t gi = 0; gi < record.games.size(); ++gi) {
      const auto& actions = record.games[gi].actions;
      for (std::size_t ai = 0; ai < actions.size(); ++ai) {
        const auto& a = actions[ai];
        if (a.what != record_action::kind::pass) continue;
        // When it is replayed
        const json r = replay_json(1, record);
        const json& steps = r["games"][gi]["steps"];
        REQUIRE(steps.size() == actions.size() + 1);
        const json& pass = steps[ai + 1];
        const json& before = steps[ai];
        // Then the pass has its dice and leaves the board and pips as they were
        CHECK(pass["what"] == "pass");
        CHECK(pass["who"] == std::string(bg::engine::to_string(a.who)));
        CHECK(pass["dice"] == json::array({a.dice.die1, a.dice.die2}));
        CHECK(pass["board"] == before["board"]);
        CHECK(pass["pips"] == before["pips"]);
        CHECK(pass["position_id"].is_string());
        CHECK_FALSE(pass.contains("play"));
        return;
      }
    }
  }
  FAIL("no pass in 199 random 1-point matches");
}

TEST_CASE(
    "R11 R14 R16 R18 random matches of both variants replay to the end: one step per "
    "recorded action after each game's start, in order, with pips that fit the board",
    "[replay]") {
  const std::vector<match_options> all{points(5),
                                       {variant::standard, match_kind::basis, 0},
                                       {variant::standard, match_kind::free_play, 0},
                                       points(3, variant::long_nardy)};
  for (const auto& options : all) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      // Given a random match played by the engine and recorded as a table records it
      // (the random player's resignations may be backgammons, which L7 refuses in a long
      // game: none there)
      random_policy policy;
      policy.resign_rate = options.game_variant == variant::standard ? 0.02 : 0.0;
      const auto record = play_random_match(options, seed, policy);
      INFO("variant " << bg::engine::to_string(options.game_variant) << ", kind "
                      << static_cast<int>(options.kind) << ", seed " << seed);
      // When it is replayed
      const json r = replay_json(1, record);
      // Then no game has a problem and every action is a step, in order
      CHECK(r["truncated"] == false);
      REQUIRE(r["games"].size() == record.games.size());
      const bool standard = options.game_variant == variant::standard;
      for (std::size_t gi = 0; gi < record.games.size(); ++gi) {
        const auto& rec = record.games[gi];
        const json& g = r["games"][gi];
        INFO("game " << gi + 1 << ": " << g.value("problem", std::string()));
        CHECK_FALSE(g.contains("problem"));
        const json& steps = g["steps"];
        REQUIRE(steps.size() == rec.actions.size() + 1);
        CHECK(steps[0]["what"] == "start");
        CHECK(steps[0]["who"] == std::string(bg::engine::to_string(rec.first)));
        for (std::size_t ai = 0; ai < rec.actions.size(); ++ai) {
          const json& step = steps[ai + 1];
          CHECK(step["what"] == step_name(rec.actions[ai].what));
          CHECK(step["who"] == std::string(bg::engine::to_string(rec.actions[ai].who)));
          // Long nardy has no Position ID of gnubg's
          CHECK(step.contains("position_id") == standard);
          if (standard) CHECK(step["pips"] == standard_pips_of(step["board"]));
        }
        // R11: a game borne off ends with the winner's 15 checkers off the board
        if (rec.result && rec.result->reason == bg::engine::end_reason::borne_off) {
          const std::string winner(bg::engine::to_string(rec.result->winner));
          CHECK(steps.back()["board"]["off"][winner] == 15);
          CHECK(steps.back()["pips"][winner] == 0);
        }
      }
    }
  }
}

TEST_CASE("L1 L8 a long nardy replay moves each side's checkers from its head on the R1 board",
          "[replay]") {
  // Given a 1-point long match: red wins the opening 6-5, then black rolls 4-2
  recorder rec(points(1, variant::long_nardy), "alice", "bob");
  bg::engine::scripted_dice dice({6, 5, 4, 2});
  rec.opening(dice);
  seen s;
  watch(rec, s, [&] { rec.play(side::red, std::size_t{0}); });
  watch(rec, s, [&] {
    rec.roll(side::black, dice);
    rec.play(side::black, std::size_t{0});
  });

  // When it is replayed
  const json r = replay_json(3, rec.record());
  REQUIRE(r["games"].size() == 1);
  const json& steps = r["games"][0]["steps"];
  REQUIRE(steps.size() == 3);

  // Then the start is the long starting position: red's 15 on board point 13, black's on 1
  const json& start = steps[0];
  CHECK(start["board"] == starting_board(variant::long_nardy));
  CHECK(start["board"]["points"][12] == 15);
  CHECK(start["board"]["points"][0] == -15);
  CHECK(start["pips"] == json{{"red", 360}, {"black", 360}});
  CHECK(start["dice"] == json::array({6, 5}));

  // Red's 11 pips take one checker off the head (L4), forward from 13 towards 24
  const json& red_play = steps[1];
  CHECK(red_play["board"] == s.boards[0]);
  CHECK(red_play["pips"] == json{{"red", 349}, {"black", 360}});
  CHECK(red_play["board"]["points"][12] == 14);
  int red_ahead = 0;
  for (std::size_t i = 13; i < 24; ++i) red_ahead += red_play["board"]["points"][i].get<int>();
  CHECK(red_ahead == 1);

  // Black's 6 pips take one checker off its head, forward from 1 towards 12
  const json& black_play = steps[2];
  CHECK(black_play["board"] == s.boards[1]);
  CHECK(black_play["pips"] == json{{"red", 349}, {"black", 354}});
  CHECK(black_play["board"]["points"][0] == -14);
  int black_ahead = 0;
  for (std::size_t i = 1; i < 12; ++i) black_ahead -= black_play["board"]["points"][i].get<int>();
  CHECK(black_ahead == 1);

  // Long nardy has no gnubg Position ID
  for (const auto& step : steps) CHECK_FALSE(step.contains("position_id"));
}

TEST_CASE(
    "R6 a recorded play the engine refuses ends that game's steps with a problem, without "
    "an exception, and the next game is replayed",
    "[replay]") {
  // Given a 3-point match: game 1 red plays, black doubles, red drops; game 2 is played a
  // little and resigned by red; game 3 waits for its opening roll
  recorder rec(points(3), "alice", "bob");
  bg::engine::scripted_dice dice({3, 1, 5, 2});
  rec.opening(dice);
  rec.play(side::red, std::string_view("8/5 6/5"));
  rec.offer_double(side::black);
  rec.drop(side::red);
  rec.opening(dice);
  const side first = rec.record().games.at(1).first;
  rec.play(first, std::size_t{0});
  rec.offer_resignation(first, bg::engine::win_kind::single);
  rec.accept_resignation(bg::engine::opponent_of(first));
  match_record record = rec.record();
  REQUIRE(record.games.size() == 3);

  SECTION("a play that is not legal") {
    // When red's opening play is recorded as one from the bar, where red has none
    record.games[0].actions[0].play = "25/22 25/24";
    json r;
    REQUIRE_NOTHROW(r = replay_json(1, record));
    // Then game 1 has only its start, and a problem that names the play
    const json& g = r["games"][0];
    REQUIRE(g["problem"].is_string());
    CHECK(g["problem"].get<std::string>().find("25/22 25/24") != std::string::npos);
    CHECK(g["steps"].size() == 1);
    CHECK(g["result"]["reason"] == "dropped");  // the record's, as stored
  }
  SECTION("a drop with no double (R14.2)") {
    // When game 1's double is missing from the record
    record.games[0].actions.erase(record.games[0].actions.begin() + 1);
    const json r = replay_json(1, record);
    // Then game 1 stops before the drop, and says why
    const json& g = r["games"][0];
    REQUIRE(g["problem"].is_string());
    CHECK(g["problem"].get<std::string>().find("R14.2") != std::string::npos);
    CHECK(g["steps"].size() == 2);
  }
  SECTION("a pass where the roll has a legal play (R6.4)") {
    // When red's opening play is recorded as a pass
    record.games[0].actions[0].what = record_action::kind::pass;
    const json r = replay_json(1, record);
    const json& g = r["games"][0];
    REQUIRE(g["problem"].is_string());
    CHECK(g["problem"].get<std::string>().find("R6.4") != std::string::npos);
    CHECK(g["steps"].size() == 1);
  }
  // And in every case game 2 is replayed whole
  const json r = replay_json(1, record);
  const json& g2 = r["games"][1];
  CHECK_FALSE(g2.contains("problem"));
  CHECK(g2["steps"].size() == record.games[1].actions.size() + 1);
  CHECK(r["truncated"] == false);
}

TEST_CASE("S3 a game forfeited before its opening roll replays as its start and the forfeit",
          "[replay]") {
  recorder rec(points(5), "alice", "bob");
  rec.forfeit(side::black);
  const json r = replay_json(1, rec.record());
  REQUIRE(r["games"].size() == 1);
  const json& steps = r["games"][0]["steps"];
  REQUIRE(steps.size() == 2);
  CHECK(steps[0]["dice"] == json::array());
  CHECK(steps[1]["what"] == "forfeit");
  CHECK(steps[1]["who"] == "black");
  CHECK(steps[1]["board"] == starting_board(variant::standard));
  CHECK(r["games"][0]["result"]["reason"] == "forfeit");
}

TEST_CASE(
    "a replay gives at most its bound of steps in all (20000 by default) and then says it "
    "is truncated",
    "[replay]") {
  SECTION("the bound cuts a game and leaves the later games out") {
    // Given a random basis session of several games
    random_policy policy;
    policy.max_basis_games = 3;
    const auto record = play_random_match({variant::standard, match_kind::basis, 0}, 2, policy);
    REQUIRE(record.games.size() == 3);
    const std::size_t all = steps_in_all(replay_json(1, record));
    const std::size_t first = record.games[0].actions.size() + 1;
    // When the bound is every step, the answer is whole
    const json whole = replay_json(1, record, all);
    CHECK(whole["truncated"] == false);
    CHECK(steps_in_all(whole) == all);
    // When it is one step fewer, the last step is missing and the answer says so
    const json short_by_one = replay_json(1, record, all - 1);
    CHECK(short_by_one["truncated"] == true);
    CHECK(steps_in_all(short_by_one) == all - 1);
    // When it ends with game 1, games 2 and 3 are left out
    const json game_one = replay_json(1, record, first);
    CHECK(game_one["truncated"] == true);
    REQUIRE(game_one["games"].size() == 1);
    CHECK(game_one["games"][0]["steps"].size() == first);
    // When it ends inside game 2, game 2 is there in part
    const json into_two = replay_json(1, record, first + 2);
    REQUIRE(into_two["games"].size() == 2);
    CHECK(into_two["games"][1]["steps"].size() == 2);
    CHECK_FALSE(into_two["games"][1].contains("problem"));
  }
  SECTION("the default bound is 20000 steps") {
    // Given a game where red offers to resign and black rejects 10,001 times (R18 lets
    // play go on each time): 20,003 steps with the start
    recorder rec(points(1), "alice", "bob");
    bg::engine::scripted_dice dice({3, 1});
    rec.opening(dice);
    for (int i = 0; i < 10'001; ++i) {
      rec.offer_resignation(side::red, bg::engine::win_kind::single);
      rec.reject_resignation(side::black);
    }
    // When it is replayed with the default bound
    const json r = replay_json(1, rec.record());
    // Then it stops at 20000 steps and says so
    CHECK(bg::server::default_replay_max_steps == 20'000);
    CHECK(r["truncated"] == true);
    CHECK(steps_in_all(r) == 20'000);
    // (step 0 is the start: the odd steps are the offers)
    CHECK(r["games"][0]["steps"][19'999]["what"] == "resign_offer");
  }
}

TEST_CASE("a failed analysis's stored reason is said in the reader's language, the English kept",
          "[server][analysis][i18n]") {
  const std::string reasons[] = {
      "GNU Backgammon crashed twice on this match (signal 11 (SIGSEGV))",
      "GNU Backgammon took longer than the time limit (900 s) to analyse the match",
      "its player had 3 matches waiting for analysis already when it ended",
      "the analysis queue was full when the match ended",
      "a reason this server version never wrote"};
  for (const auto& reason : reasons) {
    INFO(reason);
    const auto say = bg::server::analysis_failure_say(reason);
    CHECK(say["key"] == "analysis.failure_reason");
    CHECK(bg::i18n::english(say["key"].get<std::string>(), say["args"]) == reason);
  }
  const auto crashed = bg::server::analysis_failure_say(reasons[0]);
  CHECK(crashed["args"]["why"] == "crashed");
  CHECK(bg::i18n::render("de", "analysis.failure_reason", crashed["args"]) ==
        "GNU Backgammon ist bei diesem Match zweimal abgestürzt (signal 11 (SIGSEGV))");
  CHECK(bg::server::analysis_failure_say(reasons[2])["args"]["count"] == 3);
}
