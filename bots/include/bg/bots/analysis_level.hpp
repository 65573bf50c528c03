#pragma once
/// @file analysis_level.hpp
/// How deeply GNU Backgammon analyses a match (gammond's --analysis-level), named after
/// gnubg's own evaluation levels.

#include <optional>
#include <string_view>

namespace bg::bots {

/// An analysis level: the plies of gnubg's neural-net evaluation of every chequer play
/// and cube decision (cubeful, pruning nets). Deeper is stronger and slower: on this
/// project's 2-core machine, one core per analysis, a 7-point match of about 220
/// decisions takes about 1 s at expert, 17-35 s at worldclass and 4 minutes at
/// grandmaster (bench/analysis-time; docs/performance.md).
enum class analysis_level : unsigned char {
  expert,       ///< 0-ply: gnubg's "expert" evaluation; fast, for tests and busy servers
  worldclass,   ///< 2-ply: gnubg's own default analysis ("world class"); the default
  grandmaster,  ///< 3-ply: gnubg's "grandmaster"; minutes per match
};

/// "expert", "worldclass", "grandmaster".
[[nodiscard]] constexpr std::string_view to_string(analysis_level l) noexcept {
  switch (l) {
    case analysis_level::expert:
      return "expert";
    case analysis_level::worldclass:
      return "worldclass";
    case analysis_level::grandmaster:
      return "grandmaster";
  }
  return "worldclass";
}

/// The level named `name` (as to_string() writes it), or nullopt.
[[nodiscard]] constexpr std::optional<analysis_level> analysis_level_from_string(
    std::string_view name) noexcept {
  for (auto l : {analysis_level::expert, analysis_level::worldclass, analysis_level::grandmaster})
    if (to_string(l) == name) return l;
  return std::nullopt;
}

/// The plies of gnubg's evaluation at level `l` (0, 2 or 3).
[[nodiscard]] constexpr int plies_of(analysis_level l) noexcept {
  switch (l) {
    case analysis_level::expert:
      return 0;
    case analysis_level::worldclass:
      return 2;
    case analysis_level::grandmaster:
      return 3;
  }
  return 2;
}

}  // namespace bg::bots
