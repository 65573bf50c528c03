#pragma once
/// @file account_views.hpp
/// Private helpers of the game service (issue 12): accounts, ratings lists and match
/// histories as the protocol's JSON (`welcome.account`, `info.data`, the /api answers)
/// and as sentences (`info.text`). Nothing here ever includes a password hash or a
/// resume token: the views take only the fields they show.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bg/engine/variant.hpp"
#include "bg/server/log_safe.hpp"
#include "bg/server/records/rating.hpp"
#include "bg/server/store/account.hpp"
#include "bg/server/store/account_match.hpp"
#include "bg/server/store/leaderboard_entry.hpp"
#include "bg/server/store/leaderboard_order.hpp"
#include "bg/server/store/performance_sums.hpp"

namespace bg::server {

/// `welcome.account` of a guest: not registered, the starting figures (not kept), no admin.
[[nodiscard]] nlohmann::json guest_account_json();
/// `welcome.account` of account `a`: {"registered": true, "rating": {"standard", "long"},
/// "experience": {"standard", "long"}, "admin"}.
[[nodiscard]] nlohmann::json account_json(const account& a, bool admin);

/// An account's PR sums over the two periods its page shows (RULES.md S7).
struct player_performance {
  performance_sums last_30_days;  ///< its analysed matches that ended in the last 30 days
  performance_sums all_time;      ///< all its analysed matches
};

/// /whois and GET /api/players/NAME of account `a`: {"name", "registered": true, "bot"
/// (a computer player's account), "online",
/// "last_seen" (null: never), "created_at", "ratings": {"standard": {"rating",
/// "experience", "played", "won"}, "long": {...}}, "performance": {"last_30_days":
/// {"pr" (2 decimals), "pr_band", "matches"}, "all_time": {...}}} (S7: a period's PR is
/// its sums over its sums; `pr` and `pr_band` null when no match of it is analysed).
[[nodiscard]] nlohmann::json profile_json(const account& a, bool online,
                                          const player_performance& performance);
/// The same for a guest who is online: {"name", "registered": false, "online": true}.
[[nodiscard]] nlohmann::json guest_profile_json(const std::string& name);
/// /whois's sentence for account `a`, its PR over 30 days and all time at the end (S7),
/// in language `lang` (a catalogue tag: lobby.whois).
[[nodiscard]] std::string profile_text(const account& a, bool online,
                                       const player_performance& performance,
                                       std::string_view lang = "en");

/// /ratings and GET /api/ratings: {"variant", "sort" ("rating" or "pr"), "players":
/// [{"rank", "name", "bot", "rating", "experience", "played", "won"}]}; with `with_pr`
/// each player also has its all-time "pr" (2 decimals) and "pr_band" (S7; null when none
/// of its matches is analysed). `order` is the order `entries` are in.
[[nodiscard]] nlohmann::json leaderboard_json(engine::variant v,
                                              const std::vector<leaderboard_entry>& entries,
                                              leaderboard_order order = leaderboard_order::rating,
                                              bool with_pr = false);
/// /ratings's lines ("1. alice 1517.32 (experience 3, 1 won of 1)"), with `with_pr`
/// ending in ", PR 5.21 (advanced)" or ", no PR yet"; sorted by PR, the title says so.
/// In language `lang` (a catalogue tag): one catalogue message a line (lobby.ratings_*).
[[nodiscard]] std::string leaderboard_text(engine::variant v,
                                           const std::vector<leaderboard_entry>& entries,
                                           leaderboard_order order = leaderboard_order::rating,
                                           bool with_pr = false, std::string_view lang = "en");

/// One match of a history: {"match_id", "ended_at", "variant", "kind" ("points",
/// "basis", "free_play"), "length", "side", "opponent", "score": {"red", "black"}, "won"
/// (null: a level session), "rating": {"before", "after", "change", "experience_before",
/// "experience_after"} (null: unrated), "pr" (the account's PR in it, 2 decimals) and
/// "pr_band" (S7; both null until its analysis is done), "url" (`/matches/<id>.mat`)}.
[[nodiscard]] nlohmann::json account_match_json(const account_match& m);
/// /history and GET /api/players/NAME/matches: {"name", "matches": [...], "next_before"
/// (the id to ask `before` for the next page; null when `more` is false)}.
[[nodiscard]] nlohmann::json history_json(const std::string& name,
                                          const std::vector<account_match>& matches, bool more);
/// /history's lines ("2026-11-23 vs bob, match to 3, won 3-1, 1500.00 -> 1517.32
/// (+17.32), PR 5.21 (advanced), /matches/4.mat"; the PR once analysed, S7), in
/// language `lang` (a catalogue tag): one catalogue message a line (lobby.history_*).
[[nodiscard]] std::string history_text(const std::string& name,
                                       const std::vector<account_match>& matches,
                                       std::string_view lang = "en");

}  // namespace bg::server
