#include "selfplay.hpp"

#include <array>
#include <chrono>
#include <iomanip>
#include <random>

#include "bg/bots/long_bot_player.hpp"
#include "bg/bots/long_player.hpp"
#include "bg/engine/match.hpp"

namespace bg::tool {

using namespace bg::engine;

std::string_view to_string(selfplay_policy p) noexcept {
  switch (p) {
    case selfplay_policy::random:
      return "random";
    case selfplay_policy::greedy:
      return "greedy";
    case selfplay_policy::bot:
      return "bot";
    case selfplay_policy::bot2:
      return "bot2";
    case selfplay_policy::beginner:
      return "beginner";
    case selfplay_policy::intermediate:
      return "intermediate";
    case selfplay_policy::advanced:
      return "advanced";
  }
  return "random";
}

std::optional<selfplay_policy> policy_from_string(std::string_view text) noexcept {
  for (const auto p : {selfplay_policy::random, selfplay_policy::greedy, selfplay_policy::bot,
                       selfplay_policy::bot2, selfplay_policy::beginner,
                       selfplay_policy::intermediate, selfplay_policy::advanced})
    if (text == to_string(p)) return p;
  return std::nullopt;
}

namespace {

/// The simple cube policy: double when ahead in the race by more than 10 % with the
/// cube available; take unless behind by more than 25 %.
bool wants_double(const match& m, side s) {
  const auto& g = m.current_game();
  const int mine = g.pip_count(s);
  const int theirs = g.pip_count(opponent_of(s));
  return mine * 10 < theirs * 9;
}
bool wants_take(const match& m, side s) {
  const auto& g = m.current_game();
  const int mine = g.pip_count(s);
  const int theirs = g.pip_count(opponent_of(s));
  return mine * 4 <= theirs * 5;
}

/// The greedy race player's play (see selfplay_policy::greedy).
std::size_t greedy_play(const play_list& legal) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < legal.size(); ++i) {
    const position& a = legal[i].result;
    const position& b = legal[best].result;
    const int pips = a.mover_pip_count() - b.mover_pip_count();
    if (pips < 0 || (pips == 0 && a.mover(off_index) > b.mover(off_index))) best = i;
  }
  return best;
}

/// One side of the self-play: its policy and, for the bot policies, its player.
struct player {
  selfplay_policy policy;
  bots::long_player bot;
  [[nodiscard]] bool is_bot() const noexcept { return is_bot_policy(policy); }
};

}  // namespace

int run_selfplay(const selfplay_options& o, std::ostream& out) {
  seeded_dice dice(o.seed);
  std::mt19937_64 choose(o.seed ^ 0x5DEECE66DULL);
  const auto make = [&o](selfplay_policy p, std::uint64_t salt) {
    const std::uint64_t seed = o.seed ^ salt;
    switch (p) {
      case selfplay_policy::beginner:
        return player{p,
                      bots::long_player(bots::long_bot_options(bots::gnubg_level::beginner, seed))};
      case selfplay_policy::intermediate:
        return player{
            p, bots::long_player(bots::long_bot_options(bots::gnubg_level::intermediate, seed))};
      case selfplay_policy::advanced:
        return player{p,
                      bots::long_player(bots::long_bot_options(bots::gnubg_level::advanced, seed))};
      default:
        return player{p, bots::long_player({seed, p == selfplay_policy::bot2 ? 2 : 1})};
    }
  };
  const std::array<player, 2> players{make(o.red, 0), make(o.black, 0x9E3779B97F4A7C15ULL)};
  const auto of = [&players](side s) -> const player& {
    return players[static_cast<std::size_t>(index_of(s))];
  };
  std::array<long, 4> kinds{};       // by win_kind value
  std::array<long, 2> game_wins{};   // by side index
  std::array<long, 2> match_wins{};  // by side index
  long games = 0;
  long turns = 0;
  long matches = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int n = 0; n < o.games; ++n) {
    match_options mo;
    mo.game_variant = o.game_variant;
    if (o.match_length > 0) {
      mo.kind = match_kind::points;
      mo.length = o.match_length;
    }
    match m(mo);
    while (m.phase() != match_phase::match_over) {
      switch (m.phase()) {
        case match_phase::opening:
          (void)m.roll_opening(dice);
          break;
        case match_phase::roll: {
          const side s = m.current_game().turn();
          const player& p = of(s);
          const bool doubles =
              p.is_bot() ? p.bot.wants_double(m, s) : m.may_double(s) && wants_double(m, s);
          if (doubles) {
            (void)m.offer_double(s);
          } else {
            (void)m.roll_dice(s, dice);
            ++turns;
          }
          break;
        }
        case match_phase::cube_offered: {
          const side s = *m.to_act();
          const player& p = of(s);
          if (p.is_bot() ? p.bot.wants_take(m, s) : wants_take(m, s)) {
            (void)m.take(s);
          } else {
            (void)m.drop(s);
          }
          break;
        }
        case match_phase::move: {
          const auto& g = m.current_game();
          const auto& legal = g.legal();
          const player& p = of(g.turn());
          std::size_t index = 0;
          if (p.policy == selfplay_policy::random) {
            std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
            index = pick(choose);
          } else if (p.policy == selfplay_policy::greedy) {
            index = greedy_play(legal);
          } else {
            index = p.bot.choose_play(g.current(), legal);
          }
          (void)m.make_play(g.turn(), index);
          ++turns;
          break;
        }
        default:
          break;
      }
    }
    for (const auto& r : m.results()) {
      ++kinds[static_cast<std::size_t>(r.kind)];
      ++game_wins[static_cast<std::size_t>(index_of(r.winner))];
      ++games;
    }
    if (const auto winner = m.match_winner(); winner && o.match_length > 0)
      ++match_wins[static_cast<std::size_t>(index_of(*winner))];
    ++matches;
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto percent = [](long part, long whole) {
    return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  };
  const auto share = [&](win_kind k) { return percent(kinds[static_cast<std::size_t>(k)], games); };
  out << std::fixed << std::setprecision(2);
  out << "variant: " << to_string(o.game_variant) << "\n";
  out << "red: " << to_string(o.red) << "\n";
  out << "black: " << to_string(o.black) << "\n";
  if (o.match_length > 0) out << "matches: " << matches << " to " << o.match_length << "\n";
  out << "games: " << games << "\n";
  out << "single: " << share(win_kind::single) << " %\n";
  out << "gammon: " << share(win_kind::gammon) << " %\n";
  out << "backgammon: " << share(win_kind::backgammon) << " %\n";
  for (const side s : {side::red, side::black}) {
    const auto i = static_cast<std::size_t>(index_of(s));
    out << to_string(s) << " wins: " << game_wins[i] << " games (" << percent(game_wins[i], games)
        << " %)";
    if (o.match_length > 0)
      out << ", " << match_wins[i] << " matches (" << percent(match_wins[i], matches) << " %)";
    out << "\n";
  }
  out << "turns: " << turns << "\n";
  out << "seconds: " << std::setprecision(3) << secs << "\n";
  out << "games per second: " << std::setprecision(1)
      << (secs > 0 ? static_cast<double>(games) / secs : 0.0) << "\n";
  return 0;
}

}  // namespace bg::tool
