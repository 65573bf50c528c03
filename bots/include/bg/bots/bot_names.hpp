#pragma once
/// @file bot_names.hpp
/// The computer players' names: every one a host may seat, and the names no person may
/// take.

#include <string>
#include <string_view>
#include <vector>

namespace bg::bots {

/// Every computer player's name, GNU Backgammon's first ("gnubg-beginner" …
/// "gnubg-worldclass", then "nardy-beginner" … "nardy-worldclass"): each is a
/// registered account of kind bot on a gammond server, holding its ratings.
[[nodiscard]] std::vector<std::string> bot_names();

/// True when `name` is or may become a computer player's name, so that no person may
/// take it (say it in hello, register it or log in with it), compared without regard
/// to ASCII case: "gnubg" and any name starting with "gnubg-"; "nardy" and the long nardy
/// bot's five names ("nardy-expert", …), not every "nardy-" name (a long nardy player
/// may well call themself "nardy-fan").
[[nodiscard]] bool is_bot_name(std::string_view name) noexcept;

}  // namespace bg::bots
