#pragma once
/// @file analysis_view.hpp
/// A stored match's analysis by GNU Backgammon as gammond answers it (issue 14): the
/// JSON of `GET /api/matches/ID/analysis` and the `info` of `/analysis [MATCH_ID]`,
/// both built from what the store holds (on the storage thread).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "bg/server/records/match_record.hpp"
#include "bg/server/store/analysis_record.hpp"

namespace bg::server {

/// The answer about one match's analysis.
struct analysis_view {
  /// False when there is no match with that id (HTTP 404, error `unknown_match`).
  bool found = false;
  /// `GET /api/matches/ID/analysis` (PROTOCOL.md "Match analysis"): `match_id`,
  /// `status` ("pending", "done", "failed" or "unavailable"), `reason` unless pending or
  /// done; when done the whole analysis (players, decisions) with `level`,
  /// `queued_at`, `analysed_at` and `match` (table, players, length, score, times).
  /// When !found: {"error": "unknown_match", "message": ...}.
  nlohmann::json api;
  /// The `/analysis` answer's `data`: the API's fields without the decision list, with
  /// `errors` (the decisions gnubg marked bad or very bad, at most 50) and `url` (the
  /// web client's page) when done.
  nlohmann::json data;
  /// The answer's `text`, for people (at most 20 errors listed): the done page in the
  /// language asked for, else one English sentence that `say` names.
  std::string text;
  /// When `text` is one sentence (no such match, unavailable, pending, failed): its
  /// `say` ({"key", "args"}, i18n::say), for the answer to carry; else null.
  nlohmann::json say;
};

/// A stored match in brief, as the analysis and the replay (match_replay.hpp) answer it:
/// `{"table", "players": {red, black}, "variant": "standard"|"long", "length" (points
/// to win; 0: no target), "score": {red, black} (the final score), "started_at",
/// "ended_at"}` (ISO 8601 UTC).
[[nodiscard]] nlohmann::json match_summary_json(const match_record& m);

/// The `say` {"key", "args"} of the English `reason` a failed analysis keeps (the
/// analysis queue's and game_service's sentences, analysis_record::reason): catalogue
/// message analysis.failure_reason, whose select says each known reason in the reader's
/// language; an unknown one is kept as data.
[[nodiscard]] nlohmann::json analysis_failure_say(const std::string& reason);

/// The HTTP 404 body for a match `id` that is not stored (or is private to others):
/// `{"error": "unknown_match", "message": "there is no match ID", "say": {...}}`.
[[nodiscard]] nlohmann::json unknown_match_json(std::int64_t id);

/// The answer about the analysis of match `id`: `match` as stored (nullopt: no such
/// match), `analysis` its row (nullopt: never queued), `analysing` whether this server
/// analyses matches now (--analysis-workers > 0 and gnubg found). A pending analysis on
/// a server that does not analyse, a long nardy match (gnubg knows no long nardy) and a
/// match never queued are "unavailable" with a reason (`reason` in English, `reason_say`
/// its catalogue message). The text of a done analysis is in language `lang` (a
/// catalogue tag). Throws nlohmann::json's exceptions when a stored result is not JSON.
[[nodiscard]] analysis_view view_analysis(std::int64_t id, const std::optional<match_record>& match,
                                          const std::optional<analysis_record>& analysis,
                                          bool analysing, std::string_view lang = "en");

}  // namespace bg::server
