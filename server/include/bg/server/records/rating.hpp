#pragma once
/// @file rating.hpp
/// FIBS ratings (RULES.md S1): what a finished match of length n moves between its
/// winner's and its loser's ratings. A pure function: the store applies it inside the
/// transaction that archives the match (sqlite_store, postgres_store).

#include <array>
#include <optional>
#include <string>

#include "bg/engine/side.hpp"
#include "bg/server/records/match_record.hpp"

namespace bg::server {

/// One player's standing in one variant before or after a rated match.
struct rating_standing {
  double rating = 1500.0;  ///< FIBS rating points; every account starts at 1500.00
  int experience = 0;      ///< the sum of the lengths of the rated matches played
};

/// What a rated match did to its two players (RULES.md S1).
struct rating_outcome {
  rating_standing winner;  ///< the winner's standing after the match
  rating_standing loser;   ///< the loser's standing after the match
  double points = 0.0;     ///< the points moved, before each player's K factor
};

/// The K factor of a player with `experience` (S1): max(1, 5 - experience / 100), a
/// real division, so a new player's rating moves five times as fast as a veteran's.
[[nodiscard]] double rating_k(int experience) noexcept;

/// Rates a finished match to `length` points (n >= 1) won by `winner` against `loser`
/// (RULES.md S1, the FIBS formula):
///   D = |r_winner - r_loser|, P_upset = 1 / (10^(D * sqrt(n) / 2000) + 1),
///   P_fav = 1 - P_upset;
///   points = 4 * sqrt(n) * P_upset when the favourite (the higher rating; either
///   player when the ratings are equal) wins, else 4 * sqrt(n) * P_fav;
///   the winner gains points * K(winner's experience), the loser loses
///   points * K(loser's experience); then both experiences grow by n.
/// Example: two new players (1500, experience 0), a 3-point match: the winner gains
/// 4 * sqrt(3) * 0.5 * 5 = 17.32 and the loser loses as much. A `length` below 1 is
/// treated as 1 (callers rate only matches of n >= 1).
[[nodiscard]] rating_outcome rate_match(const rating_standing& winner, const rating_standing& loser,
                                        int length) noexcept;

/// What a finished match does to its players' ratings, as every store archives it
/// (RULES.md S1): `standing` is each side's standing in the match's variant before it,
/// [red, black] (nullopt: a guest, or no such account), `names` their accounts' names as
/// registered. The match is rated when `rated` (the table says it counts: a match of
/// n >= 1 points), `winner` is set and both sides have an account; then the answer holds
/// each side's rating and experience before and after (rate_match()); else nullopt.
[[nodiscard]] std::optional<std::array<rating_change, 2>> rate_finished_match(
    bool rated, std::optional<engine::side> winner,
    const std::array<std::optional<rating_standing>, 2>& standing,
    const std::array<std::string, 2>& names, int length);

/// A rating as players read it: two decimals ("1517.32").
[[nodiscard]] std::string rating_text(double rating);
/// A rating change with its sign and two decimals ("+17.32", "-17.32").
[[nodiscard]] std::string change_text(double change);

}  // namespace bg::server
