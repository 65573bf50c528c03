#pragma once
/// @file bot_turn.hpp
/// What a computer player at a table must do now: a command that needs no thought
/// (roll, continue) or a question for the bot (bg::bots::situation).

#include <optional>
#include <string>

#include "bg/bots/situation.hpp"
#include "bg/engine/side.hpp"
#include "bg/protocol/command.hpp"

namespace bg::server {

class table;

/// A computer player's next step at a table.
struct bot_turn {
  engine::side side = engine::side::black;  ///< the bot's seat
  std::string name;                         ///< its name, as the seat shows it
  std::string level;                        ///< its level ("expert")
  /// A command it sends without asking the bot: "/roll" (the opening roll, or its
  /// turn when it may not double) or "/continue" (a basis session goes on while the
  /// person wants).
  std::optional<protocol::command> now;
  /// Otherwise the question for the bot: its play, double, take or an answer to a
  /// resignation. Holds the position and the dice, never the dice source.
  std::optional<bots::situation> ask;
};

/// The step of the computer player that must act at `t` now, or nullopt when none
/// must (no bot seated, no match, or a person's decision is awaited). In the opening
/// phase a bot rolls; in phase roll it is asked double or roll only when it may double
/// (else it rolls); in phase move it is asked its play; to a double its take; to a
/// resignation its answer; between basis games it continues once.
[[nodiscard]] std::optional<bot_turn> next_bot_turn(const table& t);

}  // namespace bg::server
