#pragma once
/// @file grammar_words.hpp
/// Pieces the command grammars share (command.cpp, tournament_command.cpp; internal to
/// the protocol library).

#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bg/engine/error.hpp"

namespace bg::protocol::detail {

/// A `bad_command` error with `message` (what was wrong and the usage).
inline engine::error bad(std::string message) {
  return engine::make_error("bad_command", std::move(message));
}

/// A `bad_command` error with `message`, said by catalogue message `key` (protocol.*)
/// with `args`: the English catalogue's sentence is `message`.
inline engine::error bad(std::string message, std::string key,
                         std::vector<engine::sentence_arg> args = {}) {
  return engine::make_error("bad_command", std::move(message), std::move(key), std::move(args));
}

/// `s` in ASCII lower case (command words and options are matched case-blind).
inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

}  // namespace bg::protocol::detail
