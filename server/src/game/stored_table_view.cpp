#include "bg/server/game/stored_table_view.hpp"

#include <string>
#include <vector>

#include "bg/server/game/derived_dice.hpp"
#include "bg/server/game/table.hpp"

namespace bg::server {

using nlohmann::json;

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
  return out;
}

}  // namespace bg::server
