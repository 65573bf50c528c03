#include "bg/server/game/stored_table_view.hpp"

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "bg/engine/game.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/position_id.hpp"
#include "bg/server/game/derived_dice.hpp"
#include "bg/server/game/table.hpp"
#include "bg/server/store/match_record.hpp"
#include "bg/server/store/record_json.hpp"

namespace bg::server {

using nlohmann::json;

namespace {

/// The position the record journal's last game reaches when its plays are made again
/// one by one through the engine from the variant's starting position (opening dice,
/// then each recorded roll and play, R2-R6), seen from the side on turn as gnubg's
/// Position ID. Cube and resignation actions do not move checkers and are skipped.
/// nullopt with `why` when the journal holds no game with an opening yet, or a
/// recorded play is refused by the engine (the journal contradicts the rules).
std::optional<std::string> replay_last_game(const std::vector<json>& journal, engine::variant v,
                                            std::string& why) {
  std::optional<game_record> last;
  try {
    for (const auto& entry : journal) {
      const auto op = entry.at("op").get<std::string>();
      if (op == "begin") {
        const auto& games = entry.at("record").value("games", json::array());
        last.reset();
        if (!games.empty()) last = games.back().get<game_record>();
      } else if (op == "game") {
        last = entry.at("game").get<game_record>();
      } else if (op == "opening" && last) {
        last->first = entry.at("first").get<engine::side>();
        last->opening = entry.at("dice").get<engine::roll>();
      } else if (op == "action" && last) {
        last->actions.push_back(entry.at("action").get<record_action>());
      }
    }
  } catch (const std::exception& e) {
    why = std::string("a journal entry does not fit: ") + e.what();
    return std::nullopt;
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
  for (const char* key :
       {"seq", "position_id", "match_id", "phase", "dice", "board", "game_number", "players"})
    out[key] = state.value(key, json());
  out["journal_entries"] = journal.size();
  // The journal on its own, through the engine: the last game's plays made again from
  // the starting position must reach the position the snapshot holds (in phases roll
  // and move, where the position is seen from the side on turn).
  const std::string phase = out.value("phase", "");
  if ((phase == "roll" || phase == "move") && (*restored)->current_match()) {
    std::string why;
    const auto replayed =
        replay_last_game(journal, (*restored)->current_match()->options().game_variant, why);
    out["journal_position_id"] = replayed ? json(*replayed) : json(nullptr);
    out["journal_agrees"] = replayed && *replayed == out.value("position_id", "");
    if (!replayed) out["journal_problem"] = why;
  }
  return out;
}

}  // namespace bg::server
