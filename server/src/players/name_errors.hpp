#pragma once
/// @file name_errors.hpp
/// Why a name is refused, as a sentence of the message catalogues (issue 31): the same
/// checks and English sentences as names.hpp's name_problem() and
/// reserved_name_problem(), with a key and arguments so that a player reads them in
/// their language. Implemented in names.cpp.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "bg/engine/error.hpp"

namespace bg::server {

/// Whose name is checked: the sentence of a refused one says so.
enum class name_use : unsigned char {
  own,         ///< "a name is 1 to 24 bytes ..." (a hello, a registration)
  player,      ///< "that is not a player's name: a name is ..." (/whois, /ignore, /ban)
  table,       ///< "that table name cannot be used: a name is ..." (enter, line)
  tournament,  ///< "that tournament name cannot be used: a name is ..." (/tournament create)
};

/// name_problem(name, max_bytes) as an error of code `code` ("bad_name"), or nullopt.
[[nodiscard]] std::optional<engine::error> name_error(std::string_view name, std::size_t max_bytes,
                                                      std::string code = "bad_name",
                                                      name_use use = name_use::own);
/// reserved_name_problem(name) as a `reserved_name` error, or nullopt.
[[nodiscard]] std::optional<engine::error> reserved_name_error(std::string_view name);

}  // namespace bg::server
