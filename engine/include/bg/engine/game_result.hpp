#pragma once
/// @file game_result.hpp
/// How a game ended (R11, R14.2, R18, L7).

#include <string_view>

#include "bg/engine/side.hpp"

namespace bg::engine {

/// The size of a win: single game (x1), gammon (x2), backgammon (x3) (R11). In long
/// nardy a single game is "oyn" (1) and a gammon is "mars" (2) (L7).
enum class win_kind : unsigned char { single = 1, gammon = 2, backgammon = 3 };

/// How the game ended.
enum class end_reason : unsigned char {
  borne_off,  ///< the winner bore off all 15 checkers (R11)
  dropped,    ///< the loser dropped a double (R14.2)
  resigned,   ///< the loser's resignation was accepted (R18)
  forfeit,    ///< the loser was absent past the grace period, or idle and claimed (S3)
  time,       ///< the loser's time bank ran out (S2): scored and ended as a forfeit
};

/// True for the reasons that end a game by abandonment (S2, S3): a forfeit or a loss on
/// time. Such a game ends a points match (awarded to the opponent) and a basis session.
constexpr bool is_forfeit(end_reason r) noexcept {
  return r == end_reason::forfeit || r == end_reason::time;
}

/// The multiplier of a kind: 1, 2 or 3.
constexpr int multiplier(win_kind k) noexcept {
  return static_cast<int>(k);
}

/// "single", "gammon", "backgammon".
constexpr std::string_view to_string(win_kind k) noexcept {
  switch (k) {
    case win_kind::single:
      return "single";
    case win_kind::gammon:
      return "gammon";
    case win_kind::backgammon:
      return "backgammon";
  }
  return "single";
}

/// "borne_off", "dropped", "resigned", "forfeit", "time".
constexpr std::string_view to_string(end_reason r) noexcept {
  switch (r) {
    case end_reason::borne_off:
      return "borne_off";
    case end_reason::dropped:
      return "dropped";
    case end_reason::resigned:
      return "resigned";
    case end_reason::forfeit:
      return "forfeit";
    case end_reason::time:
      return "time";
  }
  return "borne_off";
}

/// A finished game: who won, how, and the points it scored in its match (cube value x
/// multiplier, or the loser's pip count in free play, R12).
struct game_result {
  side winner = side::red;
  win_kind kind = win_kind::single;
  end_reason reason = end_reason::borne_off;
  int points = 0;
  friend constexpr bool operator==(const game_result&, const game_result&) = default;
};

}  // namespace bg::engine
