// Properties over many random games, from fixed seeds so every failure replays.
//
// Each game starts from the variant's starting position; dice come from seeded_dice and
// each turn picks uniformly among the legal plays with a seeded std::mt19937_64. After
// every play the checks below are made with the test's own code (position_builder's
// applier, an independent six-block check), not with the engine's internals.

#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <set>
#include <string>

#include "bg/engine/board.hpp"
#include "bg/engine/dice_source.hpp"
#include "bg/engine/match.hpp"
#include "bg/engine/match_id.hpp"
#include "bg/engine/move_generator.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/position_id.hpp"
#include "position_builder.hpp"

using namespace bg::engine;
using bg::test::after;
using bg::test::to_text;

namespace {

/// What a visitor sees at every turn of a random game.
struct turn_view {
  const position& before;
  roll dice;
  const play_list& plays;
  int turn;
};

/// Plays `games` random games of `v`; calls `visit` at every turn; returns the number
/// of games that ended (all 15 of a side off) within `max_turns` turns.
int random_games(variant v, std::uint64_t seed, int games, int max_turns,
                 const std::function<void(const turn_view&)>& visit) {
  seeded_dice dice(seed);
  std::mt19937_64 choose(seed ^ 0x5eedU);
  int ended = 0;
  for (int g = 0; g < games; ++g) {
    position pos = position::starting(v);
    for (int turn = 0; turn < max_turns; ++turn) {
      const roll r = dice.roll_dice();
      const play_list plays = legal_plays(pos, r, v);
      visit(turn_view{pos, r, plays, turn});
      if (!plays.empty()) {
        std::uniform_int_distribution<std::size_t> pick(0, plays.size() - 1);
        pos = plays[pick(choose)].result;
      }
      if (pos.mover(off_index) == checkers_per_side) {
        ++ended;
        break;
      }
      pos = pos.swapped();
    }
  }
  return ended;
}

/// Sum of a side's checkers, off and bar included.
int checkers(const side_checkers& s) {
  int n = 0;
  for (auto c : s) n += c;
  return n;
}

/// True when some point holds checkers of both sides under v's geometry.
bool shared_point(const position& p, variant v) {
  for (int m = 1; m <= 24; ++m)
    if (p.mover(m) > 0 && p.opponent(opponent_point(v, m)) > 0) return true;
  return false;
}

/// The play's checker moves written as text for the applier ("24/18 13/11 bar/22").
std::string moves_text(const play& pl) {
  std::string out;
  for (int i = 0; i < pl.count; ++i) {
    const checker_move m = pl.moves[static_cast<std::size_t>(i)];
    auto name = [](int p) {
      return p == bar_index ? std::string("bar") : p == 0 ? std::string("off") : std::to_string(p);
    };
    out += (i ? " " : "") + name(m.from) + "/" + name(m.to);
  }
  return out;
}

/// True when the moves can be paid with the dice of `r`: a move to a point uses the
/// exact die; a bear-off uses its exact die or, failing that, a larger one (R10.3).
bool dice_pay_for(const play& pl, roll r) {
  std::multiset<int> dice{r.die1, r.die2};
  if (r.is_double()) dice = {r.die1, r.die1, r.die1, r.die1};
  std::vector<int> off_from;
  for (int i = 0; i < pl.count; ++i) {
    const checker_move m = pl.moves[static_cast<std::size_t>(i)];
    if (m.from <= m.to) return false;  // R4: forward only
    if (m.to == 0) {
      off_from.push_back(m.from);
      continue;
    }
    const auto it = dice.find(m.from - m.to);
    if (it == dice.end()) return false;
    dice.erase(it);
  }
  for (int from : off_from) {
    auto it = dice.lower_bound(from);  // the exact die, else the smallest larger one
    if (it == dice.end()) return false;
    dice.erase(it);
  }
  return true;
}

/// L5, written independently: the mover holds six consecutive points along the
/// opponent's path (mover's 12, 11, ..., 1, 24, ..., 13) with no opposing checker
/// further along that path and none borne off.
bool forbidden_block(const position& p) {
  constexpr auto v = variant::long_nardy;
  if (p.opponent(off_index) > 0) return false;
  std::array<int, 24> path{};  // path[k]: the mover's point at step k of the path
  for (int k = 0; k < 24; ++k) path[static_cast<std::size_t>(k)] = k < 12 ? 12 - k : 36 - k;
  for (int k = 0; k + 6 <= 24; ++k) {
    bool held = true;
    for (int j = k; j < k + 6; ++j) held = held && p.mover(path[static_cast<std::size_t>(j)]) > 0;
    if (!held) continue;
    bool ahead = false;
    for (int j = k + 6; j < 24; ++j)
      ahead = ahead || p.opponent(opponent_point(v, path[static_cast<std::size_t>(j)])) > 0;
    if (!ahead) return true;
  }
  return false;
}

/// The board with colours swapped and reflected (standard: board point b becomes
/// 25 - b) or turned half round (long nardy: b becomes b + 12 mod 24), the symmetry
/// that maps each side's own numbering onto the other's.
board_view mirrored(const board_view& b, variant v) {
  board_view m;
  for (std::size_t i = 0; i < 24; ++i) {
    const std::size_t j = v == variant::standard ? 23 - i : (i + 12) % 24;
    m.points[j] = -b.points[i];
  }
  m.bar = {b.bar[1], b.bar[0]};
  m.off = {b.off[1], b.off[0]};
  m.pips = {b.pips[1], b.pips[0]};
  return m;
}

}  // namespace

