#pragma once
/// @file situation.hpp
/// What a computer player is asked at a table: the position, the dice and the match
/// state, never where the dice come from (a bot never sees the dice seed).

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bg/engine/cube.hpp"
#include "bg/engine/error.hpp"
#include "bg/engine/game_result.hpp"
#include "bg/engine/match.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/roll.hpp"
#include "bg/engine/side.hpp"
#include "bg/engine/variant.hpp"

namespace bg::bots {

/// The decision a bot is asked for, and the command lines that answer it.
enum class question : unsigned char {
  play,              ///< phase move, the bot on turn: "/move <play>" (one of `legal`)
  double_or_roll,    ///< phase roll, the bot on turn and may double: "/double" or "/roll"
  take_or_drop,      ///< phase cube_offered, the opponent doubled: "/take" or "/drop"
  accept_or_reject,  ///< phase resign_offered, the opponent resigns: "/accept" or "/reject"
};

/// "play", "double_or_roll", "take_or_drop", "accept_or_reject" (for logs and metrics).
std::string_view to_string(question q) noexcept;

/// One question to a bot, in the bot's own terms. Built by the table's host from the
/// table's state; it holds the position and the dice only (no dice source, no seed).
struct situation {
  question asked = question::play;
  engine::variant game_variant = engine::variant::standard;
  engine::side bot = engine::side::black;      ///< the bot's colour
  engine::side on_roll = engine::side::black;  ///< the side on turn (the doubler in take_or_drop)
  /// The checkers seen from the bot: position.mover(i) is the bot's own point i (0 off,
  /// 1..24, 25 bar), position.opponent(i) the opponent's own point i, whoever is on
  /// roll (`on_roll`).
  engine::position position;
  engine::roll dice;  ///< play: the dice to play; otherwise {0, 0}
  engine::cube cube;  ///< value and owner (the offer is pending in take_or_drop)
  engine::match_kind kind = engine::match_kind::free_play;  ///< free play, match or basis
  int match_length = 0;  ///< points to win when kind is points; else 0
  int bot_score = 0;     ///< points the bot has in this match or session
  int opponent_score = 0;
  bool crawford = false;       ///< this game is the Crawford game (R15)
  bool post_crawford = false;  ///< the Crawford game has been played (R15)
  engine::win_kind resign_kind = engine::win_kind::single;  ///< accept_or_reject: what is offered
  /// play: every legal play in gnubg notation, mover's numbering (state.legal); the
  /// answer must be one of them (or reach the same position).
  std::vector<std::string> legal;
};

/// The question match `m` asks of side `bot` now, in the bot's terms: play (phase move,
/// with the dice and every legal play), double_or_roll (phase roll), take_or_drop (phase
/// cube_offered) or accept_or_reject (phase resign_offered); nullopt in the other phases
/// or when the match waits for the other side. Whether `bot` may double at all is the
/// caller's business (a table rolls for a bot that may not, without asking it).
[[nodiscard]] std::optional<situation> situation_of(const engine::match& m, engine::side bot);

/// The engine's match that `s` describes, as far as a decision needs it: the options
/// (variant, kind, length), the score, the Crawford state, the cube (with the pending
/// offer in take_or_drop), the pending resignation (by the bot's opponent, of
/// `resign_kind`) and the current game, with `on_roll` on turn and, for a play, the
/// dice rolled (so its legal plays are the table's). Its phase is the question's: move,
/// roll, cube_offered or resign_offered. The game's history (earlier games, the turns
/// played) is not in a situation and is not needed: the match is for deciding, never
/// for scoring. Error "bad_state" when the position or dice are not valid for the
/// variant, or the question does not fit the position (a play without dice).
[[nodiscard]] engine::result<engine::match> match_of(const situation& s);

}  // namespace bg::bots
