#pragma once
/// @file command.hpp
/// The chat-command grammar of a table (seed 000): a line that starts with "/" is a
/// command, any other line is chat.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bg/engine/error.hpp"
#include "bg/engine/game_result.hpp"
#include "bg/engine/match.hpp"
#include "bg/engine/side.hpp"
#include "bg/engine/variant.hpp"
#include "bg/protocol/tournament_command.hpp"

namespace bg::protocol {

/// What a line asks for.
enum class command_kind : unsigned char {
  chat,              ///< any line not starting with "/": `text` is the message
  join,              ///< /join [red|black]: `seat` when given
  leave,             ///< /leave: give up one's seat (become a spectator)
  start,             ///< /start: begin the match (both seats taken)
  option_show,       ///< /option: show the options
  option_match,      ///< /option match N|basis|off: `match`
  option_tutor,      ///< /option tutor [on|off]: `flag`
  option_variant,    ///< /option variant standard|long: `game_variant`
  roll,              ///< /roll
  move,              ///< /move <play>: `text` is the play in notation
  double_offer,      ///< /double
  take,              ///< /take
  drop,              ///< /drop, /refuse
  resign,            ///< /resign [single|gammon|backgammon]: `resign_kind`
  accept,            ///< /accept: a resignation, or the cube (= /take)
  reject,            ///< /reject: a resignation, or the cube (= /drop)
  continue_session,  ///< /continue (basis, R16)
  stop_session,      ///< /stop (basis, R16)
  board,             ///< /board: resend the state
  who,               ///< /who: who is at the table
  help,              ///< /help [command]: `text` is the topic
  tables,            ///< /tables: the lobby list
  export_match,      ///< /export: the link to the last finished match's .mat file
  option_clock,      ///< /option clock MINUTES [DELAY] | off: `clock` (S2)
  seed,              ///< /seed TEXT: `text` is the player's own dice seed (S4)
  claim,             ///< /claim: the game of an idle or absent opponent, as a forfeit (S3)
  analysis,          ///< /analysis [MATCH_ID]: `text` is the id (digits) when given
  whois,             ///< /whois NAME: `text` is the name as typed (issue 12)
  ratings,           ///< /ratings [standard|long] [pr|by pr]: `text` is "standard", "long"
                     ///< or ""; `with_pr`, `by_pr`
  history,           ///< /history [NAME]: `text` is the name as typed, or "" (oneself)
  password,          ///< /password OLD NEW: `text` is OLD, `new_password` NEW (as typed)
  bot,               ///< /bot [LEVEL]: seat a computer player; `text` is the level
  play_bot,          ///< /play bot [LEVEL] [VARIANT] [match N|basis|off] (lobby): `text`
                     ///< is the level, `game_variant` and `match` the options
  // Moderation (issue 13). NAME and TABLE keep the case they were typed in.
  kick,            ///< /kick NAME (the table's owner): `text` is the name
  invite,          ///< /invite NAME (the owner of a private table): `text` is the name
  uninvite,        ///< /uninvite NAME (the owner): `text` is the name
  option_private,  ///< /option private on|off (the owner): `flag`
  ignore,          ///< /ignore [NAME]: `text` is the name, "" to list the names ignored
  unignore,        ///< /unignore NAME: `text` is the name
  ban,             ///< /ban NAME [HOURS] (an admin): `text` is the name, `ban_hours` HOURS
  unban,           ///< /unban NAME (an admin): `text` is the name
  broadcast,       ///< /broadcast TEXT (an admin): `text` is the rest of the line as typed
  close_table,     ///< /close TABLE (an admin): `text` is the table's name
  // Sessions (issue 27).
  sessions,  ///< /sessions: the account's remembered sign-ins
  signout,   ///< /signout [all|ID]: `text` is "" (this one), "all", or the id's digits
  // Matchmaking (RULES.md S5).
  seek,    ///< /seek [VARIANT] [match N[,M…]] [clock MIN [DELAY]|any|off] [bot after S]:
           ///< `game_variant`, `lengths`, `any_clock` / `clock`, `bot_after_seconds`
  unseek,  ///< /unseek: withdraw one's /seek
  // Tournaments (RULES.md S6).
  tournament,           ///< /tournament create|cancel|show|adjudicate ...: `tournament`
  tournaments,          ///< /tournaments: the list (upcoming, running, lately finished)
  register_tournament,  ///< /register NAME: `text` is the tournament's name as typed
  withdraw_tournament,  ///< /withdraw [NAME]: `text` is the name as typed, or ""
  // Languages (issue 31).
  lang,  ///< /lang [TAG]: `text` is the tag in lower case, or "" (ask which, and the list)
  // Private messages (issue 32: FIBS's `tell`).
  tell,  ///< /tell NAME TEXT: `text` is NAME as typed, `message` the rest of the line
};

/// The longest ban /ban takes, in hours (ten years); without HOURS a ban lasts until
/// /unban.
inline constexpr double max_ban_hours = 87'600.0;

/// The computer players' levels that /bot and /play bot take (GNU Backgammon's named
/// levels, weakest first); /bot alone means "expert".
inline constexpr std::array<std::string_view, 5> bot_levels{"beginner", "intermediate", "advanced",
                                                            "expert", "worldclass"};
/// The most match lengths one /seek names (`match 1,3,5,7,9,11,13,15`).
inline constexpr std::size_t max_seek_lengths = 8;
/// The longest wait /seek's `bot after SECONDS` takes, in seconds.
inline constexpr int max_seek_bot_after_seconds = 3600;

/// The level of /bot and /play bot without one.
inline constexpr std::string_view default_bot_level = "expert";

/// The stable name of a command ("join", "move", "double", ...), as used in metrics
/// and in `/help` topics.
std::string_view to_string(command_kind k) noexcept;

/// Where a command is answered: the one routing table of the lobby and the tables.
enum class command_place : unsigned char {
  table,    ///< at a table only (in the lobby: `no_table`)
  lobby,    ///< by the lobby, wherever it is typed (/tables, /play bot)
  service,  ///< by the server the same way anywhere (accounts, ignores, moderation)
  both,     ///< at a table by the table, in the lobby by the lobby (chat, /who, /help,
            ///< /analysis)
};

/// Where command `k` is answered (protocol/PROTOCOL.md, "Commands").
command_place place_of(command_kind k) noexcept;

/// `/option clock`: each player's time bank for the whole match and the delay per
/// action that is spent before the bank (RULES.md S2). `minutes` 0 means no clock.
struct clock_option {
  int minutes = 0;         ///< the bank, 1..max_clock_minutes; 0: off
  int delay_seconds = 12;  ///< the delay per action, 0..max_clock_delay_seconds
  friend bool operator==(const clock_option&, const clock_option&) = default;
};

/// The largest time bank `/option clock` accepts, in minutes.
inline constexpr int max_clock_minutes = 240;
/// The largest delay per action `/option clock` accepts, in seconds.
inline constexpr int max_clock_delay_seconds = 120;
/// The delay per action when `/option clock MINUTES` gives none, in seconds.
inline constexpr int default_clock_delay_seconds = 12;

/// A parsed line.
struct command {
  command_kind kind = command_kind::chat;
  /// chat text, move notation, help topic, /tables page (digits), /seed text, /analysis
  /// match id (digits) or a bot's level (/bot, /play bot)
  std::string text;
  std::optional<engine::side> seat;  ///< /join red|black
  engine::match_options match;       ///< /option match, /play bot (variant is not touched)
  bool flag = false;                 ///< /option tutor on|off; `private` in /play bot
  engine::variant game_variant = engine::variant::standard;  ///< /option variant, /play bot
  engine::win_kind resign_kind = engine::win_kind::single;   ///< /resign
  clock_option clock;                                        ///< /option clock
  /// /password: the new password, as typed (its case kept). Never logged nor echoed.
  std::string new_password;
  /// /tell: the private message, as typed (the rest of the line after the name).
  std::string message;
  /// /ban: the ban's length in hours (decimals allowed: 0.5 is 30 minutes), above 0 and
  /// at most max_ban_hours; 0 when no HOURS was given (the ban lasts until /unban).
  double ban_hours = 0.0;
  /// /seek: the match lengths accepted, in order of preference; empty when none was
  /// named (the server's default set).
  std::vector<int> lengths;
  /// /seek: any clock is accepted (`clock any`, or no clock named); false: `clock` is
  /// the one asked for (minutes 0: no clock).
  bool any_clock = true;
  /// /seek: play a computer player after this many seconds unmatched; 0: never.
  int bot_after_seconds = 0;
  /// /tournament: what it asks for (tournament_command.hpp).
  std::optional<tournament_command> tournament;
  /// /ratings: each line also shows the player's all-time PR (`pr`, or `by pr`; RULES.md
  /// S7).
  bool with_pr = false;
  /// /ratings: the list is sorted by all-time PR, the lowest (best) first (`by pr`; `by
  /// rating`, the default, sorts by rating).
  bool by_pr = false;
};

/// A command of kind `k` with every argument at its default (what a server sends a table
/// on a player's behalf: /start, /roll, /join and so on, arguments set by the caller).
[[nodiscard]] inline command command_of(command_kind k) {
  command c;
  c.kind = k;
  return c;
}

/// Parses one line typed at a table or in the lobby. Command names are
/// case-insensitive; arguments are separated by spaces; the arguments of /move, /whois,
/// /history and /password keep the case they were typed in (for /ratings, `game_variant`
/// holds the variant named, standard when none). No error message repeats an argument of
/// /password. Errors (engine::error):
/// "unknown_command" ("/jion is not a command: type /help"), "bad_command" with what
/// is wrong ("/option match takes a number from 1 to 64, basis or off", "/option clock
/// takes minutes from 1 to 240 ..."). `/seed`, `/move` and `/broadcast` keep the rest of
/// the line as typed (its case and inner blanks) in `text`.
/// `text` must already be valid UTF-8 without control characters (the codec checks).
engine::result<command> parse_line(std::string_view line);

/// One line of help for every command, or the detailed help of `topic` (a command
/// name with or without "/"); nullopt for an unknown topic.
std::optional<std::string> help_text(std::string_view topic);

}  // namespace bg::protocol
