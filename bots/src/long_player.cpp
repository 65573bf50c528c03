#include "bg/bots/long_player.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>

#include "bg/bots/long_evaluation.hpp"
#include "bg/engine/notation.hpp"
#include "bg/engine/roll.hpp"

namespace bg::bots {

using engine::match;
using engine::match_kind;
using engine::match_phase;
using engine::position;
using engine::side;

namespace {

// ---------------------------------------------------------------------------------
// Choosing a play.

/// splitmix64's finaliser: spreads a seed and a position hash into a tie-break key.
std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// How one play ranks: by equity, then (where the chances saturate at 0 or 1) by the
/// lead in pips, then by the seeded key, so the order is total and reproducible.
struct ranking {
  double equity = -3.0;
  double score = 0.0;
  std::uint64_t key = 0;
  [[nodiscard]] bool better_than(const ranking& o) const noexcept {
    constexpr double same = 1e-9;
    if (equity > o.equity + same) return true;
    if (equity < o.equity - same) return false;
    if (score > o.score + same) return true;
    if (score < o.score - same) return false;
    return key < o.key;
  }
};

/// A standard normal deviate that is a function of `key` alone (Box-Muller over two
/// uniforms in (0, 1] drawn from the key).
double normal_of(std::uint64_t key) noexcept {
  constexpr double two_pow_53 = 9007199254740992.0;
  const double u1 = (static_cast<double>(mix(key) >> 11) + 1.0) / two_pow_53;
  const double u2 = static_cast<double>(mix(key ^ 0xD1B54A32D192ED03ULL) >> 11) / two_pow_53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

ranking rank_one_ply(const engine::play& p, const long_player_options& o) noexcept {
  const long_evaluation e = evaluate_long(p.result);
  const std::uint64_t hash = engine::hash_of(p.result);
  double equity = e.equity();
  // No noise on a play that wins the game: even a beginner sees the last checker off.
  const bool wins = p.result.mover(engine::off_index) == engine::checkers_per_side;
  if (o.noise > 0.0 && !wins) equity += o.noise * normal_of(o.seed ^ hash ^ 0x6A09E667F3BCC909ULL);
  return ranking{equity, e.score, mix(o.seed ^ hash)};
}

/// The equity for the side that played `after` (its mover) once the opponent has
/// answered every roll with the reply evaluate_long() likes best for it (21 rolls,
/// doubles weighing 1/36 and the others 2/36).
double two_ply_equity(const position& after, engine::play_list& replies) {
  // The play that bears off the last checker ends the game: nothing to answer.
  if (after.mover(engine::off_index) == engine::checkers_per_side)
    return evaluate_long(after).equity();
  const position theirs = after.swapped();
  double total = 0.0;
  for (const engine::roll r : engine::all_rolls()) {
    const double weight = r.is_double() ? 1.0 : 2.0;
    engine::legal_plays(theirs, r, engine::variant::long_nardy, replies);
    double mine = 0.0;
    if (replies.empty()) {  // R6.4: the opponent cannot move; the side rolls again
      mine = evaluate_long_on_roll(after).equity();
    } else {
      double best = -3.0;
      for (const auto& reply : replies) best = std::max(best, evaluate_long(reply.result).equity());
      mine = -best;
    }
    total += weight * mine;
  }
  return total / 36.0;
}

/// Plays searched one ply deeper with plies = 2.
constexpr std::size_t deeper_candidates = 4;

// ---------------------------------------------------------------------------------
// Cube and resignation decisions: the value of outcomes at the score.

/// Share of the games won that are mars, for the match equity table: a quarter, between
/// the 15 % of random players' games and the 29 % of the bot's games against itself
/// (gammon-tool selfplay --variant long).
constexpr double mars_share = 0.25;
constexpr int max_away = 64;

/// A match equity table for long nardy: the chance of winning the match from a score,
/// at the start of a game, each game won 50 % of the time and mars_share of wins
/// being mars. Before the Crawford game games are counted cubeless (one point, two for
/// a mars); the Crawford game has no cube (R15); after it the trailer doubles at once,
/// so each game is worth two points (four for a mars) to the trailer.
struct equity_table {
  /// post[b]: the leader's chance (1 point away) after the Crawford game, the trailer
  /// b away (post[0]: the trailer has won).
  std::array<double, max_away + 1> post{};
  /// crawford[b]: the leader's chance at the start of the Crawford game.
  std::array<double, max_away + 1> crawford{};
  /// pre[a][b]: the chance of the side a away against b away, both at least 2.
  std::array<std::array<double, max_away + 1>, max_away + 1> pre{};

  equity_table() {
    const double g = mars_share;
    post[0] = 0.0;
    post[1] = 0.5;
    for (int b = 2; b <= max_away; ++b)
      post[at(b)] = 0.5 + 0.5 * ((1 - g) * post[at(b - 2)] + g * post[at(b - 4)]);
    for (int b = 2; b <= max_away; ++b)
      crawford[at(b)] = 0.5 + 0.5 * ((1 - g) * post[at(b - 1)] + g * post[at(b - 2)]);
    // In order of a + b, so that the scores a game can lead to are known.
    for (int sum = 4; sum <= 2 * max_away; ++sum) {
      for (int a = 2; a <= max_away; ++a) {
        const int b = sum - a;
        if (b < 2 || b > max_away) continue;
        pre[at(a)][at(b)] =
            0.5 * (1 - g) * start(a - 1, b, false) + 0.5 * g * start(a - 2, b, false) +
            0.5 * (1 - g) * start(a, b - 1, false) + 0.5 * g * start(a, b - 2, false);
      }
    }
  }

  static std::size_t at(int i) noexcept { return static_cast<std::size_t>(std::max(i, 0)); }

  /// The chance of the side `a` points away against `b` away at the start of a game;
  /// `crawford_done`: the Crawford game has been played.
  [[nodiscard]] double start(int a, int b, bool crawford_done) const noexcept {
    if (a <= 0) return 1.0;
    if (b <= 0) return 0.0;
    a = std::min(a, max_away);
    b = std::min(b, max_away);
    if (a == 1 && b == 1) return 0.5;
    if (a == 1) return crawford_done ? post[at(b)] : crawford[at(b)];
    if (b == 1) return 1.0 - (crawford_done ? post[at(a)] : crawford[at(a)]);
    return pre[at(a)][at(b)];
  }
};

const equity_table& table() {
  static const equity_table t;
  return t;
}

/// The value for `s` of the game ending with `s` winning `points` (negative: losing).
/// Money (basis, free play): the points. A match: the chance of winning it afterwards.
double value_of(const match& m, side s, int points) {
  if (m.options().kind != match_kind::points) return points;
  const int n = m.options().length;
  const auto& score = m.score();
  const int mine = n - score[static_cast<std::size_t>(engine::index_of(s))];
  const int theirs = n - score[static_cast<std::size_t>(engine::index_of(engine::opponent_of(s)))];
  const bool crawford_done = m.crawford_done() || m.is_crawford_game();
  return points > 0 ? table().start(mine - points, theirs, crawford_done)
                    : table().start(mine, theirs + points, crawford_done);
}

/// The expected value for `s` of playing the game out at cube value `cube`, with the
/// chances of `e` (cubeless: nobody doubles again).
double value_at(const match& m, side s, const long_evaluation& e, int cube) {
  const double win_single = std::max(0.0, e.win - e.win_mars);
  const double lose_single = std::max(0.0, 1.0 - e.win - e.lose_mars);
  return win_single * value_of(m, s, cube) + e.win_mars * value_of(m, s, 2 * cube) +
         lose_single * value_of(m, s, -cube) + e.lose_mars * value_of(m, s, -2 * cube);
}

/// True when a double by the side `away` points from winning the match, to `cube`,
/// would still mean something to it: the cube can go that high (R14.4) and winning at
/// the present value does not already win the match.
bool cube_alive(const match& m, int away, int cube) {
  if (2 * cube > engine::max_cube_value) return false;
  return m.options().kind != match_kind::points || cube < away;
}

/// Points `s` still needs in a match (or a large number in money play).
int away_of(const match& m, side s) {
  if (m.options().kind != match_kind::points) return max_away * 2;
  return m.options().length - m.score()[static_cast<std::size_t>(engine::index_of(s))];
}

/// The evaluation for `s` in the current game: on roll when the game's turn is s's.
long_evaluation evaluation_for(const match& m, side s) {
  const auto& g = m.current_game();
  const position p = g.seen_by(s);
  return g.turn() == s ? evaluate_long_on_roll(p) : evaluate_long(p);
}

/// The doubling window: how close to the opponent's take point (as a share of the
/// doubled cube's range of values) the doubler doubles.
constexpr double doubling_window = 0.07;
/// What owning the cube is worth to a taker who could still redouble, as a share of
/// the doubled cube's range (a take point of about 21.5 % instead of 25 % at money).
constexpr double ownership_value = 0.035;

}  // namespace

long_player::long_player(long_player_options options) noexcept : options_(options) {
  options_.plies = std::clamp(options_.plies, 1, 2);
  if (!(options_.noise > 0.0)) options_.noise = 0.0;  // NaN too
}

std::size_t long_player::choose_play(const position& /*before*/,
                                     const engine::play_list& legal) const {
  std::size_t best = 0;
  ranking best_rank;
  std::array<std::size_t, deeper_candidates> top{};
  std::array<ranking, deeper_candidates> top_rank{};
  std::size_t kept = 0;
  for (std::size_t i = 0; i < legal.size(); ++i) {
    const ranking r = rank_one_ply(legal[i], options_);
    if (i == 0 || r.better_than(best_rank)) {
      best = i;
      best_rank = r;
    }
    if (options_.plies < 2) continue;
    // Keep the best few, best first.
    std::size_t at = kept < deeper_candidates ? kept++ : deeper_candidates;
    while (at > 0 && r.better_than(top_rank[at - 1])) {
      if (at < deeper_candidates) {
        top[at] = top[at - 1];
        top_rank[at] = top_rank[at - 1];
      }
      --at;
    }
    if (at < deeper_candidates) {
      top[at] = i;
      top_rank[at] = r;
    }
  }
  if (options_.plies < 2 || kept < 2) return best;
  engine::play_list replies;
  double best_equity = -3.0;
  for (std::size_t k = 0; k < kept; ++k) {
    const double equity = two_ply_equity(legal[top[k]].result, replies);
    if (k == 0 || equity > best_equity) {  // ties keep the better one-ply rank
      best_equity = equity;
      best = top[k];
    }
  }
  return best;
}

bool long_player::wants_double(const match& m, side s) const {
  if (m.options().game_variant != engine::variant::long_nardy || !m.may_double(s)) return false;
  const long_evaluation e = evaluation_for(m, s);
  const int cube = m.doubling_cube().value;
  const double no_double = value_at(m, s, e, cube);
  const double take = value_at(m, s, e, 2 * cube);
  const double drop = value_of(m, s, cube);
  if (take >= drop) return no_double < drop;  // the opponent should drop: cash, unless too good
  if (take <= no_double) return false;        // doubling only helps the opponent
  // The opponent should take. With a cube it could never use, double at once (the
  // trailer after the Crawford game); otherwise only near its take point.
  if (!cube_alive(m, away_of(m, engine::opponent_of(s)), 2 * cube)) return true;
  const double range = value_of(m, s, 2 * cube) - value_of(m, s, -2 * cube);
  return drop - take <= doubling_window * range;
}

bool long_player::wants_take(const match& m, side s) const {
  const long_evaluation e = evaluation_for(m, s);
  const int cube = m.doubling_cube().value;
  const double take = value_at(m, s, e, 2 * cube);
  const double drop = value_of(m, s, -cube);
  const double range = value_of(m, s, 2 * cube) - value_of(m, s, -2 * cube);
  const double owning = cube_alive(m, away_of(m, s), 2 * cube) ? ownership_value * range : 0.0;
  return take + owning >= drop;
}

bool long_player::accepts_resignation(const match& m, side s) const {
  const auto& offer = m.pending_resignation();
  if (!offer) return false;
  if (m.options().kind == match_kind::free_play) return true;  // R12: points only shrink
  const int cube = m.doubling_cube().value;
  const double accept = value_of(m, s, engine::multiplier(offer->kind) * cube);
  return accept >= value_at(m, s, evaluation_for(m, s), cube) - 1e-9;
}

bool long_player::wants_to_continue(const match& /*m*/, side /*s*/) const {
  return true;
}

std::optional<std::string> long_player::next_command(const match& m, side s) const {
  if (m.options().game_variant != engine::variant::long_nardy) return std::nullopt;
  const auto& g = m.current_game();
  switch (m.phase()) {
    case match_phase::opening:
      return "/roll";  // R2: either player throws the opening roll
    case match_phase::roll:
      if (g.turn() != s) return std::nullopt;
      return wants_double(m, s) ? "/double" : "/roll";
    case match_phase::move: {
      if (g.turn() != s || g.legal().empty()) return std::nullopt;
      const std::size_t i = choose_play(g.current(), g.legal());
      return "/move " + engine::format_play(g.current(), g.legal()[i], engine::variant::long_nardy);
    }
    case match_phase::cube_offered:
      if (m.to_act() != s) return std::nullopt;
      return wants_take(m, s) ? "/take" : "/drop";
    case match_phase::resign_offered:
      if (m.to_act() != s) return std::nullopt;
      return accepts_resignation(m, s) ? "/accept" : "/reject";
    case match_phase::game_over:
      if (m.continuing()[static_cast<std::size_t>(engine::index_of(s))]) return std::nullopt;
      return wants_to_continue(m, s) ? "/continue" : "/stop";
    case match_phase::match_over:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace bg::bots
