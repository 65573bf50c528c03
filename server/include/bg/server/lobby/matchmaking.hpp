#pragma once
/// @file matchmaking.hpp
/// Matchmaking (RULES.md S5) with no I/O: which waiting requests (`/seek`) are paired
/// now, and on what terms. The caller keeps the requests, says what time it is and
/// whom each name ignores, then seats each pair at a new table.

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bg/engine/variant.hpp"
#include "bg/protocol/command.hpp"

namespace bg::server {

/// One waiting request (`/seek`): what its player accepts, and since when it waits.
struct seek_request {
  using clock_type = std::chrono::steady_clock;
  std::string name;  ///< the player's name as shown
  engine::variant game_variant = engine::variant::standard;
  /// The match lengths accepted, in the player's order of preference (non-empty; each
  /// a length `/option match` accepts).
  std::vector<int> lengths{1};
  /// The clock asked for (S2: a bank in minutes and a delay); nullopt: any clock.
  std::optional<protocol::clock_option> clock;
  /// The player's rating in `game_variant` (S1); a guest counts as 1500.
  double rating = 1500.0;
  /// When the request was made (the wait that widens its window, S5).
  clock_type::time_point since{};
  /// Whom the player's last pair was with (""; none): no rematch while others wait.
  std::string last_opponent;
  /// Play a computer player after waiting this long unmatched; nullopt: never.
  std::optional<std::chrono::seconds> bot_after;
};

/// What two requests play when paired: the match length and the clock.
struct seek_terms {
  int length = 1;
  /// The clock both accept; nullopt when both accept any (the host's default clock).
  std::optional<protocol::clock_option> clock;
  friend bool operator==(const seek_terms&, const seek_terms&) = default;
};

/// A pair S5 made: indexes into the requests given, `red` the longer waiter.
struct seek_pairing {
  std::size_t red = 0;
  std::size_t black = 0;
  seek_terms terms;
};

/// Whether `who` ignores `whom` (names as shown): the pair is never made either way.
using ignores_fn = std::function<bool(const std::string& who, const std::string& whom)>;

/// S5's rating window, in rating points either side, after waiting `waited`: ±100,
/// widening by 50 every whole 10 s, up to ±400 (reached at 60 s); from 70 s on there is
/// no bound (infinity).
[[nodiscard]] double seek_window(seek_request::clock_type::duration waited);

/// The terms two requests would play on, ratings aside: nullopt unless their variants
/// are the same, they accept a common match length and a common clock. The length is
/// the first of `a`'s that `b` accepts; the clock the one either names (both naming one:
/// the same one), nullopt when both accept any.
[[nodiscard]] std::optional<seek_terms> seek_overlap(const seek_request& a, const seek_request& b);

/// Whether `r` waited long enough unmatched to be given a computer player now
/// (`bot_after` set and reached at `now`).
[[nodiscard]] bool seek_bot_due(const seek_request& r, seek_request::clock_type::time_point now);

/// The pairs S5 makes now among `requests` (those waiting, in any order; a name at most
/// once). The longest-waiting request is served first (ties: the earlier index); its
/// partner is, among the requests not yet paired, one whose choices overlap
/// (seek_overlap()) and whose rating is within both requests' windows (each by its own
/// wait, seek_window()), neither ignoring the other; the nearest in rating, then the
/// longest waiting. A pair whose last opponent was each other is made only when no other
/// waiting request could be paired with either of them. Each request is in one pair at
/// most; red is the longer waiter.
[[nodiscard]] std::vector<seek_pairing> pair_seeks(const std::vector<seek_request>& requests,
                                                   seek_request::clock_type::time_point now,
                                                   const ignores_fn& ignores);

}  // namespace bg::server
