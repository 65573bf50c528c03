// Standard backgammon, rule by rule (RULES.md R1-R11, R17).
//
// Every expected value below is derived by hand from the rule book in the comment next
// to it; the non-trivial sets of plays were also checked against GNU Backgammon with
// /work/shared/tools/gnubg-oracle/legal_moves (the tests never call it). Positions are
// written with position_builder.hpp: each side in its own numbering, mover first.
//
// Geometry reminder (standard): the opponent's own point q is the mover's 25 - q, and a
// checker entering from the bar with die d lands on the mover's point 25 - d.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "bg/engine/board.hpp"
#include "bg/engine/dice_source.hpp"
#include "bg/engine/game.hpp"
#include "bg/engine/move_generator.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/roll.hpp"
#include "position_builder.hpp"

using namespace bg::engine;
using bg::test::after;
using bg::test::build;
using bg::test::results_after;
using bg::test::results_of;
using bg::test::roll_name;
using bg::test::standard;
using bg::test::to_text;

namespace {

const char* const start_text = "mover: 24:2 13:5 8:3 6:5 | opponent: 24:2 13:5 8:3 6:5";

}  // namespace

// ---------------------------------------------------------------------------------
// R1 / R17: the board and its fixed numbering

TEST_CASE("R1 black's own point is the board point and red's is 25 minus it", "[rules][board]") {
  // R1: "for black own point = board point, for red own point = 25 - board point".
  const int own = GENERATE(range(1, 25));
  CHECK(board_point(standard, side::black, own) == own);
  CHECK(board_point(standard, side::red, own) == 25 - own);
  CHECK(own_point(standard, side::black, own) == own);
  CHECK(own_point(standard, side::red, 25 - own) == own);
}

TEST_CASE("R1.1 each side starts with 2 on 24, 5 on 13, 3 on 8 and 5 on 6", "[rules][board]") {
  GIVEN("the standard starting position") {
    const position p = position::starting(standard);
    THEN("it is the builder's spelling of R1.1, 15 checkers a side, none off") {
      CHECK(to_text(p) == to_text(build(start_text)));
      CHECK(p.mover(off_index) == 0);
      CHECK(p.opponent(off_index) == 0);
      // Pips: 2x24 + 5x13 + 3x8 + 5x6 = 48 + 65 + 24 + 30 = 167.
      CHECK(p.mover_pip_count() == 167);
      CHECK(p.opponent_pip_count() == 167);
    }
  }
}

TEST_CASE("R17 the board shows R1 numbering: black home 1-6, red home 19-24", "[rules][board]") {
  GIVEN("the starting position") {
    const position p = position::starting(standard);
    WHEN("it is drawn on the fixed board with either colour to move") {
      const board_view red_view = to_board(p, side::red, standard);
      const board_view black_view = to_board(p, side::black, standard);
      THEN("both draw the same board: black (negative) on 24, 13, 8, 6, red on 1, 12, 17, 19") {
        // Black's own points are board points; red's own 24, 13, 8, 6 are board
        // 1, 12, 17, 19. Red counts are positive, black negative (board.hpp).
        std::array<int, 24> expected{};
        expected[24 - 1] = -2;
        expected[13 - 1] = -5;
        expected[8 - 1] = -3;
        expected[6 - 1] = -5;
        expected[1 - 1] = 2;
        expected[12 - 1] = 5;
        expected[17 - 1] = 3;
        expected[19 - 1] = 5;
        CHECK(red_view.points == expected);
        CHECK(black_view.points == expected);
        CHECK(red_view.pips == std::array<int, 2>{167, 167});
        CHECK(red_view.bar == std::array<int, 2>{0, 0});
        CHECK(red_view.off == std::array<int, 2>{0, 0});
      }
    }
  }
  GIVEN("each side's home board, its own points 1..6") {
    THEN("black's is board 1..6 and red's is board 19..24") {
      for (int own = 1; own <= 6; ++own) {
        CHECK(board_point(standard, side::black, own) == own);
        CHECK(board_point(standard, side::red, own) == 25 - own);  // 24 .. 19
      }
    }
  }
}

