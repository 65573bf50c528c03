#pragma once
/// @file clip_text.hpp
/// Small text helpers of the FIBS translator's files (clip_translator.cpp,
/// clip_commands.cpp, clip_frames.cpp): words of a typed line, FIBS's phrases for
/// points and match lengths, chat that stays chat.

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "bg/server/fibs/clip_translator.hpp"

namespace bg::server::fibs::clip_text {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// The first word of `s` and the rest (trimmed).
inline std::pair<std::string_view, std::string_view> first_word(std::string_view s) {
  s = trim(s);
  const auto cut = s.find_first_of(" \t");
  if (cut == std::string_view::npos) return {s, {}};
  return {s.substr(0, cut), trim(s.substr(cut))};
}

inline std::string other(const std::string& side) {
  return side == "red" ? "black" : "red";
}

inline std::string points_text(std::int64_t n) {
  return std::to_string(n) + (n == 1 ? " point" : " points");
}

inline std::string length_text(std::int64_t length) {
  return length > 0 ? "a " + std::to_string(length) + " point match" : "an unlimited match";
}

/// Chat text for gammond: a line that starts with "/" would be a command there, so it
/// gets an invisible word joiner first (gammond strips it from the chat it passes on).
inline std::string as_chat(std::string_view text) {
  if (!text.empty() && text.front() == '/') return "\u2060" + std::string(text);
  return std::string(text);
}

/// Multi-line gammond text as CLIP lines.
inline void text_lines(clip_actions& a, std::string_view text) {
  while (!text.empty()) {
    const auto cut = text.find('\n');
    a.line(text.substr(0, cut));
    if (cut == std::string_view::npos) break;
    text.remove_prefix(cut + 1);
  }
}

inline std::string rating_text(double r) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", r);
  return buffer;
}

inline constexpr std::string_view help_text =
    "gammond speaks FIBS's CLIP (protocol/FIBS.md). Commands:\n"
    "  invite NAME N|unlimited, join NAME, roll, move 24-18 13-11, double, accept, reject,\n"
    "  resign n|g|b, leave, watch NAME, unwatch, board, rawboard, pip\n"
    "  tell NAME TEXT, say TEXT, kibitz TEXT, whisper TEXT, shout TEXT\n"
    "  who, whois NAME, rating, show games, toggle [NAME], set [NAME VALUE], time, version, bye";

}  // namespace bg::server::fibs::clip_text
