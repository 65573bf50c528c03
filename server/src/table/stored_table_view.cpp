#include "bg/server/table/stored_table_view.hpp"

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "bg/engine/game.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/position_id.hpp"
#include "bg/server/dice/derived_dice.hpp"
#include "bg/server/records/match_record.hpp"
#include "bg/server/records/record_json.hpp"
#include "bg/server/table/table.hpp"

namespace bg::server {

using nlohmann::json;

namespace {

/// The position the record journal's last game reaches when its plays are made again
/// one by one through the engine from the variant's starting position (opening dice,
/// then each recorded roll and play, R2-R6), seen from the side on turn as gnubg's
/// Position ID. Cube and resignation actions do not move checkers and are skipped.
/// nullopt with `why` when the journal holds no game with an opening yet, or a
/// recorded play is refused by the engine (the journal contradicts the rules). `counts`
/// gets the last game's `game` number, its `rolls` (dice roll records of that game),
/// `rolls_contiguous` (their k are 0, 1, 2, ... in journal order) and `plays`.
std::optional<std::string> replay_last_game(const std::vector<json>& journal, engine::variant v,
                                            std::string& why, json& counts) {
  std::optional<game_record> last;
  std::vector<dice_roll_record> rolls;
  try {
    for (const auto& entry : journal) {
      const auto op = entry.at("op").get<std::string>();
      if (op == "begin") {
        const auto& record = entry.at("record");
        const auto& games = record.value("games", json::array());
        last.reset();
        rolls.clear();
        if (!games.empty()) last = games.back().get<game_record>();
        if (record.contains("dice") && record["dice"].contains("rolls"))
          rolls = record["dice"]["rolls"].get<std::vector<dice_roll_record>>();
      } else if (op == "game") {
        last = entry.at("game").get<game_record>();
      } else if (op == "opening" && last) {
        last->first = entry.at("first").get<engine::side>();
        last->opening = entry.at("dice").get<engine::roll>();
      } else if (op == "action" && last) {
        last->actions.push_back(entry.at("action").get<record_action>());
      } else if (op == "roll") {
        rolls.push_back(entry.at("roll").get<dice_roll_record>());
      }
    }
  } catch (const std::exception& e) {
    why = std::string("a journal entry does not fit: ") + e.what();
    return std::nullopt;
  }
  if (last) {
    // S4: the last game's rolls are numbered k = 0, 1, 2, ... in the order rolled; a
    // lost or doubled journal row shows as a gap or a repeat.
    std::uint32_t next = 0;
    bool contiguous = true;
    for (const auto& r : rolls) {
      if (r.game != last->number) continue;
      contiguous = contiguous && r.k == next;
      ++next;
    }
    int plays = 0;
    for (const auto& a : last->actions) plays += a.what == record_action::kind::play ? 1 : 0;
    counts = {{"game", last->number},
              {"rolls", next},
              {"rolls_contiguous", contiguous},
              {"plays", plays}};
  }
  if (!last || last->opening == engine::roll{}) {
    why = "no game with an opening roll in the journal";
    return std::nullopt;
  }
  auto g = engine::game::restore(v, engine::game_phase::move, last->first, last->opening,
                                 engine::position::starting(v), 0, std::nullopt);
  if (!g) {
    why = g.err().message;
    return std::nullopt;
  }
  for (const auto& a : last->actions) {
    if (a.what != record_action::kind::play && a.what != record_action::kind::pass) continue;
    if (g->phase() == engine::game_phase::roll) {
      engine::scripted_dice dice({a.dice.die1, a.dice.die2});
      if (auto r = g->roll_dice(a.who, dice); !r) {
        why = "a recorded roll is refused: " + r.err().message;
        return std::nullopt;
      }
    }
    if (a.what == record_action::kind::play) {
      if (auto r = g->make_play(a.who, a.play); !r) {
        why = "the recorded play " + a.play + " is refused: " + r.err().message;
        return std::nullopt;
      }
    }
  }
  return engine::position_id(g->current());
}

}  // namespace

json view_stored_table(const saved_table& saved) {
  json out = {{"table", saved.name}, {"ok", false}};
  const json snapshot = json::parse(saved.snapshot, nullptr, false);
  if (snapshot.is_discarded()) {
    out["error"] = "the saved state is not JSON";
    return out;
  }
  std::vector<json> journal;
  journal.reserve(saved.record_journal.size());
  for (const auto& entry : saved.record_journal) {
    journal.push_back(json::parse(entry, nullptr, false));
    if (journal.back().is_discarded()) {
      out["error"] = "journal entry " + std::to_string(journal.size()) + " is not JSON";
      return out;
    }
  }
  // The hooks a restart gives, minus what only a running server needs: no new match is
  // started here, so the seed hook is never asked (it must exist: derived dice).
  table_hooks hooks;
  hooks.match_seed = [](const std::string&, std::uint64_t) { return derived_dice::seed_bytes{}; };
  auto restored = table::restore(snapshot, std::move(hooks), journal);
  if (!restored) {
    out["error"] = restored.err().message;
    return out;
  }
  const json state = (*restored)->state();
  out["ok"] = true;
  for (const char* key : {"seq", "position_id", "match_id", "phase", "dice", "board", "game_number",
                          "players", "dice_commitment"})
    out[key] = state.value(key, json());
  out["journal_entries"] = journal.size();
  // The journal on its own, through the engine: the last game's plays made again from
  // the starting position must reach the position the snapshot holds (in phases roll
  // and move, where the position is seen from the side on turn).
  const std::string phase = out.value("phase", "");
  if ((phase == "roll" || phase == "move") && (*restored)->current_match()) {
    std::string why;
    json counts;
    const auto replayed = replay_last_game(
        journal, (*restored)->current_match()->options().game_variant, why, counts);
    out["journal_game"] = counts;
    out["journal_position_id"] = replayed ? json(*replayed) : json(nullptr);
    out["journal_agrees"] = replayed && *replayed == out.value("position_id", "");
    if (!replayed) out["journal_problem"] = why;
  }
  return out;
}

}  // namespace bg::server
