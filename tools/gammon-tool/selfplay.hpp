#pragma once
/// @file selfplay.hpp
/// Self-play for gammon-tool: measures the engine and the match layer, and the
/// strength of players against each other (random, greedy, the long nardy bot).

#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

#include "bg/engine/variant.hpp"

namespace bg::tool {

/// How one side chooses its plays in self-play.
enum class selfplay_policy : unsigned char {
  random,  ///< a uniformly random legal play (the seeded choice stream)
  greedy,  ///< a greedy race player: the play leaving its own pip count lowest; ties go
           ///< to the play bearing off the most checkers, then to the first in the
           ///< engine's order (legal_plays(): moves from the highest points first)
  bot,     ///< bg::bots::long_player, one ply (long nardy only)
  bot2,    ///< bg::bots::long_player, two plies (long nardy only)
  /// The long nardy bot at a table's three noisy levels (bots::long_bot_options(): one
  /// ply with noise 0.060, 0.040, 0.015; long nardy only). `bot` is its expert level,
  /// `bot2` its world class.
  beginner,
  intermediate,
  advanced,
};

/// True for the policies of the long nardy bot (bot, bot2 and the named levels).
[[nodiscard]] constexpr bool is_bot_policy(selfplay_policy p) noexcept {
  return p != selfplay_policy::random && p != selfplay_policy::greedy;
}

/// "random", "greedy", "bot", "bot2", "beginner", "intermediate", "advanced".
std::string_view to_string(selfplay_policy p) noexcept;
/// Parses a policy name; nullopt when unknown.
std::optional<selfplay_policy> policy_from_string(std::string_view text) noexcept;

/// What selfplay runs: `games` games (or, with match_length > 0, matches to that
/// length with the cube), dice seeded with `seed`, red and black choosing their plays
/// by their policies. Cube decisions: the bots use their own policy, random and greedy
/// the simple race rule (double when ahead by more than 10 % in pips, take unless
/// behind by more than 25 %).
struct selfplay_options {
  int games = 1000;
  std::uint64_t seed = 1;
  int match_length = 0;
  engine::variant game_variant = engine::variant::standard;
  selfplay_policy red = selfplay_policy::random;
  selfplay_policy black = selfplay_policy::random;
};

/// Runs self-play and prints to `out`: the players, the games, the share of single,
/// gammon and backgammon results, each side's wins (games, and matches with
/// match_length) with their rates, turns, seconds and games per second. Returns 0.
/// Precondition: bot policies only with the long nardy variant (main() checks).
int run_selfplay(const selfplay_options& options, std::ostream& out);

}  // namespace bg::tool
