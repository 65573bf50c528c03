#include "bg/engine/move_generator.hpp"

#include <array>
#include <cassert>
#include <cstring>

#include "rules.hpp"

namespace bg::engine {

// ---------------------------------------------------------------------------------
// play_list: a vector of plays plus an open-addressing dedup index (see the header).
// Slots hold (generation << 48) | (tag << 16) | index, so clear() is O(1): bumping the
// generation empties every slot at once.

namespace {
constexpr std::size_t initial_plays = 256;
constexpr std::size_t initial_slots = 512;  // a power of two
}  // namespace

play_list::play_list()
    : plays_(initial_plays),
      data_(plays_.data()),
      capacity_(plays_.size()),
      slots_(initial_slots, 0) {}

play_list::play_list(const play_list& other)
    : plays_(other.plays_),
      data_(plays_.data()),
      capacity_(plays_.size()),
      count_(other.count_),
      slots_(other.slots_),
      indexed_(other.indexed_),
      generation_(other.generation_),
      dice_used_(other.dice_used_) {}

play_list& play_list::operator=(const play_list& other) {
  if (this != &other) {
    plays_ = other.plays_;
    data_ = plays_.data();
    capacity_ = plays_.size();
    count_ = other.count_;
    slots_ = other.slots_;
    indexed_ = other.indexed_;
    generation_ = other.generation_;
    dice_used_ = other.dice_used_;
  }
  return *this;
}

play_list::play_list(play_list&& other) noexcept
    : plays_(std::move(other.plays_)),
      data_(plays_.data()),
      capacity_(plays_.size()),
      count_(other.count_),
      slots_(std::move(other.slots_)),
      indexed_(other.indexed_),
      generation_(other.generation_),
      dice_used_(other.dice_used_) {
  other.forget_storage();
}

play_list& play_list::operator=(play_list&& other) noexcept {
  if (this != &other) {
    plays_ = std::move(other.plays_);
    data_ = plays_.data();
    capacity_ = plays_.size();
    count_ = other.count_;
    slots_ = std::move(other.slots_);
    indexed_ = other.indexed_;
    generation_ = other.generation_;
    dice_used_ = other.dice_used_;
    other.forget_storage();
  }
  return *this;
}

void play_list::forget_storage() noexcept {
  // A moved-from list stays usable: empty, and its first next_slot() or commit_unique()
  // allocates again.
  plays_.clear();
  slots_.clear();
  data_ = plays_.data();
  capacity_ = 0;
  count_ = 0;
  indexed_ = 0;
  dice_used_ = 0;
}

void play_list::clear() noexcept {
  count_ = 0;
  indexed_ = 0;
  dice_used_ = 0;
  if (++generation_ == 0) {  // wrapped: wipe every slot once and restart
    std::fill(slots_.begin(), slots_.end(), 0);
    generation_ = 1;
  }
}

void play_list::grow() {
  plays_.resize(plays_.empty() ? initial_plays : plays_.size() * 2);
  data_ = plays_.data();
  capacity_ = plays_.size();
}

void play_list::grow_index() {
  // Every live slot carries its tag, whose low bits give its home in the larger table.
  std::vector<std::uint64_t> old(slots_.empty() ? initial_slots : slots_.size() * 2, 0);
  old.swap(slots_);
  const std::size_t mask = slots_.size() - 1;
  const std::uint64_t gen = std::uint64_t{generation_} << 48;
  for (const std::uint64_t slot : old) {
    if ((slot & generation_mask) != gen) continue;
    std::size_t i = static_cast<std::size_t>(slot >> 16) & mask;
    while ((slots_[i] & generation_mask) == gen) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

void play_list::rebuild(const std::vector<play>& plays) {
  const int used = dice_used_;
  clear();
  dice_used_ = used;
  for (const auto& p : plays) add_unique(p, hash_of(p.result));
}

int play_list::find(const position& p) const noexcept {
  // A linear scan: it does not depend on how the list was filled (the generator indexes
  // only the plays that may have duplicates), and lists are short.
  for (std::size_t i = 0; i < count_; ++i)
    if (data_[i].result == p) return static_cast<int>(i);
  return -1;
}

// ---------------------------------------------------------------------------------
// The generator. Standard backgammon, the common case, works on whole sets of starting
// points (detail::legal_starts); long nardy, whose L3 and L5 rules depend on more than
// the landing point, asks detail::check_move() about each starting point.

namespace {

using detail::turn_context;

/// Iterates the set bits of `mask` from the highest down: the order in which the
/// generator has always tried starting points, so the plays come out in a fixed order.
template <typename F>
inline void for_each_bit_down(std::uint32_t mask, F&& f) {
  while (mask != 0) {
    const int bit = detail::top_bit(mask);
    mask &= ~(1u << bit);
    f(bit);
  }
}

// --- standard backgammon -----------------------------------------------------------

/// At most this many starting points (1..24 and the bar), so a batch of plays that
/// differ only in their last starting point never needs more slots. (A popcount would be
/// exact, but without -mpopcnt it is a library call.)
constexpr std::size_t max_starts = 25;

/// Non-double rolls: both orders of the two dice; R6.1 then R6.2. The first move is
/// made and taken back in place; each two-move play is built straight in the list's
/// next slot and kept only if its result is new.
void standard_non_double(const position& pos, roll r, play_list& out) {
  const int hi = r.high();
  const int lo = r.low();
  const std::uint32_t blocked = detail::blocked_points(pos);
  const std::uint32_t occ0 = detail::occupied(pos);
  // Starting points from which each die alone can be played, in case no play uses
  // both dice (then R6.2 decides which single-die plays are legal).
  std::uint32_t singles[2] = {0, 0};
  bool both = false;
  // "Plain" rolls: no checker on the bar and at least two checkers outside the home
  // board, so that every move of the play is an ordinary one (no entering; after one
  // move a checker is still outside, so no bearing off: R10.1). Most rolls are plain.
  const std::uint32_t outside = occ0 & detail::outside_home;
  const bool plain = (occ0 & (1u << bar_index)) == 0 &&
                     ((outside & (outside - 1u)) != 0 ||
                      (outside != 0 && pos.mover(detail::top_bit(outside)) >= 2));
  play scratch{pos, {}, 2};
  position& cur = scratch.result;
  for (int order = 0; order < 2; ++order) {
    const int first = order == 0 ? hi : lo;
    const int second = order == 0 ? lo : hi;
    singles[order] = detail::legal_starts(occ0, blocked, first);
    for_each_bit_down(singles[order], [&](int from1) {
      std::uint32_t occ1 = occ0;
      std::uint64_t key1 = 0;  // keys relative to pos: see move_keys in zobrist.hpp
      detail::apply_standard<true>(cur, from1, first, scratch.moves[0], occ1, key1);
      std::uint32_t starts2 = detail::legal_starts(occ1, blocked, second);
      // In the second order (lower die first) a play of two different checkers where
      // neither enters nor bears off was already found in the first order: the other
      // order of the same two moves is legal from the same position (the checker on
      // from2 was there before, its landing point is open since blocks never change,
      // and from1 keeps a checker when from2 == from1 took one, because from1 then had
      // two) and ends in the same place, hits included. Only the checker that just
      // moved (a chain), entering and bearing off can differ, so only starting points
      // from1 - first (where it landed) and those at or below the die (bearing off)
      // are tried.
      if (order == 1 && pos.mover(bar_index) == 0 && from1 - first > 0)
        starts2 &= (1u << (from1 - first)) | ((2u << second) - 1u);
      play* const batch = out.reserve(max_starts);
      std::size_t kept = 0;  // plays of this batch added so far: the next goes to batch[kept]
      for_each_bit_down(starts2, [&](int from2) {
        play& slot = batch[kept];
        slot = scratch;
        std::uint32_t occ2 = occ1;
        std::uint64_t key2 = key1;
        detail::apply_standard<true>(slot.result, from2, second, slot.moves[1], occ2, key2);
        // A plain play (a by hi, b by lo) changes the mover's side by
        // N = e[a - hi] - e[a] + e[b - lo] - e[b]. Unless b == a - hi or b == a + lo no
        // term cancels, so N has total weight 4: its losses {a, b} and gains
        // {a - hi, b - lo} are fixed by the result, and so is the play (swapping a and b
        // would need b - hi == a - hi). Every other plain play (b == a - hi or a + lo, and
        // the chains of the second order, which are all it tries) moves one checker in
        // effect, weight 2. So this result is new and can never recur: it skips the index.
        if (order == 0 && plain && from2 != from1 - first && from2 != from1 + second) {
          out.commit();
          ++kept;
        } else if (out.commit_unique(key2)) {
          ++kept;
        }
      });
      both = both || starts2 != 0;
      detail::undo_move<variant::standard>(cur, scratch.moves[0]);
    });
  }
  if (both) {
    out.set_dice_used(2);
    return;
  }
  // R6.2: only one die can be played: the higher if it can be. Different starting
  // points give different results, so no index is needed.
  const int pick = singles[0] != 0 ? 0 : 1;
  const int die = pick == 0 ? hi : lo;
  play* const first = out.reserve(max_starts);
  play* slot = first;
  for_each_bit_down(singles[pick], [&](int from) {
    *slot = play{pos, {}, 1};
    std::uint32_t occ = occ0;
    std::uint64_t key = 0;
    detail::apply_standard<false>(slot->result, from, die, slot->moves[0], occ, key);
    ++slot;
  });
  out.commit(static_cast<std::size_t>(slot - first));
  out.set_dice_used(singles[pick] != 0 ? 1 : 0);
}

/// Standard doubles: depth-first over up to four moves of the same die; R6.3 keeps the
/// plays that make the most moves. The moves of a play can always be reordered from the
/// highest starting point down and stay legal (entering comes first anyway, and moves
/// from higher points only ever bring checkers home or clear higher points, which bear-
/// offs need), so the search only tries starting points at or below the previous one:
/// it visits each multiset of starting points once.
///
/// No dedup index: two plays of the same length with different multisets of starting
/// points always have different results. The mover's net change is
/// N = sum over starts f of (e[max(f - d, 0)] - e[f]) with e[i] the unit vector of point
/// i, so N[i] = c[i + d] - c[i] for i = 1..24, where c[f] counts the starts on f and
/// c[f] = 0 above the bar. Solving from the top down (c[i] = c[i + d] - N[i]) recovers
/// every c[f]: different multisets give different mover sides. (The opponent's side is
/// a function of the landing points, so it cannot make two equal results differ
/// either.)
struct standard_double_search {
  int die;
  std::uint32_t blocked;
  play_list& out;
  play scratch;
  int best = 0;

  /// A play the search cannot extend: keep it when it is among the longest (R6.3).
  void record() {
    if (scratch.count > best) {
      out.clear();
      best = scratch.count;
    }
    if (scratch.count == best && best > 0) {
      out.next_slot() = scratch;
      out.commit();
    }
  }

  /// Tries every move number Depth + 1 (scratch.count == Depth moves made so far) from
  /// starting points at or below max_from. The depth is a template argument so that the
  /// four levels are separate, fully inlined loops.
  template <int Depth>
  void run(std::uint32_t occ, int max_from) {
    const std::uint32_t starts = detail::legal_starts(occ, blocked, die) & ((2u << max_from) - 1u);
    if (starts == 0) {
      record();
      return;
    }
    std::uint64_t unused_key = 0;
    if constexpr (Depth == 3) {
      // The fourth move ends the play: build each one straight in the list's next slot.
      if (best < 4) {
        out.clear();
        best = 4;
      }
      play* const first = out.reserve(max_starts);
      play* slot = first;
      for_each_bit_down(starts, [&](int from) {
        *slot = scratch;
        slot->count = 4;
        std::uint32_t occ4 = occ;
        detail::apply_standard<false>(slot->result, from, die, slot->moves[3], occ4, unused_key);
        ++slot;
      });
      out.commit(static_cast<std::size_t>(slot - first));
    } else {
      position& cur = scratch.result;
      checker_move& m = scratch.moves[Depth];
      scratch.count = Depth + 1;
      for_each_bit_down(starts, [&](int from) {
        std::uint32_t next = occ;
        detail::apply_standard<false>(cur, from, die, m, next, unused_key);
        run<Depth + 1>(next, from);
        detail::undo_move<variant::standard>(cur, m);
      });
      scratch.count = Depth;
    }
  }
};

void generate_standard(const position& pos, roll r, play_list& out) {
  out.clear();
  if (!r.is_double()) {
    standard_non_double(pos, r, out);
    return;
  }
  standard_double_search search{r.die1, detail::blocked_points(pos), out, play{pos, {}, 0}};
  search.run<0>(detail::occupied(pos), bar_index);
  out.set_dice_used(search.best);
}

// --- long nardy --------------------------------------------------------------------

constexpr variant nardy = variant::long_nardy;

// The fast path: when L5 cannot bind during the turn (detail::could_block() is false,
// which holds for most rolls of most positions), a checker move is legal or not by the
// checker being there, its landing point (L2: fixed for the turn, the mover never moves
// opposing checkers), the head count (L3) and the bearing-off rules; long nardy is then
// standard backgammon without hits, entering or blocks of two, and the standard
// generator's shortcuts carry over. The fast path finds the same plays, with the same
// moves, in the same order as the general search below (nardy_non_double and
// nardy_double_search, which the fast path was checked against).

/// L5 for the fast path's CheckBlock form, after a move nardy_legal_starts() allowed
/// from a position that passes L5: the mover's held points can only have grown by the
/// landing point, so only a move onto a point it did not hold can complete a block.
template <bool CheckBlock>
inline bool makes_block(const position& p, const checker_move& m) noexcept {
  if constexpr (CheckBlock) {
    return m.to != off_index && p.mover(m.to) == 1 &&
           detail::forbidden_block(p.raw_mover(), p.raw_opponent());
  } else {
    (void)p;
    (void)m;
    return false;
  }
}

/// Non-double rolls, L5 not binding: both orders of the two dice, R6.1 then R6.2 (L4),
/// as standard_non_double() does. In the second order a play of two different checkers
/// where neither bears off was already found in the first (the other order of the same
/// two moves is legal too: the landing points are fixed, the checker on from2 was there
/// before, L3 counts the same head moves) so only chains and bear-offs are tried; and a
/// "plain" play of the first order whose two checkers do not meet is new for sure (see
/// standard_non_double(); no hits here makes the argument simpler still).
template <bool CheckBlock>
bool nardy_fast_non_double(const position& pos, roll r, const turn_context& ctx, std::uint32_t occ0,
                           std::uint32_t blocked, play_list& out) {
  const int hi = r.high();
  const int lo = r.low();
  std::uint32_t singles[2] = {0, 0};
  bool both = false;
  // No bearing off in any play: two checkers outside the home board (R10.1).
  const std::uint32_t outside = occ0 & detail::outside_home;
  const bool plain =
      (outside & (outside - 1u)) != 0 || (outside != 0 && pos.mover(detail::top_bit(outside)) >= 2);
  // L3: after one checker left the head, may another? (Only a first-turn double.)
  const bool second_head = ctx.head_limit > 1;
  bool refused = false;  // CheckBlock: L5 refused a move, the result is incomplete
  play scratch{pos, {}, 2};
  position& cur = scratch.result;
  for (int order = 0; order < 2 && !refused; ++order) {
    const int first = order == 0 ? hi : lo;
    const int second = order == 0 ? lo : hi;
    singles[order] = detail::nardy_legal_starts(occ0, blocked, first, true);
    for_each_bit_down(singles[order], [&](int from1) {
      if (refused) return;
      std::uint32_t occ1 = occ0;
      std::uint64_t key1 = 0;  // keys relative to pos: see move_keys in zobrist.hpp
      detail::apply_nardy(cur, from1, first, scratch.moves[0], occ1, key1);
      if (makes_block<CheckBlock>(cur, scratch.moves[0])) {
        refused = true;
        return;
      }
      std::uint32_t starts2 =
          detail::nardy_legal_starts(occ1, blocked, second, from1 != 24 || second_head);
      if (order == 1 && from1 - first > 0)
        starts2 &= (1u << (from1 - first)) | ((2u << second) - 1u);
      play* const batch = out.reserve(max_starts);
      std::size_t kept = 0;
      for_each_bit_down(starts2, [&](int from2) {
        if (refused) return;
        play& slot = batch[kept];
        slot = scratch;
        std::uint32_t occ2 = occ1;
        std::uint64_t key2 = key1;
        detail::apply_nardy(slot.result, from2, second, slot.moves[1], occ2, key2);
        if (makes_block<CheckBlock>(slot.result, slot.moves[1])) {
          refused = true;
          return;
        }
        if (order == 0 && plain && from2 != from1 - first && from2 != from1 + second) {
          out.commit();
          ++kept;
        } else if (out.commit_unique(key2)) {
          ++kept;
        }
      });
      both = both || starts2 != 0;
      detail::undo_move<nardy>(cur, scratch.moves[0]);
    });
  }
  if (refused) return false;
  if (both) {
    out.set_dice_used(2);
    return true;
  }
  // R6.2: only one die can be played: the higher if it can be.
  const int pick = singles[0] != 0 ? 0 : 1;
  const int die = pick == 0 ? hi : lo;
  play* const first = out.reserve(max_starts);
  play* slot = first;
  for_each_bit_down(singles[pick], [&](int from) {
    *slot = play{pos, {}, 1};
    std::uint32_t occ = occ0;
    std::uint64_t key = 0;
    detail::apply_nardy(slot->result, from, die, slot->moves[0], occ, key);
    ++slot;
  });
  out.commit(static_cast<std::size_t>(slot - first));
  out.set_dice_used(singles[pick] != 0 ? 1 : 0);
  return true;
}

/// Doubles, L5 not binding: standard_double_search's canonical order (starting points
/// from the highest down, each multiset once, no dedup index) with L3's head count. The
/// reordering argument holds without hits (moves from higher points only bring
/// checkers on or home), and a multiset's moves in that order are the first the general
/// search tries, so the plays and their moves come out as it finds them.
///
/// With CheckBlock, L5 is checked too, and the search stops (refused = true) at the
/// first move it refuses: the multiset might then be legal in another order, which only
/// the general search tries. A search that ends without a refusal has tried every
/// multiset's canonical order up to where a move was not allowed for another reason
/// than L5, so it found every legal play.
template <bool CheckBlock>
struct nardy_fast_double_search {
  int die;
  std::uint32_t blocked;
  play_list& out;
  play scratch;
  int best = 0;
  bool refused = false;

  void record() {
    if (scratch.count > best) {
      out.clear();
      best = scratch.count;
    }
    if (scratch.count == best && best > 0) {
      out.next_slot() = scratch;
      out.commit();
    }
  }

  /// Move number Depth + 1 from starting points at or below max_from; `head_left`
  /// checkers may still leave the head (L3).
  template <int Depth>
  void run(std::uint32_t occ, int max_from, int head_left) {
    const std::uint32_t starts =
        detail::nardy_legal_starts(occ, blocked, die, head_left > 0) & ((2u << max_from) - 1u);
    if (starts == 0) {
      record();
      return;
    }
    std::uint64_t unused_key = 0;
    if constexpr (Depth == 3) {
      if (best < 4) {
        out.clear();
        best = 4;
      }
      play* const first = out.reserve(max_starts);
      play* slot = first;
      for_each_bit_down(starts, [&](int from) {
        *slot = scratch;
        slot->count = 4;
        std::uint32_t occ4 = occ;
        detail::apply_nardy(slot->result, from, die, slot->moves[3], occ4, unused_key);
        if (makes_block<CheckBlock>(slot->result, slot->moves[3])) {
          refused = true;
          return;
        }
        ++slot;
      });
      out.commit(static_cast<std::size_t>(slot - first));
    } else {
      position& cur = scratch.result;
      checker_move& m = scratch.moves[Depth];
      scratch.count = Depth + 1;
      for_each_bit_down(starts, [&](int from) {
        if (refused) return;
        std::uint32_t next = occ;
        detail::apply_nardy(cur, from, die, m, next, unused_key);
        if (makes_block<CheckBlock>(cur, m)) {
          refused = true;
        } else {
          run<Depth + 1>(next, from, head_left - (from == 24 ? 1 : 0));
        }
        detail::undo_move<nardy>(cur, m);
      });
      scratch.count = Depth;
    }
  }
};

/// Non-double rolls: both orders of the two dice; R6.1 then R6.2 (L4). Moves are made
/// and taken back in place on one scratch play; only new results are copied into `out`.
/// L5 is checked after each move, so the order of two moves always matters here.
void nardy_non_double(const position& pos, roll r, const turn_context& ctx, play_list& out) {
  using detail::refusal;
  const int hi = r.high();
  const int lo = r.low();
  std::int8_t singles[2][26];
  int n_singles[2] = {0, 0};
  bool both = false;
  play scratch{pos, {}, 2};
  position& cur = scratch.result;
  for (int order = 0; order < 2; ++order) {
    const int first = order == 0 ? hi : lo;
    const int second = order == 0 ? lo : hi;
    for_each_bit_down(detail::occupied(pos), [&](int from1) {
      if (detail::check_move<nardy>(cur, from1, first, ctx) != refusal::none) return;
      std::uint64_t key1 = 0;  // keys relative to pos: see move_keys in zobrist.hpp
      if (detail::apply_move<nardy>(cur, from1, first, scratch.moves[0], key1) != refusal::none) {
        cur = pos;  // L5 refused the move; the position was changed
        return;
      }
      singles[order][n_singles[order]++] = static_cast<std::int8_t>(from1);
      for_each_bit_down(detail::occupied(cur), [&](int from2) {
        if (detail::check_move<nardy>(cur, from2, second, ctx) != refusal::none) return;
        std::uint64_t key2 = key1;
        if (detail::apply_move<nardy>(cur, from2, second, scratch.moves[1], key2) !=
            refusal::none) {
          // undo the refused move, which apply_move() made before checking L5
          detail::undo_move<nardy>(cur,
                                   checker_move{static_cast<std::int8_t>(from2),
                                                static_cast<std::int8_t>(from2 - second), false});
          return;
        }
        both = true;
        out.add_unique(scratch, key2);
        detail::undo_move<nardy>(cur, scratch.moves[1]);
      });
      detail::undo_move<nardy>(cur, scratch.moves[0]);
    });
  }
  if (both) {
    out.set_dice_used(2);
    return;
  }
  // R6.2: only one die can be played: the higher if it can be.
  const int pick = n_singles[0] > 0 ? 0 : 1;
  const int die = pick == 0 ? hi : lo;
  for (int i = 0; i < n_singles[pick]; ++i) {
    play p1{pos, {}, 1};
    std::uint64_t key = 0;
    (void)detail::apply_move<nardy>(p1.result, singles[pick][i], die, p1.moves[0], key);
    out.add_unique(p1, key);
  }
  out.set_dice_used(n_singles[pick] > 0 ? 1 : 0);
}

/// The interior nodes (positions after 1 to 3 moves) the general doubles search has
/// expanded. Everything below a node depends only on its position and depth (L3's head
/// count is the position's), so a node reached again by another order of the same moves
/// has nothing new to give: its plays were all found, in the same order, the first time.
/// Pruning it leaves the list exactly as the full search makes it. Fixed capacity: once
/// full it stops remembering, which only costs time.
class visited_nodes {
 public:
  visited_nodes() { slots_.fill(0); }
  visited_nodes(const visited_nodes&) = delete;
  visited_nodes& operator=(const visited_nodes&) = delete;
  ~visited_nodes() = default;

  /// True when (p, depth) was remembered before; otherwise remembers it (if there is
  /// room) and returns false. `key` is the node's dedup key (equal for equal positions).
  /// Only the mover's checkers are compared: the opponent's do not move during a turn.
  bool seen(const position& p, int depth, std::uint64_t key) noexcept {
    const std::uint64_t tag = ((key >> 32) << 8) | static_cast<std::uint64_t>(depth);
    for (std::size_t i = static_cast<std::size_t>(key) & (slot_count - 1);;
         i = (i + 1) & (slot_count - 1)) {
      const std::uint64_t slot = slots_[i];
      if (slot == 0) {
        if (count_ == capacity) return false;
        movers_[count_] = p.raw_mover();
        slots_[i] = (tag << 16) | (count_ + 1);
        ++count_;
        return false;
      }
      if ((slot >> 16) == tag && movers_[(slot & 0xFFFFu) - 1] == p.raw_mover()) return true;
    }
  }

 private:
  static constexpr std::size_t slot_count = 2048;  // a power of two
  static constexpr std::size_t capacity = 1024;    // at most half the slots
  // slot: tag (key's high half and the depth) << 16 | (index into movers_ + 1); 0 empty
  std::array<std::uint64_t, slot_count> slots_;
  std::array<std::array<std::uint8_t, 32>, capacity> movers_;  // filled as remembered
  std::size_t count_ = 0;
};

/// Long nardy doubles: depth-first over up to four moves of the same die, made and
/// taken back in place; R6.3 keeps the plays that make the most moves. The order of the
/// moves can matter (the L5 block is checked after every move, L3 limits the head), so
/// every order is tried and the dedup index removes repeated results; `visited` skips a
/// node already expanded by another order of the same moves.
struct nardy_double_search {
  int die;
  const turn_context& ctx;
  play_list& out;
  play scratch;
  visited_nodes& visited;
  int best = 0;

  void record(std::uint64_t key) {
    if (scratch.count > best) {
      out.clear();
      best = scratch.count;
    }
    if (scratch.count == best && best > 0) out.add_unique(scratch, key);
  }

  void run(std::uint64_t key) {
    using detail::refusal;
    bool moved = false;
    position& cur = scratch.result;
    const std::uint8_t depth = scratch.count;
    if (depth > 0 && visited.seen(cur, depth, key)) return;
    auto& m = scratch.moves[depth];
    for_each_bit_down(detail::occupied(cur), [&](int from) {
      if (detail::check_move<nardy>(cur, from, die, ctx) != refusal::none) return;
      std::uint64_t k = key;
      if (detail::apply_move<nardy>(cur, from, die, m, k) != refusal::none) {
        detail::undo_move<nardy>(cur, checker_move{static_cast<std::int8_t>(from),
                                                   static_cast<std::int8_t>(from - die), false});
        return;
      }
      moved = true;
      scratch.count = static_cast<std::uint8_t>(depth + 1);
      if (scratch.count == 4) {
        record(k);
      } else {
        run(k);
      }
      scratch.count = depth;
      detail::undo_move<nardy>(cur, m);
    });
    if (!moved) record(key);
  }
};

void generate_nardy(const position& pos, roll r, play_list& out) {
  out.clear();
  const turn_context ctx = detail::context_for<nardy>(pos, r);
  const std::uint32_t occ = detail::occupied(pos);
  const std::uint32_t blocked = detail::nardy_blocked_points(pos);
  // The fast path, without L5 when it cannot bind, else with L5 checked, falling back
  // to the general search when L5 refuses a move or the position holds a forbidden
  // block already (not reachable in play, but a Position ID can say so).
  if (!detail::could_block(pos, r, occ, blocked)) {
    if (!r.is_double()) {
      (void)nardy_fast_non_double<false>(pos, r, ctx, occ, blocked, out);
      return;
    }
    nardy_fast_double_search<false> search{r.die1, blocked, out, play{pos, {}, 0}};
    search.run<0>(occ, 24, ctx.head_limit);
    out.set_dice_used(search.best);
    return;
  }
  if (!detail::forbidden_block(pos.raw_mover(), pos.raw_opponent())) {
    if (!r.is_double()) {
      if (nardy_fast_non_double<true>(pos, r, ctx, occ, blocked, out)) return;
    } else {
      nardy_fast_double_search<true> search{r.die1, blocked, out, play{pos, {}, 0}};
      search.run<0>(occ, 24, ctx.head_limit);
      if (!search.refused) {
        out.set_dice_used(search.best);
        return;
      }
    }
    out.clear();
  }
  if (!r.is_double()) {
    nardy_non_double(pos, r, ctx, out);
    return;
  }
  visited_nodes visited;
  nardy_double_search search{r.die1, ctx, out, play{pos, {}, 0}, visited};
  search.run(0);
  out.set_dice_used(search.best);
}

}  // namespace

void legal_plays(const position& pos, roll r, variant v, play_list& out) {
  assert(r.valid());
  if (v == variant::standard) {
    generate_standard(pos, r, out);
  } else {
    generate_nardy(pos, r, out);
  }
}

play_list legal_plays(const position& pos, roll r, variant v) {
  play_list out;
  legal_plays(pos, r, v, out);
  return out;
}

}  // namespace bg::engine
