// The match layer, rule by rule: opening roll (R2), automatic pass (R6.4), free play
// (R12), points matches (R13), the cube (R14), Crawford (R15), basis sessions (R16),
// resignation (R18), and gnubg Match IDs of match states.
//
// Dice are forced with scripted_dice. Expected scores are cube x multiplier (R13) or
// the loser's pip count (R12), worked out in the comments; Match IDs were encoded from
// the listed fields with /work/shared/tools/gnubg-oracle/matchid (never called here).

#include <catch2/catch.hpp>

#include <string>

#include "bg/engine/dice_source.hpp"
#include "bg/engine/game.hpp"
#include "bg/engine/match.hpp"
#include "bg/engine/match_id.hpp"
#include "bg/engine/move_generator.hpp"
#include "bg/engine/position.hpp"
#include "position_builder.hpp"

using namespace bg::engine;
using bg::test::after;
using bg::test::build;
using bg::test::results_of;
using bg::test::standard;

namespace {

match_options points_match(int length) {
  return {standard, match_kind::points, length};
}

/// The opening roll of the current game: red rolls `red_die`, black `black_die`.
void open_game(match& m, int red_die, int black_die) {
  scripted_dice dice({red_die, black_die});
  REQUIRE(m.roll_opening(dice).ok());
}

/// The side to act plays the first legal play of its roll.
void play_first(match& m) {
  REQUIRE(m.phase() == match_phase::move);
  const side s = *m.to_act();
  REQUIRE(m.make_play(s, std::size_t{0}).ok());
}

/// The side on roll rolls (seeded dice) and plays its first legal play, if any.
void take_turn(match& m, dice_source& dice) {
  REQUIRE(m.phase() == match_phase::roll);
  const side s = *m.to_act();
  const auto rolled = m.roll_dice(s, dice);
  REQUIRE(rolled.ok());
  if (!rolled->passed) play_first(m);
}

/// `loser` resigns `kind` and the opponent accepts.
game_end resign_game(match& m, side loser, win_kind kind) {
  REQUIRE(m.offer_resignation(loser, kind).ok());
  auto end = m.accept_resignation(opponent_of(loser));
  REQUIRE(end.ok());
  return *end;
}

/// A match restored in the middle of a game: `turn` to play `dice` in position `p`
/// (seen from `turn`), with the given cube and score.
match restored(match_options options, side turn, roll dice, const position& p, cube c = {},
               std::array<int, 2> score = {0, 0}) {
  auto g = game::restore(options.game_variant, game_phase::move, turn, dice, p, 30, std::nullopt);
  REQUIRE(g.ok());
  return match::restore(options, match_phase::move, *g, c, score, 1, false, false, std::nullopt,
                        {false, false}, {});
}

}  // namespace

// ---------------------------------------------------------------------------------
// R2: opening roll

TEST_CASE("R2 the opening roll is rolled again on ties and the higher die plays both dice",
          "[match][opening]") {
  GIVEN("a match whose opening dice tie 3-3 and 5-5, then red 2, black 6") {
    match m(points_match(5));
    scripted_dice dice({3, 3, 5, 5, 2, 6});
    const auto o = m.roll_opening(dice);
    REQUIRE(o.ok());
    THEN("both ties are reported and black, with the 6, moves first with 6-2") {
      REQUIRE(o->ties.size() == 2);
      CHECK(o->ties[0] == roll{3, 3});
      CHECK(o->ties[1] == roll{5, 5});
      CHECK(o->red_die == 2);
      CHECK(o->black_die == 6);
      CHECK(o->first == side::black);
      CHECK(m.phase() == match_phase::move);
      CHECK(m.to_act() == side::black);
      const roll r = m.current_game().dice();
      CHECK(r.high() == 6);
      CHECK(r.low() == 2);
    }
    THEN("black's plays are the opening plays of 6-2, e.g. 24/18 13/11") {
      const position start = position::starting(standard);
      CHECK(m.current_game().legal().find(after(start, "24/18 13/11")) >= 0);
      CHECK(m.current_game().legal().find(after(start, "13/5")) >= 0);
      CHECK(m.current_game().legal().size() == legal_plays(start, roll{6, 2}, standard).size());
    }
    THEN("there is no second opening roll") {
      scripted_dice more({6, 1});
      const auto again = m.roll_opening(more);
      REQUIRE_FALSE(again.ok());
      CHECK(again.err().code == "wrong_phase");
    }
  }
  GIVEN("red 6, black 1 at once") {
    match m(points_match(5));
    scripted_dice dice({6, 1});
    const auto o = m.roll_opening(dice);
    REQUIRE(o.ok());
    THEN("red moves first with 6-1 and may make its 7-point") {
      CHECK(o->ties.empty());
      CHECK(o->first == side::red);
      CHECK(m.to_act() == side::red);
      const position start = position::starting(standard);
      CHECK(m.current_game().legal().find(after(start, "13/7 8/7")) >= 0);
    }
  }
  GIVEN("a match before its opening roll") {
    match m(points_match(5));
    THEN("nobody may roll a normal turn yet") {
      scripted_dice dice({6, 1});
      const auto r = m.roll_dice(side::red, dice);
      REQUIRE_FALSE(r.ok());
      CHECK(r.err().code == "wrong_phase");
    }
  }
}

