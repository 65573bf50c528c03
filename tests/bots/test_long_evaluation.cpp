// The long nardy evaluation's pieces, as rules (bots/include/bg/bots/long_evaluation.hpp).
// Positions are written with the engine tests' builder, each side in its own numbering
// (24 -> 1, the head on 24, home 1..6); the mover is the side that has just played.
// Geometry: the opponent's point q is the mover's ((q + 11) mod 24) + 1, so the mover's
// 1..11 are the opponent's 13..23, in front of its head (its 24 = the mover's 12).

#include <catch2/catch.hpp>

#include <cmath>

#include "bg/bots/long_evaluation.hpp"
#include "bg/engine/move_generator.hpp"
#include "bg/engine/position.hpp"
#include "position_builder.hpp"

using namespace bg::engine;
using namespace bg::bots;
using bg::test::build;
using bg::test::nardy;
using bg::test::nb;

namespace {

/// The mask of trapped_share(): the held points `d` pips ahead.
std::uint32_t ahead(std::initializer_list<int> distances) {
  std::uint32_t mask = 0;
  for (const int d : distances) mask |= 1u << (d - 1);
  return mask;
}

}  // namespace

TEST_CASE("bots: a checker with nothing in front of it is never trapped", "[bots][evaluation]") {
  CHECK(trapped_share(0) == 0.0);
}

TEST_CASE("bots: L5 six points in a row just in front trap a checker against every roll",
          "[bots][evaluation]") {
  CHECK(trapped_share(ahead({1, 2, 3, 4, 5, 6})) == 1.0);
}

TEST_CASE("bots: a wall of L points just in front lets only dice above L past: L*L/36 trapped",
          "[bots][evaluation]") {
  // A roll gets past when one of its dice is higher than L (then that die clears the
  // wall; the other die lands anywhere beyond or before it).
  const int length = GENERATE(1, 2, 3, 4, 5);
  INFO("wall of " << length);
  std::uint32_t mask = 0;
  for (int d = 1; d <= length; ++d) mask |= 1u << (d - 1);
  CHECK(trapped_share(mask) == Approx(length * length / 36.0));
}

TEST_CASE("bots: five scattered points trap less than a wall of five", "[bots][evaluation]") {
  // A checker may land between scattered points: only the strongest wall counts.
  CHECK(trapped_share(ahead({1, 3, 5, 7, 9})) < trapped_share(ahead({1, 2, 3, 4, 5})));
  CHECK(trapped_share(ahead({1, 3, 5, 7, 9})) < 0.25);
}

TEST_CASE("bots: L5 a prime of six is worth more than five scattered points",
          "[bots][evaluation]") {
  // GIVEN the opponent's 14 head checkers and one checker ahead (on its 1, the mover's
  // 13, where it cannot move before the others are home), so that the six-point block
  // is legal (L5).
  // WHEN the mover holds its 6..11 (the opponent's 18..23, the six points in front of
  // its head) or five scattered points in the same stretch
  const position prime = nb("mover: 24:3 11:2 10:2 9:2 8:2 7:2 6:2 | opponent: 24:14 1:1");
  const position scattered = nb("mover: 24:5 11:2 9:2 7:2 5:2 3:2 | opponent: 24:14 1:1");
  // THEN the prime traps all 14 head checkers, the scattered points hardly any
  CHECK(trapped_checkers(prime.mover_side(), prime.opponent_side()) == Approx(14.0));
  CHECK(trapped_checkers(scattered.mover_side(), scattered.opponent_side()) < 1.0);
  // AND the prime leaves the opponent without a move: every pip of its roll is lost
  CHECK(unplayable_pips(prime.mover_side(), prime.opponent_side()) == Approx(49.0 / 6.0));
  const auto with_prime = evaluate_long(prime);
  const auto without = evaluate_long(scattered);
  CHECK(with_prime.blocking + with_prime.mobility > without.blocking + without.mobility + 20.0);
}

TEST_CASE("bots: no pip is lost while every die moves some checker", "[bots][evaluation]") {
  const position start = position::starting(nardy);
  CHECK(unplayable_pips(start.opponent_side(), start.mover_side()) == 0.0);
}

TEST_CASE("bots: L2 a die whose landing points are all taken is lost, the others are not",
          "[bots][evaluation]") {
  // GIVEN the mover's only checkers on its head (24) and the opponent on the mover's
  // 18 (its own 6): the mover's sixes cannot be played.
  const position p = nb("mover: 24:15 | opponent: 6:15");
  // THEN of the 36 rolls: 11 hold a six; each loses 6 pips, 6-6 loses four sixes (24).
  const double expected = (10 * 6 + 24) / 36.0;
  CHECK(unplayable_pips(p.opponent_side(), p.mover_side()) == Approx(expected));
}

TEST_CASE("bots: Keith's wastage counts stacks on the low points and gaps on the high ones",
          "[bots][evaluation]") {
  const position deep = nb("mover: 1:15 | opponent: 24:15");
  // 2 x 14 beyond the first on point 1, and points 4, 5, 6 empty.
  CHECK(bear_off_wastage(deep.mover_side()) == 31);
  const position smooth = nb("mover: 6:3 5:3 4:3 3:3 2:2 1:1 | opponent: 24:15");
  CHECK(bear_off_wastage(smooth.mover_side()) == 1);  // one beyond the first on point 2
}

