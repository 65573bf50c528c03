// Long backgammon (Long Nardy), rule by rule (RULES.md L1-L8).
//
// Each rule is shown where it allows and where it forbids. Expected plays are derived
// by hand in the comments; the sets were also checked against the nardy oracle
// (/work/shared/tools/nardy-oracle/nardy_moves, rule-book reading), never called here.
//
// Geometry reminder: every side counts its own points 24 (the head) -> 1, home 1..6.
// The opponent's own point q is the mover's ((q + 11) mod 24) + 1, so
//   mover 12 = opponent 24 (its head), mover 1 = opponent 13, mover 24 = opponent 12,
//   mover 13 = opponent 1, and generally mover m = opponent m + 12 (mod 24).
// The opponent's path seen by the mover: 12, 11, ..., 1, 24, 23, ..., 13.

#include <catch2/catch.hpp>

#include <string>

#include "bg/engine/board.hpp"
#include "bg/engine/dice_source.hpp"
#include "bg/engine/game.hpp"
#include "bg/engine/match.hpp"
#include "bg/engine/move_generator.hpp"
#include "bg/engine/notation.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/roll.hpp"
#include "position_builder.hpp"

using namespace bg::engine;
using bg::test::after;
using bg::test::build;
using bg::test::nardy;
using bg::test::nb;
using bg::test::results_after;
using bg::test::results_of;
using bg::test::roll_name;
using bg::test::to_text;

namespace {

position na(const position& p, std::string_view moves) {
  return after(p, moves, nardy);
}
std::set<std::string> expect(const position& p, std::initializer_list<std::string_view> plays) {
  return results_after(p, plays, nardy);
}

}  // namespace

// ---------------------------------------------------------------------------------
// L1: setup and board numbering

TEST_CASE("L1 all 15 checkers of each side start on its head", "[rules][long]") {
  const position p = position::starting(nardy);
  CHECK(to_text(p) == "mover: 24:15 | opponent: 24:15");
  CHECK(p.is_ok(nardy));
  CHECK(p.mover_pip_count() == 15 * 24);  // 360
  GIVEN("the fixed board") {
    // Black starts on board point 1, red (seed 004's white) on 13; the other points
    // are empty.
    const board_view b = to_board(p, side::red, nardy);
    std::array<int, 24> expected{};
    expected[1 - 1] = -15;
    expected[13 - 1] = 15;
    CHECK(b.points == expected);
  }
}

TEST_CASE("L1 black moves 1 to 24 with home 19-24, red 13 to 12 with home 7-12", "[rules][long]") {
  // Own p is board 25 - p for black, ((36 - p) mod 24) + 1 for red.
  CHECK(board_point(nardy, side::black, 24) == 1);
  CHECK(board_point(nardy, side::black, 1) == 24);
  CHECK(board_point(nardy, side::red, 24) == 13);
  CHECK(board_point(nardy, side::red, 13) == 24);  // red passes board 24 ...
  CHECK(board_point(nardy, side::red, 12) == 1);   // ... and goes on to board 1
  CHECK(board_point(nardy, side::red, 1) == 12);
  for (int own = 1; own <= 6; ++own) {
    CHECK(board_point(nardy, side::black, own) == 25 - own);  // 24 .. 19
    CHECK(board_point(nardy, side::red, own) == 13 - own);    // 12 .. 7
  }
  // Both sides' points never coincide on the board for the same own number q and its
  // mover image ((q + 11) mod 24) + 1: that is the same board point seen by the other.
  for (int q = 1; q <= 24; ++q)
    CHECK(board_point(nardy, side::red, q) ==
          board_point(nardy, side::black, opponent_point(nardy, q)));
}

// ---------------------------------------------------------------------------------
// L2: no hitting

TEST_CASE("L2 a move may not end on a point holding even one opposing checker", "[rules][long]") {
  GIVEN("one opposing checker on its 7, the mover's 19") {
    const position p = nb("mover: 24:15 | opponent: 24:14 7:1");
    WHEN("the roll is 5-1") {
      // 24/19 would land on it: refused. 24/23 then 23/18 (its 6, empty). Only one
      // checker may leave the head (L3), so that is the only play.
      const play_list plays = legal_plays(p, roll{5, 1}, nardy);
      THEN("the only play is 24/23/18 and nothing is ever hit") {
        CHECK(results_of(plays) == expect(p, {"24/23/18"}));
        for (const play& pl : plays) CHECK(pl.result.opponent(7) == 1);
      }
    }
  }
}

