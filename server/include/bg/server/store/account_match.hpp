#pragma once
/// @file account_match.hpp
/// One finished match in an account's history (/history, GET /api/players/NAME/matches).

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "bg/engine/match.hpp"
#include "bg/engine/side.hpp"
#include "bg/server/records/match_record.hpp"
#include "bg/server/records/performance_rating.hpp"

namespace bg::server {

/// A match an account played, as its history lists it.
struct account_match {
  std::int64_t match_id = 0;  ///< the stored match (`/matches/<id>.mat`)
  std::string ended_at;       ///< ISO 8601 UTC
  engine::match_options options;
  engine::side side = engine::side::red;  ///< the account's seat
  std::string opponent;                   ///< the other player's name (an account or a guest)
  std::array<int, 2> final_score{};       ///< [red, black]
  std::optional<bool> won;                ///< nullopt: a basis session that ended level
  /// The account's rating change when the match was rated (S1), else nullopt.
  std::optional<rating_change> rating;
  /// The account's PR sums in this match (RULES.md S7: EMG lost, decisions counted) once
  /// GNU Backgammon's analysis of it is done, else nullopt (pending, failed, none).
  std::optional<pr_sums> performance;
};

}  // namespace bg::server
