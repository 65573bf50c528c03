// Scripted tournament players (tournament_play.hpp).
#include "tournament_play.hpp"

#include <catch2/catch.hpp>

namespace bg::test {

using nlohmann::json;

field register_field(std::uint16_t port, int n, const std::string& tournament) {
  field out;
  for (int i = 1; i <= n; ++i) {
    const std::string name = (i < 10 ? "p0" : "p") + std::to_string(i);
    out[name] = std::make_unique<player>(port, name);
    const auto ok = out[name]->ok("", "/register " + tournament);
    CHECK(ok["topic"] == "tournament");
  }
  return out;
}

json seen_or_await(player& p, const std::function<bool(const json&)>& wanted,
                   std::chrono::milliseconds timeout) {
  for (const auto& m : p.received())
    if (wanted(m)) return m;
  return p.await(wanted, timeout);
}

json pairing_of(player& p, int round, std::chrono::milliseconds timeout) {
  return seen_or_await(
      p,
      [round](const json& m) {
        return m["type"] == "tournament_pairing" && m.value("round", 0) == round;
      },
      timeout);
}

json tournament_until(player& p, const std::function<bool(const json&)>& wanted,
                      std::chrono::milliseconds timeout) {
  return seen_or_await(
      p, [&](const json& m) { return m["type"] == "tournament" && wanted(m["tournament"]); },
      timeout)["tournament"];
}

std::string resign_out(player& red, player& black, const std::string& table) {
  for (player* p : {&red, &black}) p->send_message({{"type", "enter"}, {"table", table}});
  red.await_state(table, [](const json& s) { return s["phase"] == "opening"; });
  black.await_state(table, [](const json& s) { return s["phase"] == "opening"; });
  red.ok(table, "/roll");
  const auto st = red.ok(table, "/board");
  const bool red_resigns = st["turn"] == "red";
  player& resigner = red_resigns ? red : black;
  player& other = red_resigns ? black : red;
  resigner.ok(table, "/resign");
  other.ok(table, "/accept");
  // The match_over event may have come with the answer to /accept already.
  json over;
  for (auto it = red.events().rbegin(); it != red.events().rend() && over.is_null(); ++it)
    if (it->value("event", "") == "match_over" && it->value("table", "") == table) over = *it;
  if (over.is_null()) over = red.await_event(table, "match_over");
  CHECK(over.value("event", "") == "match_over");
  return st["players"][red_resigns ? "black" : "red"];
}

round_pairings round_tables(field& players, int round, const std::set<std::string>& only) {
  round_pairings out;
  for (auto& [name, p] : players) {
    if (!p || (!only.empty() && only.count(name) == 0)) continue;
    const auto m = pairing_of(*p, round);
    if (m.value("bye", false)) continue;  // a win without a match
    const std::string t = m["table"];
    auto& e = out[t];
    (m["side"] == "red" ? e.first : e.second) = name;
    (m["side"] == "red" ? e.second : e.first) = m["opponent"];
  }
  return out;
}

std::map<std::string, std::string> play_round(field& players, const round_pairings& tables) {
  std::map<std::string, std::string> winners;
  // Everyone present comes to the table first: an absent player forfeits after the grace
  // period (S3), and so would one who came late.
  for (const auto& [t, pair] : tables)
    for (const auto& n : {pair.first, pair.second})
      if (auto& p = players[n]) p->send_message({{"type", "enter"}, {"table", t}});
  for (const auto& [t, pair] : tables) {
    auto& red = players[pair.first];
    auto& black = players[pair.second];
    if (red && black) winners[t] = resign_out(*red, *black, t);
  }
  return winners;
}

std::map<std::string, std::pair<int, int>> swiss_by_hand(const json& view) {
  std::map<std::string, int> wins;
  for (const auto& name : view["entrants"]) wins[name["name"]] = 0;
  for (const auto& round : view["rounds"])
    for (const auto& p : round)
      if (p["winner"].is_string()) ++wins[p["winner"].get<std::string>()];
  std::map<std::string, std::pair<int, int>> out;
  for (const auto& [name, w] : wins) out[name] = {w, 0};
  for (const auto& round : view["rounds"])
    for (const auto& p : round) {
      if (!p["black"].is_string()) continue;
      out[p["red"]].second += wins[p["black"]];
      out[p["black"]].second += wins[p["red"]];
    }
  return out;
}

int check_swiss_standings(const json& view) {
  const auto by_hand = swiss_by_hand(view);
  int total = 0;
  for (const auto& s : view["standings"]) {
    CHECK(s["wins"] == by_hand.at(s["name"]).first);
    CHECK(s["buchholz"] == by_hand.at(s["name"]).second);
    total += s["wins"].get<int>();
  }
  return total;
}

}  // namespace bg::test
