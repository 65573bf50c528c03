#pragma once
/// @file help_pages.hpp
/// The pages of /help as message catalogue keys (i18n/lang/<tag>/lobby.json: help.*,
/// rules.*), so that a server says them in each player's language.

#include <optional>
#include <string_view>

namespace bg::protocol {

/// The catalogue key of the help page of `topic`: "" → the list of every command
/// (help.commands); a command name with or without "/" → its help ("move" → help.move,
/// "option" → every /option line); "rules" or "rules standard" → the rules of standard
/// backgammon in short (rules.standard), "rules long" → those of Long Nardy (rules.long).
/// Case-insensitive; nullopt for an unknown topic. The English page of every command
/// topic equals help_text(topic).
std::optional<std::string_view> help_key(std::string_view topic);

}  // namespace bg::protocol
