#include "bg/engine/move_generator.hpp"

#include <cassert>
#include <cstring>

#include "rules.hpp"

namespace bg::engine {

// ---------------------------------------------------------------------------------
// play_list: a vector of plays plus an open-addressing index on the result position.
// Slots hold (generation << 32) | index, so clear() is O(1): bumping the
// generation empties every slot at once.

namespace {
constexpr std::size_t initial_slots = 512;  // a power of two
}  // namespace

play_list::play_list() : plays_(initial_slots / 2), slots_(initial_slots, 0) {}

void play_list::clear() noexcept {
  count_ = 0;
  dice_used_ = 0;
  if (++generation_ == 0) {  // wrapped: wipe every slot once and restart
    std::fill(slots_.begin(), slots_.end(), 0);
    generation_ = 1;
  }
}

void play_list::grow() {
  std::vector<play> old(plays_.begin(), plays_.begin() + static_cast<std::ptrdiff_t>(count_));
  plays_.resize(plays_.size() * 2);
  slots_.assign(slots_.size() * 2, 0);
  generation_ = 1;
  count_ = 0;
  for (const auto& p : old) add_unique(p, hash_of(p.result));
}

void play_list::rebuild(const std::vector<play>& plays) {
  const int used = dice_used_;
  clear();
  dice_used_ = used;
  for (const auto& p : plays) add_unique(p, hash_of(p.result));
}

int play_list::find(const position& p) const noexcept {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash_of(p) & mask;; i = (i + 1) & mask) {
    const std::uint64_t slot = slots_[i];
    if ((slot >> 32) != generation_) return -1;
    const auto idx = static_cast<std::uint32_t>(slot);
    if (plays_[idx].result == p) return static_cast<int>(idx);
  }
}

// ---------------------------------------------------------------------------------
// The generator.

namespace {

using detail::turn_context;
using detail::try_move;

template <variant V>
constexpr int highest_from() noexcept {
  return V == variant::standard ? bar_index : 24;
}

/// Non-double rolls: both orders of the two dice; R6.1 then R6.2. Moves are made and
/// taken back in place on one scratch play; only new results are copied into `out`.
template <variant V>
void generate_non_double(const position& pos, roll r, const turn_context& ctx,
                         play_list& out) {
  using detail::refusal;
  const std::uint64_t base_hash = hash_of(pos);
  const int hi = r.high();
  const int lo = r.low();
  // Starting points from which each die alone can be played, in case no play uses
  // both dice (then R6.2 decides which single-die plays are legal).
  std::int8_t singles[2][26];
  int n_singles[2] = {0, 0};
  bool both = false;
  play scratch{pos, {}, 2};
  position& cur = scratch.result;
  for (int order = 0; order < 2; ++order) {
    const int first = order == 0 ? hi : lo;
    const int second = order == 0 ? lo : hi;
    const std::uint32_t occupied1 = detail::occupied(pos);
    for (std::uint32_t left1 = occupied1; left1 != 0;) {
      const int from1 = detail::top_bit(left1);
      left1 &= ~(1u << from1);
      if (detail::check_move<V>(cur, from1, first, ctx) != refusal::none) continue;
      std::uint64_t h1 = base_hash;
      if (detail::apply_move<V>(cur, from1, first, scratch.moves[0], h1) != refusal::none) {
        cur = pos;  // long nardy: L5 refused the move; the position was changed
        continue;
      }
      singles[order][n_singles[order]++] = static_cast<std::int8_t>(from1);
      // In the second order (lower die first) a play of two different checkers where
      // neither enters nor bears off was already found in the first order: the other
      // order of the same two moves is legal from the same position and ends in the
      // same place (hits included). Only chains, entering and bearing off can differ.
      // Long nardy checks L5 after each move, so there the order always matters.
      const bool skip_independent = V == variant::standard && order == 1 &&
                                    pos.mover(bar_index) == 0 && from1 - first > 0;
      for (std::uint32_t left2 = detail::occupied(cur); left2 != 0;) {
        const int from2 = detail::top_bit(left2);
        left2 &= ~(1u << from2);
        if (skip_independent && from2 != from1 - first && from2 - second > 0) continue;
        if (detail::check_move<V>(cur, from2, second, ctx) != refusal::none) continue;
        std::uint64_t h2 = h1;
        if (detail::apply_move<V>(cur, from2, second, scratch.moves[1], h2) != refusal::none) {
          // long nardy: undo the refused move, which apply_move() made before checking L5
          detail::undo_move<V>(cur, checker_move{static_cast<std::int8_t>(from2),
                                                 static_cast<std::int8_t>(from2 - second), false});
          continue;
        }
        both = true;
        out.add_unique(scratch, h2);
        detail::undo_move<V>(cur, scratch.moves[1]);
      }
      detail::undo_move<V>(cur, scratch.moves[0]);
    }
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
    std::uint64_t h1 = base_hash;
    (void)detail::apply_move<V>(p1.result, singles[pick][i], die, p1.moves[0], h1);
    out.add_unique(p1, h1);
  }
  out.set_dice_used(n_singles[pick] > 0 ? 1 : 0);
}

/// Doubles: depth-first over up to four moves of the same die, made and taken back in
/// place; R6.3 keeps the plays that make the most moves. In standard play the moves
/// of one play can always be ordered from the highest starting point down, so the
/// search only tries starting points at or below the previous one. In long nardy the
/// order can matter (the L5 block is checked after every move), so every order is
/// tried.
template <variant V>
struct double_search {
  int die;
  const turn_context& ctx;
  play_list& out;
  play scratch;
  int best = 0;

