#pragma once
/// @file clip_board.hpp
/// gammond's table state in FIBS's words: the `board:` line of CLIP and FIBS's move
/// notation, both ways (protocol/FIBS.md). Pure functions of the JSON `state` message
/// (PROTOCOL.md), so they are tested without sockets.
///
/// FIBS numbers the points 1..24 in one fixed order for both players, like gammond's
/// board (RULES.md R1): gammond's red moves 1 -> 24 and is FIBS's X (colour -1,
/// direction 1, home 25, bar 0, checkers negative); black moves 24 -> 1 and is FIBS's
/// O (colour 1, direction -1, home 0, bar 25, checkers positive).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "bg/engine/error.hpp"

namespace bg::server::fibs {

/// The `board:` line (without a line end) of the table `state` (a gammond `state`
/// message) seen from `side` ("red" or "black"): field 1 is "You" when `you` is true,
/// else that side's player; the points, scores, dice, cube, flags and counts are that
/// side's and its opponent's, per FIBS's published description of the line
/// (fibs_interface.html, "board"; the field list is in protocol/FIBS.md). Match length
/// 9999 for a session without a target (basis, free play). A free seat is named "-".
[[nodiscard]] std::string board_line(const nlohmann::json& state, std::string_view side, bool you);

/// A play typed in FIBS notation ("24-18 13-11", "bar-22", "b-3", "6-off", "6-o",
/// "24/18"; points in FIBS's absolute numbering, which for `side` "red" is the mirror
/// of its own) as gammond's notation in the mover's own numbering ("24/18 13/11"), for
/// /move. Error `bad_notation` (with a sentence) when a part is not from-to.
[[nodiscard]] engine::result<std::string> gammond_play(std::string_view fibs_text,
                                                       std::string_view side);

/// The checker moves of `play` (gnubg notation in the mover's own numbering, as in a
/// `moved` event) in FIBS's absolute numbering, one "from-to" per die ("24-18 18-13"
/// for 24/13 with 6-5, its middle point the one not held by the opponent on
/// `points_before`, the `board.points` array before the play). "" when it cannot be read.
[[nodiscard]] std::string fibs_moves(std::string_view play, std::string_view side,
                                     const nlohmann::json& dice,
                                     const nlohmann::json& points_before);

}  // namespace bg::server::fibs