// ---------------------------------------------------------------------------------
// R6.4: automatic pass

TEST_CASE("R6.4 a roll with no legal play passes the turn at once and reports the roll",
          "[match][pass]") {
  GIVEN("red on the bar against black's closed board, red to roll") {
    // Red's view: black holds its 1..6 (red's 24..19) with two each.
    const position p = build("mover: bar:1 6:14 | opponent: 6:2 5:2 4:2 3:2 2:2 1:2 12:3");
    auto g = game::restore(standard, game_phase::roll, side::red, roll{}, p, 10, std::nullopt);
    REQUIRE(g.ok());
    match m = match::restore(points_match(5), match_phase::roll, *g, cube{}, {0, 0}, 1, false,
                             false, std::nullopt, {false, false}, {});
    WHEN("red rolls 6-5") {
      scripted_dice dice({6, 5});
      const auto out = m.roll_dice(side::red, dice);
      THEN("the roll is reported, the turn passes to black and nothing moved") {
        REQUIRE(out.ok());
        CHECK(out->roller == side::red);
        CHECK(out->dice == roll{6, 5});
        CHECK(out->passed);
        CHECK(m.phase() == match_phase::roll);
        CHECK(m.to_act() == side::black);
        CHECK(m.current_game().seen_by(side::red) == p);
        CHECK(m.current_game().turn_number() == 11);
      }
    }
  }
}

// ---------------------------------------------------------------------------------
// R12: free play

TEST_CASE("R12 free play has no cube", "[match][free]") {
  match m(match_options{standard, match_kind::free_play, 0});
  open_game(m, 6, 1);
  play_first(m);  // red's opening play; black is on roll
  REQUIRE(m.phase() == match_phase::roll);
  CHECK_FALSE(m.may_double(side::black));
  const auto r = m.offer_double(side::black);
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().code == "no_cube");
  CHECK(m.phase() == match_phase::roll);
}

TEST_CASE("R12 free play is scored by the pip count the loser still needed", "[match][free]") {
  // Red bears off its last checker (2/off with 6-5). Black, in its own numbering, has
  // ten on 6 and five on 5: 10 x 6 + 5 x 5 = 85 pips. The kind (a gammon here: none
  // off) and the cube play no part.
  const position p = build("mover: 2:1 | opponent: 6:10 5:5");
  match m = restored(match_options{standard, match_kind::free_play, 0}, side::red, roll{6, 5}, p);
  const auto out = m.make_play(side::red, "2/off");
  REQUIRE(out.ok());
  CHECK(out->game_over);
  REQUIRE(m.results().size() == 1);
  CHECK(m.results()[0].winner == side::red);
  CHECK(m.results()[0].points == 85);
  CHECK(m.score() == std::array<int, 2>{85, 0});
  CHECK(m.phase() == match_phase::match_over);
  CHECK(m.match_winner() == side::red);
}

// ---------------------------------------------------------------------------------
// R13: points matches

