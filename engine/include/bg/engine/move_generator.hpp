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
  play_list(const play_list& other);
  play_list(play_list&& other) noexcept;
  play_list& operator=(const play_list& other);
  play_list& operator=(play_list&& other) noexcept;
  ~play_list() = default;
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
  [[nodiscard]] const play& operator[](std::size_t i) const noexcept { return data_[i]; }
  [[nodiscard]] const play* begin() const noexcept { return data_; }
  [[nodiscard]] const play* end() const noexcept { return data_ + count_; }
  /// How many dice each play uses (0..4); 0 when no die can be played (R6.4).
  [[nodiscard]] int dice_used() const noexcept { return dice_used_; }
  /// The index of the play whose result is `p` (mover's view), or -1.
  [[nodiscard]] int find(const position& p) const noexcept;

  // Used by the generator. A list is filled after clear() in one of two ways: plays
  // known to be distinct are written with next_slot() + commit(); others go through the
  // dedup index with add_unique() or next_slot() + commit_unique(). The index only
  // knows the plays that went through it, and `key` must be equal for equal results
  // among them (hash_of(result) is one such key; the generator uses cheaper ones).
  void clear() noexcept;
  /// Adds the play unless a play with the same result is already present.
  void add_unique(const play& candidate) { add_unique(candidate, hash_of(candidate.result)); }
  /// The same, with a dedup key for candidate.result (see above).
  void add_unique(const play& candidate, std::uint64_t key) {
    next_slot() = candidate;
    (void)commit_unique(key);
  }
  /// The storage the next play is built in; it becomes part of the list only when
  /// commit() or commit_unique() is called. Its previous content is unspecified.
  play& next_slot() {
    if (count_ == capacity_) grow();
    return data_[count_];
  }
  /// Room for `n` more plays: returns where the next play goes; the n slots after it
  /// stay valid until something is committed beyond them. A batch of plays can then be
  /// built through a local pointer (writes to a play's bytes could alias the list's own
  /// members, so going through next_slot() reloads them for every play).
  play* reserve(std::size_t n) {
    while (count_ + n > capacity_) grow();
    return data_ + count_;
  }
  /// Adds the play built in next_slot(); the caller knows it is distinct from the rest.
  void commit() noexcept { ++count_; }
  /// Adds the `n` plays built after reserve(); the caller knows they are distinct.
  void commit(std::size_t n) noexcept { count_ += n; }
  /// Adds the play built in next_slot() unless the index holds one with the same
  /// result; `key` is its dedup key. Returns whether it was added.
  bool commit_unique(std::uint64_t key) {
    if ((indexed_ + 1) * 2 > slots_.size()) grow_index();
    const std::size_t mask = slots_.size() - 1;
    // Slot layout: generation (16 bits) | tag (32 bits) | play index (16 bits), where
    // the tag is the key's high half and its low bits pick the home slot. A slot holds
    // all it needs to be moved when the index grows, and a tag mismatch skips most
    // position comparisons.
    const std::uint64_t tag = key >> 32;
    const std::uint64_t gen = std::uint64_t{generation_} << 48;
    const play& candidate = data_[count_];
    for (std::size_t i = static_cast<std::size_t>(tag) & mask;; i = (i + 1) & mask) {
      const std::uint64_t slot = slots_[i];
      if ((slot & generation_mask) != gen) {
        slots_[i] = gen | (tag << 16) | count_;
        ++count_;
        ++indexed_;
        return true;
      }
      if (((slot >> 16) & 0xFFFFFFFFu) == tag && data_[slot & 0xFFFFu].result == candidate.result)
        return false;
    }
  }
  void set_dice_used(int n) noexcept { dice_used_ = n; }
  /// Removes every play for which keep(play) is false (the index is rebuilt with
  /// hash_of() keys).
  template <typename Pred>
  void keep_if(Pred keep) {
    std::vector<play> kept;
    kept.reserve(count_);
    for (std::size_t i = 0; i < count_; ++i)
      if (keep(data_[i])) kept.push_back(data_[i]);
    rebuild(kept);
  }

 private:
  static constexpr std::uint64_t generation_mask = 0xFFFFull << 48;
  void grow();
  void grow_index();
  void forget_storage() noexcept;
  void rebuild(const std::vector<play>& plays);
  // data_[0..count_) are the plays. data_ and capacity_ mirror plays_.data() and
  // plays_.size() (kept apart so that the hot paths need no division by sizeof(play)).
  // The index addresses at most 65536 plays (its slots' index field); no roll has more
  // than a few thousand.
  std::vector<play> plays_;
  play* data_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t count_ = 0;
  // Open addressing on the result's key, for the indexed_ plays that went through
  // commit_unique(). A slot whose generation is not the current one is empty, so
  // clear() is O(1).
  std::vector<std::uint64_t> slots_;
  std::size_t indexed_ = 0;
  std::uint16_t generation_ = 1;
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
