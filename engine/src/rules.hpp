#pragma once
// Internal: the single-checker-move rules shared by the move generator and the
// notation matcher, written once for both variants (RULES.md R4, R7, R8, R10, L2, L3, L5).

#include <array>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bg/engine/checker_move.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/roll.hpp"
#include "bg/engine/variant.hpp"
#include "zobrist.hpp"

namespace bg::engine::detail {

using side_bytes = std::array<std::uint8_t, 32>;

/// Per-turn facts the single-move rule needs.
struct turn_context {
  int head_start = 0;  // long: the mover's checkers on its head (24) when the turn began
  int head_limit = 1;  // long: how many may leave the head this turn (L3)
};

/// True when every checker of `me` is in its home board or off (R10.1): none on
/// points 7..24 nor on the bar.
inline bool all_home(const side_bytes& me) noexcept {
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  std::uint32_t c = 0;
  std::memcpy(&a, me.data() + 7, 8);   // 7..14
  std::memcpy(&b, me.data() + 15, 8);  // 15..22
  std::memcpy(&c, me.data() + 22, 4);  // 22..25
  return (a | b | c) == 0;
}

/// Bit i set (i = 1..25) when `side` has a checker on its point i (25 = bar).
inline std::uint32_t nonzero_points(const side_bytes& side) noexcept {
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  const __m128i lo = _mm_load_si128(reinterpret_cast<const __m128i*>(side.data()));
  const __m128i hi = _mm_load_si128(reinterpret_cast<const __m128i*>(side.data() + 16));
  const auto empty_lo = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(lo, zero)));
  const auto empty_hi = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(hi, zero)));
  return ~(empty_lo | (empty_hi << 16)) & 0x03FFFFFEu;
#else
  std::uint32_t bits = 0;
  for (int i = 1; i <= bar_index; ++i)
    if (side[static_cast<std::size_t>(i)] != 0) bits |= 1u << i;
  return bits;
#endif
}

/// Bit i set (i = 1..25) when the mover has a checker on point i (25 = bar).
inline std::uint32_t occupied(const position& p) noexcept {
  return nonzero_points(p.raw_mover());
}

/// The highest set bit of a non-zero mask.
inline int top_bit(std::uint32_t mask) noexcept {
  return 31 - __builtin_clz(mask);
}

// ---------------------------------------------------------------------------------
// Standard backgammon, all starting points at once. check_move() asks about one
// starting point; the generator asks "from which points can this die be played?" for
// every node of its search, so it keeps the mover's occupied points as a bitmask and
// answers with a few mask operations. Bit i always means the mover's own point i
// (25 = bar, 0 = off).

/// Bit t set (t = 1..24) when the opponent holds the mover's point t with 2 or more
/// checkers (R4: no move may end there). The mover's own moves never change this set
/// during a turn: a hit only takes a lone checker off its point, and the mover cannot
/// add opposing checkers anywhere, so it is computed once per roll.
inline std::uint32_t blocked_points(const position& p) noexcept {
  const auto& op = p.raw_opponent();
  std::uint32_t held = 0;  // bit q: the opponent has 2+ checkers on its own point q
#if defined(__SSE2__)
  const __m128i one = _mm_set1_epi8(1);
  const __m128i lo = _mm_load_si128(reinterpret_cast<const __m128i*>(op.data()));
  const __m128i hi = _mm_load_si128(reinterpret_cast<const __m128i*>(op.data() + 16));
  // Counts are 0..15, so a signed byte comparison is exact.
  held = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpgt_epi8(lo, one))) |
         (static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpgt_epi8(hi, one))) << 16);
#else
  for (int q = 0; q < 32; ++q)
    if (op[static_cast<std::size_t>(q)] >= 2) held |= 1u << q;
#endif
  held &= 0x01FFFFFEu;  // points 1..24 only (not its off tray nor its bar)
  // The opponent's point q is the mover's point 25 - q (R1): reverse the 32 bits, which
  // takes bit q to bit 31 - q, then shift down by 6 to reach bit 25 - q.
  std::uint32_t x = held;
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  x = __builtin_bswap32(x);
  return x >> 6;
}

/// Points 7..24 and the bar: a checker there means the mover is not bearing off (R10.1).
inline constexpr std::uint32_t outside_home = 0x03FFFF80u;

