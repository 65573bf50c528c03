#include "bg/server/api/analysis_view.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "bg/engine/variant.hpp"
#include "bg/i18n/catalogue.hpp"
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

/// The machine code of gnubg's rating word `word` ("Awful!" → "awful", "World class" →
/// "world_class"): what catalogue message analysis.rating selects on.
std::string rating_code(const std::string& word) {
  std::string code;
  for (const char ch : word) {
    if (ch == ' ')
      code += '_';
    else if (std::isalpha(static_cast<unsigned char>(ch)))
      code += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return code;
}

/// The machine code of PR band `band` ("world class" → "world_class"; "" when it is
/// not a text): what catalogue message analysis.pr_band selects on.
std::string band_code(const json& band) {
  if (!band.is_string()) return "";
  std::string code = band.get<std::string>();
  for (auto& ch : code)
    if (ch == ' ') ch = '_';
  return code;
}

/// Gives `part` (a player of an analysis, or its checker or cube part) `rating_code`
/// beside gnubg's `rating` word, and `rating_say` (catalogue message analysis.rating),
/// so that a client may say it in its language.
void add_rating_code(json& part) {
  if (!part.is_object()) return;
  const auto it = part.find("rating");
  if (it == part.end() || !it->is_string()) return;
  std::string code = rating_code(it->get<std::string>());
  part["rating_say"] = i18n::say("analysis.rating", {{"rating", code}});
  part["rating_code"] = std::move(code);
}

/// "alice (red): error rate 55.1 (Snowie 28.9), Awful!; checker play 0 errors, 1
/// blunder; cube 0 errors, 1 blunder; luck -0.575", in language `lang`.
std::string player_line(const json& p, const char* side, std::string_view lang) {
  const json& checker = p.value("checker", json::object());
  const json& cube = p.value("cube", json::object());
  const json& luck = p.value("luck", json::object());
  const bool rated = p.contains("rating") && p["rating"].is_string();
  const bool has_pr = p.contains("pr") && p["pr"].is_number();
  json args{
      {"name", p.value("name", std::string(side))},
      {"side", side},
      {"rate", fixed(number(p, "error_rate"), 1)},
      {"snowie", fixed(number(p, "snowie_error_rate"), 1)},
      {"rated", rated ? "yes" : "no"},
      {"rating", rated ? rating_code(p["rating"].get<std::string>()) : ""},
      {"rating_word", rated ? p["rating"].get<std::string>() : ""},
      {"checker_errors", count(checker, "errors")},
      {"checker_blunders", count(checker, "blunders")},
      {"cube_errors", count(cube, "errors")},
      {"cube_blunders", count(cube, "blunders")},
      {"luck", fixed(number(luck, "total"), 3, true)},
      {"has_pr", has_pr ? "yes" : "no"},
      {"pr", has_pr ? fixed(number(p, "pr"), 2) : ""},
      {"band", band_code(p.value("pr_band", json()))},
      {"band_word", p.value("pr_band", json()).is_string() ? p["pr_band"].get<std::string>() : ""}};
  return i18n::render(lang, "analysis.player_line", args);
}

/// S7: gives each player of an analysis `result` its `pr` (2 decimals), `pr_band`, its
/// code `pr_band_code` ("world_class") and `pr_band_say` (catalogue message
/// analysis.pr_band), all null when gnubg counted no decision of theirs; and each
/// gnubg rating word its code (add_rating_code()). Computed when served, so that
/// analyses stored before the PR existed have it too.
void add_performance_ratings(json& result) {
  const auto players = result.find("players");
  if (players == result.end() || !players->is_object()) return;
  for (auto& [side, p] : players->items()) {
    if (!p.is_object()) continue;
    const auto shown = shown_pr(pr_sums_of(p));
    p["pr"] = shown ? json(*shown) : json(nullptr);
    p["pr_band"] = shown ? json(pr_band(*shown)) : json(nullptr);
    p["pr_band_code"] = shown ? json(band_code(p["pr_band"])) : json(nullptr);
    p["pr_band_say"] =
        shown ? i18n::say("analysis.pr_band", {{"band", band_code(p["pr_band"])}}) : json(nullptr);
    add_rating_code(p);
    for (const char* part : {"checker", "cube"})
      if (p.contains(part)) add_rating_code(p[part]);
  }
}

/// "game 2, alice 42: 24/22 5/1 (best 13/11 13/9), -0.225, a blunder", in `lang`.
std::string error_line(const json& d, const json& players, std::string_view lang) {
  const std::string side = d.value("side", std::string("red"));
  const std::string who = players.contains(side) ? players[side].value("name", side) : side;
  const bool has_dice = d.contains("dice") && d["dice"].is_array() && d["dice"].size() == 2;
  const bool has_best = d.contains("best") && d["best"].is_string();
  const json args{{"game", d.value("game", 0)},
                  {"name", who},
                  {"has_dice", has_dice ? "yes" : "no"},
                  {"dice", has_dice ? std::to_string(d["dice"][0].get<int>()) +
                                          std::to_string(d["dice"][1].get<int>())
                                    : ""},
                  {"played", d.value("played", std::string("?"))},
                  {"has_best", has_best ? "yes" : "no"},
                  {"best", has_best ? d["best"].get<std::string>() : ""},
                  {"equity", fixed(-number(d, "equity_lost"), 3)},
                  {"skill", d.value("skill", std::string()) == "very bad" ? "very_bad" : "bad"}};
  return i18n::render(lang, "analysis.error_line", args);
}

/// The arguments that say which match an analysis is of ("match 12 (a 5-point match,
/// alice vs bob)"): `id`, `kind` (points, basis, free), `length`, `red`, `black`.
json about_args(std::int64_t id, const match_record& m) {
  const char* kind = m.options.kind == engine::match_kind::points  ? "points"
                     : m.options.kind == engine::match_kind::basis ? "basis"
                                                                   : "free";
  return json{{"id", std::to_string(id)},
              {"kind", kind},
              {"length", m.options.length},
              {"red", m.players[0]},
              {"black", m.players[1]}};
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

error_list errors_of(const json& decisions, const json& players, std::string_view lang) {
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
      out.lines += "\n  " + error_line(d, players, lang);
      ++out.listed;
    }
  }
  return out;
}

