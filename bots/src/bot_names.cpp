#include "bg/bots/bot_names.hpp"

#include <cctype>

#include "bg/bots/gnubg_level.hpp"
#include "bg/bots/gnubg_player.hpp"
#include "bg/bots/long_bot_player.hpp"

namespace bg::bots {

namespace {

/// True when `name` equals `lower` (lower-case ASCII) without regard to ASCII case.
bool same_ascii(std::string_view name, std::string_view lower) noexcept {
  if (name.size() != lower.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(name[i])) != lower[i]) return false;
  return true;
}

}  // namespace

std::vector<std::string> bot_names() {
  std::vector<std::string> out;
  for (const auto level : all_gnubg_levels) out.push_back(gnubg_name(level));
  for (const auto level : all_gnubg_levels) out.push_back(long_bot_name(level));
  return out;
}

bool is_bot_name(std::string_view name) noexcept {
  constexpr std::string_view gnubg = "gnubg";
  if (name.size() >= gnubg.size() && same_ascii(name.substr(0, gnubg.size()), gnubg) &&
      (name.size() == gnubg.size() || name[gnubg.size()] == '-'))
    return true;
  if (same_ascii(name, "nardy")) return true;
  for (const auto level : all_gnubg_levels) {
    const auto level_name = to_string(level);
    constexpr std::string_view nardy = "nardy-";
    if (name.size() == nardy.size() + level_name.size() &&
        same_ascii(name.substr(0, nardy.size()), nardy) &&
        same_ascii(name.substr(nardy.size()), level_name))
      return true;
  }
  return false;
}

}  // namespace bg::bots
