#include "account_views.hpp"

#include <cmath>
#include <cstdio>

#include "bg/engine/side.hpp"
#include "bg/i18n/catalogue.hpp"
#include "bg/server/records/performance_rating.hpp"
#include "bg/server/records/record_json.hpp"

namespace bg::server {

using nlohmann::json;

namespace {

json standing_json(const account::standing& s) {
  return {{"rating", s.rating}, {"experience", s.experience}, {"played", s.played}, {"won", s.won}};
}

/// Adds standing `s`'s arguments to `args`, each name after `prefix` ("std_rating"):
/// rating, experience, won, played, all as text.
void add_standing(json& args, const std::string& prefix, const account::standing& s) {
  args[prefix + "rating"] = rating_text(s.rating);
  args[prefix + "experience"] = std::to_string(s.experience);
  args[prefix + "won"] = std::to_string(s.won);
  args[prefix + "played"] = std::to_string(s.played);
}

/// S7: `j`'s "pr" (2 decimals) and "pr_band" from `sums`; null when there are none or
/// they count no decision.
void add_pr(json& j, const std::optional<pr_sums>& sums) {
  const auto shown = sums ? shown_pr(*sums) : std::nullopt;
  j["pr"] = shown ? json(*shown) : json(nullptr);
  j["pr_band"] = shown ? json(pr_band(*shown)) : json(nullptr);
}

/// S7: adds the PR of `sums` to `args` as `prefix`+"pr" ("5.21"), `prefix`+"band" (the
/// band's code, "world_class"; "" without a PR) and `prefix`+"has_pr" (yes/no).
void add_pr_args(json& args, const std::string& prefix, const std::optional<pr_sums>& sums) {
  // (A plain double read once, not the optional: g++ 12 under -fsanitize=thread warns
  // that the optional's value "may be used uninitialized" on the second read.)
  const std::optional<double> shown = sums ? shown_pr(*sums) : std::nullopt;
  args[prefix + "has_pr"] = shown.has_value() ? "yes" : "no";
  std::string pr;
  std::string band;
  if (shown.has_value()) {
    const double value = shown.value();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", value);
    pr = buf;
    band = pr_band(value);
    for (auto& ch : band)
      if (ch == ' ') ch = '_';
  }
  args[prefix + "pr"] = pr;
  args[prefix + "band"] = band;
}

json period_json(const performance_sums& p) {
  json j = {{"matches", p.matches}};
  add_pr(j, p.matches > 0 ? std::optional<pr_sums>(p.sums) : std::nullopt);
  return j;
}

/// The PR sums of period `p` (nullopt when no match of it is analysed).
std::optional<pr_sums> period_sums(const performance_sums& p) {
  return p.matches > 0 ? std::optional<pr_sums>(p.sums) : std::nullopt;
}

}  // namespace

json guest_account_json() {
  return {{"registered", false},
          {"rating", {{"standard", 1500.0}, {"long", 1500.0}}},
          {"experience", {{"standard", 0}, {"long", 0}}},
          {"admin", false}};
}

json account_json(const account& a, bool admin) {
  return {{"registered", true},
          {"rating", {{"standard", a.standings[0].rating}, {"long", a.standings[1].rating}}},
          {"experience",
           {{"standard", a.standings[0].experience}, {"long", a.standings[1].experience}}},
          {"admin", admin}};
}

json profile_json(const account& a, bool online, const player_performance& performance) {
  return {{"name", a.name},
          {"registered", true},
          {"bot", a.what == account::kind::bot},
          {"online", online},
          {"last_seen", a.last_seen.empty() ? json(nullptr) : json(a.last_seen)},
          {"created_at", a.created_at},
          {"ratings",
           {{"standard", standing_json(a.standings[0])}, {"long", standing_json(a.standings[1])}}},
          {"performance",
           {{"last_30_days", period_json(performance.last_30_days)},
            {"all_time", period_json(performance.all_time)}}}};
}

json guest_profile_json(const std::string& name) {
  return {{"name", name}, {"registered", false}, {"online", true}};
}

std::string profile_text(const account& a, bool online, const player_performance& performance,
                         std::string_view lang) {
  json args{{"name", a.name},
            {"bot", a.what == account::kind::bot ? "yes" : "no"},
            {"seen", online                 ? "online"
                     : !a.last_seen.empty() ? "last"
                                            : "never"},
            {"last_seen", a.last_seen}};
  add_standing(args, "std_", a.standings[0]);
  add_standing(args, "long_", a.standings[1]);
  add_pr_args(args, "recent_", period_sums(performance.last_30_days));
  add_pr_args(args, "all_", period_sums(performance.all_time));
  return i18n::render(lang, "lobby.whois", args);
}

json leaderboard_json(engine::variant v, const std::vector<leaderboard_entry>& entries,
                      leaderboard_order order, bool with_pr) {
  json players = json::array();
  for (const auto& e : entries) {
    json p = {{"rank", e.rank},
              {"name", e.name},
              {"bot", e.bot},
              {"rating", e.standing.rating},
              {"experience", e.standing.experience},
              {"played", e.standing.played},
              {"won", e.standing.won}};
    if (with_pr) add_pr(p, e.performance);
    players.push_back(std::move(p));
  }
  return {{"variant", engine::to_string(v)},
          {"sort", order == leaderboard_order::pr ? "pr" : "rating"},
          {"players", std::move(players)}};
}

std::string leaderboard_text(engine::variant v, const std::vector<leaderboard_entry>& entries,
                             leaderboard_order order, bool with_pr, std::string_view lang) {
  const json head{{"variant", std::string(engine::to_string(v))},
                  {"order", order == leaderboard_order::pr ? "pr" : "rating"}};
  if (entries.empty()) return i18n::render(lang, "lobby.ratings_empty", head);
  std::string text = i18n::render(lang, "lobby.ratings_header", head);
  for (const auto& e : entries) {
    json args{{"rank", std::to_string(e.rank)},
              {"name", e.name},
              {"bot", e.bot ? "yes" : "no"},
              {"with_pr", with_pr ? "yes" : "no"}};
    add_standing(args, "", e.standing);
    add_pr_args(args, "", e.performance);
    text += "\n" + i18n::render(lang, "lobby.ratings_line", args);
  }
  return text;
}

json account_match_json(const account_match& m) {
  json rating = nullptr;
  if (m.rating) {
    rating = {{"before", m.rating->before},
              {"after", m.rating->after},
              {"change", m.rating->after - m.rating->before},
              {"experience_before", m.rating->experience_before},
              {"experience_after", m.rating->experience_after}};
  }
  json out = {{"match_id", m.match_id},
              {"ended_at", m.ended_at},
              {"variant", engine::to_string(m.options.game_variant)},
              {"kind", json(m.options.kind)},
              {"length", m.options.length},
              {"side", engine::to_string(m.side)},
              {"opponent", m.opponent},
              {"score", {{"red", m.final_score[0]}, {"black", m.final_score[1]}}},
              {"won", m.won ? json(*m.won) : json(nullptr)},
              {"rating", std::move(rating)},
              {"url", "/matches/" + std::to_string(m.match_id) + ".mat"}};
  add_pr(out, m.performance);
  return out;
}

json history_json(const std::string& name, const std::vector<account_match>& matches, bool more) {
  json list = json::array();
  for (const auto& m : matches) list.push_back(account_match_json(m));
  return {
      {"name", name},
      {"matches", std::move(list)},
      {"next_before", more && !matches.empty() ? json(matches.back().match_id) : json(nullptr)}};
}

/// The arguments of catalogue message lobby.history_line for match `m`.
json history_line_args(const account_match& m) {
  const auto me = static_cast<std::size_t>(engine::index_of(m.side));
  const char* kind = m.options.kind == engine::match_kind::points  ? "points"
                     : m.options.kind == engine::match_kind::basis ? "basis"
                                                                   : "free";
  json args{
      {"date", m.ended_at.substr(0, 10)},
      {"opponent", m.opponent},
      {"kind", kind},
      {"length", std::to_string(m.options.length)},
      {"long", m.options.game_variant != engine::variant::standard ? "yes" : "no"},
      {"result", m.won ? (*m.won ? "won" : "lost") : "level"},
      {"score", std::to_string(m.final_score[me]) + "-" + std::to_string(m.final_score[1 - me])},
      {"rated", m.rating ? "yes" : "no"},
      {"before", m.rating ? rating_text(m.rating->before) : ""},
      {"after", m.rating ? rating_text(m.rating->after) : ""},
      {"change", m.rating ? change_text(m.rating->after - m.rating->before) : ""},
      {"url", "/matches/" + std::to_string(m.match_id) + ".mat"}};
  add_pr_args(args, "", m.performance);
  return args;
}

std::string history_text(const std::string& name, const std::vector<account_match>& matches,
                         std::string_view lang) {
  if (matches.empty()) return i18n::render(lang, "lobby.history_empty", {{"name", name}});
  std::string text = i18n::render(lang, "lobby.history_header", {{"name", name}});
  for (const auto& m : matches)
    text += "\n" + i18n::render(lang, "lobby.history_line", history_line_args(m));
  return text;
}

}  // namespace bg::server