/// A done analysis (`analysis`, of match `id`, which `about` names: about_args()) into
/// `v`: the API's whole result after `head`, `/analysis`'s data (players with their PR,
/// the errors, the page's url) and its text in language `lang`.
void fill_done(analysis_view& v, json head, json about, const analysis_record& analysis,
               std::int64_t id, std::string_view lang) {
  json result = json::parse(analysis.result);
  add_performance_ratings(result);
  head["status"] = "done";
  head["level"] = analysis.level;
  head["analysed_at"] = analysis.finished_at;
  const std::string url = "/#analysis/" + std::to_string(id);
  v.data = head;
  v.data["players"] = result.value("players", json::object());
  v.data["url"] = url;
  auto errors = errors_of(result.value("decisions", json::array()), v.data["players"], lang);
  v.data["errors"] = std::move(errors.data);
  about["level"] = analysis.level;
  v.text = i18n::render(lang, "analysis.header", about);
  for (const char* side : {"red", "black"})
    if (v.data["players"].contains(side))
      v.text += "\n" + player_line(v.data["players"][side], side, lang);
  if (errors.total == 0) {
    v.text += "\n" + i18n::render(lang, "analysis.no_errors");
  } else {
    v.text += "\n" + i18n::render(lang, "analysis.errors_header") + errors.lines;
    if (errors.total > errors.listed)
      v.text += "\n  " + i18n::render(lang, "analysis.more_errors",
                                      {{"count", errors.total - errors.listed}});
  }
  v.text += "\n" + i18n::render(lang, "analysis.every_decision", {{"url", url}});
  v.api = std::move(head);
  for (auto& [key, value] : result.items()) v.api[key] = std::move(value);
}

/// The text between `prefix` and `suffix` when `s` is prefix + it + suffix.
std::optional<std::string> between(std::string_view s, std::string_view prefix,
                                   std::string_view suffix) {
  if (s.size() < prefix.size() + suffix.size() || !s.starts_with(prefix) || !s.ends_with(suffix))
    return std::nullopt;
  return std::string(s.substr(prefix.size(), s.size() - prefix.size() - suffix.size()));
}