TEST_CASE("R13 a game is worth cube x 1, 2 or 3 and pip count plays no part", "[match][points]") {
  // Red bears off its last checker; black has none off and none in red's home board:
  // a gammon (R11.2). Cube 2 owned by black: 2 x 2 = 4. Black's 85 pips do not count.
  const position p = build("mover: 2:1 | opponent: 6:10 5:5");
  match m = restored(points_match(7), side::red, roll{6, 5}, p, cube{2, side::black, {}});
  REQUIRE(m.make_play(side::red, "2/off").ok());
  REQUIRE(m.results().size() == 1);
  CHECK(m.results()[0].kind == win_kind::gammon);
  CHECK(m.results()[0].points == 4);
  CHECK(m.score() == std::array<int, 2>{4, 0});
  THEN("the match goes on with a new game and a centred cube") {
    CHECK(m.phase() == match_phase::opening);
    CHECK(m.game_number() == 2);
    CHECK(m.doubling_cube() == cube{});
    CHECK_FALSE(m.match_winner().has_value());
  }
}

TEST_CASE("R13 the match ends when a player reaches or passes the length", "[match][points]") {
  SECTION("reaching it exactly: 3 + 2 = 5 in a match to 5") {
    const position p = build("mover: 2:1 | opponent: 6:14 off:1");  // single
    match m = restored(points_match(5), side::black, roll{6, 5}, p, cube{2, side::red, {}}, {0, 3});
    const auto out = m.make_play(side::black, "2/off");
    REQUIRE(out.ok());
    CHECK(m.score() == std::array<int, 2>{0, 5});
    CHECK(m.phase() == match_phase::match_over);
    CHECK(m.match_winner() == side::black);
  }
  SECTION("passing it: 4 + a backgammon at cube 2 (6) = 10 in a match to 5") {
    // R13 "reaches or passes": the points are not cut down to what was needed.
    const position p = build("mover: 2:1 | opponent: bar:1 6:14");  // backgammon (R11.3)
    match m = restored(points_match(5), side::red, roll{6, 5}, p, cube{2, side::red, {}}, {4, 0});
    REQUIRE(m.make_play(side::red, "2/off").ok());
    CHECK(m.results().back().kind == win_kind::backgammon);
    CHECK(m.score() == std::array<int, 2>{10, 0});
    CHECK(m.phase() == match_phase::match_over);
    CHECK(m.match_winner() == side::red);
  }
}

// ---------------------------------------------------------------------------------
// R14: the cube

TEST_CASE("R14.1 only the player on turn may double, and only before rolling", "[match][cube]") {
  match m(points_match(5));
  open_game(m, 6, 1);
  WHEN("red is playing its opening roll") {
    THEN("red may not double: it has already rolled") {
      CHECK_FALSE(m.may_double(side::red));
      const auto r = m.offer_double(side::red);
      REQUIRE_FALSE(r.ok());
      CHECK(r.err().code == "wrong_phase");
    }
  }
  play_first(m);  // black is on roll, cube centred
  WHEN("it is black's turn to roll") {
    THEN("red, not on turn, may not double") {
      CHECK_FALSE(m.may_double(side::red));
      const auto r = m.offer_double(side::red);
      REQUIRE_FALSE(r.ok());
      CHECK(r.err().code == "not_your_turn");
    }
    THEN("black may double the centred cube: the offer is for 2 and red must answer") {
      CHECK(m.may_double(side::black));
      const auto r = m.offer_double(side::black);
      REQUIRE(r.ok());
      CHECK(*r == 2);
      CHECK(m.phase() == match_phase::cube_offered);
      CHECK(m.to_act() == side::red);
      CHECK(m.doubling_cube().value == 1);  // nothing changes until the take
    }
  }
  WHEN("black has rolled") {
    scripted_dice dice({3, 1});
    REQUIRE(m.roll_dice(side::black, dice).ok());
    THEN("it is too late to double") {
      CHECK_FALSE(m.may_double(side::black));
      const auto r = m.offer_double(side::black);
      REQUIRE_FALSE(r.ok());
      CHECK(r.err().code == "wrong_phase");
    }
  }
}

TEST_CASE("R14.2 a take doubles the cube and gives it to the taker", "[match][cube]") {
  match m(points_match(5));
  open_game(m, 6, 1);
  play_first(m);
  REQUIRE(m.offer_double(side::black).ok());
  SECTION("the doubler cannot answer its own offer") {
    const auto r = m.take(side::black);
    REQUIRE_FALSE(r.ok());
    CHECK(r.err().code == "not_your_turn");
  }
  SECTION("red takes: cube 2 owned by red, and black goes on to roll") {
    const auto r = m.take(side::red);
    REQUIRE(r.ok());
    CHECK(*r == 2);
    CHECK(m.doubling_cube().value == 2);
    CHECK(m.doubling_cube().owner == side::red);
    CHECK_FALSE(m.doubling_cube().offered_by.has_value());
    CHECK(m.phase() == match_phase::roll);
    CHECK(m.to_act() == side::black);
    const auto again = m.take(side::red);
    REQUIRE_FALSE(again.ok());
    CHECK(again.err().code == "no_offer");
  }
}

