#pragma once
/// @file game.hpp
/// One game, without the cube: opening roll, turns, plays, passes, resignation and
/// the result (R2, R3, R6.4, R11, R18; L1-L8 for long nardy).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bg/engine/board.hpp"
#include "bg/engine/dice_source.hpp"
#include "bg/engine/error.hpp"
#include "bg/engine/game_result.hpp"
#include "bg/engine/move_generator.hpp"
#include "bg/engine/play.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/roll.hpp"
#include "bg/engine/side.hpp"
#include "bg/engine/variant.hpp"

namespace bg::engine {

/// Where a game stands.
enum class game_phase : unsigned char {
  opening,  ///< waiting for the opening roll (R2)
  roll,     ///< `turn()` must roll (or, in a match, may double first)
  move,     ///< `turn()` has rolled and must play `dice()`
  over,     ///< finished: result() is set
};

/// The opening roll: each side's single die, ties included (R2).
struct opening_roll {
  std::vector<roll> ties;  ///< tied throws that were rolled again ({red die, black die})
  int red_die = 0;
  int black_die = 0;
  side first = side::red;  ///< the higher die, who plays red_die and black_die as a roll
};

/// What a roll led to.
struct roll_outcome {
  side roller = side::red;
  roll dice;
  bool passed = false;  ///< no legal play: the dice are lost and the turn passed (R6.4)
};

/// What a play did.
struct play_outcome {
  side mover = side::red;
  roll dice;
  play made;             ///< the legal play (checker moves in mover numbering)
  std::string notation;  ///< gnubg notation of the play, mover's perspective
  bool game_over = false;
};

/// A game of one variant. Every command checks the phase and the side and returns an
/// error value (codes "wrong_phase", "not_your_turn", "illegal_play", ...) leaving the
/// game unchanged when refused.
class game {
 public:
  explicit game(variant v = variant::standard);

  /// R2/L8: rolls one die per side until they differ; the higher plays both dice.
  /// Error "wrong_phase" unless phase() is opening.
  result<opening_roll> roll_opening(dice_source& dice);
  /// R3: the side on turn rolls. When no play exists the turn passes at once (R6.4).
  /// Errors: "wrong_phase", "not_your_turn".
  result<roll_outcome> roll_dice(side s, dice_source& dice);
  /// Plays the written play (mover's notation). When the mover bears off its last
  /// checker the game is over (R11). Errors: "wrong_phase", "not_your_turn",
  /// "bad_notation", "illegal_play", "ambiguous_play".
  result<play_outcome> make_play(side s, std::string_view notation);
  /// Plays legal_plays()[index] (for programs that choose from the list).
  result<play_outcome> make_play(side s, std::size_t index);
  /// Ends the game now with `winner` winning `kind` for `reason` (drops, accepted
  /// resignations, forfeits). Points are left 0: the match layer scores.
  void finish(side winner, win_kind kind, end_reason reason);

  [[nodiscard]] variant game_variant() const noexcept { return variant_; }
  [[nodiscard]] game_phase phase() const noexcept { return phase_; }
  /// The side on turn (meaningless in the opening phase).
  [[nodiscard]] side turn() const noexcept { return turn_; }
  /// The dice of the current turn (phase move), else {0, 0}.
  [[nodiscard]] roll dice() const noexcept { return dice_; }
  /// The position seen from turn().
  [[nodiscard]] const position& current() const noexcept { return position_; }
  /// The position seen from side s.
  [[nodiscard]] position seen_by(side s) const noexcept;
  /// The legal plays of the current turn (phase move), else empty.
  [[nodiscard]] const play_list& legal() const noexcept { return legal_; }
  /// Every legal play written in notation (each accepted verbatim by make_play).
  [[nodiscard]] std::vector<std::string> legal_notations() const;
  /// The board in R1 numbering.
  [[nodiscard]] board_view board() const { return to_board(position_, turn_, variant_); }
  /// Pip count of side s (R12).
  [[nodiscard]] int pip_count(side s) const noexcept;
  /// The result once phase() is over.
  [[nodiscard]] const std::optional<game_result>& result_of_game() const noexcept {
    return result_;
  }
  /// How many turns have been played or passed (0 before the opening play).
  [[nodiscard]] int turn_number() const noexcept { return turns_; }
  /// The kind of win that bearing off now would give `winner` (R11 / L7): used to
  /// score borne-off games and to cap resignations.
  [[nodiscard]] win_kind kind_if_won_now(side winner) const noexcept;

  /// Restores a game at a turn boundary or mid-turn (persistence). Fails with
  /// "bad_state" when the position is invalid for the variant.
  static result<game> restore(variant v, game_phase phase, side turn, roll dice,
                              const position& seen_by_turn, int turns,
                              std::optional<game_result> result);

 private:
  void start_turn_with(roll r);
  void pass_turn();
  result<play_outcome> apply(side s, int index);

  variant variant_;
  game_phase phase_ = game_phase::opening;
  side turn_ = side::red;
  roll dice_{};
  position position_;
  play_list legal_;
  std::optional<game_result> result_;
  int turns_ = 0;
};

}  // namespace bg::engine