/// The args of analysis.failure_reason, from the English `reason` an analysis record
/// keeps: {"why": a code its select knows, "detail" or "count"}, or {"reason"} as data.
json analysis_failure_args(const std::string& reason) {
  static const std::pair<std::string_view, std::string_view> fixed[] = {
      {"the server could not run GNU Backgammon", "no_run"},
      {"the server is stopping", "stopping"},
      {"GNU Backgammon's answer could not be read", "unreadable"},
      {"GNU Backgammon could not analyse the match", "refused"},
      {"the match could not be read for analysis", "no_match"},
      {"the analysis queue was full when the server started again", "full_restart"},
      {"its player had as many matches waiting for analysis as the server takes when it "
       "started again",
       "owner_full_restart"},
      {"the analysis queue was full when the match ended", "full"},
  };
  for (const auto& [text, why] : fixed)
    if (reason == text) return {{"why", why}};
  if (auto d = between(reason, "GNU Backgammon took longer than the time limit (",
                       " s) to analyse the match"))
    return {{"why", "timeout"}, {"detail", *d}};
  if (auto d = between(reason, "GNU Backgammon crashed twice on this match (", ")"))
    return {{"why", "crashed"}, {"detail", *d}};
  if (auto d =
          between(reason, "its player had ", " matches waiting for analysis already when it ended");
      d && !d->empty() && d->size() < 10 &&
      std::all_of(d->begin(), d->end(), [](char c) { return c >= '0' && c <= '9'; }))
    return {{"why", "owner_full"}, {"count", std::stoll(*d)}};
  return {{"why", "other"}, {"reason", reason}};
}

}  // namespace

json analysis_failure_say(const std::string& reason) {
  return i18n::say("analysis.failure_reason", analysis_failure_args(reason));
}

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
  const json args{{"id", std::to_string(id)}};
  return json{{"error", "unknown_match"},
              {"message", i18n::english("analysis.no_match", args)},
              {"say", i18n::say("analysis.no_match", args)}};
}

analysis_view view_analysis(std::int64_t id, const std::optional<match_record>& match,
                            const std::optional<analysis_record>& analysis, bool analysing,
                            std::string_view lang) {
  analysis_view v;
  // A whole sentence: its English text, and `say` for the reader's language.
  const auto said = [&](std::string key, json args) {
    v.text = i18n::english(key, args);
    v.say = i18n::say(std::move(key), std::move(args));
  };
  if (!match) {
    v.api = unknown_match_json(id);
    said("analysis.no_match", {{"id", std::to_string(id)}});
    return v;
  }
  v.found = true;
  const json about = about_args(id, *match);
  json head{{"match_id", id}, {"match", match_summary_json(*match)}};
  // Unavailable: `reason_key` says why (the reason alone, for `reason`), `key` the
  // whole sentence with `about`.
  const auto unavailable = [&](const char* reason_key, const char* key) {
    head["status"] = "unavailable";
    head["reason"] = i18n::english(reason_key);
    head["reason_say"] = i18n::say(reason_key);
    v.api = head;
    v.data = head;
    said(key, about);
  };
  if (match->options.game_variant != engine::variant::standard) {
    unavailable("analysis.reason_long", "analysis.unavailable_long");
    return v;
  }
  if (!analysis) {
    unavailable("analysis.reason_not_queued", "analysis.unavailable_not_queued");
    return v;
  }
  head["queued_at"] = analysis->queued_at;
  switch (analysis->status) {
    case analysis_status::pending:
      if (!analysing) {
        unavailable("analysis.reason_not_analysing", "analysis.unavailable_not_analysing");
        return v;
      }
      head["status"] = "pending";
      v.api = head;
      v.data = head;
      said("analysis.pending", about);
      return v;
    case analysis_status::failed: {
      head["status"] = "failed";
      head["reason"] = analysis->reason;
      head["reason_say"] = analysis_failure_say(analysis->reason);
      head["analysed_at"] = analysis->finished_at;
      v.api = head;
      v.data = head;
      json args = about;
      args["reason"] = head["reason_say"];
      said("analysis.failed", std::move(args));
      return v;
    }
    case analysis_status::done:
      break;
  }
  fill_done(v, std::move(head), about, *analysis, id, lang);
  return v;
}

}  // namespace bg::server
