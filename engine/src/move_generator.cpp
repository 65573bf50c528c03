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

play_list::play_list() : slots_(initial_slots, 0) { plays_.reserve(64); }

void play_list::clear() noexcept {
  plays_.clear();
  dice_used_ = 0;
  if (++generation_ == 0) {  // wrapped: wipe every slot once and restart
    std::fill(slots_.begin(), slots_.end(), 0);
    generation_ = 1;
  }
}

void play_list::rebuild_index() {
  std::vector<play> plays;
  plays.swap(plays_);
  const int used = dice_used_;
  clear();
  dice_used_ = used;
  for (const auto& p : plays) insert(p, hash_of(p.result));
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

void play_list::add_unique(const play& candidate, std::uint64_t hash) {
  if ((plays_.size() + 1) * 2 > slots_.size()) {
    // Keep the load factor at most one half: double the table and re-insert.
    slots_.assign(slots_.size() * 2, 0);
    std::vector<play> plays;
    plays.swap(plays_);
    plays_.reserve(plays.size() * 2);
    for (const auto& p : plays) insert(p, hash_of(p.result));
  }
  insert(candidate, hash);
}

void play_list::insert(const play& candidate, std::uint64_t hash) {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const std::uint64_t slot = slots_[i];
    if ((slot >> 32) != generation_) {
      slots_[i] = (std::uint64_t{generation_} << 32) | plays_.size();
      plays_.push_back(candidate);
      return;
    }
    if (plays_[static_cast<std::uint32_t>(slot)].result == candidate.result) return;
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

/// Non-double rolls: both orders of the two dice; R6.1 then R6.2.
template <variant V>
void generate_non_double(const position& pos, roll r, const turn_context& ctx,
                         play_list& out) {
  const std::uint64_t base_hash = hash_of(pos);
  const int hi = r.high();
  const int lo = r.low();
  // Starting points from which each die alone can be played, in case no play uses
  // both dice (then R6.2 decides which single-die plays are legal).
  std::int8_t singles[2][26];
  int n_singles[2] = {0, 0};
  bool both = false;
  for (int order = 0; order < 2; ++order) {
    const int first = order == 0 ? hi : lo;
    const int second = order == 0 ? lo : hi;
    for (int from1 = highest_from<V>(); from1 >= 1; --from1) {
      if (pos.mover(from1) == 0) continue;
      if (detail::check_move<V>(pos, from1, first, ctx) != detail::refusal::none) continue;
      play p1{pos, {}, 1};
      std::uint64_t h1 = base_hash;
      if (detail::apply_move<V>(p1.result, from1, first, p1.moves[0], h1) !=
          detail::refusal::none)
        continue;
      singles[order][n_singles[order]++] = static_cast<std::int8_t>(from1);
      // In the second order (lower die first) a play of two different checkers where
      // neither enters nor bears off was already found in the first order: the other
      // order of the same two moves is legal from the same position and ends in the
      // same place (hits included). Only chains, entering and bearing off can differ.
      // Long nardy checks L5 after each move, so there the order always matters.
      const bool skip_independent = V == variant::standard && order == 1 &&
                                    pos.mover(bar_index) == 0 && from1 - first > 0;
      for (int from2 = highest_from<V>(); from2 >= 1; --from2) {
        if (p1.result.mover(from2) == 0) continue;
        if (skip_independent && from2 != from1 - first && from2 - second > 0) continue;
        if (detail::check_move<V>(p1.result, from2, second, ctx) != detail::refusal::none)
          continue;
        play p2 = p1;
        std::uint64_t h2 = h1;
        if (detail::apply_move<V>(p2.result, from2, second, p2.moves[1], h2) !=
            detail::refusal::none)
          continue;
        p2.count = 2;
        both = true;
        out.add_unique(p2, h2);
      }
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
    (void)try_move<V>(p1.result, singles[pick][i], die, ctx, p1.moves[0], h1);
    out.add_unique(p1, h1);
  }
  out.set_dice_used(n_singles[pick] > 0 ? 1 : 0);
}

/// Doubles: depth-first over up to four moves of the same die; R6.3 keeps the
/// plays that make the most moves. In standard play the moves of one play can always
/// be ordered from the highest starting point down, so the search only tries
/// starting points at or below the previous one. In long nardy the order can matter
/// (the L5 block is checked after every move), so every order is tried.
template <variant V>
struct double_search {
  int die;
  const turn_context& ctx;
  play_list& out;
  int best = 0;

  void record(const play& p, std::uint64_t hash) {
    if (p.count > best) {
      out.clear();
      best = p.count;
    }
    if (p.count == best && best > 0) out.add_unique(p, hash);
  }

  void run(const play& current, std::uint64_t hash, int max_from) {
    bool moved = false;
    for (int from = max_from; from >= 1; --from) {
      if (current.result.mover(from) == 0) continue;
      if (detail::check_move<V>(current.result, from, die, ctx) != detail::refusal::none)
        continue;
      play next = current;
      std::uint64_t h = hash;
      if (detail::apply_move<V>(next.result, from, die, next.moves[current.count], h) !=
          detail::refusal::none)
        continue;
      moved = true;
      next.count = static_cast<std::uint8_t>(current.count + 1);
      if (next.count == 4) {
        record(next, h);
      } else {
        run(next, h, V == variant::standard ? from : highest_from<V>());
      }
    }
    if (!moved) record(current, hash);
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
  double_search<V> search{r.die1, ctx, out};
  play start{pos, {}, 0};
  search.run(start, hash_of(pos), highest_from<V>());
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
