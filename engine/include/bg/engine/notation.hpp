#pragma once
/// @file notation.hpp
/// Move notation as GNU Backgammon writes it: "24/18 13/11", "bar/22", "6/off",
/// "13/7*/1", "8/2(2)". Always in the mover's own numbering (24 -> 1, bar = 25, off = 0).

#include <string>
#include <string_view>
#include <vector>

#include "bg/engine/error.hpp"
#include "bg/engine/move_generator.hpp"
#include "bg/engine/play.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/roll.hpp"
#include "bg/engine/variant.hpp"

namespace bg::engine {

/// One written part of a play: a checker's path `points[0]/points[1]/...` (25 = bar,
/// 0 = off) with `hits[i]` true when points[i] was marked "*", repeated `repeat` times
/// ("(2)").
struct written_move {
  std::vector<int> points;
  std::vector<bool> hits;
  int repeat = 1;
  friend bool operator==(const written_move&, const written_move&) = default;
};

/// Parses notation into its written parts without judging legality. Accepts points
/// 1..24, "bar" (or 25), "off" (or 0), "*" after any point, "(n)" with n = 1..4 after
/// a part, parts separated by spaces or commas, case-insensitive. At most 4 checker
/// moves in all. Errors (code "bad_notation") say what could not be read.
[[nodiscard]] result<std::vector<written_move>> parse_notation(std::string_view text);

/// Writes `p` (a play made from `before`, mover's view) as gnubg's FormatMove does:
/// parts sorted by starting point (highest first); a checker that moves on from where
/// another part ended is written as one part, its intermediate point kept only when
/// it hit there ("13/7*/1", else "24/13"); identical parts merged as "(n)"; a part
/// ending on an opposing blot marked "*" once. An empty play gives "".
[[nodiscard]] std::string format_play(const position& before, const play& p,
                                      variant v = variant::standard);

/// Finds the legal play a player meant. `legal` must be legal_plays(before, r, v).
/// Returns the index into `legal` of the play whose result the written play reaches.
/// Errors (code "illegal_play" unless said): "bad_notation" when unreadable;
/// "no checker on 17"; "point 5 is blocked"; "you must enter from the bar first";
/// "you cannot bear off until all your checkers are home"; "no die of 6-3 moves
/// 24/20"; "both dice must be played"; "6 must be played" (R6.2); "4 moves must be
/// played" (R6.3); "only one checker may leave the head" (L3); "that would build a
/// six-point block with no opposing checker ahead of it" (L5); "no play is possible"
/// when legal is empty.
[[nodiscard]] result<int> match_play(const position& before, roll r, variant v,
                                     const play_list& legal, std::string_view text);

}  // namespace bg::engine