TEST_CASE("L2 no play from the start lands on the opponent's head", "[rules][long]") {
  // The mover's 12 is the opponent's head: 6-6 cannot play 24/18/12, 2-2 stops before.
  const roll r = GENERATE(from_range(all_rolls()));
  INFO("roll " << roll_name(r));
  for (const play& pl : legal_plays(position::starting(nardy), r, nardy)) {
    CHECK(pl.result.mover(12) == 0);
    CHECK(pl.result.opponent(24) == 15);
  }
}

// ---------------------------------------------------------------------------------
// L3: the head rule

TEST_CASE("L3 from the start every non-double roll takes one checker off the head",
          "[rules][long]") {
  // One checker only, so both dice go to it: 24/(24 - d1 - d2). The intermediate
  // points 24 - d1 and 24 - d2 are 18..23, never the opponent's head (mover's 12).
  const roll r = GENERATE(filter([](roll x) { return !x.is_double(); }, from_range(all_rolls())));
  INFO("roll " << roll_name(r));
  const position p = position::starting(nardy);
  const std::string play = "24/" + std::to_string(24 - r.die1 - r.die2);
  CHECK(results_of(legal_plays(p, r, nardy)) == expect(p, {play}));
}

TEST_CASE("L3 first turn: 6-6, 4-4 and 3-3 may take two checkers off the head", "[rules][long]") {
  const position p = position::starting(nardy);
  SECTION("6-6: 24/18 twice; 18/12 is the opponent's head, so two sixes are lost") {
    const play_list plays = legal_plays(p, roll{6, 6}, nardy);
    CHECK(results_of(plays) == expect(p, {"24/18(2)"}));
    CHECK(plays.dice_used() == 2);
  }
  SECTION("4-4: one checker stops on 16 (16/12 is the head), so 24/16 twice") {
    CHECK(results_of(legal_plays(p, roll{4, 4}, nardy)) == expect(p, {"24/16(2)"}));
  }
  SECTION("3-3: one checker plays at most 24/15 (15/12 is the head); the second plays the rest") {
    // Three threes on one checker and one on another, or two and two.
    CHECK(results_of(legal_plays(p, roll{3, 3}, nardy)) == expect(p, {"24/15 24/21", "24/18(2)"}));
  }
}

TEST_CASE("L3 other doubles do not get the first-turn exception", "[rules][long]") {
  const position p = position::starting(nardy);
  SECTION("5-5 plays one checker 24/19/14/9/4 (jumping the head on 12 is allowed)") {
    CHECK(results_of(legal_plays(p, roll{5, 5}, nardy)) == expect(p, {"24/4"}));
  }
  SECTION("2-2 plays one checker 24/16") {
    CHECK(results_of(legal_plays(p, roll{2, 2}, nardy)) == expect(p, {"24/16"}));
  }
  SECTION("1-1 plays one checker 24/20") {
    CHECK(results_of(legal_plays(p, roll{1, 1}, nardy)) == expect(p, {"24/20"}));
  }
  SECTION("after the opponent's 5-5, 2-2 is blocked on 16 and cannot take a second checker") {
    // The opponent's 24/4 stands on its 4 = the mover's 16. 24/22/20/18, then 18/16 is
    // refused; a second checker may not leave the head with 2-2, so one two is lost.
    const position q = nb("mover: 24:15 | opponent: 24:14 4:1");
    const play_list plays = legal_plays(q, roll{2, 2}, nardy);
    CHECK(results_of(plays) == expect(q, {"24/18"}));
    CHECK(plays.dice_used() == 3);
  }
}

TEST_CASE("L3 seed 004: after white's 5-5, black's 4-4 takes a second checker off the head",
          "[rules][long]") {
  // White (the opponent) opened 24/4, its 4 = the mover's 16. Black's first checker is
  // stopped on 20 (20/16 refused); the exception lets a second checker play 24/20; both
  // are then stuck, so two fours are lost.
  const position p = nb("mover: 24:15 | opponent: 24:14 4:1");
  const play_list plays = legal_plays(p, roll{4, 4}, nardy);
  CHECK(results_of(plays) == expect(p, {"24/20(2)"}));
  CHECK(plays.dice_used() == 2);
  SECTION("the second player's 6-6 and 3-3 on its first turn get it too") {
    CHECK(results_of(legal_plays(p, roll{6, 6}, nardy)) == expect(p, {"24/18(2)"}));
    CHECK(results_of(legal_plays(p, roll{3, 3}, nardy)) == expect(p, {"24/18(2)", "24/21 24/15"}));
  }
}

