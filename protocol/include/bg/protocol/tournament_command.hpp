#pragma once
/// @file tournament_command.hpp
/// The grammar of `/tournament` (RULES.md S6): create, cancel, show and adjudicate. The
/// lobby's other tournament commands (/tournaments, /register, /withdraw) take at most a
/// name and are parsed by parse_line() (command.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bg/engine/error.hpp"
#include "bg/engine/variant.hpp"

namespace bg::protocol {

/// What a /tournament line asks for.
enum class tournament_action : unsigned char {
  create,      ///< /tournament create NAME KIND [terms...]
  cancel,      ///< /tournament cancel NAME
  show,        ///< /tournament NAME or /tournament show NAME: the tournament, and its news
  adjudicate,  ///< /tournament adjudicate NAME TABLE WINNER REASON...
};

/// The most players a tournament may be created for (`max P`); a host's
/// --max-tournament-players may be lower.
inline constexpr int max_tournament_players = 1024;
/// The most Swiss rounds (`rounds R`).
inline constexpr int max_swiss_rounds = 20;
/// The longest arena, in minutes (`minutes M`, one day).
inline constexpr int max_arena_minutes = 1440;
/// The longest wait before a start (`start +SECONDS`), in seconds (one week).
inline constexpr int max_start_delay_seconds = 604'800;
/// The longest reason /tournament adjudicate takes, in bytes.
inline constexpr std::size_t max_adjudication_reason = 300;

/// A parsed /tournament line. Names keep the case they were typed in (the server checks
/// them); KIND and the keywords are case-insensitive.
struct tournament_command {
  tournament_action action = tournament_action::show;
  std::string name;  ///< the tournament's name
  std::string kind;  ///< create: "knockout", "swiss" or "arena"
  int rounds = 0;    ///< create: Swiss rounds, 1..max_swiss_rounds; 0: the default (3)
  int minutes = 0;   ///< create: an arena's length, 1..max_arena_minutes; 0: default (60)
  engine::variant game_variant = engine::variant::standard;  ///< create: the matches' variant
  int match_length = 0;  ///< create: the matches' length, 1..25 points; 0: default (3)
  /// create: the matches' clock (S2), minutes 1..240 and delay 0..120 s; nullopt: the
  /// default (5 minutes + 12 s). A tournament always has a clock.
  std::optional<std::pair<int, int>> clock;
  /// create: `start +SECONDS` (seconds from now, 0..max_start_delay_seconds).
  std::optional<int> start_in_seconds;
  /// create: `start HH:MM`, minutes after midnight UTC (the next such time).
  std::optional<int> start_at_minute;
  int min_players = 0;   ///< create: `min P`, 2..max_tournament_players; 0: default (2)
  int max_players = 0;   ///< create: `max P`, 2..max_tournament_players; 0: the host's
  bool unrated = false;  ///< create: `unrated` (S1 does not apply)
  std::string table;     ///< adjudicate: the table of the pairing
  std::string winner;    ///< adjudicate: the winner's name as typed
  std::string reason;    ///< adjudicate: the reason as typed (logged; required)
  friend bool operator==(const tournament_command&, const tournament_command&) = default;
};

/// Parses the arguments of /tournament (`rest`: the line after "/tournament ", blanks
/// trimmed). Errors: "bad_command" with the usage of the action that went wrong
/// ("/tournament create NAME knockout|swiss|arena [rounds R] ...").
[[nodiscard]] engine::result<tournament_command> parse_tournament(std::string_view rest);

}  // namespace bg::protocol
