// Move notation (notation.hpp): parsing, printing as GNU Backgammon prints, finding the
// play a player meant, and the messages that say why a written play is refused.
//
// The printed forms were checked against gnubg's own move list (gnubg-oracle
// legal_moves prints FormatMove's text); the tests never call the oracle.

#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "bg/engine/dice_source.hpp"
#include "bg/engine/game.hpp"
#include "bg/engine/move_generator.hpp"
#include "bg/engine/notation.hpp"
#include "bg/engine/position.hpp"
#include "position_builder.hpp"

using namespace bg::engine;
using bg::test::after;
using bg::test::build;
using bg::test::standard;
using bg::test::to_text;

namespace {

written_move part(std::vector<int> points, std::vector<bool> hits, int repeat = 1) {
  return written_move{std::move(points), std::move(hits), repeat};
}

/// The printed form of the legal play (of `r` in `before`) whose result is
/// `before` after `moves` (applied by the test's own applier).
std::string printed(const position& before, roll r, std::string_view moves, variant v = standard) {
  const play_list plays = legal_plays(before, r, v);
  const int i = plays.find(after(before, moves, v));
  REQUIRE(i >= 0);
  return format_play(before, plays[static_cast<std::size_t>(i)], v);
}

/// match_play's error for `text`; REQUIREs that it is an error.
error refusal(const position& before, roll r, std::string_view text, variant v = standard) {
  const play_list plays = legal_plays(before, r, v);
  const auto m = match_play(before, r, v, plays, text);
  REQUIRE_FALSE(m.ok());
  return m.err();
}

/// The result of the play match_play finds for `text`, as builder text.
std::string matched(const position& before, roll r, std::string_view text, variant v = standard) {
  const play_list plays = legal_plays(before, r, v);
  const auto m = match_play(before, r, v, plays, text);
  INFO("text " << text);
  REQUIRE(m.ok());
  return to_text(plays[static_cast<std::size_t>(*m)].result);
}

}  // namespace

// ---------------------------------------------------------------------------------
// Parsing

TEST_CASE("Notation parses points, bar, off, hits and repeats", "[notation][parse]") {
  SECTION("24/18 13/11: two parts") {
    const auto p = parse_notation("24/18 13/11");
    REQUIRE(p.ok());
    CHECK(*p == std::vector<written_move>{part({24, 18}, {false, false}),
                                          part({13, 11}, {false, false})});
  }
  SECTION("bar/22: the bar is point 25") {
    const auto p = parse_notation("bar/22");
    REQUIRE(p.ok());
    CHECK(*p == std::vector<written_move>{part({25, 22}, {false, false})});
  }
  SECTION("6/off: off is point 0") {
    const auto p = parse_notation("6/off");
    REQUIRE(p.ok());
    CHECK(*p == std::vector<written_move>{part({6, 0}, {false, false})});
  }
  SECTION("13/7*/1: one checker through a hit on 7") {
    const auto p = parse_notation("13/7*/1");
    REQUIRE(p.ok());
    CHECK(*p == std::vector<written_move>{part({13, 7, 1}, {false, true, false})});
  }
  SECTION("8/2(2): the same move twice") {
    const auto p = parse_notation("8/2(2)");
    REQUIRE(p.ok());
    CHECK(*p == std::vector<written_move>{part({8, 2}, {false, false}, 2)});
  }
  SECTION("commas, capitals and 25/0 spellings read the same") {
    const auto p = parse_notation("BAR/22,6/OFF");
    REQUIRE(p.ok());
    CHECK(*p ==
          std::vector<written_move>{part({25, 22}, {false, false}), part({6, 0}, {false, false})});
    const auto q = parse_notation("25/22 6/0");
    REQUIRE(q.ok());
    CHECK(*q == *p);
  }
}

TEST_CASE("Notation refuses text it cannot read, with code bad_notation", "[notation][parse]") {
  const char* text = GENERATE("", "   ", "24-18", "24/", "/18", "24", "24/18(5)", "24/18(x)",
                              "24/18x", "hello", "24/18(2) 13/7(2) 6/1", "24/18/12/6/1/off");
  INFO("text \"" << text << "\"");
  const auto p = parse_notation(text);
  REQUIRE_FALSE(p.ok());
  CHECK(p.err().code == "bad_notation");
  CHECK_FALSE(p.err().message.empty());
}

TEST_CASE("Notation allows at most four checker moves", "[notation][parse]") {
  CHECK(parse_notation("24/18(2) 13/7(2)").ok());
  const auto five = parse_notation("24/18(2) 13/7(2) 6/1");
  REQUIRE_FALSE(five.ok());
  CHECK(five.err().message == "a play has at most four checker moves");
}

// ---------------------------------------------------------------------------------
// Printing (gnubg's FormatMove)

