#pragma once
/// @file json_fields.hpp
/// Reading fields of gammond's JSON messages without throwing: what a field is not
/// (missing, another type) reads as the fallback. Shared by the fibs/ room's files.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace bg::server::fibs::json_fields {

/// j[key] when j is an object holding a string there, else "".
inline std::string text_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return {};
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

/// j[key] when j is an object holding an integer there, else `fallback`.
inline std::int64_t int_at(const nlohmann::json& j, const char* key, std::int64_t fallback = 0) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}

/// j[key], or null when j is not an object or has no such member.
inline const nlohmann::json& at(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null;
  if (!j.is_object()) return null;
  const auto it = j.find(key);
  return it != j.end() ? *it : null;
}

/// j[key] is the boolean true.
inline bool flag_at(const nlohmann::json& j, const char* key) {
  const auto& v = at(j, key);
  return v.is_boolean() && v.get<bool>();
}

/// `s` in ASCII lower case (FIBS's command words and the like).
inline std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& ch : out)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return out;
}

}  // namespace bg::server::fibs::json_fields