/// The starting points from which the mover may play `die` (1..6): bit i set when
/// check_move<standard>(p, i, die, ctx) would allow it, where `occ` is occupied(p) and
/// `blocked` is blocked_points(p).
inline std::uint32_t legal_starts(std::uint32_t occ, std::uint32_t blocked, int die) noexcept {
  constexpr std::uint32_t bar_bit = 1u << bar_index;
  // A move from point i ends on i - die, so "i - die is blocked" is bit i of
  // blocked << die. The bar is point 25 in this numbering, so entering on 25 - die
  // (R8) is covered by the same shift.
  const std::uint32_t open = ~(blocked << die);
  if (occ & bar_bit) return occ & bar_bit & open;  // R8: enter before anything else
  // Ordinary moves: starting points above the die, landing on an open point.
  std::uint32_t starts = occ & open & ~((2u << die) - 1u);
  if ((occ & outside_home) == 0) {  // R10.1: every checker home, bearing off allowed
    starts |= occ & (1u << die);    // R10.2: the point with the die's number
    // R10.3: a higher die bears off from the highest occupied point. (occ | 1) keeps
    // top_bit() defined when every checker is off; bit 0 is then masked away.
    const int top = top_bit(occ | 1u);
    if (top < die) starts |= (1u << top) & ~1u;
  }
  return starts;
}

/// apply_move<standard>() for a move legal_starts() allowed, also keeping `occ`
/// (= occupied(p)) up to date. With Key false the dedup key is left alone (standard
/// doubles need none, see the generator).
template <bool Key>
inline void apply_standard(position& p, int from, int die, checker_move& m, std::uint32_t& occ,
                           std::uint64_t& key) noexcept {
  auto& me = p.raw_mover();
  auto& op = p.raw_opponent();
  const auto f = static_cast<std::size_t>(from);
  const int to = from > die ? from - die : off_index;  // R10: a bear-off goes to [0]
  const auto t = static_cast<std::size_t>(to);
  if constexpr (Key) key += keys.move[f][static_cast<std::size_t>(die)];
  if (--me[f] == 0) occ &= ~(1u << from);
  ++me[t];
  occ |= (1u << to) & ~1u;  // off (bit 0) is not a point one moves from
  bool hit = false;
  if (to != off_index) {
    const auto o = static_cast<std::size_t>(opponent_point(variant::standard, to));
    if (op[o] == 1) {  // R7: a blot on the landing point goes to the bar
      hit = true;
      op[o] = 0;
      ++op[bar_index];
      if constexpr (Key) key += keys.hit[t];
    }
  }
  m = checker_move{static_cast<std::int8_t>(from), static_cast<std::int8_t>(to), hit};
}

/// L5: true when the mover holds six or more consecutive points along the opponent's
/// path with every opposing checker still behind them (none ahead, none borne off).
/// Works in the opponent's own numbering q (it moves 24 -> 1); the mover's point m is
/// the opponent's q = ((m + 11) mod 24) + 1, so a run of q's is a run along its path.
inline bool forbidden_block(const side_bytes& me, const side_bytes& op) noexcept {
  if (op[off_index] != 0) return false;
  // The mover's point m is the opponent's q = m + 12 for m = 1..12 and m - 12 for
  // m = 13..24: a rotation of the 24 point bits by 12.
  const std::uint32_t held = nonzero_points(me);
  const std::uint32_t mine = ((held & 0x1FFEu) << 12) | ((held >> 12) & 0x1FFEu);
  std::uint32_t runs = mine;  // bit q: q..q+5 all held
  for (int k = 1; k < 6; ++k) runs &= mine >> k;
  if (runs == 0) return false;
  // A run starting at q is forbidden when no opposing checker stands below q, i.e.
  // when q is at or below the opponent's lowest occupied point.
  const std::uint32_t theirs = nonzero_points(op) & 0x1FFFFFEu;  // points 1..24
  const std::uint32_t below_lowest = theirs == 0 ? 0x3FFFFFFu : ((theirs & (0u - theirs)) - 1u);
  return (runs & below_lowest) != 0;
}

// ---------------------------------------------------------------------------------
// Long nardy, all starting points at once: the counterpart of legal_starts() for the
// generator's fast path, used when L5 cannot bind during the turn (could_block()).

/// The mover's point m is the opponent's q = m + 12 for m = 1..12 and m - 12 for
/// m = 13..24, and the other way round (the map is its own inverse): rotates a mask of
/// points 1..24 by 12 between the two numberings.
inline std::uint32_t rotate_sides(std::uint32_t points) noexcept {
  return ((points & 0x1FFEu) << 12) | ((points >> 12) & 0x1FFEu);
}