TEST_CASE("bots: L6 bearing off two checkers beats moving one inside with the same pips",
          "[bots][evaluation]") {
  // 6-5 from 6:5 5:5 4:5: 6/off 5/off (13 left) or 6/1 6/off (14 left, one on point 1).
  const position p = nb("mover: 6:5 5:5 4:5 | opponent: 6:15");
  const position two_off = bg::test::after(p, "6/off 5/off", nardy);
  const position one_off = bg::test::after(p, "6/1 6/off", nardy);
  CHECK(evaluate_long(two_off).score > evaluate_long(one_off).score);
}

TEST_CASE("bots: L3 a checker left on the head counts against its side", "[bots][evaluation]") {
  // The same checkers and pips; one position took a checker off the head.
  const position off_head = nb("mover: 24:9 21:1 18:5 | opponent: 24:10 20:5");
  const position on_head = nb("mover: 24:10 18:4 15:1 | opponent: 24:10 20:5");
  REQUIRE(off_head.mover_pip_count() == on_head.mover_pip_count());
  CHECK(evaluate_long(off_head).head > evaluate_long(on_head).head);
}

TEST_CASE("bots: the side on roll wins an even race more often than not", "[bots][evaluation]") {
  CHECK(race_win_probability(0, 200) > 0.5);
  CHECK(race_win_probability(0, 200) < 0.6);
  // Half a roll behind, the roller's chances are even.
  CHECK(race_win_probability(-49.0 / 12.0, 200) == Approx(0.5));
  // More pips behind, fewer chances; the same lead weighs more in a shorter race.
  CHECK(race_win_probability(-10, 200) < race_win_probability(-5, 200));
  CHECK(race_win_probability(10, 60) > race_win_probability(10, 300));
}

TEST_CASE("bots: contact lasts until both sides are on their own points 1..12",
          "[bots][evaluation]") {
  CHECK(in_contact(position::starting(nardy)));
  // Both sides past each other: the mover on its 1..12, the opponent on its 1..12.
  const position race = nb("mover: 12:5 6:10 | opponent: 12:5 3:10");
  CHECK_FALSE(in_contact(race));
  CHECK_FALSE(evaluate_long(race).contact);
  // One of the mover's checkers still on its 13, the opponent's 1: the opponent's
  // checkers on its 3..12 must still pass it.
  CHECK(in_contact(nb("mover: 13:1 12:4 6:10 | opponent: 12:5 3:10")));
}

TEST_CASE("bots: the chances add up and mars never exceeds the win", "[bots][evaluation]") {
  // Positions of a seeded random game, each evaluated for the side that just played.
  std::uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((state >> 33) % 6) + 1;
  };
  position p = position::starting(nardy);
  play_list plays;
  for (int turn = 0; turn < 400 && p.mover(off_index) < 15 && p.opponent(off_index) < 15; ++turn) {
    legal_plays(p, roll{next(), next()}, nardy, plays);
    if (!plays.empty()) p = plays[static_cast<std::size_t>(next() - 1) % plays.size()].result;
    const long_evaluation e = evaluate_long(p);
    INFO(bg::test::to_text(p));
    CHECK(e.win >= 0.0);
    CHECK(e.win <= 1.0);
    CHECK(e.win_mars >= 0.0);
    CHECK(e.win_mars <= e.win + 1e-12);
    CHECK(e.lose_mars >= 0.0);
    CHECK(e.lose_mars <= 1.0 - e.win + 1e-12);
    CHECK(std::abs(e.equity()) <= 2.0);
    // Seen from the other side, before its roll, it is the same game turned round.
    const long_evaluation other = evaluate_long_on_roll(p.swapped());
    CHECK(other.win == Approx(1.0 - e.win));
    CHECK(other.win_mars == Approx(e.lose_mars));
    CHECK(other.score == Approx(-e.score));
    p = p.swapped();
  }
}

TEST_CASE("bots: L7 no mars once the loser has borne off a checker", "[bots][evaluation]") {
  // The opponent is far behind but has one checker off: the mover can win only a
  // single game (oyn).
  const position p = nb("mover: 1:2 | opponent: 24:5 20:9");
  const long_evaluation e = evaluate_long(p);
  CHECK(e.win > 0.99);
  CHECK(e.win_mars == 0.0);
  // Without that checker off, the same race is almost surely a mars.
  const long_evaluation m = evaluate_long(nb("mover: 1:2 | opponent: 24:6 20:9"));
  CHECK(m.win_mars > 0.9);
}

TEST_CASE("bots: R11 L7 a finished game's chances are certainties", "[bots][evaluation]") {
  // The mover has borne off its last checker: a mars when the opponent has none off.
  const long_evaluation mars = evaluate_long(nb("mover: | opponent: 6:15"));
  CHECK(mars.win == 1.0);
  CHECK(mars.win_mars == 1.0);
  CHECK(mars.lose_mars == 0.0);
  CHECK(mars.equity() == 2.0);
  const long_evaluation oyn = evaluate_long(nb("mover: | opponent: 6:14"));
  CHECK(oyn.win == 1.0);
  CHECK(oyn.win_mars == 0.0);
  CHECK(oyn.equity() == 1.0);
  // Seen by the loser, before its (never to come) roll.
  CHECK(evaluate_long_on_roll(nb("mover: 6:15 | opponent:")).equity() == -2.0);
}