TEST_CASE("Notation prints plays as gnubg does", "[notation][format]") {
  const position start = position::starting(standard);
  SECTION("one checker with both dice is written from start to end: 24/13") {
    CHECK(printed(start, roll{6, 5}, "24/18/13") == "24/13");
  }
  SECTION("two checkers, highest start first: 8/5 6/5") {
    CHECK(printed(start, roll{3, 1}, "6/5 8/5") == "8/5 6/5");
  }
  SECTION("identical moves are merged with a count: 24/18(2) 13/7(2), 13/7(2) 8/2(2)") {
    CHECK(printed(start, roll{6, 6}, "24/18(2) 13/7(2)") == "24/18(2) 13/7(2)");
    CHECK(printed(start, roll{6, 6}, "13/7(2) 8/2(2)") == "13/7(2) 8/2(2)");
    CHECK(printed(start, roll{6, 6}, "13/7(4)") == "13/7(4)");
    CHECK(printed(start, roll{6, 6}, "24/18 13/7 8/2(2)") == "24/18 13/7 8/2(2)");
  }
  SECTION("a hit on the way is kept and marked: 13/7*/1 2/off(2)") {
    // Blot on the mover's 7 (the opponent's 18). 6-6: 13/7*/1, then all home, and the
    // two remaining sixes bear off from the highest point 2.
    const position p = build("mover: 13:1 2:14 | opponent: 18:1 1:14");
    CHECK(printed(p, roll{6, 6}, "13/7/1 2/off(2)") == "13/7*/1 2/off(2)");
  }
  SECTION("entering: bar/22 6/5, bar/22*/17") {
    const position p = build("mover: bar:1 6:14 | opponent: 12:15");
    CHECK(printed(p, roll{3, 1}, "bar/22 6/5") == "bar/22 6/5");
    CHECK(printed(p, roll{3, 1}, "bar/21") == "bar/21");
    const position q = build("mover: bar:1 6:14 | opponent: 3:1 5:2 24:12");
    CHECK(printed(q, roll{5, 3}, "bar/22/17") == "bar/22*/17");
  }
  SECTION("hits at the end of a part, and a hit passed through: 6/5* 3/1, 6/5*/3, 6/3") {
    const position p = build("mover: 6:2 3:13 | opponent: 20:1 1:14");
    CHECK(printed(p, roll{2, 1}, "6/5 3/1") == "6/5* 3/1");
    CHECK(printed(p, roll{2, 1}, "6/5/3") == "6/5*/3");
    CHECK(printed(p, roll{2, 1}, "6/4 6/5") == "6/5* 6/4");
  }
  SECTION("bearing off: 6/off, 4/off(2) 2/off") {
    // 6/off with the 6; the 5 is lost (6/1 lands on the opponent's 24-point, 4/off is
    // refused while a checker stands on 6).
    const position p = build("mover: 6:2 4:1 | opponent: 20:1 24:2 13:5 8:3 6:4");
    CHECK(printed(p, roll{6, 5}, "6/off") == "6/off");
    const position q = build("mover: 4:2 2:1 | opponent: 24:2 13:5 8:3 6:5");
    CHECK(printed(q, roll{4, 4}, "4/off(2) 2/off") == "4/off(2) 2/off");
  }
  SECTION("an empty play prints as nothing") {
    const position p = build("mover: bar:1 6:14 | opponent: 6:2 5:2 4:2 3:2 2:2 1:2 12:3");
    CHECK(format_play(p, play{p, {}, 0}) == "");
  }
}

// ---------------------------------------------------------------------------------
// Matching a written play

TEST_CASE("Notation finds the play meant, however it is spelled", "[notation][match]") {
  const position start = position::starting(standard);
  const std::string expected = to_text(after(start, "24/18 13/11"));
  CHECK(matched(start, roll{6, 2}, "24/18 13/11") == expected);
  CHECK(matched(start, roll{6, 2}, "13/11 24/18") == expected);
  CHECK(matched(start, roll{6, 2}, "24/18,13/11") == expected);
  CHECK(matched(start, roll{2, 6}, "24/18 13/11") == expected);  // dice order is irrelevant
  // One checker with both dice may be written whole or step by step.
  CHECK(matched(start, roll{6, 2}, "24/16") == to_text(after(start, "24/16")));
  CHECK(matched(start, roll{6, 2}, "24/18/16") == to_text(after(start, "24/16")));
  CHECK(matched(start, roll{6, 6}, "13/7(2) 8/2(2)") == to_text(after(start, "13/7(2) 8/2(2)")));
  const position p = build("mover: 13:1 2:14 | opponent: 18:1 1:14");
  CHECK(matched(p, roll{6, 6}, "13/7*/1 2/off(2)") == to_text(after(p, "13/7/1 2/off(2)")));
  const position q = build("mover: bar:1 6:14 | opponent: 12:15");
  CHECK(matched(q, roll{3, 1}, "bar/22 6/5") == to_text(after(q, "bar/22 6/5")));
}

