#pragma once
/// @file tournament_rules.hpp
/// The rules of tournaments (RULES.md S6) with no I/O: a knockout's bracket, a Swiss
/// round's pairings and standings, an arena's scores and pairings. The director that
/// runs a tournament (its rounds, tables, clocks and storage) calls these.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace bg::server {

/// A player in a tournament: the name as shown and the rating in the tournament's
/// variant (S1; a guest counts as 1500).
struct entrant {
  std::string name;
  double rating = 1500.0;
};

/// One pairing of a round. `black` empty: a bye for `red` (a win in Swiss, S6; the
/// next round in a knockout).
struct round_pairing {
  std::string red;
  std::optional<std::string> black;
  friend bool operator==(const round_pairing&, const round_pairing&) = default;
};

/// One played (or byed) pairing of a Swiss round, for the standings.
struct swiss_result {
  std::string red;
  std::optional<std::string> black;   ///< empty: a bye for `red`, worth a win
  std::optional<std::string> winner;  ///< empty: not finished yet
};

/// One line of the standings (the `standings` of the tournament JSON).
struct standing {
  std::string name;
  int wins = 0;
  /// The tournament's points: a Swiss's are its wins; an arena's its score.
  int points = 0;
  /// The sum of the opponents' wins (Swiss tie-break; byes add nothing).
  int buchholz = 0;
  int rank = 0;  ///< 1 for the first
  double rating = 1500.0;
};

// --- Knockout ------------------------------------------------------------------------

/// The players of a knockout in seed order (S6): by rating, highest first; equal
/// ratings by name.
[[nodiscard]] std::vector<entrant> seeded(std::vector<entrant> field);

/// The first round of a knockout of `field` (any order; at least 2): the bracket is the
/// next power of two, seeded by seeded() in the standard order (1 against the last
/// seed, so that the top seeds meet last), and the seats beyond the field are byes,
/// which so fall to the top seeds. In bracket order: the winners of pairings 2k and
/// 2k+1 meet in the next round (knockout_next_round()).
[[nodiscard]] std::vector<round_pairing> knockout_first_round(const std::vector<entrant>& field);

/// The next round of a knockout from the previous round's winners in bracket order
/// (the winner of each pairing, or the player of a bye): pairing 2k's winner is red
/// against pairing 2k+1's. Empty when one winner is left (the champion). Throws
/// std::invalid_argument on an odd number of winners above one.
[[nodiscard]] std::vector<round_pairing> knockout_next_round(
    const std::vector<std::string>& winners);

/// The number of rounds of a knockout of `players` players (2: 1, 5: 3, 13: 4).
[[nodiscard]] int knockout_rounds(std::size_t players);

// --- Swiss ---------------------------------------------------------------------------

/// The standings of a Swiss (S6) after the results so far: by wins (a bye is a win),
/// then Buchholz (the sum of the opponents' wins), then rating, then name; `points`
/// equals `wins`. Every entrant is listed, played or not; unfinished pairings count
/// nothing.
[[nodiscard]] std::vector<standing> swiss_standings(const std::vector<entrant>& field,
                                                    const std::vector<swiss_result>& results);

/// The pairings of the next Swiss round (S6) from the results so far (none: round 1).
/// Players are taken in standings order (round 1: by rating); with an odd number the
/// lowest-ranked player who has had no bye gets one (worth a win). Within a group of
/// equal wins the top half plays the bottom half (1 against g/2+1, 2 against g/2+2...);
/// an odd group's lowest player drops to the next group. No two players meet twice
/// when any pairing avoids it (a search over the alternatives, nearest the ideal
/// first); only when none does is a rematch allowed. Red is the higher-ranked player.
[[nodiscard]] std::vector<round_pairing> swiss_round(const std::vector<entrant>& field,
                                                     const std::vector<swiss_result>& results);

// --- Arena ---------------------------------------------------------------------------

/// How a match was won, for the arena's score: by the kind of the deciding game's win.
enum class win_kind { single, gammon, backgammon };

/// An arena player's score so far (S6): a win scores 2, a gammon win 3, a backgammon
/// win 4, a loss 0; after two wins in a row each further win scores double, until a
/// loss ends the streak.
struct arena_score {
  int points = 0;
  int wins = 0;
  int streak = 0;  ///< wins in a row up to now
  /// Counts one finished match: `won` and, when won, how (`kind`). Returns the points
  /// it scored.
  int add(bool won, win_kind kind = win_kind::single);
  /// Whether the next win scores double (two wins in a row or more).
  [[nodiscard]] bool on_fire() const noexcept { return streak >= 2; }
};

/// An arena player waiting in the pool: the name, the score so far, and the order in
/// which the waiting players came back (smaller: waited longer).
struct arena_waiting {
  std::string name;
  int points = 0;
  std::size_t arrival = 0;
  std::string last_opponent;  ///< not paired with them again while others wait
};

/// The pairs an arena (S6) makes now from its pool: the longest-waiting player first,
/// with the nearest score among those waiting (ties: the longest waiting), not the last
/// opponent while another is waiting; red is the longer waiter. An odd one waits on.
/// Indexes into `pool`.
[[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> arena_pairs(
    const std::vector<arena_waiting>& pool);

}  // namespace bg::server