  void record(std::uint64_t hash) {
    if (scratch.count > best) {
      out.clear();
      best = scratch.count;
    }
    if (scratch.count == best && best > 0) out.add_unique(scratch, hash);
  }

  void run(std::uint64_t hash, int max_from) {
    using detail::refusal;
    bool moved = false;
    position& cur = scratch.result;
    const std::uint8_t depth = scratch.count;
    auto& m = scratch.moves[depth];
    for (std::uint32_t left = detail::occupied(cur) & ((2u << max_from) - 1u); left != 0;) {
      const int from = detail::top_bit(left);
      left &= ~(1u << from);
      if (detail::check_move<V>(cur, from, die, ctx) != refusal::none) continue;
      std::uint64_t h = hash;
      if (detail::apply_move<V>(cur, from, die, m, h) != refusal::none) {
        detail::undo_move<V>(cur, checker_move{static_cast<std::int8_t>(from),
                                               static_cast<std::int8_t>(from - die), false});
        continue;
      }
      moved = true;
      scratch.count = static_cast<std::uint8_t>(depth + 1);
      if (scratch.count == 4) {
        record(h);
      } else {
        run(h, V == variant::standard ? from : highest_from<V>());
      }
      scratch.count = depth;
      detail::undo_move<V>(cur, m);
    }
    if (!moved) record(hash);
  }
};

template <variant V>
void generate(const position& pos, roll r, play_list& out) {
  out.clear();
  const turn_context ctx = detail::context_for<V>(pos, r);
  if (!r.is_double()) {
    generate_non_double<V>(pos, r, ctx, out);
    return;
  }
  double_search<V> search{r.die1, ctx, out, play{pos, {}, 0}};
  search.run(hash_of(pos), highest_from<V>());
  out.set_dice_used(search.best);
}

}  // namespace

void legal_plays(const position& pos, roll r, variant v, play_list& out) {
  assert(r.valid());
  if (v == variant::standard) {
    generate<variant::standard>(pos, r, out);
  } else {
    generate<variant::long_nardy>(pos, r, out);
  }
}

play_list legal_plays(const position& pos, roll r, variant v) {
  play_list out;
  legal_plays(pos, r, v, out);
  return out;
}

}  // namespace bg::engine
