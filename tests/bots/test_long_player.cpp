// The long nardy bot (bots/include/bg/bots/long_player.hpp): whole games against a
// random player with every play checked against the engine, its choices in
// hand-built positions, and what it answers a table (cube, resignation, basis).
// Positions are written with the engine tests' builder, each side in its own numbering
// (24 -> 1, the head on 24); in a restored match the position is seen by the side on
// turn.

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>

#include "bg/bots/long_evaluation.hpp"
#include "bg/bots/long_player.hpp"
#include "bg/bots/situation.hpp"
#include "bg/engine/dice_source.hpp"
#include "bg/engine/game.hpp"
#include "bg/engine/match.hpp"
#include "bg/engine/move_generator.hpp"
#include "bg/engine/notation.hpp"
#include "position_builder.hpp"

using namespace bg::engine;
using namespace bg::bots;
using bg::test::build;
using bg::test::nardy;
using bg::test::nb;

namespace {

/// Carries out a command line the bot gave, through the engine's own commands (the
/// same checks a table applies): returns the engine's error text, or "" when accepted.
std::string apply(match& m, side s, const std::string& command, dice_source& dice) {
  const auto why = [](const auto& r) {
    return r ? std::string() : r.err().code + ": " + r.err().message;
  };
  if (command == "/roll") {
    if (m.phase() == match_phase::opening) return why(m.roll_opening(dice));
    return why(m.roll_dice(s, dice));
  }
  if (command == "/double") return why(m.offer_double(s));
  if (command == "/take") return why(m.take(s));
  if (command == "/drop") return why(m.drop(s));
  if (command == "/accept") return why(m.accept_resignation(s));
  if (command == "/reject") return why(m.reject_resignation(s));
  if (command == "/continue") return why(m.continue_session(s));
  if (command == "/stop") return why(m.stop_session(s));
  if (command.rfind("/move ", 0) == 0) return why(m.make_play(s, command.substr(6)));
  return "not a command: " + command;
}

/// A match restored at the start of `turn`'s turn (phase roll), `p` seen by `turn`.
match at_roll(match_options o, side turn, const position& p, cube c = {},
              std::array<int, 2> score = {0, 0}, bool crawford_game = false,
              bool crawford_done = false) {
  auto g = game::restore(nardy, game_phase::roll, turn, roll{}, p, 20, std::nullopt);
  REQUIRE(g.ok());
  return match::restore(o, match_phase::roll, *g, c, score, 2, crawford_game, crawford_done,
                        std::nullopt, {false, false}, {});
}

/// The same match with a double offered by `doubler` (who is on turn).
match double_offered(match_options o, side doubler, const position& p, cube c = {},
                     std::array<int, 2> score = {0, 0}) {
  match m = at_roll(o, doubler, p, c, score);
  REQUIRE(m.offer_double(doubler).ok());
  return m;
}

/// The same match with `resigner` (on turn) offering to resign `kind`.
match resignation_offered(match_options o, side resigner, const position& p, win_kind kind) {
  match m = at_roll(o, resigner, p);
  REQUIRE(m.offer_resignation(resigner, kind).ok());
  return m;
}

const match_options money{nardy, match_kind::basis, 0};
const match_options free_game{nardy, match_kind::free_play, 0};
match_options points(int length) {
  return match_options{nardy, match_kind::points, length};
}

}  // namespace

// ---------------------------------------------------------------------------------
// Whole games

