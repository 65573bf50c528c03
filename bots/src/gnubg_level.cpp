#include "bg/bots/gnubg_level.hpp"

#include <cstdio>

namespace bg::bots {

std::string_view to_string(gnubg_level l) noexcept {
  switch (l) {
    case gnubg_level::beginner:
      return "beginner";
    case gnubg_level::intermediate:
      return "intermediate";
    case gnubg_level::advanced:
      return "advanced";
    case gnubg_level::expert:
      return "expert";
    case gnubg_level::worldclass:
      return "worldclass";
  }
  return "expert";
}

std::optional<gnubg_level> gnubg_level_from_string(std::string_view name) noexcept {
  for (const auto l : all_gnubg_levels)
    if (to_string(l) == name) return l;
  return std::nullopt;
}

gnubg_settings settings_of(gnubg_level l) noexcept {
  // gnubg 1.07, eval.c aecSettings: {cubeful, plies, prune, deterministic, noise}.
  switch (l) {
    case gnubg_level::beginner:
      return {0, false, 0.060};
    case gnubg_level::intermediate:
      return {0, false, 0.040};
    case gnubg_level::advanced:
      return {0, false, 0.015};
    case gnubg_level::expert:
      return {0, false, 0.0};
    case gnubg_level::worldclass:
      return {2, true, 0.0};
  }
  return {0, false, 0.0};
}

std::vector<std::string> level_commands(gnubg_level l) {
  const auto s = settings_of(l);
  char noise[32];
  std::snprintf(noise, sizeof noise, "%.3f", s.noise);
  std::vector<std::string> out;
  for (const char* what : {"chequerplay", "cubedecision"}) {
    const std::string prefix = std::string("set evaluation ") + what + " evaluation ";
    out.push_back(prefix + "cubeful on");
    out.push_back(prefix + "plies " + std::to_string(s.plies));
    out.push_back(prefix + "prune " + (s.prune ? "on" : "off"));
    out.push_back(prefix + "deterministic on");
    out.push_back(prefix + "noise " + noise);
  }
  return out;
}

}  // namespace bg::bots
