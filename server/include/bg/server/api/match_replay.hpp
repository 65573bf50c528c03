#pragma once
/// @file match_replay.hpp
/// A stored match made again step by step through the engine, for the web client's
/// replay page: the JSON of `GET /api/matches/ID/replay` (PROTOCOL.md "Match replay").
/// The client knows no rules, so every step carries the board it leads to.

#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "bg/server/records/match_record.hpp"

namespace bg::server {

/// The replay's bound on steps in all when none is given (`--replay-max-steps`).
inline constexpr std::size_t default_replay_max_steps = 20'000;

/// The replay of match `id` (stored as `m`): each game made again from the variant's
/// starting position with its opening roll (R2, L8), then every recorded action in
/// order: a play or pass rolls the recorded dice through the engine (R3) and a play is
/// made by its notation (R6, L1-L6); cube actions (R14) and resignations (R18) move no
/// checker. Shape:
/// `{"match_id": id, "match": {table, players {red, black}, variant, length, score,
/// started_at, ended_at} (as the analysis answers it), "games": [game...], "truncated":
/// bool}`; each game is `{"number", "score_before" {red, black}, "crawford", "first":
/// side, "result": {winner, kind, reason, points} or null, "steps": [step...]}` and, when
/// the engine refuses a recorded action, `"problem"`: a sentence, that game's steps ending
/// before the refused one. A step is `{"what", "who": side, "board" (as `state.board`, R1
/// numbering), "pips" {red, black}, "cube" {value, owner: "center"|"red"|"black"}}` after
/// the step, with: "start" first (`who` is the first player, `dice` the opening roll as
/// they play it, [] when the game ended before it); "play" (`dice`, `play` in gnubg
/// notation, the mover's numbering) and "pass" (`dice`, R6.4); "double" (`cube` holds the
/// offered value and `offered_by`); "take"; "drop"; "resign_offer" (`resign`: single,
/// gammon or backgammon); "resign_accept"; "resign_reject"; "forfeit". Every step but
/// "start" of a standard match has `position_id`: gnubg's Position ID of the position
/// before the step, seen from the side on turn (as the analysis's decisions have it);
/// long nardy has none. At most `max_steps` steps in all: the step past it is not made,
/// the later games are left out and `truncated` is true. Never throws for a record the
/// rules refuse.
[[nodiscard]] nlohmann::json replay_json(std::int64_t id, const match_record& m,
                                         std::size_t max_steps = default_replay_max_steps);

}  // namespace bg::server