TEST_CASE("L3 after the first turn only one checker leaves the head, even with 6-6",
          "[rules][long]") {
  SECTION("6-6 with one checker already off the head on 20") {
    // 24/18 (then 18/12 is the head) and 20/14/8/2 (its 2, 20 and 14: all empty).
    // 24/18(2) would take two off the head: refused.
    const position p = nb("mover: 24:14 20:1 | opponent: 24:14 4:1");
    const play_list plays = legal_plays(p, roll{6, 6}, nardy);
    CHECK(results_of(plays) == expect(p, {"24/18 20/2"}));
    CHECK(plays.find(na(p, "24/18(2) 20/8")) < 0);
  }
  SECTION("3-3 with one checker on 21") {
    // Head checker: at most 24/15 (15/12 refused); the 21 checker at most 21/15. Four
    // threes split 3+1 or 2+2 give the same result: 24/15 21/18 = 24/18 21/15.
    const position p = nb("mover: 24:14 21:1 | opponent: 24:14 4:1");
    CHECK(results_of(legal_plays(p, roll{3, 3}, nardy)) == expect(p, {"24/15 21/18"}));
  }
  SECTION("6-5 with one checker on 18") {
    // 24/18 18/13 (= 24/19/13), or 18/13/7; 24/19 with 18/12 is refused (head), and
    // 24/18 24/19 would take two off the head.
    const position p = nb("mover: 24:14 18:1 | opponent: 24:15");
    const play_list plays = legal_plays(p, roll{6, 5}, nardy);
    CHECK(results_of(plays) == expect(p, {"24/13", "18/7"}));
    CHECK(plays.find(na(p, "24/18 24/19")) < 0);
  }
}

TEST_CASE("L3 the head rule is reported when a play takes two checkers off the head",
          "[rules][long][notation]") {
  const position p = position::starting(nardy);
  const play_list plays = legal_plays(p, roll{6, 5}, nardy);
  const auto r = match_play(p, roll{6, 5}, nardy, plays, "24/18 24/19");
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().code == "illegal_play");
  CHECK_THAT(r.err().message, Catch::Contains("only one checker may leave the head"));
}

// ---------------------------------------------------------------------------------
// L4: maximum use

TEST_CASE("L4 the higher die must be played when only one die can be", "[rules][long]") {
  // A runner on 24 and fourteen on 1 (they cannot bear off while the runner is out).
  SECTION("the opponent on its 5 (mover's 17): 6-1 can play 24/18 or 24/23, not both") {
    // 24/18/17 and 24/23/17 land on it. R6.2: the 6.
    const position p = nb("mover: 24:1 1:14 | opponent: 24:14 5:1");
    const play_list plays = legal_plays(p, roll{6, 1}, nardy);
    CHECK(results_of(plays) == expect(p, {"24/18"}));
    CHECK(plays.dice_used() == 1);
  }
  SECTION("the opponent also on its 6 (mover's 18): only the 1 can be played") {
    const position p = nb("mover: 24:1 1:14 | opponent: 24:13 5:1 6:1");
    CHECK(results_of(legal_plays(p, roll{6, 1}, nardy)) == expect(p, {"24/23"}));
  }
}

TEST_CASE("L4 doubles are four moves, as many as possible, and a roll with no move is lost",
          "[rules][long]") {
  SECTION("4-4 with the mover's 16 (opponent's 4) taken: one four, 24/20") {
    const position p = nb("mover: 24:1 1:14 | opponent: 24:14 4:1");
    const play_list plays = legal_plays(p, roll{4, 4}, nardy);
    CHECK(results_of(plays) == expect(p, {"24/20"}));
    CHECK(plays.dice_used() == 1);
  }
  SECTION("6-5 with the mover's 18 and 19 (opponent's 6 and 7) taken: no move") {
    const position p = nb("mover: 24:1 1:14 | opponent: 24:13 6:1 7:1");
    const play_list plays = legal_plays(p, roll{6, 5}, nardy);
    CHECK(plays.empty());
    CHECK(plays.dice_used() == 0);
  }
  SECTION("from the start, every play of every roll uses both dice or all it can") {
    // From L3's derivations: 6-6 plays two sixes (the other two are lost), 4-4 four
    // (24/20/16 twice), 3-3 four, 5-5 four (24/4), 6-5 both dice (24/13).
    const position p = position::starting(nardy);
    CHECK(legal_plays(p, roll{6, 6}, nardy).dice_used() == 2);
    CHECK(legal_plays(p, roll{4, 4}, nardy).dice_used() == 4);
    CHECK(legal_plays(p, roll{3, 3}, nardy).dice_used() == 4);
    CHECK(legal_plays(p, roll{5, 5}, nardy).dice_used() == 4);
    CHECK(legal_plays(p, roll{6, 5}, nardy).dice_used() == 2);
  }
}

