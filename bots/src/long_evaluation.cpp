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
// Weights, in pips. Chosen by hand, then adjusted by self-play against the greedy race
// player (README "The long nardy bot"): what a trapped checker, a checker left on the
// head, a point held or a heavy stack is worth compared with a pip of race.

/// A checker that no roll gets past the points in front of it (a prime, L5), counted
/// for every checker of a stack (the head's too: blocking it early pays).
constexpr double trapped_weight = 1.0;
/// A pip of the next roll that no checker can play (the whole army's mobility).
constexpr double mobility_weight = 8.0;
/// A checker still on the head (L3: only one leaves it per turn).
constexpr double head_weight = 2.0;
/// A pip of Keith's bear-off wastage (bear_off_wastage()).
constexpr double wastage_weight = 2.0;
/// A point held outside the home board and off the head (landing spots, blocks to be).
constexpr double point_weight = 1.0;
/// Each checker beyond the fourth on one point off the head (a stack blocks nothing).
constexpr double stack_weight = 0.5;

/// Pips a roll moves on average (doubles count four times) and their variance.
constexpr double pips_per_roll = 49.0 / 6.0;  // 8.17
constexpr double pips_variance = 18.47;

/// Checkers counted per side, own numbering: the mover's points in the opponent's
/// numbering and back (the map m -> ((m + 11) mod 24) + 1 is its own inverse):
/// rotates a mask of points 1..24 by 12.
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

/// How many of the 36 rolls take a lone checker past every held point of `ahead`
/// (trapped_share()'s mask).
constexpr int escapes(std::uint32_t ahead) noexcept {
  if (ahead == 0) return 36;
  int farthest = 0;  // the distance of the farthest held point
  for (int d = 1; d <= 12; ++d)
    if ((ahead >> (d - 1)) & 1u) farthest = d;
  const auto open = [ahead](int d) { return d > 12 || ((ahead >> (d - 1)) & 1u) == 0; };
  int n = 0;
  for (int d1 = 1; d1 <= 6; ++d1) {
    for (int d2 = 1; d2 <= 6; ++d2) {
      bool out = false;
      if (d1 == d2) {  // R5: up to four steps of the die, each landing open
        int distance = 0;
        for (int step = 0; step < 4 && !out; ++step) {
          distance += d1;
          if (!open(distance)) break;
          out = distance > farthest;
        }
      } else {
        // One die beyond the farthest held point, or both (the point between open).
        out = d1 > farthest || d2 > farthest || (d1 + d2 > farthest && (open(d1) || open(d2)));
      }
      if (out) ++n;
    }
  }
  return n;
}

/// The share of rolls that do not get a lone checker past the strongest wall of
/// `ahead`: each run of consecutive held points taken alone (a checker may always land
/// between two walls, so only one wall at a time holds it back).
constexpr double strongest_wall(std::uint32_t ahead) noexcept {
  int fewest = 36;
  for (int d = 1; d <= 12;) {
    if (((ahead >> (d - 1)) & 1u) == 0) {
      ++d;
      continue;
    }
    std::uint32_t wall = 0;
    for (; d <= 12 && ((ahead >> (d - 1)) & 1u); ++d) wall |= 1u << (d - 1);
    fewest = std::min(fewest, escapes(wall));
  }
  return static_cast<double>(36 - fewest) / 36.0;
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
  return normal_cdf((lead + pips_per_roll / 2.0) / spread);
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
  e.wastage = wastage_weight * (their_waste - my_waste);
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

  // The opponent is on roll: its lead is -score.
  e.win = 1.0 - race_win_probability(-e.score, my_pips + their_pips);
  // Mars (L7): the loser has borne off nothing when the winner bears off its last.
  if (them[engine::off_index] == 0) {
    const double save = pips_to_save(them, their_trapped);
    const double finish = my_pips + my_waste;
    e.win_mars = std::min(e.win, 1.0 - first_there(save, finish));
  }
  if (me[engine::off_index] == 0) {
    const double save = pips_to_save(me, my_trapped);
    const double finish = their_pips + their_waste;
    e.lose_mars = std::min(1.0 - e.win, first_there(finish, save));
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