TEST_CASE(
    "the long bot plays 100 seeded games against a random player with only "
    "legal plays and wins at least 90",
    "[bots][player]") {
  const long_player bot;  // the default a table seat uses
  int bot_wins = 0;
  for (int n = 0; n < 100; ++n) {
    seeded_dice dice(static_cast<std::uint64_t>(1000 + n));
    std::mt19937_64 random_choice(static_cast<std::uint64_t>(n));
    const side me = n % 2 == 0 ? side::red : side::black;
    match m(free_game);
    int actions = 0;
    while (m.phase() != match_phase::match_over) {
      REQUIRE(++actions < 2000);
      const auto& g = m.current_game();
      if (m.phase() == match_phase::opening) {
        REQUIRE(bot.next_command(m, me) == std::optional<std::string>("/roll"));
        REQUIRE(m.roll_opening(dice).ok());
        continue;
      }
      const side s = g.turn();
      if (s != me) {
        CHECK_FALSE(bot.next_command(m, me).has_value());  // not the bot's turn
        if (m.phase() == match_phase::roll) {
          REQUIRE(m.roll_dice(s, dice).ok());
        } else {
          std::uniform_int_distribution<std::size_t> pick(0, g.legal().size() - 1);
          REQUIRE(m.make_play(s, pick(random_choice)).ok());
        }
        continue;
      }
      const auto command = bot.next_command(m, me);
      REQUIRE(command.has_value());
      if (m.phase() == match_phase::roll) {
        REQUIRE(*command == "/roll");  // free play has no cube (R12)
        REQUIRE(m.roll_dice(me, dice).ok());
        continue;
      }
      // The play: written as the bot wrote it, matched by the engine's notation reader,
      // and its result found among the legal plays generated afresh for this roll.
      const position before = g.current();
      const roll dice_now = g.dice();
      REQUIRE(command->rfind("/move ", 0) == 0);
      INFO("game " << n << ", " << bg::test::to_text(before) << ", roll " << dice_now.die1 << "-"
                   << dice_now.die2 << ": " << *command);
      const play_list fresh = legal_plays(before, dice_now, nardy);
      REQUIRE(m.make_play(me, command->substr(6)).ok());
      const position after = m.current_game().seen_by(me);
      CHECK(after.is_ok(nardy));
      CHECK(fresh.find(after) >= 0);
    }
    if (m.results().back().winner == me) ++bot_wins;
  }
  CHECK(bot_wins >= 90);
}

TEST_CASE("bots: every command the bots give each other in matches and basis sessions is legal",
          "[bots][player]") {
  // Both sides the one-ply bot, with the cube: matches to 3 and 5, and basis sessions
  // of a few games (the bots always continue; the test stops the session).
  const long_player bot({7, 1});
  const match_options kind = GENERATE(points(3), points(5), money);
  int doubles = 0;
  int takes = 0;
  int drops = 0;
  for (int n = 0; n < 8; ++n) {
    seeded_dice dice(static_cast<std::uint64_t>(77 + n));
    match m(kind);
    int actions = 0;
    while (m.phase() != match_phase::match_over && m.game_number() <= 4) {
      REQUIRE(++actions < 5000);
      const side s = m.to_act().value_or(side::red);
      if (m.phase() == match_phase::game_over) {
        for (const side each : {side::red, side::black}) {
          const auto command = bot.next_command(m, each);
          REQUIRE(command == std::optional<std::string>("/continue"));
          if (m.phase() == match_phase::game_over) REQUIRE(apply(m, each, *command, dice).empty());
        }
        continue;
      }
      const auto command = bot.next_command(m, s);
      REQUIRE(command.has_value());
      doubles += *command == "/double";
      takes += *command == "/take";
      drops += *command == "/drop";
      INFO("phase " << to_string(m.phase()) << ": " << *command);
      REQUIRE(apply(m, s, *command, dice).empty());
    }
  }
  // The cube was in play: offered and taken.
  INFO("doubles " << doubles << ", takes " << takes << ", drops " << drops);
  CHECK(doubles > 0);
  CHECK(takes > 0);
}

TEST_CASE("bots: the same seed gives the same plays, another seed only changes ties",
          "[bots][player]") {
  const long_player first({42, 1});
  const long_player again({42, 1});
  const long_player other({43, 1});
  std::mt19937_64 rng(3);
  seeded_dice dice(9);
  position p = position::starting(nardy);
  play_list legal;
  for (int turn = 0; turn < 150; ++turn) {
    legal_plays(p, dice.roll_dice(), nardy, legal);
    if (legal.empty()) {
      p = p.swapped();
      continue;
    }
    const std::size_t a = first.choose_play(p, legal);
    CHECK(again.choose_play(p, legal) == a);
    const std::size_t b = other.choose_play(p, legal);
    CHECK(evaluate_long(legal[b].result).equity() ==
          Approx(evaluate_long(legal[a].result).equity()));
    // One ply: no play evaluates better than the chosen one.
    for (const play& candidate : legal)
      CHECK(evaluate_long(candidate.result).equity() <=
            evaluate_long(legal[a].result).equity() + 1e-9);
    p = legal[rng() % legal.size()].result;
    if (p.mover(off_index) == checkers_per_side) break;
    p = p.swapped();
  }
}

