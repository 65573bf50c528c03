#pragma once
/// @file leaderboard_order.hpp
/// How a ratings list (/ratings, GET /api/ratings) is sorted.

namespace bg::server {

/// The order of store::leaderboard().
enum class leaderboard_order : unsigned char {
  rating,  ///< the highest rating first (RULES.md S1), ties by name
  /// The lowest (best) all-time PR first (RULES.md S7); accounts without an analysed
  /// match after all those with one (by rating among themselves); ties by rating, then
  /// name.
  pr,
};

}  // namespace bg::server