TEST_CASE("R14.2 a drop loses the game at the cube value before the offer", "[match][cube]") {
  SECTION("centred cube: black doubles, red drops, black wins 1") {
    match m(points_match(5));
    open_game(m, 6, 1);
    play_first(m);
    REQUIRE(m.offer_double(side::black).ok());
    const auto end = m.drop(side::red);
    REQUIRE(end.ok());
    CHECK(end->result.winner == side::black);
    CHECK(end->result.kind == win_kind::single);
    CHECK(end->result.reason == end_reason::dropped);
    CHECK(end->result.points == 1);
    CHECK(m.score() == std::array<int, 2>{0, 1});
    CHECK(m.game_number() == 2);
  }
  SECTION("cube at 2 owned by black: black redoubles to 4, red drops, black wins 2") {
    match m(points_match(5));
    open_game(m, 6, 1);
    play_first(m);
    REQUIRE(m.offer_double(side::black).ok());
    REQUIRE(m.take(side::red).ok());  // cube 2, red owns it
    seeded_dice dice(7);
    take_turn(m, dice);  // black
    REQUIRE(m.offer_double(side::red).ok());
    REQUIRE(m.take(side::black).ok());  // cube 4, black owns it
    take_turn(m, dice);                 // red
    // Now black redoubles from 4 to 8 and red drops: black scores 4.
    REQUIRE(m.to_act() == side::black);
    REQUIRE(m.offer_double(side::black).ok());
    const auto end = m.drop(side::red);
    REQUIRE(end.ok());
    CHECK(end->result.points == 4);
    CHECK(m.score() == std::array<int, 2>{0, 4});
  }
}

TEST_CASE("R14.3 doubles alternate: the taker alone may double next", "[match][cube]") {
  match m(points_match(5));
  open_game(m, 6, 1);
  play_first(m);
  REQUIRE(m.offer_double(side::black).ok());
  REQUIRE(m.take(side::red).ok());
  THEN("black, still on roll, may not double again") {
    CHECK_FALSE(m.may_double(side::black));
    const auto r = m.offer_double(side::black);
    REQUIRE_FALSE(r.ok());
    CHECK(r.err().code == "not_cube_owner");
  }
  seeded_dice dice(11);
  take_turn(m, dice);  // black rolls and plays; red is on roll and owns the cube
  THEN("red, the owner, may redouble on its turn; black on its next turn may not") {
    REQUIRE(m.to_act() == side::red);
    CHECK(m.may_double(side::red));
    REQUIRE(m.offer_double(side::red).ok());
    REQUIRE(m.take(side::black).ok());
    CHECK(m.doubling_cube().value == 4);
    CHECK(m.doubling_cube().owner == side::black);
    take_turn(m, dice);  // red; now black owns the cube and is on roll
    CHECK(m.may_double(side::black));
    CHECK_FALSE(m.may_double(side::red));
  }
}

TEST_CASE("R14.4 the cube goes 2, 4, 8, 16, 32, 64 and no higher", "[match][cube]") {
  match m(points_match(5));
  CHECK(m.doubling_cube().value == 1);  // the cube shows 64 but is worth 1
  CHECK_FALSE(m.doubling_cube().owner.has_value());
  open_game(m, 6, 1);
  play_first(m);
  seeded_dice dice(3);
  int expected = 1;
  for (int k = 0; k < 6; ++k) {
    const side s = *m.to_act();
    REQUIRE(m.may_double(s));
    REQUIRE(m.offer_double(s).ok());
    REQUIRE(m.take(opponent_of(s)).ok());
    expected *= 2;
    CHECK(m.doubling_cube().value == expected);
    CHECK(m.doubling_cube().owner == opponent_of(s));
    take_turn(m, dice);  // s rolls; the turn passes to the owner
  }
  CHECK(expected == 64);
  const side owner = *m.to_act();
  REQUIRE(m.doubling_cube().owner == owner);
  CHECK_FALSE(m.may_double(owner));
  const auto r = m.offer_double(owner);
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().code == "cube_max");
}

