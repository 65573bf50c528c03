#pragma once
/// @file long_evaluation.hpp
/// A hand-made evaluation of Long Nardy positions (RULES.md L1-L8): the race, bear-off
/// wastage, blocking (primes, L5), head usage (L3) and the spread of the checkers, as a
/// lead in pips, turned into winning and mars chances.

#include <cstdint>

#include "bg/engine/position.hpp"

namespace bg::bots {

/// What evaluate_long() found, for one side of a long nardy position: the side that
/// has just played (the position's mover), the opponent being on roll next. Every piece
/// is a lead in pips for that side (positive: good for it); `score` is their sum.
struct long_evaluation {
  double race = 0;       ///< opponent's pip count minus the side's
  double wastage = 0;    ///< bear-off: opponent's wastage minus the side's (Keith's
                         ///< adjustments), and the side's checkers off minus the opponent's
  double blocking = 0;   ///< opposing checkers the side's points trap, minus its own trapped
  double mobility = 0;   ///< pips of a roll the opponent cannot play, minus the side's
  double head = 0;       ///< checkers still on the opponent's head minus on the side's (L3)
  double structure = 0;  ///< points held and heavy stacks (contact only)
  double score = 0;      ///< the sum of the pieces: the side's lead in pips
  bool contact = true;   ///< some checkers must still pass opposing ones (else a pure race)
  double win = 0.5;      ///< probability that the side wins the game
  double win_mars = 0;   ///< probability that it wins a mars (2 points, L7); <= win
  double lose_mars = 0;  ///< probability that it loses a mars; <= 1 - win

  /// Cubeless equity for the side in points per cube value: a single game counts 1
  /// and a mars 2 (L7), so 2 win - 1 + win_mars - lose_mars, within -2..2.
  [[nodiscard]] double equity() const noexcept { return 2.0 * win - 1.0 + win_mars - lose_mars; }
};

/// Evaluates `p` for its mover, who has just played (the opponent rolls next). `p` is a
/// long nardy position (is_ok(long_nardy)), each side in its own numbering
/// (position.hpp). When a side has borne off all 15 the game is over and the chances
/// are certainties (win 1 or 0; a mars when the loser has none off, L7). Deterministic,
/// no allocation.
[[nodiscard]] long_evaluation evaluate_long(const engine::position& p) noexcept;

/// Evaluates `p` for its mover *before* it rolls (what cube decisions need): the
/// evaluation of p.swapped() for the opponent, turned round (pieces and score negated,
/// win and mars chances exchanged).
[[nodiscard]] long_evaluation evaluate_long_on_roll(const engine::position& p) noexcept;

/// How firmly the strongest wall in front holds a lone checker back: the share (0..1)
/// of the 36 rolls that do not get it past. `ahead` is a 12-bit mask: bit d - 1 set
/// when the point d pips in front of the checker (d = 1..12) is held by the other side.
/// A wall is a run of consecutive held points; it counts when its near end is at most
/// 6 pips ahead (a die can reach it; a checker may land between two walls, so each is
/// taken alone). A wall of L points just in front lets past only the rolls with a die
/// above L, so it traps L*L/36 of them; that is the share for the longest wall within
/// reach: 0 with none, 1/36 for a lone point, 1 for six in a row (a prime, L5).
[[nodiscard]] double trapped_share(std::uint32_t ahead) noexcept;

/// How many of `runner`'s checkers `blocker`'s points trap: the sum over the runner's
/// points of trapped_share() of the blocker's points in the 12 points in front, times
/// the checkers there, at most 3 a point (the rest of a stack, the head's above all,
/// would wait behind those anyway). Both sides in their own numbering, as
/// position::mover_side() and opponent_side() give them (long nardy geometry: the
/// blocker's point m is the runner's ((m + 11) mod 24) + 1).
[[nodiscard]] double trapped_checkers(const engine::side_checkers& blocker,
                                      const engine::side_checkers& runner) noexcept;

/// The pips of its next roll that `runner` cannot play because `blocker`'s checkers
/// take the landing points (L2) or bearing off is not allowed yet (R10): the average
/// over the 36 rolls of the dice no checker can play, each die taken alone (a double
/// four times). 0 when every die moves some checker; 49/6 (8.17) when none moves.
/// Both sides in their own numbering (see trapped_checkers()).
[[nodiscard]] double unplayable_pips(const engine::side_checkers& blocker,
                                     const engine::side_checkers& runner) noexcept;

/// Keith's bear-off wastage of one side (own numbering): 2 pips for each checker beyond
/// the first on point 1, 1 for each beyond the first on point 2, 1 for each beyond the
/// third on point 3, and 1 for each of points 4, 5, 6 that is empty.
[[nodiscard]] int bear_off_wastage(const engine::side_checkers& side) noexcept;

/// True while some checker must still pass an opposing one: false only when each side
/// has every checker on its own points 1..12 or borne off (then nothing can block
/// anything again and the game is a race).
[[nodiscard]] bool in_contact(const engine::position& p) noexcept;

/// The chance that the side on roll wins a race in which it leads by `lead` pips (its
/// opponent's pip count minus its own, wastage included), `pips` being both sides' pip
/// counts added: a normal approximation of the number of rolls each side needs (mean
/// 8.17 pips and variance 18.5 per roll), the roller being half a roll ahead, its
/// spread narrowed to fit the races of the bot's self-play (see the source).
[[nodiscard]] double race_win_probability(double lead, int pips) noexcept;

}  // namespace bg::bots
