#pragma once
/// @file dice_verdict.hpp
/// Checking a finished match's dice against its revealed seed (RULES.md S4): what
/// `gammon-tool verify-dice` and the tests run (the web client does the same in the page).

#include <cstddef>
#include <string>

#include "bg/server/records/match_record.hpp"

namespace bg::server {

/// The outcome of verify_dice().
struct dice_verdict {
  bool verified = false;  ///< every check passed
  std::size_t rolls = 0;  ///< the rolls re-derived and found equal before the verdict
  std::string problem;    ///< when not verified: the first difference and why, a sentence
};

/// Verifies the dice of `record` (a finished match as GET /api/matches/ID serves it),
/// in this order, stopping at the first difference:
/// 1. it has derived dice (a commitment) and a revealed seed of 64 hex digits;
/// 2. SHA-256(seed) is the commitment;
/// 3. the rolls are numbered in order: games ascending, k from 0 in each game, +1 a roll;
/// 4. every roll is derived_dice::derive() of the seed, the players' seeds, its game
///    and k;
/// 5. the games' dice are those rolls: in each game the opening throws (ties thrown
///    again) give the opening roll and who moves first, the first play or pass uses
///    it, each later play or pass uses the next roll, and at most one roll is left
///    unplayed (a game that ended after a roll, before its play).
/// Never throws on any record.
[[nodiscard]] dice_verdict verify_dice(const match_record& record);

}  // namespace bg::server