/// L2: bit t (1..24) set when any opposing checker stands on the mover's point t (no
/// move may end there). Fixed for the whole turn: the mover never moves them.
inline std::uint32_t nardy_blocked_points(const position& p) noexcept {
  return rotate_sides(nonzero_points(p.raw_opponent()) & 0x1FFFFFEu);
}

/// The starting points from which the mover may play `die` (1..6) in long nardy: bit i
/// set when check_move<long_nardy>(p, i, die, ctx) would allow it, where `occ` is
/// occupied(p), `blocked` is nardy_blocked_points(p), and `head_open` says whether
/// another checker may still leave the head this turn (L3). L5 is not checked.
inline std::uint32_t nardy_legal_starts(std::uint32_t occ, std::uint32_t blocked, int die,
                                        bool head_open) noexcept {
  // A move from i ends on i - die, so "i - die is taken" is bit i of blocked << die.
  std::uint32_t starts = occ & ~(blocked << die) & ~((2u << die) - 1u);
  if (!head_open) starts &= ~(1u << 24);
  if ((occ & outside_home) == 0) {  // L6 = R10.1: every checker home
    starts |= occ & (1u << die);    // R10.2
    const int top = top_bit(occ | 1u);
    if (top < die) starts |= (1u << top) & ~1u;  // R10.3
  }
  return starts;
}

/// apply_move<long_nardy>() without the L5 check, for a move nardy_legal_starts()
/// allowed, keeping `occ` (= occupied(p)) up to date and adding the move's change to the
/// dedup `key` (move_keys in zobrist.hpp).
inline void apply_nardy(position& p, int from, int die, checker_move& m, std::uint32_t& occ,
                        std::uint64_t& key) noexcept {
  auto& me = p.raw_mover();
  const auto f = static_cast<std::size_t>(from);
  const int to = from > die ? from - die : off_index;
  key += keys.move[f][static_cast<std::size_t>(die)];
  if (--me[f] == 0) occ &= ~(1u << from);
  ++me[static_cast<std::size_t>(to)];
  occ |= (1u << to) & ~1u;
  m = checker_move{static_cast<std::int8_t>(from), static_cast<std::int8_t>(to), false};
}

/// True when L5 might refuse some checker move of this turn: some run of six points,
/// all of them held by the mover or reachable by one of its checkers this turn, lies
/// where forbidden_block() would refuse it. Each move of the turn ends on a point
/// reachable from a held point by one die, by the two dice together, or (doubles) by
/// up to four steps of the die over open points, and the opposing checkers do not move
/// during the turn. When this is false every position of the turn passes L5, so the
/// fast path (which never checks it) finds the same plays.
inline bool could_block(const position& p, roll r, std::uint32_t occ,
                        std::uint32_t blocked) noexcept {
  const auto& op = p.raw_opponent();
  if (op[off_index] != 0) return false;  // a borne-off checker is ahead of any block
  constexpr std::uint32_t points = 0x1FFFFFEu;
  const std::uint32_t open = ~blocked & points;
  const std::uint32_t held = occ & points;
  std::uint32_t reach = 0;
  if (r.is_double()) {
    std::uint32_t front = held;
    for (int step = 0; step < 4; ++step) {
      front = (front >> r.die1) & open;
      reach |= front;
    }
  } else {
    const std::uint32_t one = ((held >> r.die1) | (held >> r.die2)) & open;
    reach = one | ((held >> (r.die1 + r.die2)) & open);
  }
  const std::uint32_t mine = rotate_sides(held | reach);
  std::uint32_t runs = mine;
  for (int k = 1; k < 6; ++k) runs &= mine >> k;
  if (runs == 0) return false;
  const std::uint32_t theirs = nonzero_points(op) & points;
  const std::uint32_t below_lowest = theirs == 0 ? 0x3FFFFFFu : ((theirs & (0u - theirs)) - 1u);
  return (runs & below_lowest) != 0;
}

/// Why a single checker move is refused (none = allowed).
enum class refusal : std::uint8_t {
  none,
  no_checker,      // no checker of the mover on `from`
  must_enter,      // R8: a checker is on the bar and `from` is not the bar
  head_rule,       // L3: too many checkers off the head this turn
  not_all_home,    // R10.1: bearing off before every checker is home
  higher_checker,  // R10.3: die larger than the point while a higher point is occupied
  blocked,         // R4 / L2: the destination is held by the opponent
  six_block,       // L5: the move would leave a forbidden six-point block
};

