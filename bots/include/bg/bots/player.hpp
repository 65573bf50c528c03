#pragma once
/// @file player.hpp
/// A computer player as a table sees it: a name and an asynchronous decision. The
/// gnubg players (gnubg_player) and a long nardy player implement it.

#include <functional>
#include <string>

#include "bg/bots/situation.hpp"
#include "bg/engine/error.hpp"

namespace bg::bots {

/// Receives a bot's answer exactly once, on any thread: the command line the bot's
/// seat sends ("/move 24/18 13/11", "/double", "/roll", "/take", "/drop", "/accept",
/// "/reject"), or an error (code "bot_failed", with a sentence saying why) when the
/// bot could not answer.
using answer_handler = std::function<void(engine::result<std::string>)>;

/// A computer player. Implementations are thread-safe: decide() may be called from
/// any thread, for many tables at once.
class player {
 public:
  virtual ~player() = default;
  player() = default;
  player(const player&) = delete;
  player& operator=(const player&) = delete;

  /// The name its seat shows ("gnubg-expert"); no person may say hello with it.
  [[nodiscard]] virtual std::string name() const = 0;
  /// Answers `s` through `done` without blocking the caller; `done` may run on any
  /// thread, even before decide() returns, so the caller posts its work to its own
  /// executor. The host feeds the answer back to the table as the seat's command
  /// line, through the same validation as a person's.
  virtual void decide(const situation& s, answer_handler done) = 0;
};

}  // namespace bg::bots
