#pragma once
/// @file performance_rating.hpp
/// The performance rating (PR, RULES.md S7) from GNU Backgammon's analysis of a match:
/// 500 times the normalised equity (EMG) lost in checker play and cube decisions, per
/// decision that was neither forced nor obvious, as gnubg counts them. Lower is better.

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace bg::server {

/// A PR (S7): 500 × `equity_lost` (EMG, summed over the decisions) / `decisions` (the
/// unforced checker plays and close cube decisions, as gnubg counts them); nullopt when
/// `decisions` is 0 (nothing to judge). Over a period the sums of its matches are used.
[[nodiscard]] std::optional<double> performance_rating(double equity_lost, long decisions);

/// The band of a PR (S7, eXtreme Gammon's scale): "world class" under 2.5, "expert"
/// under 5, "advanced" under 7.5, "intermediate" under 12.5, "casual" under 17.5,
/// "beginner" under 22.5, else "distracted".
[[nodiscard]] std::string_view pr_band(double pr) noexcept;

/// What a PR is computed from, for one player of one analysed match.
struct pr_sums {
  double equity_lost = 0;  ///< EMG lost in checker play and cube decisions
  long decisions = 0;      ///< unforced checker plays + close cube decisions
};

/// The sums of one player of a stored analysis (`players.red` or `players.black` of
/// bg::bots::to_gammond_analysis(): `checker.error_total`, `checker.unforced`,
/// `cube.error_total`, `cube.close`); missing fields count 0.
[[nodiscard]] pr_sums pr_sums_of(const nlohmann::json& analysis_player);

/// A PR as players see it (S7): performance_rating() of `sums` rounded to 2 decimals;
/// nullopt when `sums.decisions` is 0. Its band is pr_band() of this rounded value.
[[nodiscard]] std::optional<double> shown_pr(const pr_sums& sums);

}  // namespace bg::server