/// Checks whether the mover may move one checker from `from` by `die` (every rule but
/// L5, which needs the position after the move: apply_move() checks it).
template <variant V>
inline refusal check_move(const position& p, int from, int die, const turn_context& ctx) noexcept {
  const auto& me = p.raw_mover();
  const auto f = static_cast<std::size_t>(from);
  if (me[f] == 0) return refusal::no_checker;
  if constexpr (V == variant::standard) {
    if (from != bar_index && me[bar_index] != 0) return refusal::must_enter;  // R8: enter first
  } else {
    if (from == 24 && ctx.head_start - me[24] >= ctx.head_limit) return refusal::head_rule;  // L3
  }
  const int to = from - die;
  if (to <= 0) {  // R10 / L6: bearing off
    if (!all_home(me)) return refusal::not_all_home;
    if (to < 0) {
      for (int q = from + 1; q <= 6; ++q)
        if (me[static_cast<std::size_t>(q)] != 0) return refusal::higher_checker;  // R10.3
    }
    return refusal::none;
  }
  const auto o = static_cast<std::size_t>(opponent_point(V, to));
  const auto& op = p.raw_opponent();
  if constexpr (V == variant::standard) {
    if (op[o] >= 2) return refusal::blocked;  // R4: a point held by 2 or more
  } else {
    if (op[o] != 0) return refusal::blocked;  // L2: no landing on any opposing checker
  }
  return refusal::none;
}

/// Makes a move that check_move() allowed: updates `p`, adds the move's change to the
/// dedup `key` (see move_keys in zobrist.hpp), and describes the move in `m` (R7: a blot
/// on the destination goes to the bar). In long nardy returns six_block (p then
/// unspecified) when the move leaves a forbidden block (L5).
template <variant V>
inline refusal apply_move(position& p, int from, int die, checker_move& m,
                          std::uint64_t& key) noexcept {
  auto& me = p.raw_mover();
  auto& op = p.raw_opponent();
  const auto f = static_cast<std::size_t>(from);
  key += keys.move[f][static_cast<std::size_t>(die)];
  const int to = from - die;
  if (to <= 0) {
    --me[f];
    ++me[off_index];
    m = checker_move{static_cast<std::int8_t>(from), 0, false};
    return refusal::none;
  }
  const auto t = static_cast<std::size_t>(to);
  --me[f];
  ++me[t];
  if constexpr (V == variant::standard) {
    const auto o = static_cast<std::size_t>(opponent_point(V, to));
    const bool hit = op[o] == 1;  // R7
    if (hit) {
      key += keys.hit[t];
      op[o] = 0;
      ++op[bar_index];
    }
    m = checker_move{static_cast<std::int8_t>(from), static_cast<std::int8_t>(to), hit};
  } else {
    if (forbidden_block(me, op)) return refusal::six_block;  // L5
    m = checker_move{static_cast<std::int8_t>(from), static_cast<std::int8_t>(to), false};
  }
  return refusal::none;
}

/// Takes back a move made by apply_move() (which must have succeeded), restoring the
/// position; the caller restores the hash it saved.
template <variant V>
inline void undo_move(position& p, const checker_move& m) noexcept {
  auto& me = p.raw_mover();
  const auto f = static_cast<std::size_t>(m.from);
  ++me[f];
  if (m.to == 0) {
    --me[off_index];
    return;
  }
  --me[static_cast<std::size_t>(m.to)];
  if constexpr (V == variant::standard) {
    if (m.hit) {
      auto& op = p.raw_opponent();
      --op[bar_index];
      op[static_cast<std::size_t>(opponent_point(V, m.to))] = 1;
    }
  }
}

/// check_move() then apply_move(): moves one checker of the mover from `from` by
/// `die` if the rules of V allow it. Returns why not (p then unspecified).
template <variant V>
inline refusal try_move(position& p, int from, int die, const turn_context& ctx, checker_move& m,
                        std::uint64_t& key) noexcept {
  const refusal why = check_move<V>(p, from, die, ctx);
  if (why != refusal::none) return why;
  return apply_move<V>(p, from, die, m, key);
}

/// The turn context for `pos` and `r`: in long nardy, how many checkers may leave the
/// head (L3: one; two on the side's first turn with 6-6, 4-4 or 3-3).
template <variant V>
inline turn_context context_for(const position& pos, roll r) noexcept {
  turn_context ctx;
  if constexpr (V == variant::long_nardy) {
    ctx.head_start = pos.mover(24);
    const bool first_turn = ctx.head_start == checkers_per_side;
    const bool special = r.is_double() && (r.die1 == 6 || r.die1 == 4 || r.die1 == 3);
    ctx.head_limit = first_turn && special ? 2 : 1;
  }
  return ctx;
}

}  // namespace bg::engine::detail