// ---------------------------------------------------------------------------------

TEST_CASE("Property: 15 checkers a side and no shared point after every play",
          "[property][rules]") {
  const variant v = GENERATE(variant::standard, variant::long_nardy);
  long plays_seen = 0;
  random_games(v, 1001, 120, 3000, [&](const turn_view& t) {
    for (const play& pl : t.plays) {
      ++plays_seen;
      const bool ok = checkers(pl.result.mover_side()) == 15 &&
                      checkers(pl.result.opponent_side()) == 15 && !shared_point(pl.result, v) &&
                      pl.result.is_ok(v);
      if (!ok) {
        FAIL_CHECK("bad result " << to_text(pl.result) << " from " << to_text(t.before));
        return;
      }
    }
  });
  CHECK(plays_seen > 10000);
}

TEST_CASE("Property: every play's result is reached by its listed checker moves",
          "[property][rules]") {
  // The applier makes the listed moves one by one (hitting blots in standard, refusing
  // to land on any opposing checker in long nardy, L2); the dice must pay for them.
  const variant v = GENERATE(variant::standard, variant::long_nardy);
  long checked = 0;
  random_games(v, 2002, 120, 3000, [&](const turn_view& t) {
    for (const play& pl : t.plays) {
      const std::string text = moves_text(pl);
      std::string got;
      try {
        got = to_text(after(t.before, text, v));
      } catch (const std::exception& e) {
        got = std::string("refused: ") + e.what();
      }
      if (got != to_text(pl.result) || pl.count != t.plays.dice_used() ||
          !dice_pay_for(pl, t.dice)) {
        FAIL_CHECK("position " << to_text(t.before) << ", roll " << t.dice.die1 << "-"
                               << t.dice.die2 << ", moves " << text << " give " << got
                               << ", listed result " << to_text(pl.result));
        return;
      }
      ++checked;
    }
  });
  CHECK(checked > 10000);
}

TEST_CASE("Property: Position IDs round-trip for every position reached", "[property][codec]") {
  const variant v = GENERATE(variant::standard, variant::long_nardy);
  long checked = 0;
  random_games(v, 3003, 100, 3000, [&](const turn_view& t) {
    for (const position& p : {t.before, t.before.swapped()}) {
      const std::string id = position_id(p);
      const auto back = position_from_id(id, v);
      if (id.size() != 14 || !back.ok() || !(*back == p)) {
        FAIL_CHECK("position " << to_text(p) << " id " << id);
        return;
      }
      ++checked;
    }
  });
  CHECK(checked > 5000);
}

TEST_CASE("Property: Match IDs round-trip for valid field sets", "[property][codec]") {
  std::mt19937_64 rng(4004);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 5000; ++i) {
    match_id_fields f;
    f.cube = 1 << pick(0, 6);
    f.cube_owner = pick(-1, 1);
    f.player_on_roll = pick(0, 1);
    f.crawford = pick(0, 1) == 1;
    f.game_state = pick(0, 4);
    f.turn = pick(0, 1);
    f.double_offered = pick(0, 1) == 1;
    f.resign = pick(0, 3);
    if (pick(0, 1) == 1) {
      const int a = pick(1, 6);
      const int b = pick(1, 6);
      f.dice = {std::max(a, b), std::min(a, b)};  // gnubg writes the higher die first
    }
    f.match_length = pick(0, 64);
    f.score = {pick(0, 80), pick(0, 80)};
    f.jacoby = pick(0, 1) == 1;
    const std::string id = match_id(f);
    const auto back = match_id_from_string(id);
    INFO("id " << id);
    REQUIRE(id.size() == 12);
    REQUIRE(back.ok());
    REQUIRE(*back == f);
  }
}

