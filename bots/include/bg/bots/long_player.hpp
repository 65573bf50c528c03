#pragma once
/// @file long_player.hpp
/// A computer player for Long Nardy (RULES.md L1-L8), in the engine's terms: it picks
/// a play by searching the distinct legal plays with evaluate_long(), and answers every
/// question a table asks a seat (double or roll, take or drop, accept or reject a
/// resignation, continue or stop a basis session).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "bg/engine/match.hpp"
#include "bg/engine/move_generator.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/side.hpp"

namespace bg::bots {

/// How a long_player plays.
struct long_player_options {
  /// Breaks ties between plays the evaluation values alike: the same seed, position and
  /// roll always give the same play.
  std::uint64_t seed = 1;
  /// 1: the play whose result evaluates best (one ply). 2 (the default, what a table
  /// seat should use): the best four of those are searched one ply deeper (the
  /// opponent's best reply to each of the 21 rolls, averaged): about 60 % of the games
  /// against the one-ply player, about 1 ms a play here.
  int plies = 2;
  /// The standard deviation of the noise added to each play's one-ply equity (points
  /// per cube value, the scale of long_evaluation::equity()), 0 for none: how a weaker
  /// level errs (gnubg's noise, for long nardy). Deterministic: a normal deviate drawn
  /// from `seed` and the play's resulting position, so the same position always gets
  /// the same noise and a seed always gives the same game. Cube, resignation and basis
  /// decisions are not noisy. Negative values count as 0.
  double noise = 0.0;
};

/// The long nardy bot. Stateless apart from its options: every decision is a function
/// of the match (or position and roll) it is given, so a table may rebuild it at will.
/// All positions are seen from the side deciding (its own numbering, 24 -> 1, its head
/// on 24: position.hpp); the match is the engine's and must be a long nardy one.
///
/// Cube policy (R14, R15; RULES.md S-rules do not cover bots), from evaluate_long()'s
/// winning and mars chances and the score:
/// - money (basis sessions, R16): the value of an outcome is its points; free play
///   has no cube (R12).
/// - a match (R13): the value of an outcome is the chance to win the match afterwards,
///   from a match equity table computed for long nardy (each game won 50 %, a quarter of
///   wins a mars, the trailer doubling at once after the Crawford game).
/// - double when the opponent should drop and playing on for a mars is not worth more
///   than cashing; or, when the opponent should take, when the position is close to
///   its take point (within 7 % of the doubled cube's range: about 68 % winning chances
///   at money without mars) or when the opponent could never use the cube (it wins
///   the match with any win at the doubled value).
/// - take when taking is worth at least dropping, with 3.5 % of the doubled range for
///   owning the cube when a redouble would still mean something.
/// - accept a resignation when it gives at least what playing on is expected to
///   (always in free play, where the points are the loser's pip count now, R12).
/// - always continue a basis session: the person at the table decides when to stop.
class long_player {
 public:
  /// A player with `options` (plies is clamped to 1..2, noise to 0 and above).
  explicit long_player(long_player_options options = {}) noexcept;

  /// The index in `legal` of the play to make. `before` is the position the plays
  /// start from and `legal` = engine::legal_plays(before, roll, variant::long_nardy),
  /// not empty (with no legal play the turn passes by itself, R6.4).
  [[nodiscard]] std::size_t choose_play(const engine::position& before,
                                        const engine::play_list& legal) const;

  /// True when `s`, on roll in phase roll of match `m`, should offer the cube (false
  /// whenever m.may_double(s) is false).
  [[nodiscard]] bool wants_double(const engine::match& m, engine::side s) const;
  /// True when `s`, offered the cube (phase cube_offered), should take it; false: drop.
  [[nodiscard]] bool wants_take(const engine::match& m, engine::side s) const;
  /// True when `s`, offered a resignation (phase resign_offered), should accept it.
  [[nodiscard]] bool accepts_resignation(const engine::match& m, engine::side s) const;
  /// True when `s` should go on with a basis session after a game (phase game_over).
  [[nodiscard]] bool wants_to_continue(const engine::match& m, engine::side s) const;

  /// What `s` sends now in match `m`, as a command line of protocol/PROTOCOL.md:
  /// "/roll" (the opening roll, which either player may throw, or a roll), "/double",
  /// "/move <play>" (gnubg notation in s's numbering, from engine::format_play), "/take",
  /// "/drop", "/accept", "/reject", "/continue" or "/stop"; nullopt when nothing is
  /// asked of `s` (the other side is to act, the match is over, s has already said
  /// /continue) or when `m` is not a long nardy match.
  [[nodiscard]] std::optional<std::string> next_command(const engine::match& m,
                                                        engine::side s) const;

  [[nodiscard]] const long_player_options& options() const noexcept { return options_; }

 private:
  long_player_options options_;
};

}  // namespace bg::bots
