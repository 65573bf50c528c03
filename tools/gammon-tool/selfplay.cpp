#include "selfplay.hpp"

#include <array>
#include <chrono>
#include <iomanip>
#include <random>

#include "bg/engine/match.hpp"

namespace bg::tool {

using namespace bg::engine;

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

}  // namespace

int run_selfplay(const selfplay_options& o, std::ostream& out) {
  seeded_dice dice(o.seed);
  std::mt19937_64 choose(o.seed ^ 0x5DEECE66DULL);
  std::array<long, 4> kinds{};  // by win_kind value
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
          if (m.may_double(s) && wants_double(m, s)) {
            (void)m.offer_double(s);
          } else {
            (void)m.roll_dice(s, dice);
            ++turns;
          }
          break;
        }
        case match_phase::cube_offered: {
          const side s = *m.to_act();
          if (wants_take(m, s)) {
            (void)m.take(s);
          } else {
            (void)m.drop(s);
          }
          break;
        }
        case match_phase::move: {
          const auto& legal = m.current_game().legal();
          std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
          (void)m.make_play(m.current_game().turn(), pick(choose));
          ++turns;
          break;
        }
        default:
          break;
      }
    }
    for (const auto& r : m.results()) {
      ++kinds[static_cast<std::size_t>(r.kind)];
      ++games;
    }
    ++matches;
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto share = [&](win_kind k) {
    return games == 0 ? 0.0
                      : 100.0 * static_cast<double>(kinds[static_cast<std::size_t>(k)]) /
                            static_cast<double>(games);
  };
  out << std::fixed << std::setprecision(2);
  out << "variant: " << to_string(o.game_variant) << "\n";
  if (o.match_length > 0) out << "matches: " << matches << " to " << o.match_length << "\n";
  out << "games: " << games << "\n";
  out << "single: " << share(win_kind::single) << " %\n";
  out << "gammon: " << share(win_kind::gammon) << " %\n";
  out << "backgammon: " << share(win_kind::backgammon) << " %\n";
  out << "turns: " << turns << "\n";
  out << "seconds: " << std::setprecision(3) << secs << "\n";
  out << "games per second: " << std::setprecision(1)
      << (secs > 0 ? static_cast<double>(games) / secs : 0.0) << "\n";
  return 0;
}

}  // namespace bg::tool
