#include "bg/server/api/analysis_view.hpp"

#include <cmath>
#include <cstdio>

#include "bg/engine/variant.hpp"
#include "bg/server/records/performance_rating.hpp"

namespace bg::server {

using nlohmann::json;

namespace {

constexpr std::size_t max_errors_in_data = 50;
constexpr std::size_t max_errors_in_text = 20;

std::string fixed(double value, int decimals, bool sign = false) {
  char buf[32];
  std::snprintf(buf, sizeof buf, sign ? "%+.*f" : "%.*f", decimals, value);
  return buf;
}

double number(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

int count(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
}

std::string plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// "alice (red): error rate 55.1 (Snowie 28.9), Awful!; checker play 0 errors, 1
/// blunder; cube 0 errors, 1 blunder; luck -0.575".
std::string player_line(const json& p, const char* side) {
  const json& checker = p.value("checker", json::object());
  const json& cube = p.value("cube", json::object());
  const json& luck = p.value("luck", json::object());
  std::string line = p.value("name", std::string(side)) + " (" + side + "): error rate " +
                     fixed(number(p, "error_rate"), 1) + " (Snowie " +
                     fixed(number(p, "snowie_error_rate"), 1) + ")";
  if (p.contains("rating") && p["rating"].is_string())
    line += ", " + p["rating"].get<std::string>();
  line += "; checker play " + plural(count(checker, "errors"), "error", "errors") + ", " +
          plural(count(checker, "blunders"), "blunder", "blunders");
  line += "; cube " + plural(count(cube, "errors"), "error", "errors") + ", " +
          plural(count(cube, "blunders"), "blunder", "blunders");
  line += "; luck " + fixed(number(luck, "total"), 3, true);
  if (p.contains("pr") && p["pr"].is_number())
    line += "; PR " + fixed(number(p, "pr"), 2) + " (" + p.value("pr_band", std::string()) + ")";
  return line;
}

/// S7: gives each player of an analysis `result` its `pr` (2 decimals) and `pr_band`,
/// both null when gnubg counted no decision of theirs. Computed when served, so that
/// analyses stored before the PR existed have it too.
void add_performance_ratings(json& result) {
  const auto players = result.find("players");
  if (players == result.end() || !players->is_object()) return;
  for (auto& [side, p] : players->items()) {
    if (!p.is_object()) continue;
    const auto shown = shown_pr(pr_sums_of(p));
    p["pr"] = shown ? json(*shown) : json(nullptr);
    p["pr_band"] = shown ? json(pr_band(*shown)) : json(nullptr);
  }
}

/// "game 2, alice 42: 24/22 5/1 (best 13/11 13/9), -0.225, a blunder".
std::string error_line(const json& d, const json& players) {
  const std::string side = d.value("side", std::string("red"));
  const std::string who = players.contains(side) ? players[side].value("name", side) : side;
  std::string line = "game " + std::to_string(d.value("game", 0)) + ", " + who;
  if (d.contains("dice") && d["dice"].is_array() && d["dice"].size() == 2)
    line += " " + std::to_string(d["dice"][0].get<int>()) + std::to_string(d["dice"][1].get<int>());
  line += ": " + d.value("played", std::string("?"));
  if (d.contains("best") && d["best"].is_string())
    line += " (best " + d["best"].get<std::string>() + ")";
  line += ", " + fixed(-number(d, "equity_lost"), 3);
  line += d.value("skill", std::string()) == "very bad" ? ", a blunder" : ", an error";
  return line;
}

std::string length_text(const match_record& m) {
  switch (m.options.kind) {
    case engine::match_kind::points:
      return "a " + std::to_string(m.options.length) + "-point match";
    case engine::match_kind::basis:
      return "a basis session";
    case engine::match_kind::free_play:
      return "a free game";
  }
  return "a match";
}

/// The errors and blunders of `decisions` (gnubg's "bad" and "very bad"): the first
/// max_errors_in_data in `data` (without their boards), the first max_errors_in_text as
/// lines of text, and how many there are in all.
struct error_list {
  json data = json::array();
  std::string lines;
  std::size_t listed = 0;
  std::size_t total = 0;
};

error_list errors_of(const json& decisions, const json& players) {
  error_list out;
  for (const auto& d : decisions) {
    const auto skill = d.value("skill", json(nullptr));
    if (skill != "bad" && skill != "very bad") continue;
    ++out.total;
    if (out.data.size() < max_errors_in_data) {
      json e = d;
      e.erase("board_before");
      e.erase("board_after");
      out.data.push_back(std::move(e));
    }
    if (out.listed < max_errors_in_text) {
      out.lines += "\n  " + error_line(d, players);
      ++out.listed;
    }
  }
  return out;
}

/// A done analysis (`analysis`, of match `id`, described in words as `about`) into `v`:
/// the API's whole result after `head`, `/analysis`'s data (players with their PR, the
/// errors, the page's url) and its text.
void fill_done(analysis_view& v, json head, const std::string& about,
               const analysis_record& analysis, std::int64_t id) {
  json result = json::parse(analysis.result);
  add_performance_ratings(result);
  head["status"] = "done";
  head["level"] = analysis.level;
  head["analysed_at"] = analysis.finished_at;
  const std::string url = "/#analysis/" + std::to_string(id);
  v.data = head;
  v.data["players"] = result.value("players", json::object());
  v.data["url"] = url;
  auto errors = errors_of(result.value("decisions", json::array()), v.data["players"]);
  v.data["errors"] = std::move(errors.data);
  v.text = "GNU Backgammon's analysis of " + about + ", level " + analysis.level + ":";
  for (const char* side : {"red", "black"})
    if (v.data["players"].contains(side))
      v.text += "\n" + player_line(v.data["players"][side], side);
  if (errors.total == 0) {
    v.text += "\nNo errors or blunders.";
  } else {
    v.text += "\nErrors and blunders (equity lost):" + errors.lines;
    if (errors.total > errors.listed)
      v.text += "\n  ... and " + std::to_string(errors.total - errors.listed) + " more";
  }
  v.text += "\nEvery decision, with the board: " + url;
  v.api = std::move(head);
  for (auto& [key, value] : result.items()) v.api[key] = std::move(value);
}

}  // namespace

json match_summary_json(const match_record& m) {
  return json{{"table", m.table},
              {"players", {{"red", m.players[0]}, {"black", m.players[1]}}},
              {"variant", engine::to_string(m.options.game_variant)},
              {"length", m.options.kind == engine::match_kind::points ? m.options.length : 0},
              {"score", {{"red", m.final_score[0]}, {"black", m.final_score[1]}}},
              {"started_at", m.started_at},
              {"ended_at", m.ended_at}};
}

json unknown_match_json(std::int64_t id) {
  return json{{"error", "unknown_match"}, {"message", "there is no match " + std::to_string(id)}};
}

analysis_view view_analysis(std::int64_t id, const std::optional<match_record>& match,
                            const std::optional<analysis_record>& analysis, bool analysing) {
  analysis_view v;
  const std::string name = "match " + std::to_string(id);
  if (!match) {
    v.api = unknown_match_json(id);
    v.text = "there is no " + name;
    return v;
  }
  v.found = true;
  const std::string about = name + " (" + length_text(*match) + ", " + match->players[0] + " vs " +
                            match->players[1] + ")";
  json head{{"match_id", id}, {"match", match_summary_json(*match)}};
  const auto unavailable = [&](const std::string& reason) {
    head["status"] = "unavailable";
    head["reason"] = reason;
    v.api = head;
    v.data = head;
    v.text = "there is no analysis of " + about + ": " + reason;
  };
  if (match->options.game_variant != engine::variant::standard) {
    unavailable(
        "GNU Backgammon knows no long backgammon (Long Nardy), so long matches are not "
        "analysed");
    return v;
  }
  if (!analysis) {
    unavailable("it was not analysed (it finished while this server did not analyse matches)");
    return v;
  }
  head["queued_at"] = analysis->queued_at;
  switch (analysis->status) {
    case analysis_status::pending:
      if (!analysing) {
        unavailable(
            "this server does not analyse matches now (no GNU Backgammon, or "
            "--analysis-workers 0); it will when it does");
        return v;
      }
      head["status"] = "pending";
      v.api = head;
      v.data = head;
      v.text = "the analysis of " + about + " is not ready yet: GNU Backgammon is on it";
      return v;
    case analysis_status::failed:
      head["status"] = "failed";
      head["reason"] = analysis->reason;
      head["analysed_at"] = analysis->finished_at;
      v.api = head;
      v.data = head;
      v.text = "the analysis of " + about + " failed: " + analysis->reason;
      return v;
    case analysis_status::done:
      break;
  }
  fill_done(v, std::move(head), about, *analysis, id);
  return v;
}

}  // namespace bg::server