TEST_CASE("R14.5 a double worth more than either player needs is still legal", "[match][cube]") {
  // Match to 3, post-Crawford, red 2, black 0: red needs 1, black 3. Black owns the
  // cube at 2 and redoubles to 4: legal. Red takes and then loses a gammon: 4 x 2 = 8.
  const position p = build("mover: bar:1 6:14 | opponent: 12:15");
  auto g = game::restore(standard, game_phase::roll, side::black, roll{}, p, 10, std::nullopt);
  REQUIRE(g.ok());
  match m = match::restore(points_match(3), match_phase::roll, *g, cube{2, side::black, {}}, {2, 0},
                           3, false, true, std::nullopt, {false, false}, {});
  CHECK(m.may_double(side::black));
  const auto offer = m.offer_double(side::black);
  REQUIRE(offer.ok());
  CHECK(*offer == 4);
  REQUIRE(m.take(side::red).ok());
  const auto end = resign_game(m, side::red, win_kind::gammon);
  CHECK(end.result.points == 8);
  CHECK(m.score() == std::array<int, 2>{2, 8});
  CHECK(m.match_winner() == side::black);
}

// ---------------------------------------------------------------------------------
// R15: Crawford

TEST_CASE("R15 nobody may double in the Crawford game, later games use the cube",
          "[match][crawford]") {
  match m(points_match(3));
  open_game(m, 6, 1);
  GIVEN("red first reaches 2 in a match to 3 (black resigns a gammon)") {
    const game_end first = resign_game(m, side::black, win_kind::gammon);
    CHECK(m.score() == std::array<int, 2>{2, 0});
    CHECK(first.crawford_next);
    CHECK(m.is_crawford_game());
    WHEN("the Crawford game is played") {
      open_game(m, 6, 1);
      play_first(m);  // black on roll
      THEN("black, trailing, may not double") {
        CHECK_FALSE(m.may_double(side::black));
        const auto r = m.offer_double(side::black);
        REQUIRE_FALSE(r.ok());
        CHECK(r.err().code == "crawford");
      }
      THEN("and neither may red on its turn") {
        seeded_dice dice(5);
        take_turn(m, dice);
        REQUIRE(m.to_act() == side::red);
        const auto r = m.offer_double(side::red);
        REQUIRE_FALSE(r.ok());
        CHECK(r.err().code == "crawford");
      }
      AND_WHEN("black wins it (red resigns a single): 2-1") {
        const game_end end = resign_game(m, side::red, win_kind::single);
        CHECK(m.score() == std::array<int, 2>{2, 1});
        CHECK_FALSE(end.crawford_next);
        THEN("the next game is post-Crawford: black may double") {
          CHECK_FALSE(m.is_crawford_game());
          CHECK(m.crawford_done());
          open_game(m, 6, 1);
          play_first(m);
          CHECK(m.may_double(side::black));
          const auto r = m.offer_double(side::black);
          REQUIRE(r.ok());
          CHECK(*r == 2);
        }
        AND_WHEN("black then reaches 2 as well: 2-2") {
          open_game(m, 6, 1);
          const game_end again = resign_game(m, side::red, win_kind::single);
          THEN("there is no second Crawford game") {
            CHECK(m.score() == std::array<int, 2>{2, 2});
            CHECK_FALSE(again.crawford_next);
            CHECK_FALSE(m.is_crawford_game());
            open_game(m, 1, 6);
            play_first(m);  // black's opening play; red on roll
            CHECK(m.may_double(side::red));
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------
// R16: basis sessions

TEST_CASE("R16 a basis session goes on while both continue and ends when one stops",
          "[match][basis]") {
  match m(match_options{standard, match_kind::basis, 0});
  open_game(m, 6, 1);
  const game_end first = resign_game(m, side::black, win_kind::single);
  THEN("after a game both are asked: the session waits") {
    CHECK_FALSE(first.match_over);
    CHECK(m.phase() == match_phase::game_over);
    CHECK(m.score() == std::array<int, 2>{1, 0});
    scripted_dice dice({6, 1});
    CHECK_FALSE(m.roll_opening(dice).ok());
  }
  WHEN("both continue") {
    const auto one = m.continue_session(side::red);
    REQUIRE(one.ok());
    CHECK_FALSE(*one);  // black has not answered
    CHECK(m.phase() == match_phase::game_over);
    const auto both = m.continue_session(side::black);
    REQUIRE(both.ok());
    CHECK(*both);
    THEN("a new game starts with a centred cube and the score carried over") {
      CHECK(m.phase() == match_phase::opening);
      CHECK(m.game_number() == 2);
      CHECK(m.doubling_cube() == cube{});
      CHECK(m.score() == std::array<int, 2>{1, 0});
    }
    AND_WHEN("the cube is used and black resigns a gammon at 2, then black stops") {
      open_game(m, 6, 1);
      play_first(m);
      REQUIRE(m.offer_double(side::black).ok());
      REQUIRE(m.take(side::red).ok());
      const game_end second = resign_game(m, side::black, win_kind::gammon);
      CHECK(second.result.points == 4);  // 2 x 2
      REQUIRE(m.stop_session(side::black).ok());
      THEN("points add up across games: 1 + 4") {
        CHECK(m.phase() == match_phase::match_over);
        CHECK(m.score() == std::array<int, 2>{5, 0});
        CHECK(m.match_winner() == side::red);
      }
    }
  }
  WHEN("one side stops") {
    REQUIRE(m.stop_session(side::red).ok());
    THEN("the session is over") {
      CHECK(m.phase() == match_phase::match_over);
      const auto late = m.continue_session(side::black);
      REQUIRE_FALSE(late.ok());
      CHECK(late.err().code == "wrong_phase");
    }
  }
}

// ---------------------------------------------------------------------------------
// R18: resignation

TEST_CASE("R18 an accepted resignation ends the game at its kind times the cube",
          "[match][resign]") {
  const win_kind kind = GENERATE(win_kind::single, win_kind::gammon, win_kind::backgammon);
  match m(points_match(25));
  open_game(m, 6, 1);
  play_first(m);
  REQUIRE(m.offer_double(side::black).ok());
  REQUIRE(m.take(side::red).ok());  // cube 2
  const auto offer = m.offer_resignation(side::black, kind);
  REQUIRE(offer.ok());
  CHECK(m.phase() == match_phase::resign_offered);
  CHECK(m.to_act() == side::red);
  SECTION("the resigner cannot accept its own offer") {
    const auto r = m.accept_resignation(side::black);
    REQUIRE_FALSE(r.ok());
    CHECK(r.err().code == "not_your_turn");
  }
  SECTION("red accepts: 1, 2 or 3 x 2") {
    const auto end = m.accept_resignation(side::red);
    REQUIRE(end.ok());
    CHECK(end->result.winner == side::red);
    CHECK(end->result.kind == kind);
    CHECK(end->result.reason == end_reason::resigned);
    CHECK(end->result.points == 2 * multiplier(kind));
    CHECK(m.score() == std::array<int, 2>{2 * multiplier(kind), 0});
  }
}

TEST_CASE("R18 a rejected resignation lets play go on where it stopped", "[match][resign]") {
  match m(points_match(5));
  open_game(m, 6, 1);
  play_first(m);
  scripted_dice dice({4, 2});
  REQUIRE(m.roll_dice(side::black, dice).ok());  // black must play 4-2
  REQUIRE(m.offer_resignation(side::black, win_kind::single).ok());
  const auto r = m.reject_resignation(side::red);
  REQUIRE(r.ok());
  CHECK(m.phase() == match_phase::move);
  CHECK(m.to_act() == side::black);
  CHECK(m.current_game().dice() == roll{4, 2});
  CHECK_FALSE(m.pending_resignation().has_value());
  CHECK(m.game_number() == 1);
  CHECK(m.score() == std::array<int, 2>{0, 0});
  CHECK(m.make_play(side::black, "8/4 6/4").ok());
  const auto none = m.accept_resignation(side::red);
  REQUIRE_FALSE(none.ok());
  CHECK(none.err().code == "no_offer");
}

// ---------------------------------------------------------------------------------
// S3: abandonment; L7: no backgammon in long play

TEST_CASE("S3 a forfeit in a match scores a backgammon times the cube and awards the match",
          "[match][forfeit]") {
  // Given a match to 7 at 0-0, the cube at 2 on red's side, black on roll, nobody off.
  match m(points_match(7));
  open_game(m, 6, 1);
  play_first(m);
  REQUIRE(m.offer_double(side::black).ok());
  REQUIRE(m.take(side::red).ok());
  // When black forfeits.
  const auto end = m.forfeit(side::black);
  // Then red wins a backgammon x 2 = 6 points, and the match, although 6 < 7.
  REQUIRE(end.ok());
  CHECK(end->result.kind == win_kind::backgammon);
  CHECK(end->result.reason == end_reason::forfeit);
  CHECK(end->result.points == 6);
  CHECK(end->match_over);
  CHECK(m.phase() == match_phase::match_over);
  CHECK(m.score() == std::array<int, 2>{6, 0});
  CHECK(m.match_winner() == side::red);
  CHECK(m.game_number() == 1);
}

TEST_CASE("S2 a loss on time is scored and ended as a forfeit, and recorded as on time",
          "[match][forfeit][clock]") {
  SECTION("a points match is awarded to the opponent") {
    match m(points_match(7));
    open_game(m, 6, 1);
    const auto end = m.forfeit(side::black, end_reason::time);
    REQUIRE(end.ok());
    CHECK(end->result.reason == end_reason::time);
    CHECK(end->result.kind == win_kind::backgammon);
    CHECK(end->match_over);
    CHECK(m.match_winner() == side::red);
    CHECK(to_string(end_reason::time) == "time");
    CHECK(is_forfeit(end_reason::time));
    CHECK_FALSE(is_forfeit(end_reason::dropped));
  }
  SECTION("a basis session ends with the game lost") {
    match m({standard, match_kind::basis, 0});
    open_game(m, 6, 1);
    const auto end = m.forfeit(side::red, end_reason::time);
    REQUIRE(end.ok());
    CHECK(end->match_over);
    CHECK(m.phase() == match_phase::match_over);
    CHECK(m.score()[1] == 3);
  }
}

TEST_CASE("S3 a loser who has borne off a checker forfeits a single game", "[match][forfeit]") {
  // Given red on roll in a race, red having borne off 3 checkers, cube 4 owned by black.
  const auto p = build("mover: 6:4 5:4 4:4 | opponent: 1:5 2:5 3:5");
  cube c;
  c.value = 4;
  c.owner = side::black;
  match m = restored(points_match(11), side::red, roll{6, 5}, p, c, {3, 2});
  // When red forfeits.
  const auto end = m.forfeit(side::red);
  // Then black wins a single game at the cube: 4 points, and the match.
  REQUIRE(end.ok());
  CHECK(end->result.kind == win_kind::single);
  CHECK(end->result.points == 4);
  CHECK(m.score() == std::array<int, 2>{3, 6});
  CHECK(m.match_winner() == side::black);
}

TEST_CASE("S3 L7 a forfeit in long nardy scores mars, never a backgammon", "[match][forfeit]") {
  match m({variant::long_nardy, match_kind::points, 5});
  open_game(m, 6, 1);
  const auto end = m.forfeit(side::black);
  REQUIRE(end.ok());
  CHECK(end->result.kind == win_kind::gammon);  // mars
  CHECK(end->result.points == 2);
  CHECK(m.match_winner() == side::red);
}

TEST_CASE("S3 a forfeit ends a basis session, in free play it scores the loser's pips",
          "[match][forfeit]") {
  SECTION("basis: the game is lost and the session ends") {
    match m({standard, match_kind::basis, 0});
    open_game(m, 6, 1);
    const auto end = m.forfeit(side::red);
    REQUIRE(end.ok());
    CHECK(end->result.points == 3);
    CHECK(m.phase() == match_phase::match_over);
    const auto late = m.continue_session(side::black);
    REQUIRE_FALSE(late.ok());
  }
  SECTION("free play: the loser's pip count (R12)") {
    match m({standard, match_kind::free_play, 0});
    open_game(m, 6, 1);
    const int pips = m.current_game().pip_count(side::black);
    const auto end = m.forfeit(side::black);
    REQUIRE(end.ok());
    CHECK(end->result.points == pips);
    CHECK(m.phase() == match_phase::match_over);
  }
}

TEST_CASE("L7 a long game cannot be resigned as a backgammon", "[match][resign][long]") {
  match m({variant::long_nardy, match_kind::points, 5});
  open_game(m, 6, 1);
  play_first(m);
  const auto bg = m.offer_resignation(side::black, win_kind::backgammon);
  REQUIRE_FALSE(bg.ok());
  CHECK(bg.err().code == "no_backgammon");
  CHECK(m.phase() == match_phase::roll);
  CHECK(m.offer_resignation(side::black, win_kind::gammon).ok());
}

// ---------------------------------------------------------------------------------
// Match IDs of match states (gnubg 1.07 layout; red = player 0, black = player 1)

namespace {
void check_id(const match& m, const std::string& expected, const match_id_fields& fields) {
  CHECK(m.id() == expected);
  const auto decoded = match_id_from_string(m.id());
  REQUIRE(decoded.ok());
  CHECK(*decoded == fields);
}
}  // namespace

TEST_CASE("Match ID follows the match through opening, double, take and resignation",
          "[match][match_id]") {
  match m(points_match(5));
  match_id_fields f;
  f.match_length = 5;
  SECTION("black opens with 6-2 (red 2, black 6)") {
    open_game(m, 2, 6);
    // Bits, least significant first: cube log2 0 (0000), owner centred (11), on roll 1,
    // Crawford 0 -> byte 0x70; game state 1 (100), turn 1, no double, no resign, die 6
    // (011) ... length 5 (101 ...), scores 0, bit 67 "not Jacoby" set.
    f.player_on_roll = 1;
    f.turn = 1;
    f.dice = {6, 2};
    check_id(m, "cAmrAAAAAAAE", f);
  }
  SECTION("red opens with 6-1 and plays; black on roll, then doubles, red takes, black resigns") {
    open_game(m, 6, 1);
    play_first(m);
    f.player_on_roll = 1;
    f.turn = 1;
    check_id(m, "cAmgAAAAAAAE", f);  // 70 09 A0 00 00 00 00 00 04
    REQUIRE(m.offer_double(side::black).ok());
    f.turn = 0;  // red must decide
    f.double_offered = true;
    check_id(m, "cBGgAAAAAAAE", f);
    REQUIRE(m.take(side::red).ok());
    f.cube = 2;
    f.cube_owner = 0;
    f.turn = 1;
    f.double_offered = false;
    check_id(m, "QQmgAAAAAAAE", f);
    REQUIRE(m.offer_resignation(side::black, win_kind::gammon).ok());
    f.turn = 0;
    f.resign = 2;
    check_id(m, "QUGgAAAAAAAE", f);
  }
  SECTION("the Crawford game at 4-0 in a match to 5, red opening 6-1") {
    open_game(m, 6, 1);
    resign_game(m, side::black, win_kind::gammon);  // 2-0
    open_game(m, 6, 1);
    resign_game(m, side::black, win_kind::gammon);  // 4-0: next is Crawford
    open_game(m, 6, 1);
    f.player_on_roll = 0;
    f.turn = 0;
    f.crawford = true;
    f.dice = {6, 1};
    f.score = {4, 0};
    check_id(m, "sAGnAEAAAAAE", f);
  }
}

TEST_CASE("Match ID of a match ended by a dropped double", "[match][match_id]") {
  // Match to 1: black doubles, red drops: black wins 1-0 at cube 1; the game state
  // field says 4 (dropped cube).
  match m(points_match(1));
  open_game(m, 6, 1);
  play_first(m);
  REQUIRE(m.offer_double(side::black).ok());
  REQUIRE(m.drop(side::red).ok());
  REQUIRE(m.phase() == match_phase::match_over);
  const auto f = match_id_from_string(m.id());
  REQUIRE(f.ok());
  CHECK(f->game_state == 4);
  CHECK(f->cube == 1);
  CHECK(f->cube_owner == -1);
  CHECK(f->match_length == 1);
  CHECK(f->score == std::array<int, 2>{0, 1});
  CHECK_FALSE(f->double_offered);
}

TEST_CASE("Match ID of free play is a money game with no length", "[match][match_id]") {
  match m(match_options{standard, match_kind::free_play, 0});
  open_game(m, 6, 1);
  play_first(m);
  const auto f = match_id_from_string(m.id());
  REQUIRE(f.ok());
  CHECK(f->match_length == 0);
  CHECK(f->player_on_roll == 1);
  CHECK(f->cube == 1);
}