TEST_CASE("R1 black moves 24 to 1 and red moves 1 to 24 on the board", "[rules][board]") {
  // The same own-numbering play 24/18 moves a black checker from board 24 to 18 and a
  // red checker from board 1 to 7.
  const position before = build(start_text);
  const position moved = after(before, "24/18");
  const board_view black_before = to_board(before, side::black, standard);
  const board_view black_after = to_board(moved, side::black, standard);
  CHECK(black_after.points[24 - 1] - black_before.points[24 - 1] == 1);   // one black fewer
  CHECK(black_after.points[18 - 1] - black_before.points[18 - 1] == -1);  // one black more
  const board_view red_before = to_board(before, side::red, standard);
  const board_view red_after = to_board(moved, side::red, standard);
  CHECK(red_after.points[1 - 1] - red_before.points[1 - 1] == -1);  // one red fewer
  CHECK(red_after.points[7 - 1] - red_before.points[7 - 1] == 1);   // one red more
}

// ---------------------------------------------------------------------------------
// R3: turn order

TEST_CASE("R3 players alternate: only the side on turn rolls and plays", "[rules][game]") {
  GIVEN("a game whose opening roll is red 3, black 1") {
    game g(standard);
    scripted_dice dice({3, 1, 6, 5});
    REQUIRE(g.roll_opening(dice).ok());
    REQUIRE(g.turn() == side::red);
    REQUIRE(g.phase() == game_phase::move);
    WHEN("black tries to play on red's turn") {
      const auto r = g.make_play(side::black, "8/5 6/5");
      THEN("it is refused and nothing changes") {
        REQUIRE_FALSE(r.ok());
        CHECK(r.err().code == "not_your_turn");
        CHECK(g.turn() == side::red);
      }
    }
    WHEN("red plays 8/5 6/5") {
      REQUIRE(g.make_play(side::red, "8/5 6/5").ok());
      THEN("black is on turn and must roll; red may not roll, black may not play yet") {
        CHECK(g.turn() == side::black);
        CHECK(g.phase() == game_phase::roll);
        const auto red_roll = g.roll_dice(side::red, dice);
        REQUIRE_FALSE(red_roll.ok());
        CHECK(red_roll.err().code == "not_your_turn");
        const auto early = g.make_play(side::black, "24/13");
        REQUIRE_FALSE(early.ok());
        CHECK(early.err().code == "wrong_phase");
      }
      AND_WHEN("black rolls 6-5 and runs 24/13") {
        const auto rolled = g.roll_dice(side::black, dice);
        REQUIRE(rolled.ok());
        CHECK(rolled->dice == roll{6, 5});
        REQUIRE(g.make_play(side::black, "24/13").ok());
        THEN("red is on turn again") {
          CHECK(g.turn() == side::red);
          CHECK(g.phase() == game_phase::roll);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------
// R4: moving

TEST_CASE("R4 each checker move goes forward by exactly one die", "[rules][moving]") {
  // From the start no checker can bear off or enter, so every checker move of every
  // legal play goes from a higher own point to a lower one by one of the dice.
  const roll r = GENERATE(from_range(all_rolls()));
  INFO("roll " << roll_name(r));
  const position start = position::starting(standard);
  const play_list plays = legal_plays(start, r, standard);
  REQUIRE_FALSE(plays.empty());
  for (const play& pl : plays) {
    for (int i = 0; i < pl.count; ++i) {
      const checker_move m = pl.moves[static_cast<std::size_t>(i)];
      CHECK(m.from > m.to);
      const int distance = m.from - m.to;
      CHECK((distance == r.die1 || distance == r.die2));
    }
  }
}

TEST_CASE("R4 one checker may not jump a held point with the sum of the dice", "[rules][moving]") {
  GIVEN("a lone runner on 24 facing held points 18 (opponent's 7) and 19 (its 6)") {
    // The other 14 checkers on 2 cannot move: 2-5 and 2-6 would be bearing off, and
    // the runner is not home (R10.1).
    const position p = build("mover: 24:1 2:14 | opponent: 7:2 6:2 19:11");
    WHEN("the roll is 6-5") {
      const play_list plays = legal_plays(p, roll{6, 5}, standard);
      THEN("24/18 and 24/19 are both blocked, so 24/13 is impossible and there is no play") {
        CHECK(plays.empty());
        CHECK(plays.dice_used() == 0);
      }
    }
  }
  GIVEN("the same runner with only 18 held") {
    const position p = build("mover: 24:1 2:14 | opponent: 7:2 19:13");
    THEN("6-5 plays 24/19/13 through the open 19, the only play") {
      CHECK(results_of(legal_plays(p, roll{6, 5}, standard)) == results_after(p, {"24/19/13"}));
    }
  }
}

TEST_CASE("R4 a move may end on a point held by one's own checkers in any number",
          "[rules][moving]") {
  // From the start, 2-2 can play 8/6(2) 13/11(2): both checkers from 8 land on the
  // own 6-point, which already holds 5, leaving 7 there.
  const position p = position::starting(standard);
  const play_list plays = legal_plays(p, roll{2, 2}, standard);
  CHECK(plays.find(after(p, "8/6(2) 13/11(2)")) >= 0);  // 6-point grows to 7 checkers
  CHECK(after(p, "8/6(2) 13/11(2)").mover(6) == 7);
}

TEST_CASE("R4 a move may not end on a point held by two or more opposing checkers",
          "[rules][moving]") {
  GIVEN("a runner on 24, the opponent holding the mover's 19 (its 6) with two") {
    const position p = build("mover: 24:1 2:14 | opponent: 6:2 19:13");
    WHEN("the roll is 5-1") {
      // 24/19 is blocked; 24/23 then 23/18 plays both dice; 2/1 then the 5 is stuck,
      // so R6.1 leaves 24/23/18 alone.
      const play_list plays = legal_plays(p, roll{5, 1}, standard);
      THEN("the only play is 24/23/18") {
        CHECK(results_of(plays) == results_after(p, {"24/23/18"}));
      }
    }
  }
}

// ---------------------------------------------------------------------------------
// R5: doubles

TEST_CASE("R5 doubles are played four times and other rolls use both dice from the start",
          "[rules][doubles]") {
  // From the start every roll can be played in full, so each play moves the mover's
  // pip count down by d1 + d2, or by 4 x d for a double (R5, R6.1); hits do not change
  // the mover's own pips.
  const roll r = GENERATE(from_range(all_rolls()));
  INFO("roll " << roll_name(r));
  const position start = position::starting(standard);
  const play_list plays = legal_plays(start, r, standard);
  const int moves = r.is_double() ? 4 : 2;
  const int pips = r.is_double() ? 4 * r.die1 : r.die1 + r.die2;
  CHECK(plays.dice_used() == moves);
  for (const play& pl : plays) {
    CHECK(pl.count == moves);
    CHECK(start.mover_pip_count() - pl.result.mover_pip_count() == pips);
  }
}

TEST_CASE("R5 the four moves of a double may be split among checkers in any way",
          "[rules][doubles]") {
  // Start, 1-1: one checker four times (24/20: 23, 22, 21, 20 are all open), two
  // checkers twice each (24/22 6/4), four checkers once each (24/23(2) 8/7 6/5, or
  // 8/7(2) 6/5(2)). 13/12 is never possible: the mover's 12 is the opponent's 13.
  const position start = position::starting(standard);
  const play_list plays = legal_plays(start, roll{1, 1}, standard);
  CHECK(plays.find(after(start, "24/20")) >= 0);
  CHECK(plays.find(after(start, "24/22 6/4")) >= 0);
  CHECK(plays.find(after(start, "24/23(2) 8/7 6/5")) >= 0);
  CHECK(plays.find(after(start, "8/7(2) 6/5(2)")) >= 0);
}

// ---------------------------------------------------------------------------------
// R6: playing the maximum

TEST_CASE("R6.1 both dice must be played when any order plays both", "[rules][maximum]") {
  GIVEN("a runner on 24 whose 6 is blocked (18 held) but 24/23/17 is open") {
    const position p = build("mover: 24:1 2:14 | opponent: 7:2 19:13");
    WHEN("the roll is 6-1") {
      const play_list plays = legal_plays(p, roll{6, 1}, standard);
      THEN("only the lower die first plays both, so 24/23/17 is the only play") {
        // 24/18 is blocked; 2/1 then the 6 has no move (24/18 blocked, 1 cannot bear
        // off while 24 is out); 24/23 then 23/17 (17 = opponent's 8, empty).
        CHECK(results_of(plays) == results_after(p, {"24/23/17"}));
        CHECK(plays.dice_used() == 2);
      }
      THEN("playing the 1 alone (2/1) is not legal") {
        CHECK(plays.find(after(p, "2/1")) < 0);
        CHECK(plays.find(after(p, "24/23")) < 0);
      }
    }
  }
}

TEST_CASE("R6.2 higher die must be played when only one die can be", "[rules][maximum]") {
  GIVEN("a runner on 24 with 17 held and 14 checkers on the 1-point") {
    // 6: 24/18, then 18/17 is blocked and 1/off is not allowed (18 is outside).
    // 1: 24/23, then 23/17 is blocked. 1-point checkers cannot move 1 (bearing off).
    const position p = build("mover: 24:1 1:14 | opponent: 8:2 19:13");
    WHEN("the roll is 6-1") {
      const play_list plays = legal_plays(p, roll{6, 1}, standard);
      THEN("only 24/18 is legal") {
        CHECK(results_of(plays) == results_after(p, {"24/18"}));
        CHECK(plays.dice_used() == 1);
      }
    }
    WHEN("the roll is written 1-6") {
      THEN("the order of the dice changes nothing") {
        CHECK(results_of(legal_plays(p, roll{1, 6}, standard)) == results_after(p, {"24/18"}));
      }
    }
  }
  GIVEN("the same runner with 18 held too, so the 6 cannot be played at all") {
    const position p = build("mover: 24:1 1:14 | opponent: 8:2 7:2 19:11");
    THEN("6-1 plays the 1 alone: 24/23") {
      const play_list plays = legal_plays(p, roll{6, 1}, standard);
      CHECK(results_of(plays) == results_after(p, {"24/23"}));
      CHECK(plays.dice_used() == 1);
    }
  }
}

TEST_CASE("R6.3 as many of the four moves of a double as possible must be played",
          "[rules][maximum]") {
  // A runner on 24 with fours: 20, 16, 12, 8. Holding one of them stops it there; the
  // 1-point checkers cannot move (bearing off needs every checker home).
  struct row {
    const char* opponent;  // the held point, in the opponent's numbering
    const char* expected;
    int moves;
  };
  const row r = GENERATE(values<row>({
      {"9:2 19:13", "24/20", 1},   // opponent 9 = mover 16: stops after one four
      {"13:2 19:13", "24/16", 2},  // opponent 13 = mover 12: after two
      {"17:2 19:13", "24/12", 3},  // opponent 17 = mover 8: after three
      {"12:2 19:13", "24/8", 4},   // nothing in the way (opponent 12 = mover 13)
  }));
  INFO("opponent " << r.opponent);
  const position p = build(std::string("mover: 24:1 1:14 | opponent: ") + r.opponent);
  const play_list plays = legal_plays(p, roll{4, 4}, standard);
  CHECK(results_of(plays) == results_after(p, {r.expected}));
  CHECK(plays.dice_used() == r.moves);
}

TEST_CASE("R6.4 with no legal move the play list is empty and the position unchanged",
          "[rules][maximum]") {
  // Bar checker, entry points 22 (opponent's 3) and 20 (its 5) held: 5-3 cannot enter,
  // and nothing else may move while a checker is on the bar (R8).
  const position p = build("mover: bar:1 6:14 | opponent: 5:2 3:2 24:11");
  const play_list plays = legal_plays(p, roll{5, 3}, standard);
  CHECK(plays.empty());
  CHECK(plays.dice_used() == 0);
}

// ---------------------------------------------------------------------------------
// R7: hitting

TEST_CASE("R7 landing on a blot sends it to the bar, and hitting is never compulsory",
          "[rules][hitting]") {
  GIVEN("an opposing blot on the mover's 5 (its 20)") {
    const position p = build("mover: 13:2 6:13 | opponent: 20:1 1:14");
    const play_list plays = legal_plays(p, roll{2, 1}, standard);
    THEN("6/5* puts the blot on the bar") {
      const position hit = after(p, "6/5* 6/4");
      CHECK(hit.opponent(bar_index) == 1);
      CHECK(hit.opponent(20) == 0);
      CHECK(plays.find(hit) >= 0);
    }
    THEN("plays that do not hit are legal too") {
      CHECK(plays.find(after(p, "13/11 13/12")) >= 0);
      CHECK(plays.find(after(p, "6/3")) >= 0);
    }
    THEN("the full set is the seven plays derived by hand") {
      // 2 then 1 or 1 then 2 with the checkers on 13 and 6 (6/5 hits):
      CHECK(results_of(plays) == results_after(p, {"13/11 6/5*", "13/12 13/11", "13/10", "6/5* 6/4",
                                                   "6/3", "6/5*/3", "13/12 6/4"}));
    }
  }
}

TEST_CASE("R7 a blot can be hit while entering", "[rules][hitting]") {
  // Entering with the 3 lands on the mover's 22 = the opponent's 3, a blot; the 5
  // cannot enter (opponent's 5 held), so the checker enters with the 3 and the 5 is
  // played 22/17 (6/1 would land on the opponent's 24, held by 12).
  const position p = build("mover: bar:1 6:14 | opponent: 3:1 5:2 24:12");
  const play_list plays = legal_plays(p, roll{5, 3}, standard);
  CHECK(results_of(plays) == results_after(p, {"bar/22*/17"}));
  REQUIRE(plays.size() == 1);
  CHECK(plays[0].result.opponent(bar_index) == 1);
}

TEST_CASE("R7 a blot can be hit during bear-off", "[rules][hitting]") {
  // All home (6 and 3); the opponent's blot on its 20 is the mover's 5.
  const position p = build("mover: 6:2 3:13 | opponent: 20:1 1:14");
  const play_list plays = legal_plays(p, roll{2, 1}, standard);
  CHECK(plays.find(after(p, "6/5* 3/1")) >= 0);
  // 2-1 by hand: the 2 and the 1 each move 6 (6/5 hits) or 3, or one checker takes
  // both: 6/3 (through 5, hitting or not: two results) or 3/off (3 pips = 2 + 1).
  CHECK(results_of(plays) ==
        results_after(p, {"6/5* 3/1", "6/4 3/2", "3/off", "6/5* 6/4", "6/3", "6/5*/3", "3/2 3/1"}));
}

// ---------------------------------------------------------------------------------
// R8: entering

TEST_CASE("R8 a checker enters on the opponent's home point matching the die",
          "[rules][entering]") {
  // Red enters on board point d, black on 25 - d: both are the mover's own 25 - d.
  const int d = GENERATE(range(1, 7));
  CHECK(board_point(standard, side::red, 25 - d) == d);
  CHECK(board_point(standard, side::black, 25 - d) == 25 - d);
  const position p = build("mover: bar:1 6:14 | opponent: 12:15");
  const play_list plays = legal_plays(p, roll{d, d}, standard);
  REQUIRE_FALSE(plays.empty());
  for (const play& pl : plays) {
    CHECK(pl.moves[0].from == bar_index);
    CHECK(pl.moves[0].to == 25 - d);
  }
}

TEST_CASE("R8 nothing else moves while a checker is on the bar", "[rules][entering]") {
  // The opponent's home board is empty, so every roll enters; the first move of every
  // play is from the bar, and with two on the bar both dice (or the first two moves of
  // a double) enter.
  const roll r = GENERATE(from_range(all_rolls()));
  INFO("roll " << roll_name(r));
  const position one = build("mover: bar:1 6:14 | opponent: 12:15");
  for (const play& pl : legal_plays(one, r, standard)) CHECK(pl.moves[0].from == bar_index);
  const position two = build("mover: bar:2 6:13 | opponent: 12:15");
  for (const play& pl : legal_plays(two, r, standard)) {
    CHECK(pl.moves[0].from == bar_index);
    CHECK(pl.moves[1].from == bar_index);
    CHECK(pl.result.mover(bar_index) == 0);
  }
}

TEST_CASE("R8 after entering with one die the other die may move any checker",
          "[rules][entering]") {
  // 3-1, one on the bar, entry open: bar/22 6/5, bar/24 6/3 and bar/21 (one checker).
  const position p = build("mover: bar:1 6:14 | opponent: 12:15");
  const play_list plays = legal_plays(p, roll{3, 1}, standard);
  CHECK(results_of(plays) == results_after(p, {"bar/22 6/5", "bar/24 6/3", "bar/21"}));
}

TEST_CASE("R8 when the second checker cannot enter the rest of the roll is lost",
          "[rules][entering]") {
  // Two on the bar, 5-3: the 5 (mover's 20 = opponent's 5) is held, the 3 enters on 22;
  // the other checker is still on the bar, so the 5 is lost.
  const position p = build("mover: bar:2 6:13 | opponent: 5:2 24:13");
  const play_list plays = legal_plays(p, roll{5, 3}, standard);
  CHECK(results_of(plays) == results_after(p, {"bar/22"}));
  CHECK(plays.dice_used() == 1);
}

// ---------------------------------------------------------------------------------
// R9: closed board

TEST_CASE("R9 a closed board shuts out a checker on the bar for every roll", "[rules][entering]") {
  const roll r = GENERATE(from_range(all_rolls()));
  INFO("roll " << roll_name(r));
  // The opponent holds its 1..6 (the mover's 24..19) with two each.
  const position p = build("mover: bar:1 6:14 | opponent: 6:2 5:2 4:2 3:2 2:2 1:2 12:3");
  const play_list plays = legal_plays(p, r, standard);
  CHECK(plays.empty());
  CHECK(plays.dice_used() == 0);
}

TEST_CASE("R9 once a point opens the rolls with that number enter", "[rules][entering]") {
  const roll r = GENERATE(from_range(all_rolls()));
  INFO("roll " << roll_name(r));
  // The opponent's 4-point is now a blot: a 4 enters on the mover's 21 and hits.
  const position p = build("mover: bar:1 6:14 | opponent: 6:2 5:2 4:1 3:2 2:2 1:2 12:4");
  const play_list plays = legal_plays(p, r, standard);
  const bool has_four = r.die1 == 4 || r.die2 == 4;
  CHECK(plays.empty() == !has_four);
  for (const play& pl : plays) {
    CHECK(pl.moves[0].from == bar_index);
    CHECK(pl.moves[0].to == 21);
    CHECK(pl.moves[0].hit);
  }
}

// ---------------------------------------------------------------------------------
// R10: bearing off

TEST_CASE("R10.1 no bearing off while a checker is outside the home board", "[rules][bearoff]") {
  // 9 is outside: 2-1 cannot take a checker off the 1-point; the 9 runs home instead
  // (9/7/6 or 9/8/6, the same result).
  const position p = build("mover: 9:1 1:14 | opponent: 12:15");
  CHECK(results_of(legal_plays(p, roll{2, 1}, standard)) == results_after(p, {"9/6"}));
}

TEST_CASE("R10.1 no bearing off while a checker is on the bar", "[rules][bearoff]") {
  // 6-1: enter on 19 or 24, then the other die moves the entered checker: bar/18.
  // 1/off is refused because the entered checker is not home.
  const position p = build("mover: bar:1 1:14 | opponent: 12:15");
  CHECK(results_of(legal_plays(p, roll{6, 1}, standard)) == results_after(p, {"bar/18"}));
}

TEST_CASE("R10.2 a die bears off a checker from the point with that number", "[rules][bearoff]") {
  const int d = GENERATE(range(1, 7));
  // One checker on each of 1..6 plus nine more on 1: die d bears off from d.
  const position p = build("mover: 6:1 5:1 4:1 3:1 2:1 1:10 | opponent: 12:15");
  const play_list plays = legal_plays(p, roll{d, d}, standard);
  // Every point 1..6 is occupied, so no die is higher than the highest point: d
  // bears off exactly from d, and some play does so.
  CHECK(std::any_of(plays.begin(), plays.end(), [&](const play& pl) {
    return std::any_of(pl.moves.begin(), pl.moves.begin() + pl.count,
                       [&](const checker_move& m) { return m.from == d && m.to == 0; });
  }));
}

TEST_CASE("R10.3 a higher die bears off from the highest point, an empty point's die moves inside",
          "[rules][bearoff]") {
  // 6, 4 and thirteen on 1; roll 5-2.
  // 5 first: 4/off and 1/off are refused (a checker stands on 6), so 6/1; then the 2:
  //   4/2 (1/off refused: 4 is higher) -> 2:1 1:14.
  // 2 first: 6/4 -> the 5 is higher than the highest point 4: 4/off -> 4:1 1:13 off 1;
  //   or 4/2 -> the 5 must move 6/1 -> 2:1 1:14 again.
  const position p = build("mover: 6:1 4:1 1:13 | opponent: 12:15");
  const play_list plays = legal_plays(p, roll{5, 2}, standard);
  CHECK(results_of(plays) == results_after(p, {"6/1 4/2", "6/4/off"}));
  CHECK(plays.find(after(p, "4/off 6/4")) >= 0);  // the same result written 2-first
  CHECK(plays.find(after(p, "4/off 1/off")) < 0);
}

TEST_CASE("R10.4 bearing off is never compulsory when another move exists", "[rules][bearoff]") {
  // 3, 2 and thirteen on 1; roll 2-1. By hand:
  //   2/off 1/off -> 3:1 1:12;  3/1 1/off or 3/2 2/off or 3/off -> 2:1 1:13 (one off);
  //   3/1 2/1 -> 1:15 with nothing borne off, legal because it uses both dice (R6.1).
  const position p = build("mover: 3:1 2:1 1:13 | opponent: 12:15");
  const play_list plays = legal_plays(p, roll{2, 1}, standard);
  CHECK(results_of(plays) == results_after(p, {"2/off 1/off", "3/off", "3/1 2/1"}));
  CHECK(plays.find(after(p, "3/1 2/1")) >= 0);
}

TEST_CASE("R10.5 a checker hit during bear-off must come home before bearing off resumes",
          "[rules][bearoff]") {
  // Fourteen on 6, one on the bar. Entering costs at least one die and the entered
  // checker then needs at least 13 more pips to reach 6, so no roll can bear off.
  const roll r = GENERATE(from_range(all_rolls()));
  INFO("roll " << roll_name(r));
  const position p = build("mover: bar:1 6:14 | opponent: 12:15");
  const play_list plays = legal_plays(p, r, standard);
  REQUIRE_FALSE(plays.empty());
  for (const play& pl : plays) {
    CHECK(pl.moves[0].from == bar_index);
    CHECK(pl.result.mover(off_index) == 0);
  }
}

// ---------------------------------------------------------------------------------
// R11: game result

TEST_CASE("R11 the first side to bear off all 15 wins single, gammon or backgammon",
          "[rules][result]") {
  // The winner has one checker left on 2 and rolls 6-5: 2/off ends the game. The
  // loser's checkers are written in its own numbering: the winner's home board is the
  // loser's 19..24.
  struct row {
    const char* loser;
    win_kind expected;
  };
  const row r = GENERATE(values<row>({
      {"6:14 off:1", win_kind::single},        // R11.1: one borne off
      {"24:1 6:13 off:1", win_kind::single},   // R11.1 beats a checker in the home board
      {"bar:1 6:13 off:1", win_kind::single},  // ... and one on the bar
      {"6:15", win_kind::gammon},              // R11.2: none off, none in the home board
      {"18:1 6:14", win_kind::gammon},         // its 18 is the winner's 7: outside
      {"19:1 6:14", win_kind::backgammon},     // R11.3: its 19 is the winner's 6
      {"24:1 6:14", win_kind::backgammon},     // its 24 is the winner's 1
      {"bar:1 6:14", win_kind::backgammon},    // R11.3: on the bar
  }));
  INFO("loser " << r.loser);
  const side winner = GENERATE(side::red, side::black);
  const position p = build(std::string("mover: 2:1 | opponent: ") + r.loser);
  auto g = game::restore(standard, game_phase::move, winner, roll{6, 5}, p, 20, std::nullopt);
  REQUIRE(g.ok());
  const auto out = g->make_play(winner, "2/off");
  REQUIRE(out.ok());
  CHECK(out->game_over);
  CHECK(g->phase() == game_phase::over);
  REQUIRE(g->result_of_game().has_value());
  CHECK(g->result_of_game()->winner == winner);
  CHECK(g->result_of_game()->kind == r.expected);
  CHECK(g->result_of_game()->reason == end_reason::borne_off);
}

TEST_CASE("R11 the game goes on while the mover still has checkers", "[rules][result]") {
  // Two left on 2; 2-1 can bear off only one of them (2/off 2/1): one checker stays.
  const position p = build("mover: 2:2 | opponent: 6:15");
  auto g = game::restore(standard, game_phase::move, side::red, roll{2, 1}, p, 20, std::nullopt);
  REQUIRE(g.ok());
  const auto out = g->make_play(side::red, "2/off 2/1");
  REQUIRE(out.ok());
  CHECK_FALSE(out->game_over);
  CHECK(g->phase() == game_phase::roll);
  CHECK(g->turn() == side::black);
}
