// issue 14: the FIBS board lines gammond sends to GNU Backgammon's `external`
// interface. Every expected line below was sent to gnubg 1.07.001 by hand with
// `set debug on`, which prints how gnubg read it: the Position ID (from the side on
// roll), the Match ID, score, cube and turn, noted next to each case with gnubg's answer.
#include <catch2/catch.hpp>

#include "bg/bots/fibs_board.hpp"
#include "bg/bots/gnubg_level.hpp"
#include "bg/bots/gnubg_player.hpp"
#include "bg/engine/position_id.hpp"

using namespace bg;
using bots::question;
using engine::side;

namespace {

engine::position from_id(const char* id) {
  auto p = engine::position_from_id(id, engine::variant::standard);
  REQUIRE(p);
  return *p;
}

/// The bot plays black; the opponent red.
bots::situation asked(question q, engine::position bot_view) {
  bots::situation s;
  s.asked = q;
  s.bot = side::black;
  s.on_roll = q == question::take_or_drop ? side::red : side::black;
  s.position = bot_view;
  return s;
}

}  // namespace

TEST_CASE("FIBS board: the opening position to play 3-1 in a match to 3 (R1.1)", "[bots][fibs]") {
  auto s = asked(question::play, engine::position::starting(engine::variant::standard));
  s.dice = {3, 1};
  s.kind = engine::match_kind::points;
  s.match_length = 3;
  // gnubg: Position ID 4HPwATDgc/ABMA, Match ID cIllAAAAAAAA, "Score: 0-0/3, Roll: 31";
  // answered "8/5 6/5 ".
  CHECK(bots::fibs_board(s) ==
        "board:gnubg:opponent:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
        "1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0");
}

TEST_CASE("FIBS board: the bot owns the cube at 2, 1-3 in a match to 5, to play 6-5 (R14)",
          "[bots][fibs]") {
  auto s = asked(question::play, from_id("4HPwATDcvQcAIA"));
  s.dice = {6, 5};
  s.cube.value = 2;
  s.cube.owner = side::black;
  s.kind = engine::match_kind::points;
  s.match_length = 5;
  s.bot_score = 1;
  s.opponent_score = 3;
  // gnubg: Position ID 4HPwATDcvQcAIA, Match ID UQm3ADAACAAA, "Score: 1-3/5, Roll: 65",
  // "CubeOwner: 1, Cube: 2" (1 is gnubg's own side); answered "24/18 18/13 ".
  CHECK(bots::fibs_board(s) ==
        "board:gnubg:opponent:5:1:3:0:-2:0:3:3:4:4:0:0:0:0:0:-5:0:0:0:0:-3:0:-5:0:0:0:0:1:0:"
        "1:6:5:0:0:2:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:0");
}

TEST_CASE("FIBS board: checkers on both bars in a basis session, a money game to gnubg (R8, R16)",
          "[bots][fibs]") {
  engine::side_checkers bot{};
  engine::side_checkers opponent{};
  bot[25] = 1;
  bot[6] = 5;
  bot[8] = 3;
  bot[13] = 4;
  bot[24] = 2;
  opponent[25] = 2;
  opponent[3] = 1;
  opponent[6] = 5;
  opponent[8] = 2;
  opponent[13] = 5;
  const auto p = engine::position::from_sides(bot, opponent, engine::variant::standard);
  REQUIRE(p);
  REQUIRE(engine::position_id(*p) == "xGfwAWDgc/AAWA");
  auto s = asked(question::play, *p);
  s.dice = {6, 4};
  s.kind = engine::match_kind::basis;
  // gnubg: Position ID xGfwAWDgc/AAWA, "Score: 0-0, Roll: 64" (money); answered
  // "25/21 13/7 " (the bar is 25).
  CHECK(bots::fibs_board(s) ==
        "board:gnubg:opponent:9999:0:0:-2:0:0:0:0:0:5:0:3:0:0:0:-5:4:0:0:0:-2:0:-5:0:0:-1:0:2:"
        "1:1:6:4:0:0:1:1:1:0:1:-1:0:25:0:0:1:2:0:0:0:0");
}

TEST_CASE("FIBS board: bearing off with checkers off on both sides, free play (R10, R12)",
          "[bots][fibs]") {
  engine::side_checkers bot{};
  engine::side_checkers opponent{};
  bot[1] = 2;
  bot[2] = 2;
  bot[5] = 1;
  opponent[6] = 4;
  opponent[19] = 3;
  opponent[21] = 2;
  const auto p = engine::position::from_sides(bot, opponent, engine::variant::standard);
  REQUIRE(p);
  REQUIRE(engine::position_id(*p) == "4AHAGWwEAAAAAA");
  auto s = asked(question::play, *p);
  s.dice = {5, 5};
  // gnubg: Position ID 4AHAGWwEAAAAAA, "Roll: 55"; answered "5/0 2/0 2/0 1/0" (off is 0).
  CHECK(bots::fibs_board(s) ==
        "board:gnubg:opponent:9999:0:0:0:2:2:0:-2:1:-3:0:0:0:0:0:0:0:0:0:0:0:0:-4:0:0:0:0:0:0:"
        "1:5:5:0:0:1:1:1:0:1:-1:0:25:10:6:0:0:0:0:0:0");
}

