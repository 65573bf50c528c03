#include "account_views.hpp"

#include <cmath>
#include <cstdio>

#include "bg/engine/side.hpp"
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

json profile_json(const account& a, bool online) {
  return {{"name", a.name},
          {"registered", true},
          {"bot", a.what == account::kind::bot},
          {"online", online},
          {"last_seen", a.last_seen.empty() ? json(nullptr) : json(a.last_seen)},
          {"created_at", a.created_at},
          {"ratings",
           {{"standard", standing_json(a.standings[0])}, {"long", standing_json(a.standings[1])}}}};
}

json guest_profile_json(const std::string& name) {
  return {{"name", name}, {"registered", false}, {"online", true}};
}

std::string profile_text(const account& a, bool online) {
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
  return text;
}

json leaderboard_json(engine::variant v, const std::vector<leaderboard_entry>& entries) {
  json players = json::array();
  for (const auto& e : entries) {
    players.push_back({{"rank", e.rank},
                       {"name", e.name},
                       {"bot", e.bot},
                       {"rating", e.standing.rating},
                       {"experience", e.standing.experience},
                       {"played", e.standing.played},
                       {"won", e.standing.won}});
  }
  return {{"variant", engine::to_string(v)}, {"players", std::move(players)}};
}

std::string leaderboard_text(engine::variant v, const std::vector<leaderboard_entry>& entries) {
  std::string text = "ratings, " + std::string(engine::to_string(v)) + ":";
  if (entries.empty()) return text + " nobody has played a rated match yet";
  for (const auto& e : entries) {
    text += "\n" + std::to_string(e.rank) + ". " + e.name + (e.bot ? " (a bot)" : "") + " " +
            rating_text(e.standing.rating) + " (experience " +
            std::to_string(e.standing.experience) + ", " + std::to_string(e.standing.won) +
            " won of " + std::to_string(e.standing.played) + ")";
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
  return {{"match_id", m.match_id},
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
    text += ", /matches/" + std::to_string(m.match_id) + ".mat";
  }
  return text;
}

}  // namespace bg::server
