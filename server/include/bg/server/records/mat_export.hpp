#pragma once
/// @file mat_export.hpp
/// A match record as a `.mat` file (the Jellyfish match format that GNU Backgammon reads
/// with `import mat FILE`, and that FIBS, XG and Snowie users know).
///
/// Conventions (checked against gnubg 1.07.001 by tests/server/store/test_mat_export.cpp):
/// - **Columns.** Red is the left column, gnubg's player 0; black is the right column,
///   player 1 — the same numbering as engine::match::id(). Each game starts with a
///   score line `red : 0   black : 2` (the score before the game).
/// - **Opening roll.** The opening roll is the first mover's first play: when red wins
///   it, line 1 starts with red's play; when black wins it, line 1's left cell is empty
///   and black's play is in the right column (as gnubg writes it). The tied throws
///   before it are not written (the format has no place for them).
/// - **Plays.** `DD: play`: the dice higher first (as gnubg writes them; gnubg's Match ID
///   also keeps the higher die first), then the play exactly as the engine wrote it
///   (gnubg notation in the mover's own numbering, e.g. `24/13`, `13/7*/1`, `8/2(2)`,
///   `bar/22`, `6/off`), which gnubg's importer parses and expands. A roll with no legal
///   play is `DD:` with nothing after it.
/// - **Cube.** ` Doubles => N` (N the new cube value), ` Takes`, ` Drops`.
/// - **Game end.** `Wins N point(s)` in the winner's column after every finished game.
///   gnubg ignores that line after a bear-off or a drop (it scores those itself), and
///   reads it as an accepted resignation when the game is still going: it resigns a
///   single game if N <= cube, a gammon if N <= 2 x cube, else a backgammon. So an
///   accepted resignation and a forfeit (scored as a backgammon) are written as that
///   line alone. Resignation offers that were rejected leave no trace (the format has
///   none).
/// - **Points match.** ` N point match`. gnubg derives the Crawford game from the scores
///   (the game after one player first reaches N - 1), which is R15.
/// - **Basis session** (R16, no target): ` 0 point match`, gnubg's unlimited (money)
///   session. The score lines carry the running session score. gnubg's Jacoby rule must
///   be off for gnubg to score gammons with a centred cube as gammond does
///   (`set jacoby off`; gnubg ignores a `[Jacoby]` header).
/// - **Free play** (R12): a one-game ` 0 point match` with `; [CubeLimit "1"]` (no cube).
///   It cannot be fully represented: gammond scores the loser's pip count, gnubg scores
///   1, 2 or 3 points (single, gammon, backgammon). The `Wins` line carries gnubg's
///   value (the win kind's multiplier) so that a resignation imports as the right kind;
///   the pip-count score is kept in a header comment, `; [Comment "free play: red
///   scores 57 pips"]`, which gnubg keeps as the match comment.
/// - **Games that end before a play.** gnubg reads `Wins` as a resignation only once
///   the game has started, so a game resigned or forfeited right after the opening roll
///   shows that roll unplayed (`61:` in the first mover's column, from
///   game_record::opening) before its `Wins` line. A game forfeited before its opening
///   roll cannot be represented (nothing to start it) and is left out; the next game's
///   score line still carries its points. `Game k` lines number the games written
///   (gnubg refuses a match whose first game is not "Game 1").
/// - **Unfinished games** are written as far as they went, with no `Wins` line; a game
///   with nothing in it yet (the next game of a match in progress) is left out.
/// - **Header.** `; [Site "gammond"]`, `; [Player 1 "red name"]`, `; [Player 2 "black
///   name"]`, `; [EventDate "YYYY.MM.DD"]`, `; [EventTime "HH.MM"]` from started_at (UTC),
///   `; [Variation "Backgammon"]`, `; [Crawford "On"]` for points matches,
///   `; [Event "table NAME"]`. A match with verifiable dice (S4) adds `; [Comment "dice
///   seed HEX, SHA-256 commitment HEX"]` (gnubg imports the file as before).
/// - **Names.** gnubg splits the score line at ':', cuts a name at a ',' followed by a
///   number (GridGammon ratings) and keeps at most 31 characters, so ':', ',', '"' and
///   control characters in names become '_', names are cut to 31 characters, and an
///   empty name becomes "red" or "black".
/// - **Long Nardy** has no .mat form (gnubg knows only standard backgammon and its
///   nack/hyper variations): to_mat() refuses it (see can_export_mat()).

#include <stdexcept>
#include <string>

#include "bg/engine/match.hpp"
#include "bg/server/records/match_record.hpp"

namespace bg::server {

/// True when matches with these options can be written as .mat (standard variant).
[[nodiscard]] constexpr bool can_export_mat(const engine::match_options& options) noexcept {
  return options.game_variant == engine::variant::standard;
}

/// The .mat text of `record` (lines end with '\n'). Throws std::invalid_argument when
/// !can_export_mat(record.options).
[[nodiscard]] std::string to_mat(const match_record& record);

}  // namespace bg::server