TEST_CASE("Property: Match IDs of real match states decode and re-encode the same",
          "[property][codec]") {
  // Random matches to 7 with doubles (always taken) and random plays.
  std::mt19937_64 rng(5005);
  seeded_dice dice(5005);
  int matches_over = 0;
  for (int n = 0; n < 20; ++n) {
    match m(match_options{variant::standard, match_kind::points, 7});
    for (int step = 0; step < 20000 && m.phase() != match_phase::match_over; ++step) {
      const std::string id = m.id();
      const auto f = match_id_from_string(id);
      REQUIRE(f.ok());
      REQUIRE(match_id(*f) == id);
      CHECK(f->score == m.score());
      CHECK(f->cube == m.doubling_cube().value);
      CHECK(f->match_length == 7);
      CHECK(f->crawford == m.is_crawford_game());
      switch (m.phase()) {
        case match_phase::opening:
          REQUIRE(m.roll_opening(dice).ok());
          break;
        case match_phase::roll: {
          const side s = *m.to_act();
          if (m.may_double(s) && rng() % 8 == 0)
            REQUIRE(m.offer_double(s).ok());
          else
            REQUIRE(m.roll_dice(s, dice).ok());
          break;
        }
        case match_phase::cube_offered:
          if (rng() % 4 == 0)
            REQUIRE(m.drop(*m.to_act()).ok());
          else
            REQUIRE(m.take(*m.to_act()).ok());
          break;
        case match_phase::move: {
          const auto& legal = m.current_game().legal();
          std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
          REQUIRE(m.make_play(*m.to_act(), pick(rng)).ok());
          break;
        }
        default:
          FAIL("unexpected phase " << to_string(m.phase()));
      }
    }
    if (m.phase() == match_phase::match_over) ++matches_over;
  }
  CHECK(matches_over == 20);
}

TEST_CASE("Property: the mirrored position has the mirrored plays", "[property][board]") {
  // Swap the colours and reflect the board (standard) or turn it half round (long
  // nardy): the other colour to move then sees exactly the same own-numbered
  // position, and the mirror of every play's result is a play of the mirror.
  const variant v = GENERATE(variant::standard, variant::long_nardy);
  const side mover = GENERATE(side::red, side::black);
  long checked = 0;
  random_games(v, 6006, 40, 3000, [&](const turn_view& t) {
    const board_view board = to_board(t.before, mover, v);
    const auto mirror = from_board(mirrored(board, v), opponent_of(mover), v);
    if (!mirror || !(*mirror == t.before)) {
      FAIL_CHECK("mirror of " << to_text(t.before) << " is "
                              << (mirror ? to_text(*mirror) : std::string("invalid")));
      return;
    }
    std::set<std::string> expected;
    for (const play& pl : t.plays) {
      const auto r = from_board(mirrored(to_board(pl.result, mover, v), v), opponent_of(mover), v);
      expected.insert(r ? to_text(*r) : std::string("invalid"));
    }
    const auto got = bg::test::results_of(legal_plays(*mirror, t.dice, v));
    if (got != expected) {
      FAIL_CHECK("plays of the mirror of " << to_text(t.before) << " differ");
      return;
    }
    ++checked;
  });
  CHECK(checked > 1000);
}

TEST_CASE("Property: every game ends", "[property][rules]") {
  // A random game of standard backgammon or long nardy never runs forever: with these
  // seeds every one of the games bears off all 15 of a side within 2000 turns.
  const variant v = GENERATE(variant::standard, variant::long_nardy);
  const int games = 150;
  CHECK(random_games(v, 7007, games, 2000, [](const turn_view&) {}) == games);
}

TEST_CASE("Property L2 L3 L5: long nardy moves never land on, lock in or crowd off the head",
          "[property][long]") {
  // For every play, made move by move in the listed order: no move lands on an
  // opposing checker (L2), no move leaves a six-point block with no opposing checker
  // ahead (L5), and at most one checker leaves the head (two on a side's first turn
  // with 6-6, 4-4 or 3-3: L3).
  constexpr auto v = variant::long_nardy;
  long checked = 0;
  random_games(v, 8008, 150, 3000, [&](const turn_view& t) {
    const bool first_turn = t.before.mover(24) == 15;
    const bool special =
        t.dice.is_double() && (t.dice.die1 == 6 || t.dice.die1 == 4 || t.dice.die1 == 3);
    const int head_limit = first_turn && special ? 2 : 1;
    for (const play& pl : t.plays) {
      position p = t.before;
      int off_head = 0;
      for (int i = 0; i < pl.count; ++i) {
        const checker_move m = pl.moves[static_cast<std::size_t>(i)];
        if (m.to != 0 && p.opponent(opponent_point(v, m.to)) > 0) {
          FAIL_CHECK("L2: " << moves_text(pl) << " lands on an opposing checker in "
                            << to_text(t.before));
          return;
        }
        if (m.from == 24) ++off_head;
        p = after(p, moves_text(play{p, {m}, 1}), v);
        if (forbidden_block(p)) {
          FAIL_CHECK("L5: " << moves_text(pl) << " builds a block in " << to_text(t.before));
          return;
        }
      }
      if (off_head > head_limit) {
        FAIL_CHECK("L3: " << moves_text(pl) << " takes " << off_head << " off the head in "
                          << to_text(t.before));
        return;
      }
      ++checked;
    }
  });
  CHECK(checked > 10000);
}
