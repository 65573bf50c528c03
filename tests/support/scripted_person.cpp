#include "scripted_person.hpp"

#include <catch2/catch.hpp>

namespace bg::test {

using nlohmann::json;

bool is_phase(const json& st, std::initializer_list<const char*> phases) {
  for (const char* p : phases)
    if (st.value("phase", "") == p) return true;
  return false;
}

std::vector<json> events_named(const player& p, const std::string& table, const std::string& name) {
  std::vector<json> out;
  for (const auto& e : p.events())
    if (e.value("table", "") == table && e.value("event", "") == name) out.push_back(e);
  return out;
}

json scripted_person::wait_turn() {
  return me.await_state(table, [&](const json& st) {
    if (is_phase(st, {"match_over"})) return true;
    if (is_phase(st, {"game_over"})) return !st["continuing"].value(side, false);
    return st["to_act"] == side && is_phase(st, {"roll", "move", "cube_offered", "resign_offered"});
  });
}

json scripted_person::act(const json& st) {
  const std::string phase = st["phase"];
  if (phase == "roll") {
    if (st["may_double"].get<bool>() && double_when(st)) {
      ++doubles;
      return me.ok(table, "/double");
    }
    return me.ok(table, "/roll");
  }
  if (phase == "move") {
    // A seeded random play among those that hit the most (state.legal_moves).
    const auto legal = st["legal"].get<std::vector<std::string>>();
    REQUIRE_FALSE(legal.empty());
    std::vector<std::size_t> best;
    int most = -1;
    for (std::size_t i = 0; i < legal.size(); ++i) {
      int hits = 0;
      for (const auto& m : st["legal_moves"][i]) hits += m["hit"].get<bool>() ? 1 : 0;
      if (hits > most) best.clear();
      if (hits >= most) {
        most = hits;
        best.push_back(i);
      }
    }
    std::uniform_int_distribution<std::size_t> pick(0, best.size() - 1);
    return me.ok(table, "/move " + legal[best[pick(rng)]]);
  }
  if (phase == "cube_offered") return me.ok(table, take_when(st) ? "/take" : "/drop");
  if (phase == "resign_offered") return me.ok(table, "/accept");
  if (phase == "game_over") return me.ok(table, "/continue");
  FAIL("nothing to do in phase " << phase);
  return st;
}

json scripted_person::play_until(const std::function<bool(const json&)>& done, int max_steps) {
  json st = wait_turn();
  for (int i = 0; i < max_steps && !done(st) && !is_phase(st, {"match_over"}); ++i) {
    act(st);
    st = wait_turn();
  }
  return st;
}

}  // namespace bg::test
