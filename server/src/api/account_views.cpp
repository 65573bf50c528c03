#include "account_views.hpp"

#include <cmath>
#include <cstdio>

#include "bg/engine/side.hpp"
#include "bg/server/records/performance_rating.hpp"
#include "bg/server/records/record_json.hpp"

namespace bg::server {

using nlohmann::json;

namespace {

json standing_json(const account::standing& s) {
  return {{"rating", s.rating}, {"experience", s.experience}, {"played", s.played}, {"won", s.won}};
}

std::string standing_text(engine::variant v, const account::standing& s) {
  return std::string(engine::to_string(v)) + " " + rating_text(s.rating) + " (experience " +
         std::to_string(s.experience) + ", " + std::to_string(s.won) + " won of " +
         std::to_string(s.played) + ")";
}

/// S7: `j`'s "pr" (2 decimals) and "pr_band" from `sums`; null when there are none or
/// they count no decision.
void add_pr(json& j, const std::optional<pr_sums>& sums) {
  const auto shown = sums ? shown_pr(*sums) : std::nullopt;
  j["pr"] = shown ? json(*shown) : json(nullptr);
  j["pr_band"] = shown ? json(pr_band(*shown)) : json(nullptr);
}

/// S7: "5.21 (advanced)" for `sums`, nullopt without a PR.
std::optional<std::string> pr_text(const std::optional<pr_sums>& sums) {
  const auto shown = sums ? shown_pr(*sums) : std::nullopt;
  if (!shown) return std::nullopt;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", *shown);
  return std::string(buf) + " (" + std::string(pr_band(*shown)) + ")";
}

json period_json(const performance_sums& p) {
  json j = {{"matches", p.matches}};
  add_pr(j, p.matches > 0 ? std::optional<pr_sums>(p.sums) : std::nullopt);
  return j;
}

std::string period_text(const performance_sums& p) {
  return pr_text(p.matches > 0 ? std::optional<pr_sums>(p.sums) : std::nullopt).value_or("none");
}

std::string options_text(const engine::match_options& o) {
  std::string kind;
  switch (o.kind) {
    case engine::match_kind::points:
      kind = "match to " + std::to_string(o.length);
      break;
    case engine::match_kind::basis:
      kind = "basis session";
      break;
    case engine::match_kind::free_play:
      kind = "free game";
      break;
  }
  if (o.game_variant != engine::variant::standard) kind += ", long";
  return kind;
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

std::string profile_text(const account& a, bool online, const player_performance& performance) {
  std::string text = a.name + ": registered";
  if (a.what == account::kind::bot) text += " (a bot)";
  if (online) {
    text += ", online";
  } else if (!a.last_seen.empty()) {
    text += ", last seen " + a.last_seen;
  } else {
    text += ", never seen";
  }
  text += "; " + standing_text(engine::variant::standard, a.standings[0]) + "; " +
          standing_text(engine::variant::long_nardy, a.standings[1]);
  text += "; PR last 30 days " + period_text(performance.last_30_days) + ", all time " +
          period_text(performance.all_time);
  return text;
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
                             leaderboard_order order, bool with_pr) {
  std::string text = "ratings, " + std::string(engine::to_string(v)) +
                     (order == leaderboard_order::pr ? ", the best PR first:" : ":");
  if (entries.empty()) return text + " nobody has played a rated match yet";
  for (const auto& e : entries) {
    text += "\n" + std::to_string(e.rank) + ". " + e.name + (e.bot ? " (a bot)" : "") + " " +
            rating_text(e.standing.rating) + " (experience " +
            std::to_string(e.standing.experience) + ", " + std::to_string(e.standing.won) +
            " won of " + std::to_string(e.standing.played) + ")";
    if (with_pr) {
      const auto pr = pr_text(e.performance);
      text += pr ? ", PR " + *pr : ", no PR yet";
    }
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

std::string history_text(const std::string& name, const std::vector<account_match>& matches) {
  if (matches.empty()) return name + " has no finished match yet";
  std::string text = "the last matches of " + name + ":";
  for (const auto& m : matches) {
    const auto me = static_cast<std::size_t>(engine::index_of(m.side));
    const std::string score =
        std::to_string(m.final_score[me]) + "-" + std::to_string(m.final_score[1 - me]);
    text += "\n" + m.ended_at.substr(0, 10) + " vs " + m.opponent + ", " + options_text(m.options) +
            ", " + (m.won ? (*m.won ? "won " : "lost ") : "level ") + score;
    if (m.rating)
      text += ", " + rating_text(m.rating->before) + " -> " + rating_text(m.rating->after) + " (" +
              change_text(m.rating->after - m.rating->before) + ")";
    else
      text += ", unrated";
    if (const auto pr = pr_text(m.performance)) text += ", PR " + *pr;
    text += ", /matches/" + std::to_string(m.match_id) + ".mat";
  }
  return text;
}

}  // namespace bg::server
