#pragma once
/// @file stored_table_view.hpp
/// A saved table rebuilt exactly as a restart (or a cluster node's takeover) rebuilds
/// it: table::restore() on its snapshot and its record journal, and what its players
/// would see then. `gammond tables --db DB` prints one per table; scripts/cluster-test
/// compares it with the last position the players were shown (issue 16, Proof).

#include <nlohmann/json.hpp>

#include "bg/server/store/store.hpp"

namespace bg::server {

/// The table `saved` (store::load_tables()) rebuilt through the engine as gammond's
/// restart does (table::restore with the snapshot and every journal entry in order),
/// as JSON: `table`, `ok` true, `seq` (the state sequence number of the last written
/// change), `position_id` and `match_id` (gnubg's, as in the `state` message:
/// the position seen from the side on turn), `phase`, `dice`, `board` (R1 numbering,
/// as in `state`), `game_number`, `players` {red, black}, `dice_commitment` (the match's,
/// as in `state`), `journal_entries` (how many
/// journal entries were replayed); in phases roll and move also `journal_position_id`
/// (the position the journal's last game reaches when its recorded rolls and plays are
/// made again through the engine from the starting position, or null), `journal_game`
/// ({game, rolls, rolls_contiguous, plays}: that game's roll records, whether their
/// counters k run 0, 1, 2, ... without a gap or a repeat, and its plays), `journal_agrees`
/// (it equals `position_id`) and, when it could not be replayed, `journal_problem` (a
/// sentence). When it cannot be rebuilt (the snapshot or a
/// journal entry is not JSON, or table::restore refuses it: error bad_snapshot):
/// `table`, `ok` false and `error` (a sentence). Never throws for bad stored data.
[[nodiscard]] nlohmann::json view_stored_table(const saved_table& saved);

}  // namespace bg::server
