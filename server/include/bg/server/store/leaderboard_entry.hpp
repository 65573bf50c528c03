#pragma once
/// @file leaderboard_entry.hpp
/// One line of a variant's ratings list (/ratings, GET /api/ratings).

#include <string>

#include "bg/server/store/account.hpp"

namespace bg::server {

/// A rated account and its standing in one variant; no secret of the account.
struct leaderboard_entry {
  int rank = 0;      ///< 1 for the highest rating
  std::string name;  ///< as registered
  bool bot = false;  ///< a computer player's account (account::kind::bot, issue 14)
  account::standing standing;
};

}  // namespace bg::server
