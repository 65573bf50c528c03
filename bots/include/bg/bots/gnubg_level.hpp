#pragma once
/// @file gnubg_level.hpp
/// GNU Backgammon's named playing levels and the evaluation settings each one stands
/// for (gnubg's predefined settings, eval.c `aecSettings`).

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bg::bots {

/// gnubg's named levels, weakest first (issue 14: the five a table offers).
enum class gnubg_level : unsigned char { beginner, intermediate, advanced, expert, worldclass };

/// Every level, weakest first.
inline constexpr std::array<gnubg_level, 5> all_gnubg_levels{
    gnubg_level::beginner, gnubg_level::intermediate, gnubg_level::advanced, gnubg_level::expert,
    gnubg_level::worldclass};

/// "beginner", "intermediate", "advanced", "expert", "worldclass".
std::string_view to_string(gnubg_level l) noexcept;
/// Parses a level name (lower case, as to_string() writes it); nullopt otherwise.
std::optional<gnubg_level> gnubg_level_from_string(std::string_view name) noexcept;

/// What one level sets, for chequer play and cube decisions alike (gnubg applies a
/// predefined setting to both): the look-ahead in plies, pruning, and the standard
/// deviation of the noise added to each evaluation (deterministic: the same position
/// gets the same noise, so a weak level errs the same way twice). All are cubeful.
struct gnubg_settings {
  int plies = 0;
  bool prune = false;
  double noise = 0.0;
};

/// gnubg 1.07's predefined settings: beginner 0-ply with noise 0.060, intermediate
/// 0.040, advanced 0.015, expert 0-ply without noise, world class 2-ply with pruning
/// (and gnubg's default "normal" move filter, which the pool leaves as it is).
gnubg_settings settings_of(gnubg_level l) noexcept;

/// The gnubg commands that set `l` for chequer play and cube decisions
/// ("set evaluation chequerplay evaluation plies 0", ...), one per line, without "\n".
std::vector<std::string> level_commands(gnubg_level l);

}  // namespace bg::bots
