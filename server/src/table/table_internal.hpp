#pragma once
/// @file table_internal.hpp
/// Private helpers shared by the files of `table` (table.cpp, table_seats.cpp,
/// table_moderation.cpp, table_play.cpp, table_clock.cpp, table_views.cpp,
/// table_snapshot.cpp): the texts of the options and of durations, and the small JSON
/// writers of the state and the snapshot. Nothing outside server/src/table/ includes it.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bg/engine/match.hpp"
#include "bg/engine/side.hpp"
#include "bg/protocol/command.hpp"
#include "bg/protocol/json_writer.hpp"

namespace bg::server::table_detail {

/// The clock option as `options.clock`: null (no clock) or {"minutes", "delay"} (S2).
nlohmann::json clock_option_json(const protocol::clock_option& c);

/// The options as the `options` event value and the /options answer's data carry them:
/// {"variant", "tutor", "match" ("off", "basis" or the length), "match_length", "clock"}.
nlohmann::json options_json(const engine::match_options& o, bool tutor,
                            const protocol::clock_option& clock);

/// Adds the options to a sentence's `args`, as the sentences that write them
/// ("match 5 points, variant standard, tutor off, no clock") select them: `kind`
/// ("free", "basis", "points"), `length`, `variant`, `tutor` ("on"/"off"), `clock_min`
/// (0: no clock) and `clock_delay`.
void add_options_args(nlohmann::json& args, const engine::match_options& o, bool tutor,
                      const protocol::clock_option& clock);

/// Adds a duration in ms (rounded down to the second) to a sentence's `args` as
/// `<name>_min` and `<name>_s`, which the sentence writes "4 min 20 s", "45 s", "10 min".
void add_duration_args(nlohmann::json& args, const std::string& name, std::int64_t ms);

/// "match", "session" or "game": what a forfeit or a loss on time loses (S2, S3).
std::string what_is_lost(engine::match_kind kind);

/// A side as "red"/"black", or null.
inline void write_side(protocol::json_writer& w, std::optional<engine::side> s) {
  if (s) {
    w.value(engine::to_string(*s));
  } else {
    w.null();
  }
}

/// A game's result as to_json(game_result) writes it, in nlohmann's key order.
inline void write_game_result(protocol::json_writer& w, const engine::game_result& r) {
  w.begin_object()
      .key("kind")
      .value(engine::to_string(r.kind))
      .key("points")
      .value(r.points)
      .key("reason")
      .value(engine::to_string(r.reason))
      .key("winner")
      .value(engine::to_string(r.winner))
      .end_object();
}

}  // namespace bg::server::table_detail
