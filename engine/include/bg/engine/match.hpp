#pragma once
/// @file match.hpp
/// Games strung together with the cube and a score: free play (R12), a match to N
/// points (R13-R15) or a basis session (R16).

#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "bg/engine/cube.hpp"
#include "bg/engine/dice_source.hpp"
#include "bg/engine/error.hpp"
#include "bg/engine/game.hpp"
#include "bg/engine/game_result.hpp"
#include "bg/engine/match_id.hpp"
#include "bg/engine/side.hpp"
#include "bg/engine/variant.hpp"

namespace bg::engine {

/// How games are scored (seed 000's `/option match`).
enum class match_kind : unsigned char {
  free_play,  ///< one game, no cube, the winner scores the loser's pip count (R12)
  points,     ///< first to `length` points, with the cube and Crawford (R13-R15)
  basis,      ///< cube, no target, continue or stop after each game (R16)
};

/// The options fixed before a match starts.
struct match_options {
  variant game_variant = variant::standard;
  match_kind kind = match_kind::free_play;
  int length = 0;  ///< points to win, 1..64, when kind is points; else 0
  friend bool operator==(const match_options&, const match_options&) = default;
};

/// Where a match stands: the phases of the protocol's `state.phase` after /start.
enum class match_phase : unsigned char {
  opening,         ///< a game waits for its opening roll (R2)
  roll,            ///< the side on turn may double (R14.1) or roll
  move,            ///< the side on turn must play its dice
  cube_offered,    ///< the other side must take or drop (R14.2)
  resign_offered,  ///< the other side must accept or reject a resignation (R18)
  game_over,       ///< basis: waiting for both to continue, or one to stop (R16)
  match_over,      ///< finished
};

/// "opening", "roll", "move", "cube_offered", "resign_offered", "game_over", "match_over".
std::string_view to_string(match_phase p) noexcept;

/// A pending resignation (R18).
struct resignation {
  side by = side::red;
  win_kind kind = win_kind::single;
  match_phase resume_phase = match_phase::roll;  ///< where play goes on if rejected
};

/// What a finished game did to the match.
struct game_end {
  game_result result;
  std::array<int, 2> score{};  ///< after the game, [red, black]
  bool match_over = false;
  bool crawford_next = false;  ///< the next game is the Crawford game (R15)
};

/// A match. Commands take the acting side, validate phase and side, and either change
/// the match and return what happened or return an error value and change nothing.
/// Error codes: "wrong_phase", "not_your_turn", "no_cube" (free play), "crawford",
/// "cube_max", "not_cube_owner", "no_offer", "illegal_play", "bad_notation",
/// "ambiguous_play", "bad_option".
class match {
 public:
  explicit match(match_options options);

  /// Validates options: length 1..64 for points, 0 otherwise. Error "bad_option".
  static result<match_options> check(match_options options);

