#pragma once
/// @file record_json.hpp
/// JSON for match records and the engine values they hold (nlohmann/json).
///
/// The functions follow nlohmann's ADL convention, so `nlohmann::json j = record;` and
/// `j.get<match_record>()` work. Those for engine types live in `bg::engine` (ADL finds
/// them only there) but are declared here: the engine links nothing but the standard
/// library (DESIGN.md).
///
/// Shapes:
/// - side: `"red"` | `"black"`
/// - roll: `[d1, d2]`, each 1..6, in the order rolled
/// - win_kind: `"single"` | `"gammon"` | `"backgammon"`
/// - end_reason: `"borne_off"` | `"dropped"` | `"resigned"` | `"forfeit"` | `"time"`
/// - match_options: `{"variant": "standard"|"long", "kind": "free_play"|"points"|"basis",
///   "length": N}`; reading also takes the variant spellings variant_from_string()
///   knows, and a missing "length" is 0. Values are not range-checked here:
///   engine::match::check() does that.
/// - game_result: `{"winner": side, "kind": win_kind, "reason": end_reason, "points": N}`
/// - record_action: `{"what": "play"|"pass"|"double_offer"|"take"|"drop"|"resign_offer"|
///   "resign_accept"|"resign_reject"|"forfeit", "who": side, "dice": roll, "play": "24/18",
///   "cube": N, "resign": win_kind}`; "dice", "play", "cube" and "resign" are written only
///   when they differ from their defaults ({0,0}, "", 0, single) and read as the defaults
///   when absent, so every action round-trips exactly.
/// - game_record: `{"number", "score_before": [red, black], "crawford", "first": side,
///   "opening": roll (left out while {0, 0}), "actions": [...], "result": game_result |
///   null}`
/// - rating_change: `{"name", "before", "after", "experience_before", "experience_after"}`
///   (ratings as JSON numbers, full precision)
/// - match_record: `{"id", "table", "players": [red, black], "options", "games": [...],
///   "final_score": [red, black], "started_at", "ended_at", "dice"}`; "dice" is written
///   only when the match's dice were derived (a commitment) and read as none when absent;
///   `"ratings": {"red": rating_change, "black": rating_change}` for a rated match only
///   (absent: unrated; records written before accounts have none); `"unfinished": true,
///   "closed_by": name` for a match whose table an administrator closed (issue 13;
///   absent: the match finished)
/// - dice_record: `{"commitment": hex, "seed": hex ("" until revealed), "player_seeds":
///   [red, black], "rolls": [{"game": g, "k": k, "dice": roll}, ...]}`
///
/// Errors: from_json throws nlohmann's exceptions on bad input: json::type_error (wrong
/// JSON type), json::out_of_range (missing key), json::other_error (unknown enum
/// string, a die outside 1..6, a pair that is not two elements). Callers catch
/// nlohmann::json::exception.

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "bg/engine/game_result.hpp"
#include "bg/engine/match.hpp"
#include "bg/engine/roll.hpp"
#include "bg/engine/side.hpp"
#include "bg/server/records/match_record.hpp"

namespace bg::engine {

/// side <-> "red" / "black".
void to_json(nlohmann::json& j, side s);
/// Throws json::other_error on any other string.
void from_json(const nlohmann::json& j, side& s);

/// roll <-> [d1, d2].
void to_json(nlohmann::json& j, const roll& r);
/// Throws json::other_error unless two dice of 1..6.
void from_json(const nlohmann::json& j, roll& r);

/// win_kind <-> "single" / "gammon" / "backgammon".
void to_json(nlohmann::json& j, win_kind k);
/// Throws json::other_error on any other string.
void from_json(const nlohmann::json& j, win_kind& k);

/// end_reason <-> "borne_off" / "dropped" / "resigned" / "forfeit" / "time".
void to_json(nlohmann::json& j, end_reason r);
/// Throws json::other_error on any other string.
void from_json(const nlohmann::json& j, end_reason& r);

/// match_kind <-> "free_play" / "points" / "basis".
void to_json(nlohmann::json& j, match_kind k);
/// The name to_json() writes for `k` ("free_play", "points" or "basis").
[[nodiscard]] std::string_view to_string(match_kind k) noexcept;
/// Throws json::other_error on any other string.
void from_json(const nlohmann::json& j, match_kind& k);

/// match_options <-> {"variant", "kind", "length"} (the server's `/option` state).
void to_json(nlohmann::json& j, const match_options& o);
/// Throws json::out_of_range without "variant" or "kind", json::other_error on an
/// unknown variant or kind; "length" defaults to 0; no range check (match::check()).
void from_json(const nlohmann::json& j, match_options& o);

/// game_result <-> {"winner", "kind", "reason", "points"}.
void to_json(nlohmann::json& j, const game_result& r);
/// Every key is required.
void from_json(const nlohmann::json& j, game_result& r);

}  // namespace bg::engine

namespace bg::server {

/// record_action::kind <-> "play", "pass", "double_offer", "take", "drop",
/// "resign_offer", "resign_accept", "resign_reject", "forfeit".
std::string_view to_string(record_action::kind k) noexcept;

/// An action: "what" and "who" always, the other fields only when not at their defaults.
void to_json(nlohmann::json& j, const record_action& a);
/// "what" and "who" are required; absent fields read as their defaults.
void from_json(const nlohmann::json& j, record_action& a);

/// A game with its actions and result (null while unfinished).
void to_json(nlohmann::json& j, const game_record& g);
/// Every key but "opening" is required ("result" may be null).
void from_json(const nlohmann::json& j, game_record& g);

/// A derived roll: {"game", "k", "dice"}.
void to_json(nlohmann::json& j, const dice_roll_record& r);
/// Every key is required; the dice are checked (1..6).
void from_json(const nlohmann::json& j, dice_roll_record& r);

/// The dice of a match: {"commitment", "seed", "player_seeds", "rolls"}.
void to_json(nlohmann::json& j, const dice_record& d);
/// Every key is required.
void from_json(const nlohmann::json& j, dice_record& d);

/// A rated player's rating before and after a match; every key is required.
void to_json(nlohmann::json& j, const rating_change& r);
void from_json(const nlohmann::json& j, rating_change& r);

/// The whole record, games in order.
void to_json(nlohmann::json& j, const match_record& m);
/// Every key is required but "dice" and "ratings" (absent or null: none; an unrated
/// match).
void from_json(const nlohmann::json& j, match_record& m);

/// The record as compact JSON text (what storage keeps in `matches.record`).
[[nodiscard]] std::string to_json_text(const match_record& m);
/// Parses text written by to_json_text(). Throws nlohmann::json::exception (parse_error
/// for text that is not JSON, the from_json errors above for the wrong shape).
[[nodiscard]] match_record match_record_from_json_text(std::string_view text);

}  // namespace bg::server