// ---------------------------------------------------------------------------------
// L5: the six-point block

namespace {
// Five points 11..7 held (the opponent's 23..19) and a spare on 8: 8/6 would make the
// sixth, the opponent's 18..23. The opponent's head is on the mover's 12.
const char* const five_held = "mover: 24:9 11:1 10:1 9:1 8:2 7:1 | opponent: ";
}  // namespace

TEST_CASE("L5 a six-point block with every opposing checker behind it is forbidden",
          "[rules][long][block]") {
  const position p = nb(std::string(five_held) + "24:15");
  const play_list plays = legal_plays(p, roll{2, 1}, nardy);
  THEN("8/6 with the 1 elsewhere is not legal") {
    CHECK(plays.find(na(p, "24/23 8/6")) < 0);
  }
  THEN("but 8/7/5 reaches the same point without making the block") {
    CHECK(plays.find(na(p, "8/7/5")) >= 0);
  }
  THEN("and 7/6 before 8/6 never holds six points at once") {
    // After 7/6 the mover holds 11, 10, 9, 8, 6; then 8/6 leaves 11, 10, 9, 8, 6.
    CHECK(plays.find(na(p, "7/6 8/6")) >= 0);
  }
  THEN("the refusal says why") {
    const auto r = match_play(p, roll{2, 1}, nardy, plays, "24/23 8/6");
    REQUIRE_FALSE(r.ok());
    CHECK(r.err().message ==
          "that would build a six-point block with no opposing checker ahead of it");
  }
  THEN("there are 29 plays (counted with the nardy oracle)") {
    CHECK(plays.size() == 29);
  }
}

TEST_CASE("L5 a six-point block is allowed when an opposing checker is ahead of it",
          "[rules][long][block]") {
  SECTION("one opposing checker on its 3 (the mover's 15) has passed the block") {
    const position p = nb(std::string(five_held) + "24:14 3:1");
    const play_list plays = legal_plays(p, roll{2, 1}, nardy);
    CHECK(plays.find(na(p, "24/23 8/6")) >= 0);
    CHECK(plays.size() == 30);  // the 29 above and this one
  }
  SECTION("a borne-off opposing checker counts as ahead") {
    const position p = nb(std::string(five_held) + "24:14 off:1");
    const play_list plays = legal_plays(p, roll{2, 1}, nardy);
    CHECK(plays.find(na(p, "24/23 8/6")) >= 0);
    CHECK(plays.size() == 30);
  }
}

TEST_CASE("L5 a block may span the mover's points 1 and 24", "[rules][long][block]") {
  // The mover holds 3, 2, 1, 24, 23 (the opponent's 15, 14, 13, 12, 11): five in a row
  // along its path. 24/22 adds the opponent's 10: six in a row.
  const std::string mover = "mover: 24:10 23:1 16:1 3:1 2:1 1:1 | opponent: ";
  SECTION("forbidden with every opposing checker on its head") {
    const position p = nb(mover + "24:15");
    const play_list plays = legal_plays(p, roll{2, 1}, nardy);
    CHECK(plays.find(na(p, "24/22 16/15")) < 0);
    // Breaking the run with the other die first is fine: 23/22 then 24/22.
    CHECK(plays.find(na(p, "23/22 24/22")) >= 0);
    CHECK(plays.find(na(p, "24/22 3/2")) >= 0);  // 3/2 first, then 24/22: no 3
  }
  SECTION("allowed with an opposing checker on its 5 (the mover's 17), ahead of it") {
    const position p = nb(mover + "24:14 5:1");
    CHECK(legal_plays(p, roll{2, 1}, nardy).find(na(p, "24/22 16/15")) >= 0);
  }
}

TEST_CASE("L5 the opponent's path does not wrap from the mover's 13 to its 12",
          "[rules][long][block]") {
  // The mover holds 17, 16, 15, 14, 13 (the opponent's 5..1, its last points). The
  // opponent is all on its 20 (the mover's 8), its head is empty.
  const std::string mover = "mover: 24:7 23:1 20:1 17:1 16:1 15:1 14:1 13:2 | opponent: ";
  SECTION("13/12 adds the opponent's 24, not next to its 1: allowed") {
    const position p = nb(mover + "20:15");
    CHECK(legal_plays(p, roll{2, 1}, nardy).find(na(p, "23/21 13/12")) >= 0);
  }
  SECTION("20/18 adds the opponent's 6: a block with nothing ahead, forbidden") {
    const position p = nb(mover + "20:15");
    const play_list plays = legal_plays(p, roll{2, 1}, nardy);
    CHECK(plays.find(na(p, "20/18 13/12")) < 0);
    CHECK(plays.find(na(p, "24/23 20/18")) < 0);
    // 14/13 first breaks the run, then 20/18 holds 18, 17, 16, 15, 13: fine.
    CHECK(plays.find(na(p, "14/13 20/18")) >= 0);
  }
  SECTION("the same 20/18 is allowed once an opposing checker is borne off") {
    const position p = nb(mover + "20:14 off:1");
    const play_list plays = legal_plays(p, roll{2, 1}, nardy);
    CHECK(plays.find(na(p, "20/18 13/12")) >= 0);
    CHECK(plays.find(na(p, "24/23 20/18")) >= 0);
  }
}

