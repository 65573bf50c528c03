#pragma once
/// @file tournament_play.hpp
/// Scripted players for tournaments (RULES.md S6) through a real gammond: registering a
/// field, reading each round's `tournament_pairing`, playing a pairing to its end (both
/// enter, the opening is rolled, the side on turn resigns and the other accepts), and
/// the standings a Swiss's rounds give, computed by hand.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "test_player.hpp"

namespace bg::test {

/// The players of a tournament by name, each connected (or reset: gone for good).
using field = std::map<std::string, std::unique_ptr<player>>;

/// A round's pairings as the players were told: table -> {red, black}.
using round_pairings = std::map<std::string, std::pair<std::string, std::string>>;

/// Connects `n` guests p01, p02, ... to the gammond at `port` and registers each for
/// `tournament` (REQUIREs that each is accepted).
field register_field(std::uint16_t port, int n, const std::string& tournament);

/// The first message `p` has read, or reads before `timeout`, for which `wanted` holds:
/// a message may have come in while `p` waited for another (the answer to a command).
nlohmann::json seen_or_await(player& p, const std::function<bool(const nlohmann::json&)>& wanted,
                             std::chrono::milliseconds timeout);

/// The `tournament_pairing` of round `round` for `p` (read before, or within `timeout`).
nlohmann::json pairing_of(player& p, int round,
                          std::chrono::milliseconds timeout = std::chrono::seconds{30});

/// The tournament's view in a `tournament` message `p` read or reads for which `wanted`
/// holds (the first such).
nlohmann::json tournament_until(player& p, const std::function<bool(const nlohmann::json&)>& wanted,
                                std::chrono::milliseconds timeout = std::chrono::seconds{60});

/// Plays the match at `table` to its end: both enter, the opening is rolled, the side
/// on turn resigns and the other accepts. Returns the winner's name.
std::string resign_out(player& red, player& black, const std::string& table);

/// One round's pairings as the players were told. `only`: the names still in (a
/// knockout's), else every connected player of `players`. Byes are left out.
round_pairings round_tables(field& players, int round, const std::set<std::string>& only = {});

/// Plays a round's tables: those with both players connected by resignation; the others
/// are left to the grace period (their absent player forfeits). Everyone present enters
/// first. Returns table -> winner for the played ones.
std::map<std::string, std::string> play_round(field& players, const round_pairings& tables);

/// The standings a Swiss's pairings (a tournament view) give by S6, computed from its
/// rounds: name -> {wins (a bye is a win), Buchholz (the sum of the opponents' wins)}.
std::map<std::string, std::pair<int, int>> swiss_by_hand(const nlohmann::json& view);

/// CHECKs the standings of a Swiss's view (a tournament view) against swiss_by_hand():
/// each player's wins and Buchholz. Returns the wins of all players together.
int check_swiss_standings(const nlohmann::json& view);

}  // namespace bg::test
