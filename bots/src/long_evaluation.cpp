#include "bg/bots/long_evaluation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

namespace bg::bots {

using engine::position;
using engine::side_checkers;

namespace {

// ---------------------------------------------------------------------------------
// Weights, in pips: what a trapped checker, a lost pip of mobility, a checker left on
// the head, a point held or a heavy stack is worth compared with a pip of race. Chosen
// by hand, then adjusted by self-play against the greedy race player and the random
// player (gammon-tool selfplay --variant long; README "The long nardy bot").

/// A checker fully held by a wall in front of it (trapped_share() = 1: a prime, L5),
/// counted for every checker of a stack (the head's too: blocking it early pays).
constexpr double trapped_weight = 4.0;
/// A pip of the next roll that no checker can play (the whole army's mobility).
constexpr double mobility_weight = 6.0;
/// A checker still on the head (L3: only one leaves it per turn).
constexpr double head_weight = 2.0;
/// A pip of Keith's bear-off wastage (bear_off_wastage()).
constexpr double wastage_weight = 2.0;
/// Each checker not borne off yet: of two plays moving the same pips, the one bearing
/// off more checkers is better (fewer checkers need fewer rolls at the end).
constexpr double checker_weight = 2.0;
/// A point held outside the home board and off the head (landing spots, blocks to be).
constexpr double point_weight = 1.0;
/// Each checker beyond the fourth on one point off the head (a stack blocks nothing).
constexpr double stack_weight = 0.5;

/// Pips a roll moves on average (doubles count four times) and their variance.
constexpr double pips_per_roll = 49.0 / 6.0;  // 8.17
constexpr double pips_variance = 18.47;

/// Races end more predictably than the normal model of the pips says (the effective
/// pip counts already hold the wastage): its z-value is scaled up by this, fitted
/// (maximum likelihood) on the races of 2,000 games of the bot against itself.
constexpr double race_fit = 1.3;

/// In contact, how much of the score's z-value (score / spread of the race) carries
/// over to the result: fitted (maximum likelihood) on the positions of 2,000 games of
/// the bot against itself.
constexpr double contact_scale = 0.3;

/// The least mars chance a side winning with chance `win` has while in contact: the
/// share of wins that were mars in the same self-play games (a fifth of the wins for an
/// outsider, up to three tenths for a side sure to win).
double contact_mars(double win) noexcept {
  return win * (0.2 + 0.1 * win);
}

/// A mask of one side's points 1..24 in the other side's numbering (long nardy: the
/// point m is the other's ((m + 11) mod 24) + 1, a map that is its own inverse): the
/// 24 point bits rotated by 12.
constexpr std::uint32_t rotate_sides(std::uint32_t points) noexcept {
  return ((points & 0x1FFEu) << 12) | ((points >> 12) & 0x1FFEu);
}

/// Bit i (1..24) set when `s` has a checker on its point i.
std::uint32_t held_points(const side_checkers& s) noexcept {
  std::uint32_t bits = 0;
  for (int i = 1; i <= 24; ++i)
    if (s[static_cast<std::size_t>(i)] != 0) bits |= 1u << i;
  return bits;
}

/// trapped_share() of a 12-bit mask `ahead` (bit d - 1: the point d pips ahead held).
constexpr double strongest_wall(std::uint32_t ahead) noexcept {
  int longest = 0;
  for (int d = 1; d <= 6; ++d) {  // walls whose near end a die can reach
    if (((ahead >> (d - 1)) & 1u) == 0 || (d > 1 && ((ahead >> (d - 2)) & 1u))) continue;
    int length = 0;
    while (d + length <= 12 && ((ahead >> (d + length - 1)) & 1u)) ++length;
    longest = std::max(longest, length);
  }
  longest = std::min(longest, 6);
  return static_cast<double>(longest * longest) / 36.0;
}

/// trapped_share() for every 12-bit window in the order trapped_checkers() reads it
/// from a mask of points: bit j is the point 12 - j pips ahead (bit 11 the nearest).
struct window_table {
  std::array<float, 4096> share{};
  constexpr window_table() {
    for (std::uint32_t w = 0; w < 4096; ++w) {
      std::uint32_t ahead = 0;
      for (int j = 0; j < 12; ++j)
        if ((w >> j) & 1u) ahead |= 1u << (11 - j);
      share[w] = static_cast<float>(strongest_wall(ahead));
    }
  }
};
constexpr window_table windows{};

/// The standard normal distribution function.
double normal_cdf(double x) noexcept {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

/// Sum of (point - 6) x checkers over points 7..24: the pips a side needs to bring every
/// checker into its home board.
int pips_to_home(const side_checkers& s) noexcept {
  int total = 0;
  for (int i = 7; i <= 24; ++i) total += (i - 6) * s[static_cast<std::size_t>(i)];
  return total;
}

/// Pips a side needs before it can bear off a first checker (saving the mars, L7):
/// bring the rest home, then about half a roll to bear one off.
double pips_to_save(const side_checkers& s, double trapped) noexcept {
  return pips_to_home(s) + pips_per_roll / 2.0 + trapped_weight * trapped;
}

/// Chance that the side on roll, needing `mine` pips, gets there before the other side,
/// which needs `theirs`.
double first_there(double mine, double theirs) noexcept {
  const double spread = std::sqrt(pips_variance / pips_per_roll * std::max(mine + theirs, 1.0));
  return normal_cdf((theirs - mine + pips_per_roll / 2.0) / spread);
}

}  // namespace

double trapped_share(std::uint32_t ahead) noexcept {
  std::uint32_t w = 0;
  for (int d = 1; d <= 12; ++d)
    if ((ahead >> (d - 1)) & 1u) w |= 1u << (12 - d);
  return static_cast<double>(windows.share[w]);
}

double trapped_checkers(const side_checkers& blocker, const side_checkers& runner) noexcept {
  // The blocker's points in the runner's numbering; bit q set when the runner may not
  // land on its point q.
  const std::uint32_t held = rotate_sides(held_points(blocker));
  if (held == 0) return 0.0;
  double trapped = 0.0;
  for (int q = 2; q <= 24; ++q) {
    const int n = runner[static_cast<std::size_t>(q)];
    if (n == 0) continue;
    // Points q - 12 .. q - 1 as bits 0..11 (points below 1 are not held).
    const std::uint32_t w = (q >= 12 ? held >> (q - 12) : held << (12 - q)) & 0xFFFu;
    trapped += n * static_cast<double>(windows.share[w]);
  }
  return trapped;
}

double unplayable_pips(const side_checkers& blocker, const side_checkers& runner) noexcept {
  const std::uint32_t taken = rotate_sides(held_points(blocker));  // L2: no landing there
  const std::uint32_t occ = held_points(runner);
  const bool home = (occ & 0x1FFFF80u) == 0;  // R10.1: nothing on points 7..24
  const int top = occ == 0 ? 0 : 31 - __builtin_clz(occ);
  std::array<bool, 7> playable{};
  for (int d = 1; d <= 6; ++d) {
    std::uint32_t starts = occ & ~(taken << d) & ~((2u << d) - 1u);
    if (home) {
      starts |= occ & (1u << d);                 // R10.2
      if (top < d) starts |= occ & (1u << top);  // R10.3
    }
    playable[static_cast<std::size_t>(d)] = starts != 0;
  }
  int lost = 0;
  for (int a = 1; a <= 6; ++a) {
    const bool pa = playable[static_cast<std::size_t>(a)];
    for (int b = 1; b <= 6; ++b) {
      if (a == b) {
        if (!pa) lost += 4 * a;  // R5: four moves of the die
      } else {
        if (!pa) lost += a;
        if (!playable[static_cast<std::size_t>(b)]) lost += b;
      }
    }
  }
  return lost / 36.0;
}

int bear_off_wastage(const side_checkers& side) noexcept {
  const auto n = [&side](int point) {
    return static_cast<int>(side[static_cast<std::size_t>(point)]);
  };
  int waste = 2 * std::max(0, n(1) - 1) + std::max(0, n(2) - 1) + std::max(0, n(3) - 3);
  for (int point = 4; point <= 6; ++point)
    if (n(point) == 0) ++waste;
  return waste;
}

bool in_contact(const position& p) noexcept {
  for (int i = 13; i <= 24; ++i)
    if (p.mover(i) != 0 || p.opponent(i) != 0) return true;
  return false;
}

double race_win_probability(double lead, int pips) noexcept {
  const double spread = std::sqrt(pips_variance / pips_per_roll * std::max(pips, 1));
  return normal_cdf(race_fit * (lead + pips_per_roll / 2.0) / spread);
}

long_evaluation evaluate_long(const position& p) noexcept {
  const side_checkers me = p.mover_side();
  const side_checkers them = p.opponent_side();
  long_evaluation e;
  const int my_pips = p.mover_pip_count();
  const int their_pips = p.opponent_pip_count();
  const int my_waste = bear_off_wastage(me);
  const int their_waste = bear_off_wastage(them);
  e.race = their_pips - my_pips;
  e.wastage = wastage_weight * (their_waste - my_waste) +
              checker_weight * (me[engine::off_index] - them[engine::off_index]);
  e.contact = in_contact(p);
  double my_trapped = 0;
  double their_trapped = 0;
  if (e.contact) {
    my_trapped = trapped_checkers(them, me);
    their_trapped = trapped_checkers(me, them);
    e.blocking = trapped_weight * (their_trapped - my_trapped);
    e.mobility = mobility_weight * (unplayable_pips(me, them) - unplayable_pips(them, me));
    e.head = head_weight * (them[24] - me[24]);
    int points = 0;
    int stacks = 0;
    for (int i = 1; i <= 23; ++i) {
      const int mine = me[static_cast<std::size_t>(i)];
      const int theirs = them[static_cast<std::size_t>(i)];
      if (i >= 7) points += (mine != 0) - (theirs != 0);
      stacks += std::max(0, theirs - 4) - std::max(0, mine - 4);
    }
    e.structure = point_weight * points + stack_weight * stacks;
  }
  e.score = e.race + e.wastage + e.blocking + e.mobility + e.head + e.structure;

  // The opponent is on roll: its lead is minus the side's. In a race the lead is in
  // effective pips (Keith's wastage added to each pip count); in contact it is the
  // score, which says less about the result than a race's pips do: scaled down
  // (contact_scale).
  if (e.contact) {
    const double spread =
        std::sqrt(pips_variance / pips_per_roll * std::max(my_pips + their_pips, 1));
    e.win = 1.0 - normal_cdf(contact_scale * (-e.score + pips_per_roll / 2.0) / spread);
  } else {
    const double lead = (their_pips + their_waste) - (my_pips + my_waste);
    e.win = 1.0 - race_win_probability(-lead, my_pips + their_pips);
  }
  // A finished game (R11, L7): the chances are certainties.
  if (me[engine::off_index] == engine::checkers_per_side ||
      them[engine::off_index] == engine::checkers_per_side) {
    const bool won = me[engine::off_index] == engine::checkers_per_side;
    e.win = won ? 1.0 : 0.0;
    e.win_mars = won && them[engine::off_index] == 0 ? 1.0 : 0.0;
    e.lose_mars = !won && me[engine::off_index] == 0 ? 1.0 : 0.0;
    return e;
  }
  // Mars (L7): the loser has borne off nothing when the winner bears off its last.
  if (them[engine::off_index] == 0) {
    const double save = pips_to_save(them, their_trapped);
    const double finish = my_pips + my_waste;
    e.win_mars = 1.0 - first_there(save, finish);
    if (e.contact) e.win_mars = std::max(e.win_mars, contact_mars(e.win));
    e.win_mars = std::min(e.win, e.win_mars);
  }
  if (me[engine::off_index] == 0) {
    const double save = pips_to_save(me, my_trapped);
    const double finish = their_pips + their_waste;
    e.lose_mars = first_there(finish, save);
    if (e.contact) e.lose_mars = std::max(e.lose_mars, contact_mars(1.0 - e.win));
    e.lose_mars = std::min(1.0 - e.win, e.lose_mars);
  }
  return e;
}

long_evaluation evaluate_long_on_roll(const position& p) noexcept {
  long_evaluation e = evaluate_long(p.swapped());
  e.race = -e.race;
  e.wastage = -e.wastage;
  e.blocking = -e.blocking;
  e.mobility = -e.mobility;
  e.head = -e.head;
  e.structure = -e.structure;
  e.score = -e.score;
  e.win = 1.0 - e.win;
  const double win_mars = e.win_mars;
  e.win_mars = e.lose_mars;
  e.lose_mars = win_mars;
  return e;
}

}  // namespace bg::bots