// ---------------------------------------------------------------------------------
// L6: bearing off (as R10.1-R10.3). The opponent waits on its head (the mover's 12).

TEST_CASE("L6 no bearing off while a checker is outside the home board", "[rules][long]") {
  // 2-1: the 9 comes home (9/7/6 or 9/8/6); 1/off is refused while 9 or 7/8 is out.
  const position p = nb("mover: 9:1 1:14 | opponent: 24:15");
  CHECK(results_of(legal_plays(p, roll{2, 1}, nardy)) == expect(p, {"9/6"}));
}

TEST_CASE("L6 a higher die bears off from the highest point, an empty point's die moves inside",
          "[rules][long]") {
  // As R10.3: 6, 4, thirteen on 1; 5-2 gives 6/1 4/2 or 6/4 4/off.
  const position p = nb("mover: 6:1 4:1 1:13 | opponent: 24:15");
  CHECK(results_of(legal_plays(p, roll{5, 2}, nardy)) == expect(p, {"6/1 4/2", "6/4/off"}));
}

TEST_CASE("L6 a die bears off from its own point and bearing off is not compulsory",
          "[rules][long]") {
  // As R10.2 and R10.4: 3, 2, thirteen on 1; 2-1: 2/off 1/off, 3/off, or 3/1 2/1.
  const position p = nb("mover: 3:1 2:1 1:13 | opponent: 24:15");
  CHECK(results_of(legal_plays(p, roll{2, 1}, nardy)) ==
        expect(p, {"2/off 1/off", "3/off", "3/1 2/1"}));
}

// ---------------------------------------------------------------------------------
// L7: result

TEST_CASE("L7 oyn when the loser has borne off a checker, mars when it has none", "[rules][long]") {
  // The winner's last checker is on 2; 6-5 bears it off. In points, oyn is 1 and mars 2
  // (cube 1). There is no backgammon: a checker in the winner's home board (the loser's
  // 13..18) does not make it more than mars.
  struct row {
    const char* loser;
    win_kind kind;
    int points;
  };
  const row r = GENERATE(values<row>({
      {"24:14 off:1", win_kind::single, 1},
      {"13:1 24:13 off:1", win_kind::single, 1},
      {"24:15", win_kind::gammon, 2},
      {"13:1 24:14", win_kind::gammon, 2},
  }));
  INFO("loser " << r.loser);
  const position p = nb(std::string("mover: 2:1 | opponent: ") + r.loser);
  auto g = game::restore(nardy, game_phase::move, side::black, roll{6, 5}, p, 40, std::nullopt);
  REQUIRE(g.ok());
  match m = match::restore(match_options{nardy, match_kind::points, 5}, match_phase::move, *g,
                           cube{}, {0, 0}, 1, false, false, std::nullopt, {false, false}, {});
  const auto out = m.make_play(side::black, "2/off");
  REQUIRE(out.ok());
  CHECK(out->game_over);
  REQUIRE(m.results().size() == 1);
  CHECK(m.results()[0].winner == side::black);
  CHECK(m.results()[0].kind == r.kind);
  CHECK(m.results()[0].points == r.points);
  CHECK(m.score() == std::array<int, 2>{0, r.points});
}

// ---------------------------------------------------------------------------------
// L8: opening roll

TEST_CASE("L8 the opening roll is rerolled on ties and the higher die plays both",
          "[rules][long]") {
  // Red 4, black 4: tie. Red 2, black 5: black moves first with 5-2 = 24/17.
  game g(nardy);
  scripted_dice dice({4, 4, 2, 5});
  const auto o = g.roll_opening(dice);
  REQUIRE(o.ok());
  CHECK(o->ties.size() == 1);
  CHECK(o->first == side::black);
  CHECK(g.turn() == side::black);
  CHECK(g.phase() == game_phase::move);
  CHECK((g.dice() == roll{5, 2} || g.dice() == roll{2, 5}));
  const position start = position::starting(nardy);
  CHECK(results_of(g.legal()) == expect(start, {"24/17"}));
}
