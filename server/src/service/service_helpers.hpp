#pragma once
/// @file service_helpers.hpp
/// Small helpers that the game service's files (game_service.cpp, hello.cpp,
/// accounts.cpp, http_routes.cpp, matchmaking.cpp) share: numbers read from commands and
/// URLs, the lengths of the account lists, a password's bytes cleared, the wall clock,
/// `info` answers. Private to service/.

#include <sodium.h>

#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include <nlohmann/json.hpp>

#include "api/account_views.hpp"
#include "bg/i18n/catalogue.hpp"
#include "bg/server/store/store.hpp"
#include "bg/server/table/frames.hpp"

namespace bg::server::service_helpers {

/// How many entries /ratings lists, and GET /api/ratings without `limit`.
inline constexpr std::size_t ratings_lines = 20;
/// How many entries /history lists, and GET /api/players/NAME/matches without `limit`.
inline constexpr std::size_t history_lines = 10;

/// The player page's recent period of the PR (RULES.md S7), in days.
inline constexpr int recent_pr_days = 30;

/// The time `days` days before now as matches are stamped (ISO 8601 UTC,
/// "2026-11-23T10:00:00Z").
inline std::string iso_days_ago(int days) {
  const std::time_t t = std::time(nullptr) - static_cast<std::time_t>(days) * 24 * 60 * 60;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// Account `key`'s PR sums (S7) over the last recent_pr_days days and all time, read
/// from `db`. Throws storage_error.
inline player_performance performance_of(store& db, std::string_view key) {
  return {db.account_performance(key, iso_days_ago(recent_pr_days)),
          db.account_performance(key, "")};
}

/// The id in `digits` (1 to 18 decimal digits), or nullopt.
inline std::optional<std::int64_t> id_of(std::string_view digits) {
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  std::int64_t id = 0;
  for (char ch : digits) {
    if (ch < '0' || ch > '9') return std::nullopt;
    id = id * 10 + (ch - '0');
  }
  return id;
}

/// A whole number in [min, max] from `text`, or nullopt.
inline std::optional<std::int64_t> whole_number(const std::string& text, std::int64_t min,
                                                std::int64_t max) {
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end || value < min || value > max)
    return std::nullopt;
  return value;
}

/// Overwrites a password's bytes once it is no longer needed (sodium_memzero).
inline void wipe(std::string& secret) {
  if (!secret.empty()) sodium_memzero(secret.data(), secret.size());
  secret.clear();
}

/// An `info` answer: `topic`, `text`, `data`, at `table` (absent in the lobby), with `re`.
inline std::shared_ptr<const std::string> info_frame(std::string_view topic, std::string text,
                                                     nlohmann::json data,
                                                     const std::optional<std::string>& table,
                                                     const std::optional<nlohmann::json>& re) {
  nlohmann::json j{
      {"type", "info"}, {"topic", topic}, {"text", std::move(text)}, {"data", std::move(data)}};
  if (table) j["table"] = *table;
  if (re) j["re"] = *re;
  return frame_of(j);
}

/// An `info` answer whose sentence is catalogue message `key` with `args` (`say`, so that
/// each reader gets it in its language): `topic`, `data`, at `table`, with `re`.
inline std::shared_ptr<const std::string> said_info_frame(std::string_view topic, std::string key,
                                                          nlohmann::json args, nlohmann::json data,
                                                          const std::optional<std::string>& table,
                                                          const std::optional<nlohmann::json>& re) {
  nlohmann::json j{{"type", "info"}, {"topic", topic}, {"data", std::move(data)}};
  i18n::with_say(j, std::move(key), std::move(args));
  if (table) j["table"] = *table;
  if (re) j["re"] = *re;
  return frame_of(j);
}

/// Now in ms since the Unix epoch.
inline std::int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// True for the messages the cluster bus relays to a name connected on another node
/// (issue 30: a tournament's news and pairings); the sender and the receiving node both
/// ask, so that nothing else crosses nodes this way.
inline bool relayed_to_other_nodes(const nlohmann::json& message) {
  const auto type = message.value("type", "");
  return type == "tournament" || type == "tournament_pairing";
}

}  // namespace bg::server::service_helpers
