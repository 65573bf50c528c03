#pragma once
/// @file password_source.hpp
/// Where gammon-term gets an account's password (issue 12): the first line of a file
/// (--password-file), or a prompt without echo when stdin is a terminal. Never from the
/// command line, where every user of the machine could read it in the process list.

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace bg::term {

/// The first line of `path` (without its line end). nullopt, with a sentence on `err`,
/// when the file cannot be read or its first line is empty. Warns on `err` (and goes
/// on) when other users may read the file. The sentences are in language `lang`.
[[nodiscard]] std::optional<std::string> password_from_file(const std::string& path,
                                                            std::ostream& err,
                                                            std::string_view lang = "en");

/// Asks for the password of `name` on the terminal (stdin), the typed characters not
/// shown; with `confirm`, asks twice and refuses two different answers. nullopt, with a
/// sentence on `err`, when stdin is not a terminal, the input ends, or the answers
/// differ. The prompts and sentences are in language `lang`.
[[nodiscard]] std::optional<std::string> password_from_terminal(const std::string& name,
                                                                bool confirm, std::ostream& err,
                                                                std::string_view lang = "en");

}  // namespace bg::term
