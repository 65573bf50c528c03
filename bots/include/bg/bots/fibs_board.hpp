#pragma once
/// @file fibs_board.hpp
/// The FIBS `board:` line that GNU Backgammon's `external` interface reads, written
/// for a bot's situation (FIBS client protocol, "board state"; gnubg 1.07's
/// ProcessFIBSBoardInfo and ExtFIBSBoard in external.c).

#include <string>

#include "bg/bots/situation.hpp"

namespace bg::bots {

/// The `board:` line for `s` (standard backgammon only), without the session options
/// gnubg reads after it and without "\n".
///
/// Layout (53 fields, ':'-separated): "board", the bot's name ("gnubg"), the
/// opponent's ("opponent"), match length (9999 = unlimited: a money game, for free
/// play and basis sessions), the bot's score, the opponent's score, 26 board fields,
/// turn, the bot's two dice, the opponent's two dice, cube value, the bot may double,
/// the opponent may double, was doubled, colour, direction, home, bar, the bot's and
/// the opponent's checkers borne off, the bot's and the opponent's checkers on the
/// bar, can move, forced move, did Crawford, redoubles.
///
/// The bot is always "You", colour 1 (positive counts) moving from 25 to 0: board
/// field 0 is the opponent's bar (negative), fields 1..24 the bot's own points 1..24
/// (the bot's checkers positive, the opponent's negative: the opponent's own point p
/// is field 25 - p), field 25 the bot's bar.
///
/// gnubg quirks this encodes (found by experiment with gnubg 1.07.001):
///  - turn 1 asks the bot's play or double; turn -1 with "was doubled" 1 asks the
///    bot's take (gnubg answers for the side the turn names: a take asked with turn 1
///    is answered from the doubler's side); for accept_or_reject the turn is the side
///    on roll, whose view `evaluation fibsboard` answers from;
///  - both "may double" fields 0 means "a double was offered" to gnubg, so they are
///    never both 0: a centred cube (and the Crawford game, as FIBS does) is 1:1, the
///    owner alone has 1;
///  - the Crawford game is recognised from the score (a side 1 away) with both
///    "did Crawford" and "redoubles" 0; after it, "did Crawford" is 1;
///  - checkers borne off are counted by gnubg from the board (15 minus the rest), not
///    read from the "borne off" fields, which are written all the same.
std::string fibs_board(const situation& s);

}  // namespace bg::bots
