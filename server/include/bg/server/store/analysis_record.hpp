#pragma once
/// @file analysis_record.hpp
/// A finished match's analysis by GNU Backgammon as the store keeps it (issue 14).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bg::server {

/// Where a match's analysis stands.
enum class analysis_status : unsigned char {
  pending,  ///< queued (or to be queued again after a restart)
  done,     ///< `result` holds the analysis
  failed,   ///< `reason` says why there is none (gnubg crashed twice, time limit, queue full)
};

/// "pending", "done", "failed" (the API's `status`).
[[nodiscard]] constexpr std::string_view to_string(analysis_status s) noexcept {
  switch (s) {
    case analysis_status::pending:
      return "pending";
    case analysis_status::done:
      return "done";
    case analysis_status::failed:
      return "failed";
  }
  return "pending";
}

/// The status named `name` (as to_string() writes it), or nullopt.
[[nodiscard]] constexpr std::optional<analysis_status> analysis_status_from_string(
    std::string_view name) noexcept {
  for (auto s : {analysis_status::pending, analysis_status::done, analysis_status::failed})
    if (to_string(s) == name) return s;
  return std::nullopt;
}

/// One match's analysis (a row of the `analyses` table).
struct analysis_record {
  std::int64_t match_id = 0;  ///< the stored match it belongs to
  analysis_status status = analysis_status::pending;
  /// gammond's analysis (bots/gnubg_analysis.hpp, to_gammond_analysis()) as JSON text
  /// when done; empty otherwise.
  std::string result;
  /// Why there is none, a sentence for players, when failed; empty otherwise.
  std::string reason;
  /// The --analysis-level it was made at ("expert", "worldclass", ...); empty while
  /// pending.
  std::string level;
  std::string queued_at;    ///< ISO 8601 UTC, set by the store
  std::string finished_at;  ///< ISO 8601 UTC, set by the store; empty while pending
};

}  // namespace bg::server
