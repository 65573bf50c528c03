#pragma once
/// @file leaderboard_entry.hpp
/// One line of a variant's ratings list (/ratings, GET /api/ratings).

#include <optional>
#include <string>

#include "bg/server/records/performance_rating.hpp"
#include "bg/server/store/account.hpp"

namespace bg::server {

/// A rated account and its standing in one variant; no secret of the account.
struct leaderboard_entry {
  int rank = 0;      ///< 1 for the first of the list (the highest rating, or the best PR)
  std::string name;  ///< as registered
  bool bot = false;  ///< a computer player's account (account::kind::bot, issue 14)
  account::standing standing;
  /// The account's all-time PR sums (RULES.md S7): those of every analysed match it
  /// played, whatever the variant; nullopt when none of its matches is analysed.
  std::optional<pr_sums> performance;
};

}  // namespace bg::server