// ---------------------------------------------------------------------------------
// Choices

TEST_CASE(
    "bots: L3 the bot takes a checker off the head when another play would only "
    "shuffle the others",
    "[bots][player]") {
  const position p = nb("mover: 24:10 18:5 | opponent: 24:10 20:5");
  const play_list legal = legal_plays(p, roll{3, 2}, nardy);
  for (const int plies : {1, 2}) {
    const long_player bot({1, plies});
    INFO(plies << " plies");
    CHECK(legal[bot.choose_play(p, legal)].result.mover(24) == 9);
  }
}

TEST_CASE("bots: L6 the bot bears off two checkers rather than moving one inside",
          "[bots][player]") {
  const position p = nb("mover: 6:5 5:5 4:5 | opponent: 6:15");
  const play_list legal = legal_plays(p, roll{6, 5}, nardy);
  REQUIRE(legal.size() == 2);
  for (const int plies : {1, 2}) {
    const long_player bot({1, plies});
    INFO(plies << " plies");
    CHECK(legal[bot.choose_play(p, legal)].result.mover(off_index) == 2);
  }
}

TEST_CASE(
    "bots: L5 the bot closes six points in front of the opponent's head when a checker "
    "of it is ahead",
    "[bots][player]") {
  // GIVEN the mover's five points 7..11 (the opponent's 19..23, just in front of its
  // head) and a spare on 10; the opponent has checkers ahead (its 14 and 1), so a block
  // of six is legal (L5). WHEN the roll is 6-4: 10/6 closes the sixth point (the
  // opponent's 18); 24/18 ... would leave the head instead.
  const position p = nb("mover: 24:8 11:2 10:2 9:1 8:1 7:1 | opponent: 24:13 14:1 1:1");
  const play_list legal = legal_plays(p, roll{4, 3}, nardy);
  for (const int plies : {1, 2}) {
    const long_player bot({1, plies});
    const position after = legal[bot.choose_play(p, legal)].result;
    INFO(plies << " plies: " << bg::test::to_text(after));
    for (int point = 6; point <= 11; ++point) CHECK(after.mover(point) > 0);
  }
}

// ---------------------------------------------------------------------------------
// The cube (R14, R15) and resignations (R18)

TEST_CASE("bots: R14 at money the bot doubles a race it has all but won, and the opponent drops",
          "[bots][cube]") {
  // Red on roll needs 16 pips, black 56 with five checkers off (no mars possible, L7).
  const position p = nb("mover: 3:4 2:2 | opponent: 6:6 5:4");
  const long_player bot;
  match m = at_roll(money, side::red, p);
  CHECK(bot.wants_double(m, side::red));
  CHECK(bot.next_command(m, side::red) == std::optional<std::string>("/double"));
  REQUIRE(m.offer_double(side::red).ok());
  CHECK_FALSE(bot.wants_take(m, side::black));
  CHECK(bot.next_command(m, side::black) == std::optional<std::string>("/drop"));
}

TEST_CASE("bots: R14 an even race is no double, and a double there is taken", "[bots][cube]") {
  const position p = nb("mover: 6:5 5:5 4:5 | opponent: 6:5 5:5 4:5");
  const long_player bot;
  const match m = at_roll(money, side::red, p);
  CHECK_FALSE(bot.wants_double(m, side::red));
  CHECK(bot.next_command(m, side::red) == std::optional<std::string>("/roll"));
  const match offered = double_offered(money, side::red, p);
  CHECK(bot.wants_take(offered, side::black));
  CHECK(bot.next_command(offered, side::black) == std::optional<std::string>("/take"));
}

TEST_CASE("bots: R14 too good to double: the bot plays on for a mars it is sure of",
          "[bots][cube]") {
  // Red needs three pips; black has all 15 checkers outside its home board and none
  // off: cashing one point would give away the mars (two, L7).
  const position p = nb("mover: 1:3 | opponent: 12:15");
  const long_player bot;
  const match m = at_roll(money, side::red, p);
  CHECK(evaluate_long_on_roll(p).win_mars > 0.9);
  CHECK_FALSE(bot.wants_double(m, side::red));
}