TEST_CASE("Notation tells a hit from a non-hit when both reach different positions",
          "[notation][match]") {
  // 6/5*/3 and 6/3 (through 4) both take a checker from 6 to 3 with 2-1; only the
  // first hits. The star chooses.
  const position p = build("mover: 6:2 3:13 | opponent: 20:1 1:14");
  CHECK(matched(p, roll{2, 1}, "6/5*/3") == to_text(after(p, "6/5/3")));
  CHECK(matched(p, roll{2, 1}, "6/4/3") == to_text(after(p, "6/4/3")));
}

TEST_CASE("Notation reads back gnubg's parts whose moves interleave with other parts",
          "[notation][match]") {
  // gnubg (and format_play) write each checker's whole path as one part. Sometimes the
  // moves of two parts must alternate: both bar checkers enter before either moves
  // on (R8), and a checker bears off only once the other is home (R10.1) or gone from
  // a higher point (R10.3). The written play is still exactly one legal play.
  SECTION("bar/17(2): 4-4 with two on the bar is bar/21, bar/21, 21/17, 21/17") {
    const position p = build("mover: bar:2 6:13 | opponent: 12:15");
    CHECK(printed(p, roll{4, 4}, "bar/21(2) 21/17(2)") == "bar/17(2)");
    CHECK(matched(p, roll{4, 4}, "bar/17(2)") == to_text(after(p, "bar/21(2) 21/17(2)")));
  }
  SECTION("9/off(2): 5-5 brings both checkers from 9 to 4 before either bears off") {
    // gnubg's own move list prints exactly "9/off(2)" for this, the only play.
    const position p = build("mover: 9:2 4:4 2:2 1:7 | opponent: 6:1 2:11 1:3");
    CHECK(printed(p, roll{5, 5}, "9/4(2) 4/off(2)") == "9/off(2)");
    CHECK(matched(p, roll{5, 5}, "9/off(2)") == to_text(after(p, "9/4(2) 4/off(2)")));
  }
  SECTION("3/off(2): 2-2 moves both checkers from 3 to 1 before either bears off") {
    // From 3 with a 2: 3/1. A 2 may bear off from 1 only when no checker is higher,
    // so the order is 3/1, 3/1, 1/off, 1/off (gnubg prints "3/off(2)").
    const position p = build("mover: 3:2 1:10 | opponent: 10:1 4:4 3:2 2:4 1:4");
    CHECK(printed(p, roll{2, 2}, "3/1(2) 1/off(2)") == "3/off(2)");
    CHECK(matched(p, roll{2, 2}, "3/off(2)") == to_text(after(p, "3/1(2) 1/off(2)")));
  }
  SECTION("long nardy 17/off 6/off: 17/11/5, then 6/off, then 5/off") {
    const position p =
        build("mover: 17:1 6:1 3:5 2:1 1:7 | opponent: 4:2 2:1 1:8 off:4", variant::long_nardy);
    const std::string moves = "17/11/5 6/off 5/off";
    CHECK(printed(p, roll{6, 6}, moves, variant::long_nardy) == "17/off 6/off");
    CHECK(matched(p, roll{6, 6}, "17/off 6/off", variant::long_nardy) ==
          to_text(after(p, moves, variant::long_nardy)));
  }
}

TEST_CASE("Notation: every text of game::legal_notations is accepted verbatim by make_play",
          "[notation][match][game]") {
  // What a player is shown must be what the player can type (game.hpp). Two on the
  // bar with 4-4: the plays are bar/17(2), bar/21(2) 6/2(2) and bar/17 bar/21 6/2.
  const position p = build("mover: bar:2 6:13 | opponent: 12:15");
  auto g = game::restore(standard, game_phase::move, side::red, roll{4, 4}, p, 10, std::nullopt);
  REQUIRE(g.ok());
  const std::vector<std::string> texts = g->legal_notations();
  CHECK(std::set<std::string>(texts.begin(), texts.end()) ==
        std::set<std::string>{"bar/17(2)", "bar/21(2) 6/2(2)", "bar/17 bar/21 6/2"});
  for (const std::string& text : texts) {
    auto copy = *g;
    const auto out = copy.make_play(side::red, text);
    INFO("text " << text);
    CHECK(out.ok());
  }
}

