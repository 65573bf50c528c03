#include "bg/bots/gnubg_analysis.hpp"

#include <cmath>
#include <stdexcept>

#include "analyse_match_script.hpp"
#include "bg/engine/board.hpp"
#include "bg/engine/move_generator.hpp"
#include "bg/engine/notation.hpp"
#include "bg/engine/position_id.hpp"
#include "bg/engine/side.hpp"

namespace bg::bots {

using nlohmann::json;

namespace {

/// `value` rounded to 5 decimals (gnubg prints 3); null stays null.
json rounded(const json& value) {
  if (!value.is_number()) return nullptr;
  return std::round(value.get<double>() * 100000.0) / 100000.0;
}

/// The protocol's `board` object for `p`, whose mover is `mover`.
json board_json(const engine::position& p, engine::side mover) {
  const auto b = engine::to_board(p, mover, engine::variant::standard);
  return json{{"points", b.points},
              {"bar", {{"red", b.bar[0]}, {"black", b.bar[1]}}},
              {"off", {{"red", b.off[0]}, {"black", b.off[1]}}}};
}

const json& field(const json& object, const char* name, const std::string& where) {
  const auto it = object.find(name);
  if (it == object.end()) throw std::invalid_argument(where + " has no \"" + name + "\"");
  return *it;
}

/// One player's summary: the script's, with every equity rounded.
json player_json(const json& p, const std::string& name) {
  if (!p.is_object()) throw std::invalid_argument("a player's summary is not an object");
  json out = json::object();
  out["name"] = name;
  for (const auto& [key, value] : p.items()) {
    if (value.is_object()) {
      json inner = json::object();
      for (const auto& [k, v] : value.items()) inner[k] = v.is_number_float() ? rounded(v) : v;
      out[key] = std::move(inner);
    } else {
      out[key] = value.is_number_float() ? rounded(value) : value;
    }
  }
  return out;
}

}  // namespace

std::string_view gnubg_analysis_script() noexcept {
  return detail::analyse_match_py;
}

json to_gammond_analysis(const json& gnubg, const std::array<std::string, 2>& players) {
  if (!gnubg.is_object()) throw std::invalid_argument("gnubg's answer is not an object");
  const auto& ps = field(gnubg, "players", "gnubg's answer");
  if (!ps.is_array() || ps.size() != 2)
    throw std::invalid_argument("gnubg's answer does not have two players");
  json out;
  out["games"] = gnubg.value("games", 0);
  out["match_length"] = gnubg.value("match_length", 0);
  out["players"] = {{"red", player_json(ps[0], players[0])},
                    {"black", player_json(ps[1], players[1])}};
  json decisions = json::array();
  const auto& in = field(gnubg, "decisions", "gnubg's answer");
  if (!in.is_array()) throw std::invalid_argument("gnubg's decisions are not a list");
  int n = 0;
  for (const auto& d : in) {
    const std::string where = "decision " + std::to_string(n + 1);
    const int player = field(d, "player", where).get<int>();
    if (player != 0 && player != 1) throw std::invalid_argument(where + ": player not 0 or 1");
    const auto mover = player == 0 ? engine::side::red : engine::side::black;
    const std::string kind = field(d, "kind", where).get<std::string>();
    const std::string pid = field(d, "position_id", where).get<std::string>();
    auto before = engine::position_from_id(pid);
    if (!before) throw std::invalid_argument(where + ": " + before.err().message);
    json e;
    e["n"] = ++n;
    e["game"] = field(d, "game", where);
    e["side"] = engine::to_string(mover);
    e["kind"] = kind;
    e["position_id"] = pid;
    e["match_id"] = d.value("match_id", "");
    e["played"] = d.value("played", json(nullptr));
    e["best"] = d.value("best", json(nullptr));
    e["equity"] = rounded(d.value("equity", json(nullptr)));
    e["equity_lost"] = rounded(d.value("equity_lost", json(nullptr)));
    e["skill"] = d.value("skill", json(nullptr));
    e["red_equity"] = e["equity"].is_number() ? json(player == 0 ? e["equity"].get<double>()
                                                                 : -e["equity"].get<double>())
                                              : json(nullptr);
    e["board_before"] = board_json(*before, mover);
    if (kind == "move") {
      const auto& dice = field(d, "dice", where);
      if (!dice.is_array() || dice.size() != 2)
        throw std::invalid_argument(where + ": no dice for a play");
      const engine::roll r{dice[0].get<int>(), dice[1].get<int>()};
      if (!r.valid()) throw std::invalid_argument(where + ": dice out of range");
      e["dice"] = dice;
      const auto legal = engine::legal_plays(*before, r, engine::variant::standard);
      const auto index = engine::match_play(
          *before, r, engine::variant::standard, legal,
          e["played"].is_string() ? e["played"].get<std::string>() : std::string());
      if (!index)
        throw std::invalid_argument(where + ": the play " + e["played"].dump() +
                                    " is not legal here: " + index.err().message);
      e["board_after"] = board_json(legal[static_cast<std::size_t>(*index)].result, mover);
    }
    decisions.push_back(std::move(e));
  }
  out["decisions"] = std::move(decisions);
  return out;
}

}  // namespace bg::bots
