#pragma once
/// @file long_bot_player.hpp
/// The long nardy computer player at a table: long_player (the engine's terms, no gnubg)
/// behind the bots::player interface, at one of the five named levels.

#include <cstdint>
#include <string>

#include "bg/bots/gnubg_level.hpp"
#include "bg/bots/long_bot_pool.hpp"
#include "bg/bots/long_player.hpp"
#include "bg/bots/player.hpp"

namespace bg::bots {

/// What each named level means for the long nardy bot (gnubg's names, so `/bot LEVEL`
/// reads the same in both variants; the strength of each is in the README):
/// - beginner, intermediate, advanced: one ply with noise of standard deviation 0.060,
///   0.040 and 0.015 equity on each play (gnubg's own figures for its levels);
/// - expert: one ply without noise;
/// - worldclass: two plies (the best four plays searched one roll deeper).
/// `seed` breaks ties between equal plays and draws the noise (long_player_options).
[[nodiscard]] long_player_options long_bot_options(gnubg_level level, std::uint64_t seed = 1);

/// The name of the long nardy computer player of `level` ("nardy-expert").
[[nodiscard]] std::string long_bot_name(gnubg_level level);

/// The long nardy bot of one level ("nardy-expert"). Long nardy only.
///
/// decide() rebuilds the match from the situation (match_of()) and asks
/// long_player::next_command() on a thread of `pool`, never on the caller's: the play
/// ("/move ..." in the bot's numbering), "/double" or "/roll", "/take" or "/drop",
/// "/accept" or "/reject" (long_player documents its cube and resignation policy).
class long_bot_player final : public player {
 public:
  /// A player of `level` thinking on `pool` (which outlives it).
  long_bot_player(long_bot_pool& pool, gnubg_level level);

  /// "nardy-" followed by the level ("nardy-worldclass").
  [[nodiscard]] std::string name() const override;
  /// Queues the decision on the pool; `done` gets the command line on a pool thread, or
  /// "bot_failed" (at once, before this returns, for another variant or a full queue;
  /// later for a situation the engine cannot rebuild or where nothing is to be done).
  void decide(const situation& s, answer_handler done) override;

  [[nodiscard]] gnubg_level level() const noexcept { return level_; }

 private:
  long_bot_pool& pool_;
  gnubg_level level_;
  long_player player_;
};

}  // namespace bg::bots
