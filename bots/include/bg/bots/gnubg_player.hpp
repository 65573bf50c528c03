#pragma once
/// @file gnubg_player.hpp
/// A GNU Backgammon player of one level: turns a situation into a request to the
/// gnubg pool and its answer into the seat's command line.

#include <string>
#include <string_view>

#include "bg/bots/bot_names.hpp"  // is_bot_name(), declared here before
#include "bg/bots/gnubg_level.hpp"
#include "bg/bots/gnubg_pool.hpp"
#include "bg/bots/player.hpp"

namespace bg::bots {

/// gnubg at one level ("gnubg-expert"). Standard backgammon only.
///
/// Plays, doubles and takes are gnubg's `external` answers to the FIBS board
/// (fibs_board()): a play in gnubg's plain notation (bar written 25, off 0, each
/// checker move apart: "24/18 18/13") becomes "/move ...", "double"/"roll" and
/// "take"/"drop" the commands of the same name, and "beaver" a take (gammond has no
/// beavers). Resignations are decided here from gnubg's cubeless evaluation of the
/// position (`evaluation fibsboard ...`), because gnubg 1.07's own answer to an
/// offered resignation is "accept" whatever the position (found by experiment): the
/// bot accepts when the points offered are at least what it expects to win by playing
/// on, counting in a match only the points it still needs.
class gnubg_player final : public player {
 public:
  /// A player of `level` asking `pool` (which outlives it).
  gnubg_player(gnubg_pool& pool, gnubg_level level);

  /// "gnubg-" followed by the level ("gnubg-worldclass").
  [[nodiscard]] std::string name() const override;
  /// Asks the pool; `done` gets the command line or "bot_failed" (at once, before
  /// this returns, for a situation gnubg cannot answer: another variant).
  void decide(const situation& s, answer_handler done) override;

  [[nodiscard]] gnubg_level level() const noexcept { return level_; }

 private:
  gnubg_pool& pool_;
  gnubg_level level_;
};

/// The name of gnubg's player of `level` ("gnubg-expert").
[[nodiscard]] std::string gnubg_name(gnubg_level level);

}  // namespace bg::bots
