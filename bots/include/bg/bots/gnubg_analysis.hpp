#pragma once
/// @file gnubg_analysis.hpp
/// GNU Backgammon's match analysis as gammond stores and serves it: the embedded
/// Python script that runs inside gnubg (bots/scripts/analyse_match.py) and the
/// conversion of its answer into gammond's terms (red and black, the protocol's board).

#include <array>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace bg::bots {

/// The text of bots/scripts/analyse_match.py, built into gammond (so an installed
/// gammond needs no file beside it). Its header comment documents its input and output.
[[nodiscard]] std::string_view gnubg_analysis_script() noexcept;

/// Turns the script's answer `gnubg` into gammond's analysis of a match between
/// `players` ([red, black]; gnubg's player 0 is the .mat's left column, red):
///
///   {"games": n, "match_length": n,
///    "players": {"red": {"name", "error_rate", "snowie_error_rate", "rating",
///                        "checker": {...}, "cube": {...}, "luck": {...}}, "black": {...}},
///    "decisions": [{"n": 1.., "game", "side", "kind", "dice" (moves), "position_id",
///                   "match_id", "played", "best", "equity", "equity_lost", "skill",
///                   "red_equity", "board_before", "board_after" (moves)}, ...]}
///
/// Per decision, `equity` is the decider's normalised equity with the best choice and
/// `red_equity` the same from red's side (the chart's line); `board_before` and
/// `board_after` are the position before and after the play in the protocol's `board`
/// form (R1 numbering, red positive), computed with the engine from the Position ID, the
/// dice and the play (a cube decision has only `board_before`). Equities are rounded to
/// 5 decimals. Throws std::invalid_argument with what is wrong when `gnubg` is not the
/// script's answer (a missing field, a Position ID or play the engine cannot read).
[[nodiscard]] nlohmann::json to_gammond_analysis(const nlohmann::json& gnubg,
                                                 const std::array<std::string, 2>& players);

}  // namespace bg::bots
