#pragma once
/// @file move_generator.hpp
/// Legal play generation: every distinct position a roll can lead to.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bg/engine/play.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/roll.hpp"
#include "bg/engine/variant.hpp"

namespace bg::engine {

/// The legal plays of one position and roll: one entry per distinct resulting
/// position (wildbg's and gnubg's rule: a submitted play is legal exactly when its
/// result is in this set). Reusable: generating into the same list again reuses its
/// memory, so a hot loop allocates nothing after the first call.
class play_list {
 public:
  play_list();
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
  [[nodiscard]] const play& operator[](std::size_t i) const noexcept { return plays_[i]; }
  [[nodiscard]] const play* begin() const noexcept { return plays_.data(); }
  [[nodiscard]] const play* end() const noexcept { return plays_.data() + count_; }
  /// How many dice each play uses (0..4); 0 when no die can be played (R6.4).
  [[nodiscard]] int dice_used() const noexcept { return dice_used_; }
  /// The index of the play whose result is `p` (mover's view), or -1.
  [[nodiscard]] int find(const position& p) const noexcept;

  // Used by the generator.
  void clear() noexcept;
  /// Adds the play unless a play with the same result is already present.
  void add_unique(const play& candidate) { add_unique(candidate, hash_of(candidate.result)); }
  /// The same, with `hash` == hash_of(candidate.result) already known.
  void add_unique(const play& candidate, std::uint64_t hash) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      const std::uint64_t slot = slots_[i];
      if ((slot >> 32) != generation_) {
        slots_[i] = (std::uint64_t{generation_} << 32) | count_;
        plays_[count_++] = candidate;
        return;
      }
      if (plays_[static_cast<std::uint32_t>(slot)].result == candidate.result) return;
    }
  }
  void set_dice_used(int n) noexcept { dice_used_ = n; }
  /// Removes every play for which keep(play) is false.
  template <typename Pred>
  void keep_if(Pred keep) {
    std::vector<play> kept;
    kept.reserve(count_);
    for (std::size_t i = 0; i < count_; ++i)
      if (keep(plays_[i])) kept.push_back(plays_[i]);
    rebuild(kept);
  }

 private:
  void grow();
  void rebuild(const std::vector<play>& plays);
  // plays_[0..count_) are the plays; plays_.size() is the capacity (half the slots).
  std::vector<play> plays_;
  std::size_t count_ = 0;
  // Open addressing on the result position: (generation << 32) | play index. A slot
  // whose generation is not the current one is empty, so clear() is O(1).
  std::vector<std::uint64_t> slots_;
  std::uint32_t generation_ = 1;
  int dice_used_ = 0;
};

/// Fills `out` with every distinct legal play of `roll` in `pos` for variant `v`,
/// the mover to play. Implements R4-R10 (standard) or L2-L6 (long): moves in the
/// mover's direction only, open intermediate points, doubles four times, both dice
/// when possible else the higher (R6.1, R6.2), as many moves of a double as possible
/// (R6.3), entering first (R8), bearing off (R10); for long, no landing on any
/// opposing checker (L2), the head rule with the first-turn exception (L3) and the
/// six-point block (L5). When no die can be played `out` is empty and dice_used() is 0
/// (R6.4): the turn passes with the position unchanged.
/// Precondition: pos.is_ok(v) and r.valid().
void legal_plays(const position& pos, roll r, variant v, play_list& out);

/// Convenience form of legal_plays() that returns a new list.
[[nodiscard]] play_list legal_plays(const position& pos, roll r, variant v);

}  // namespace bg::engine
