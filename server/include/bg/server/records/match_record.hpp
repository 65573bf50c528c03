#pragma once
/// @file match_record.hpp
/// The record of a match as it is played: every roll, play and cube action, and each
/// game's result. Kept in the table's snapshot while playing; stored and exported as
/// a .mat file (gnubg `import mat`) when finished.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bg/engine/game_result.hpp"
#include "bg/engine/match.hpp"
#include "bg/engine/roll.hpp"
#include "bg/engine/side.hpp"

namespace bg::server {

/// One recorded action in a game, in order.
struct record_action {
  enum class kind : unsigned char {
    play,           ///< `who` rolled `dice` and played `play` (gnubg notation, own numbering)
    pass,           ///< `who` rolled `dice` and could not move (R6.4)
    double_offer,   ///< `who` offered the cube at `cube_value` (the new value)
    take,           ///< `who` took; the cube is now `cube_value`
    drop,           ///< `who` dropped
    resign_offer,   ///< `who` offered to resign `resign`
    resign_accept,  ///< `who` accepted the resignation
    resign_reject,  ///< `who` rejected it
    forfeit,        ///< `who` forfeited the game (absent past the grace period)
  };
  kind what = kind::play;
  engine::side who = engine::side::red;
  engine::roll dice{};
  std::string play;
  int cube_value = 0;
  engine::win_kind resign = engine::win_kind::single;
  friend bool operator==(const record_action&, const record_action&) = default;
};

/// One game of the match.
struct game_record {
  int number = 1;                          ///< 1-based
  std::array<int, 2> score_before{};       ///< [red, black] at the start of the game
  bool crawford = false;                   ///< this was the Crawford game (R15)
  engine::side first = engine::side::red;  ///< who won the opening roll
  /// The opening roll as `first` plays it (higher die first); {0, 0} before it. The .mat
  /// export needs it for a game resigned before its first play.
  engine::roll opening{};
  std::vector<record_action> actions;
  std::optional<engine::game_result> result;
  friend bool operator==(const game_record&, const game_record&) = default;
};

/// One roll of a match's verifiable dice (S4), as derived: roll `k` (from 0) of game
/// `game` (1-based). Opening throws (ties included) are rolls too: die1 red's die,
/// die2 black's.
struct dice_roll_record {
  int game = 1;
  std::uint32_t k = 0;
  engine::roll dice{};
  friend bool operator==(const dice_roll_record&, const dice_roll_record&) = default;
};

/// What it takes to verify a match's dice (S4; PROTOCOL.md "Verifiable dice").
struct dice_record {
  std::string commitment;  ///< SHA-256 of the seed, 64 hex digits; empty: dice not derived
  std::string seed;        ///< the match seed, 64 hex digits, once revealed (match end)
  std::array<std::string, 2> player_seeds;  ///< [red, black] /seed texts ("" when none)
  std::vector<dice_roll_record> rolls;      ///< every roll in the order derived
  friend bool operator==(const dice_record&, const dice_record&) = default;
};

/// One player's rating before and after a rated match (RULES.md S1), in the match's
/// variant.
struct rating_change {
  std::string name;           ///< the account's name as registered
  double before = 1500.0;     ///< rating before the match
  double after = 1500.0;      ///< rating after it
  int experience_before = 0;  ///< experience before (the sum of rated match lengths)
  int experience_after = 0;   ///< experience after (before + the match length)
  friend bool operator==(const rating_change&, const rating_change&) = default;
};

/// A match from /start to its end.
struct match_record {
  std::int64_t id = 0;  ///< storage id once saved (0 = not yet)
  std::string table;
  std::array<std::string, 2> players;  ///< [red, black] names
  engine::match_options options;
  std::vector<game_record> games;
  std::array<int, 2> final_score{};
  std::string started_at;  ///< ISO 8601 UTC
  std::string ended_at;    ///< ISO 8601 UTC, empty while playing
  dice_record dice;        ///< the verifiable dice (empty commitment: not derived)
  /// A rated match's ratings (S1), [red, black], set by the store when it archives the
  /// match; nullopt for an unrated match.
  std::optional<std::array<rating_change, 2>> ratings;
  /// The match did not finish: an administrator closed its table (`/close`, issue 13)
  /// in the middle of it. Its last game may have no result; it is never rated.
  bool unfinished = false;
  /// With `unfinished`: the administrator who closed the table.
  std::string closed_by;
  /// True when the match was played at a private table (/option private on, and every
  /// /play bot table): only its players and the administrators may read it (HTTP with
  /// their resume token, /analysis). Kept in the record's JSON as "private".
  bool private_table = false;
  friend bool operator==(const match_record&, const match_record&) = default;
};

}  // namespace bg::server