TEST_CASE("bots: R15 the bot never doubles in the Crawford game", "[bots][cube]") {
  const position p = nb("mover: 3:4 2:2 | opponent: 6:6 5:4");
  const long_player bot;
  const match m = at_roll(points(5), side::red, p, {}, {3, 4}, true, false);
  REQUIRE_FALSE(m.may_double(side::red));
  CHECK_FALSE(bot.wants_double(m, side::red));
  CHECK(bot.next_command(m, side::red) == std::optional<std::string>("/roll"));
}

TEST_CASE("bots: R15 after the Crawford game the trailer doubles at once, the leader never",
          "[bots][cube]") {
  const position even = position::starting(nardy);
  const long_player bot;
  // Match to 5: red trails 0-4 after the Crawford game.
  const match trailer = at_roll(points(5), side::red, even, {}, {0, 4}, false, true);
  CHECK(bot.wants_double(trailer, side::red));
  // Black leads 4-0 (one point away): a double cannot gain it anything.
  const match leader = at_roll(points(5), side::black, even, {}, {0, 4}, false, true);
  CHECK_FALSE(bot.wants_double(leader, side::black));
}

TEST_CASE("bots: R14 in a match the bot drops a double it is too far behind to take",
          "[bots][cube]") {
  // Match to 7 at 0-0: black (to answer) needs 56 pips against red's 16, on roll.
  const position p = nb("mover: 3:4 2:2 | opponent: 6:6 5:4");
  const long_player bot;
  const match m = double_offered(points(7), side::red, p);
  CHECK_FALSE(bot.wants_take(m, side::black));
  // The same double in an even race is taken.
  const match even =
      double_offered(points(7), side::red, nb("mover: 6:5 5:5 4:5 | opponent: 6:5 5:5 4:5"));
  CHECK(bot.wants_take(even, side::black));
}

TEST_CASE(
    "bots: R18 the bot accepts a resignation worth what it would win, and rejects one "
    "that gives away its mars",
    "[bots][resign]") {
  // Black (to answer) needs three pips; red, resigning, has nothing off and nothing
  // home: black is sure of a mars (L7).
  const position p = nb("mover: 12:15 | opponent: 1:3");
  const long_player bot;
  const match single = resignation_offered(money, side::red, p, win_kind::single);
  CHECK_FALSE(bot.accepts_resignation(single, side::black));
  CHECK(bot.next_command(single, side::black) == std::optional<std::string>("/reject"));
  const match mars = resignation_offered(money, side::red, p, win_kind::gammon);
  CHECK(bot.accepts_resignation(mars, side::black));
  CHECK(bot.next_command(mars, side::black) == std::optional<std::string>("/accept"));
}

TEST_CASE("bots: R18 the bot accepts any resignation from a side that is winning anyway",
          "[bots][resign]") {
  // Red, resigning, needs 16 pips against black's 56: a single game is a gift.
  const position p = nb("mover: 3:4 2:2 | opponent: 6:6 5:4");
  const long_player bot;
  CHECK(bot.accepts_resignation(resignation_offered(money, side::red, p, win_kind::single),
                                side::black));
  CHECK(bot.accepts_resignation(resignation_offered(points(7), side::red, p, win_kind::single),
                                side::black));
}

TEST_CASE("bots: R12 in free play the bot accepts every resignation (the points only shrink)",
          "[bots][resign]") {
  const position p = nb("mover: 12:15 | opponent: 1:3");
  const long_player bot;
  CHECK(bot.accepts_resignation(resignation_offered(free_game, side::red, p, win_kind::single),
                                side::black));
}

TEST_CASE("bots: R16 the bot continues a basis session once after each game", "[bots][player]") {
  const position p = nb("mover: 1:1 | opponent: 12:15");
  auto g = game::restore(nardy, game_phase::move, side::red, roll{2, 1}, p, 40, std::nullopt);
  REQUIRE(g.ok());
  match m = match::restore(money, match_phase::move, *g, {}, {0, 0}, 1, false, false, std::nullopt,
                           {false, false}, {});
  const long_player bot;
  seeded_dice dice(1);
  const auto play = bot.next_command(m, side::red);
  REQUIRE(play == std::optional<std::string>("/move 1/off"));
  REQUIRE(apply(m, side::red, *play, dice).empty());
  REQUIRE(m.phase() == match_phase::game_over);
  CHECK(bot.wants_to_continue(m, side::black));
  const auto answer = bot.next_command(m, side::black);
  REQUIRE(answer == std::optional<std::string>("/continue"));
  REQUIRE(apply(m, side::black, *answer, dice).empty());
  CHECK_FALSE(bot.next_command(m, side::black).has_value());  // said it already
}

