#pragma once
/// @file performance_sums.hpp
/// An account's PR sums over a period (RULES.md S7), as store::account_performance()
/// adds them up.

#include "bg/server/records/performance_rating.hpp"

namespace bg::server {

/// The sums of an account's analysed matches in a period: its PR is
/// performance_rating(sums.equity_lost, sums.decisions), the sums over the sums (S7),
/// never the mean of the matches' PRs.
struct performance_sums {
  pr_sums sums;     ///< EMG lost and decisions counted, added over the matches
  int matches = 0;  ///< how many analysed matches the period holds
};

}  // namespace bg::server
