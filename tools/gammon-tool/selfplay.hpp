#pragma once
/// @file selfplay.hpp
/// Random-play self-play for gammon-tool (measures the engine and the match layer).

#include <cstdint>
#include <ostream>

#include "bg/engine/variant.hpp"

namespace bg::tool {

/// What selfplay runs: `games` random-play games (or, with match_length > 0, matches
/// to that length with a simple cube policy), dice seeded with `seed`.
struct selfplay_options {
  int games = 1000;
  std::uint64_t seed = 1;
  int match_length = 0;
  engine::variant game_variant = engine::variant::standard;
};

/// Runs self-play and prints the share of single, gammon and backgammon results and
/// the games per second to `out`. Returns 0.
int run_selfplay(const selfplay_options& options, std::ostream& out);

}  // namespace bg::tool