  // --- commands ------------------------------------------------------------------
  /// R2: the opening roll of the current game.
  result<opening_roll> roll_opening(dice_source& dice);
  /// R3: `s` rolls; may pass automatically (R6.4).
  result<roll_outcome> roll_dice(side s, dice_source& dice);
  /// `s` plays; ends the game (and maybe the match) when the last checker is off.
  result<play_outcome> make_play(side s, std::string_view notation);
  /// Plays legal()[index].
  result<play_outcome> make_play(side s, std::size_t index);
  /// R14.1: `s`, on turn before rolling, offers to double. Errors: "no_cube" (free
  /// play), "crawford" (R15), "cube_max" (R14.4), "not_cube_owner" (R14.1, R14.3).
  result<int> offer_double(side s);
  /// R14.2: the side offered the cube takes it: value doubles, it owns the cube.
  result<int> take(side s);
  /// R14.2: the side offered the cube drops: loses at the value before the offer.
  result<game_end> drop(side s);
  /// R18: `s` offers to resign `kind`; in phases roll or move. Error "no_backgammon"
  /// for a backgammon in long nardy (L7: a long game is worth at most mars).
  result<resignation> offer_resignation(side s, win_kind kind);
  /// R18: the opponent of the resigner accepts: the game ends at kind x cube.
  result<game_end> accept_resignation(side s);
  /// R18: the opponent of the resigner rejects: play goes on.
  result<resignation> reject_resignation(side s);
  /// R16: in a basis session after a game, `s` wants to go on. When both have said so
  /// the next game starts (returns true), else false.
  result<bool> continue_session(side s);
  /// R16: `s` stops the basis session: the match is over.
  result<bool> stop_session(side s);
  /// S3: absent past the grace period (or idle once claimed), `loser` forfeits. The game
  /// scores the most the position could still be lost by x cube: a single game when the
  /// loser has borne off a checker, else a backgammon (standard) or mars (long, L7);
  /// free play: the loser's pip count (R12). The match is then over: a points match is
  /// awarded to the opponent (match_winner()), a basis session ends. Error
  /// "wrong_phase" between basis games or after the match. `reason` is
  /// end_reason::forfeit (S3) or end_reason::time (S2: an empty time bank, scored and
  /// ended the same way); any other reason is taken as forfeit.
  result<game_end> forfeit(side loser, end_reason reason = end_reason::forfeit);

  // --- state ---------------------------------------------------------------------
  [[nodiscard]] const match_options& options() const noexcept { return options_; }
  [[nodiscard]] match_phase phase() const noexcept { return phase_; }
  [[nodiscard]] const game& current_game() const noexcept { return game_; }
  [[nodiscard]] const cube& doubling_cube() const noexcept { return cube_; }
  [[nodiscard]] const std::array<int, 2>& score() const noexcept { return score_; }
  /// 1 for the first game.
  [[nodiscard]] int game_number() const noexcept { return game_number_; }
  /// True while the current game is the Crawford game (R15).
  [[nodiscard]] bool is_crawford_game() const noexcept { return crawford_game_; }
  /// True once the Crawford game has been played (post-Crawford games).
  [[nodiscard]] bool crawford_done() const noexcept { return crawford_done_; }
  /// The side whose decision the match waits for (the one on turn, or the one who
  /// must answer an offer); nullopt in opening, game_over and match_over.
  [[nodiscard]] std::optional<side> to_act() const noexcept;
  /// True when `s` may /double now (every check of offer_double()).
  [[nodiscard]] bool may_double(side s) const noexcept;
  [[nodiscard]] const std::optional<resignation>& pending_resignation() const noexcept {
    return resignation_;
  }
  /// Results of the finished games, in order.
  [[nodiscard]] const std::vector<game_result>& results() const noexcept { return results_; }
  /// Basis: which sides already said /continue after this game.
  [[nodiscard]] const std::array<bool, 2>& continuing() const noexcept { return continuing_; }
  /// The winner once phase() is match_over (nullopt on a tie in basis/free play).
  [[nodiscard]] std::optional<side> match_winner() const noexcept;
  /// gnubg's Match ID for this state (red = player 0, black = player 1).
  [[nodiscard]] std::string id() const;

  /// Restores a match from persisted parts; no check beyond the game's own.
  static match restore(match_options options, match_phase phase, game g, cube c,
                       std::array<int, 2> score, int game_number, bool crawford_game,
                       bool crawford_done, std::optional<resignation> pending,
                       std::array<bool, 2> continuing, std::vector<game_result> results);

 private:
  result<game_end> end_game(side winner, win_kind kind, end_reason reason);
  void start_next_game();
  void sync_phase_from_game();
  [[nodiscard]] bool uses_cube() const noexcept { return options_.kind != match_kind::free_play; }

  match_options options_;
  match_phase phase_ = match_phase::opening;
  game game_;
  cube cube_;
  std::array<int, 2> score_{};
  int game_number_ = 1;
  bool crawford_game_ = false;
  bool crawford_done_ = false;
  std::optional<resignation> resignation_;
  std::array<bool, 2> continuing_{};
  std::vector<game_result> results_;
};

}  // namespace bg::engine