TEST_CASE("bots: the bot says nothing when nothing is asked of it", "[bots][player]") {
  const long_player bot;
  const position p = position::starting(nardy);
  // Red's turn: black waits.
  const match m = at_roll(money, side::red, p);
  CHECK_FALSE(bot.next_command(m, side::black).has_value());
  // A double offered by red: red waits for the answer.
  CHECK_FALSE(bot.next_command(double_offered(money, side::red, p), side::red).has_value());
  // Standard backgammon is not its game (gnubg plays it).
  const match standard(match_options{variant::standard, match_kind::free_play, 0});
  CHECK_FALSE(bot.next_command(standard, side::red).has_value());
}

// ---------------------------------------------------------------------------------
// A table's question (issue 14: the long bot at a table is asked through a situation)

TEST_CASE(
    "a table's question holds all the long bot decides on: the match rebuilt from "
    "it gives the same command at every decision",
    "[bots][player][situation]") {
  // Two one-ply bots with the cube: matches to 3 and 5 and basis sessions, with a
  // resignation offered now and then, so every question a table asks comes up. At each
  // decision the bot's answer to the match itself and to the match rebuilt from
  // situation_of() (what a table sends it) must be the same.
  const long_player bot({11, 1});
  const match_options kind = GENERATE(points(3), points(5), money, free_game);
  std::mt19937_64 rng(5);
  std::map<question, int> asked;
  for (int n = 0; n < 6; ++n) {
    seeded_dice dice(static_cast<std::uint64_t>(300 + n));
    match m(kind);
    int actions = 0;
    while (m.phase() != match_phase::match_over && m.game_number() <= 3) {
      REQUIRE(++actions < 5000);
      if (m.phase() == match_phase::opening) {
        REQUIRE(m.roll_opening(dice).ok());
        continue;
      }
      if (m.phase() == match_phase::game_over) {
        for (const side each : {side::red, side::black})
          if (m.phase() == match_phase::game_over) REQUIRE(m.continue_session(each).ok());
        continue;
      }
      const side s = *m.to_act();
      // Now and then the side to roll offers to resign instead (R18).
      if (m.phase() == match_phase::roll && rng() % 40 == 0) {
        REQUIRE(m.offer_resignation(s, rng() % 2 == 0 ? win_kind::single : win_kind::gammon).ok());
        continue;
      }
      const auto asked_now = situation_of(m, s);
      REQUIRE(asked_now.has_value());
      CHECK_FALSE(situation_of(m, opponent_of(s)).has_value());  // nothing asked of the other
      ++asked[asked_now->asked];
      const auto rebuilt = match_of(*asked_now);
      REQUIRE(rebuilt.ok());
      const auto command = bot.next_command(m, s);
      REQUIRE(command.has_value());
      INFO("phase " << to_string(m.phase()) << ", position "
                    << bg::test::to_text(m.current_game().current()));
      CHECK(bot.next_command(*rebuilt, s) == command);
      CHECK(rebuilt->phase() == m.phase());
      CHECK(rebuilt->to_act() == m.to_act());
      CHECK(rebuilt->may_double(s) == m.may_double(s));
      if (m.phase() == match_phase::move)
        CHECK(asked_now->legal == m.current_game().legal_notations());
      REQUIRE(apply(m, s, *command, dice).empty());
    }
  }
  if (kind.kind != match_kind::free_play) {
    CHECK(asked[question::double_or_roll] > 0);
    CHECK(asked[question::take_or_drop] > 0);
  }
  CHECK(asked[question::play] > 0);
  CHECK(asked[question::accept_or_reject] > 0);
}

TEST_CASE("a question the position cannot answer is refused with bad_state",
          "[bots][player][situation]") {
  situation s;
  s.asked = question::play;
  s.game_variant = nardy;
  s.position = position::starting(nardy);
  s.dice = roll{0, 0};  // a play without dice
  const auto m = match_of(s);
  REQUIRE_FALSE(m.ok());
  CHECK(m.err().code == "bad_state");
  s.asked = question::double_or_roll;
  s.kind = match_kind::points;
  s.match_length = 0;  // a match to no points
  CHECK(match_of(s).err().code == "bad_state");
}