TEST_CASE("FIBS board: a cube the opponent owns has only the opponent's may-double flag (R14)",
          "[bots][fibs]") {
  auto s = asked(question::double_or_roll, from_id("2G4AAABsuwEAAA"));
  s.cube.value = 2;
  s.cube.owner = side::red;
  s.kind = engine::match_kind::points;
  s.match_length = 7;
  s.bot_score = 5;
  s.opponent_score = 2;
  // gnubg: Position ID 2G4AAABsuwEAAA, Match ID QQngACAAKAAA, "Score: 5-2/7, Roll: 00",
  // "CubeOwner: 0, Cube: 2" (0: the opponent). gnubg answers "double" here all the
  // same: it does not check who owns the cube, so the bot is asked only when it may.
  CHECK(bots::fibs_board(s) ==
        "board:gnubg:opponent:7:5:2:0:0:0:0:0:0:0:0:0:2:2:2:3:2:0:0:0:0:-2:-3:-2:-2:0:0:0:0:1:"
        "0:0:0:0:2:0:1:0:1:-1:0:25:4:6:0:0:0:0:0:0");
}

TEST_CASE("FIBS board: a take is asked on the doubler's turn, after the Crawford game (R14, R15)",
          "[bots][fibs]") {
  auto s = asked(question::take_or_drop, from_id("2G4AAABsuwEAAA"));
  s.cube.offered_by = side::red;
  s.kind = engine::match_kind::points;
  s.match_length = 7;
  s.bot_score = 6;
  s.opponent_score = 2;
  s.post_crawford = true;
  // gnubg: "Score: 6-2/7" (no Crawford star), "Doubled: 1"; answered "drop" (the bot
  // trails by 72 pips). Asked with turn 1, gnubg answers for the doubler instead.
  const auto line = bots::fibs_board(s);
  CHECK(line ==
        "board:gnubg:opponent:7:6:2:0:0:0:0:0:0:0:0:0:2:2:2:3:2:0:0:0:0:-2:-3:-2:-2:0:0:0:0:-1:"
        "0:0:0:0:1:1:1:1:1:-1:0:25:4:6:0:0:0:0:1:0");
}

TEST_CASE("FIBS board: the Crawford game has both may-double flags and no Crawford marks (R15)",
          "[bots][fibs]") {
  auto s = asked(question::double_or_roll, engine::position::starting(engine::variant::standard));
  s.kind = engine::match_kind::points;
  s.match_length = 5;
  s.bot_score = 4;
  s.opponent_score = 2;
  s.crawford = true;
  // gnubg: "Score: 4-2/5*" (the star: the Crawford game); answered "roll".
  CHECK(bots::fibs_board(s) ==
        "board:gnubg:opponent:5:4:2:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:"
        "0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0");
}

TEST_CASE("FIBS board: a resignation is evaluated from the side on roll (R18)", "[bots][fibs]") {
  auto s = asked(question::accept_or_reject, engine::position::starting(engine::variant::standard));
  const auto field = [](const std::string& line, std::size_t n) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < n; ++i) at = line.find(':', at) + 1;
    return line.substr(at, line.find(':', at) - at);
  };
  CHECK(field(bots::fibs_board(s), 32) == "1");  // field 32: turn
  s.on_roll = side::red;
  CHECK(field(bots::fibs_board(s), 32) == "-1");
  CHECK(field(bots::fibs_board(s), 40) == "0");  // never "was doubled"
}

TEST_CASE("gnubg's named levels set what gnubg's predefined settings set", "[bots][levels]") {
  CHECK(bots::settings_of(bots::gnubg_level::beginner).noise == Approx(0.060));
  CHECK(bots::settings_of(bots::gnubg_level::intermediate).noise == Approx(0.040));
  CHECK(bots::settings_of(bots::gnubg_level::advanced).noise == Approx(0.015));
  CHECK(bots::settings_of(bots::gnubg_level::expert).plies == 0);
  CHECK(bots::settings_of(bots::gnubg_level::expert).noise == 0.0);
  CHECK(bots::settings_of(bots::gnubg_level::worldclass).plies == 2);
  CHECK(bots::settings_of(bots::gnubg_level::worldclass).prune);
  const auto commands = bots::level_commands(bots::gnubg_level::worldclass);
  CHECK(std::count(commands.begin(), commands.end(),
                   "set evaluation chequerplay evaluation plies 2") == 1);
  CHECK(std::count(commands.begin(), commands.end(),
                   "set evaluation cubedecision evaluation plies 2") == 1);
  for (const auto l : bots::all_gnubg_levels)
    CHECK(bots::gnubg_level_from_string(bots::to_string(l)) == l);
  CHECK_FALSE(bots::gnubg_level_from_string("grandmaster"));
}

TEST_CASE("gnubg's names are kept from people", "[bots][names]") {
  CHECK(bots::gnubg_name(bots::gnubg_level::expert) == "gnubg-expert");
  CHECK(bots::is_bot_name("gnubg-expert"));
  CHECK(bots::is_bot_name("GNUBG-Expert"));
  CHECK(bots::is_bot_name("gnubg"));
  CHECK(bots::is_bot_name("gnubg-anything"));
  CHECK_FALSE(bots::is_bot_name("gnubgfan"));
  CHECK_FALSE(bots::is_bot_name("alice"));
  CHECK_FALSE(bots::is_bot_name("gnu"));
}