TEST_CASE("Notation says why a written play is refused", "[notation][errors]") {
  const position start = position::starting(standard);
  SECTION("no checker on 17") {
    const error e = refusal(start, roll{6, 5}, "17/11 13/8");
    CHECK(e.code == "illegal_play");
    CHECK(e.message == "no checker on 17");
  }
  SECTION("point 5 is blocked") {
    // The opponent holds its 20 = the mover's 5 with two checkers.
    const position p = build("mover: 24:2 13:5 8:3 6:5 | opponent: 24:2 20:2 13:5 8:3 6:3");
    const error e = refusal(p, roll{3, 1}, "8/5 24/23");
    CHECK(e.code == "illegal_play");
    CHECK(e.message == "point 5 is blocked");
  }
  SECTION("point 5 is blocked, written as the only part") {
    const position p = build("mover: 24:2 13:5 8:3 6:5 | opponent: 24:2 20:2 13:5 8:3 6:3");
    const error e = refusal(p, roll{3, 1}, "8/5");
    CHECK(e.message == "point 5 is blocked");
  }
  SECTION("6 must be played (R6.2)") {
    const position p = build("mover: 24:1 1:14 | opponent: 8:2 19:13");
    const error e = refusal(p, roll{6, 1}, "24/23");
    CHECK(e.code == "illegal_play");
    CHECK(e.message == "6 must be played");
  }
  SECTION("both dice must be played (R6.1)") {
    const error e = refusal(start, roll{6, 5}, "24/18");
    CHECK(e.code == "illegal_play");
    CHECK(e.message == "both dice must be played");
  }
  SECTION("4 moves must be played (R6.3)") {
    const error e = refusal(start, roll{6, 6}, "24/18(2)");
    CHECK(e.message == "4 moves must be played");
  }
  SECTION("you must enter from the bar first (R8)") {
    const position p = build("mover: bar:1 6:14 | opponent: 12:15");
    const error e = refusal(p, roll{3, 1}, "6/3 6/5");
    CHECK(e.code == "illegal_play");
    CHECK(e.message == "you must enter from the bar first");
  }
  SECTION("you cannot bear off until all your checkers are home (R10.1)") {
    const position p = build("mover: 9:1 1:14 | opponent: 12:15");
    const error e = refusal(p, roll{2, 1}, "9/7 1/off");
    CHECK(e.message == "you cannot bear off until all your checkers are home");
  }
  SECTION("no die moves a checker that far") {
    const error e = refusal(start, roll{6, 3}, "24/20");
    CHECK(e.message == "no die of 6-3 moves 24/20");
  }
  SECTION("a move backwards") {
    const error e = refusal(start, roll{6, 3}, "18/24");
    CHECK(e.code == "illegal_play");
    CHECK_THAT(e.message, Catch::Contains("backwards"));
  }
  SECTION("no play is possible (R6.4)") {
    const position p = build("mover: bar:1 6:14 | opponent: 6:2 5:2 4:2 3:2 2:2 1:2 12:3");
    const error e = refusal(p, roll{6, 5}, "bar/19");
    CHECK(e.code == "illegal_play");
    CHECK_THAT(e.message, Catch::Contains("no play is possible"));
  }
  SECTION("bad syntax") {
    const error e = refusal(start, roll{6, 5}, "24-13");
    CHECK(e.code == "bad_notation");
  }
}

// ---------------------------------------------------------------------------------
// Property: every printed legal play is read back as itself

namespace {
/// Plays `games` random games of `v` from fixed seeds and checks, at every turn, that
/// each legal play's printed form is matched back to that same play.
void check_round_trip(variant v, std::uint64_t seed, int games) {
  std::mt19937_64 choose(seed);
  seeded_dice dice(seed);
  long checked = 0;
  for (int g = 0; g < games; ++g) {
    position pos = position::starting(v);
    for (int turn = 0; turn < 2000; ++turn) {
      const roll r = dice.roll_dice();
      const play_list plays = legal_plays(pos, r, v);
      for (std::size_t i = 0; i < plays.size(); ++i) {
        const std::string text = format_play(pos, plays[i], v);
        const auto m = match_play(pos, r, v, plays, text);
        if (!m.ok() || *m != static_cast<int>(i)) {
          INFO("position " << to_text(pos) << ", roll " << r.die1 << "-" << r.die2);
          INFO("text \"" << text << "\"");
          INFO((m.ok() ? std::string("matched another play") : m.err().message));
          CHECK(false);
          return;
        }
        ++checked;
      }
      if (!plays.empty()) {
        std::uniform_int_distribution<std::size_t> pick(0, plays.size() - 1);
        pos = plays[pick(choose)].result;
      }
      if (pos.mover(off_index) == checkers_per_side) break;
      pos = pos.swapped();
    }
  }
  CHECK(checked > 1000);
}
}  // namespace

TEST_CASE("Notation: every legal play's printed form is matched back to that play",
          "[notation][property]") {
  SECTION("standard, 60 games") {
    check_round_trip(variant::standard, 20240501, 60);
  }
  SECTION("long nardy, 40 games") {
    check_round_trip(variant::long_nardy, 20240502, 40);
  }
}
