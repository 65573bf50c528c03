#include "bg/server/records/record_json.hpp"

#include <array>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

/// Looks `text` up in a table of (value, name) pairs; throws json::other_error naming
/// `what` when it is not there.
template <typename Enum, std::size_t N>
Enum enum_from_json(const json& j, const std::array<std::pair<Enum, std::string_view>, N>& names,
                    std::string_view what) {
  const auto& text = j.get_ref<const std::string&>();
  for (const auto& [value, name] : names)
    if (name == text) return value;
  throw json::other_error::create(501, "unknown " + std::string(what) + " \"" + text + "\"", &j);
}

template <typename Enum, std::size_t N>
std::string_view enum_name(Enum value,
                           const std::array<std::pair<Enum, std::string_view>, N>& names) {
  for (const auto& [v, name] : names)
    if (v == value) return name;
  return names[0].second;
}

/// Reads a JSON array of exactly two integers.
std::array<int, 2> int_pair(const json& j, std::string_view what) {
  if (!j.is_array() || j.size() != 2)
    throw json::other_error::create(501, std::string(what) + " must be a pair", &j);
  return {j[0].get<int>(), j[1].get<int>()};
}

constexpr std::array<std::pair<bg::engine::match_kind, std::string_view>, 3> match_kind_names{{
    {bg::engine::match_kind::free_play, "free_play"},
    {bg::engine::match_kind::points, "points"},
    {bg::engine::match_kind::basis, "basis"},
}};

constexpr std::array<std::pair<bg::server::record_action::kind, std::string_view>, 9> action_names{{
    {bg::server::record_action::kind::play, "play"},
    {bg::server::record_action::kind::pass, "pass"},
    {bg::server::record_action::kind::double_offer, "double_offer"},
    {bg::server::record_action::kind::take, "take"},
    {bg::server::record_action::kind::drop, "drop"},
    {bg::server::record_action::kind::resign_offer, "resign_offer"},
    {bg::server::record_action::kind::resign_accept, "resign_accept"},
    {bg::server::record_action::kind::resign_reject, "resign_reject"},
    {bg::server::record_action::kind::forfeit, "forfeit"},
}};

}  // namespace

namespace bg::engine {

void to_json(json& j, side s) {
  j = std::string(to_string(s));
}

void from_json(const json& j, side& s) {
  const auto parsed = side_from_string(j.get_ref<const std::string&>());
  if (!parsed)
    throw json::other_error::create(501, "unknown side \"" + j.get<std::string>() + "\"", &j);
  s = *parsed;
}

void to_json(json& j, const roll& r) {
  j = json::array({r.die1, r.die2});
}

void from_json(const json& j, roll& r) {
  const auto dice = int_pair(j, "dice");
  const roll parsed{dice[0], dice[1]};
  if (!parsed.valid()) throw json::other_error::create(501, "a die must be 1..6", &j);
  r = parsed;
}

void to_json(json& j, win_kind k) {
  j = std::string(to_string(k));
}

void from_json(const json& j, win_kind& k) {
  static constexpr std::array<std::pair<win_kind, std::string_view>, 3> names{{
      {win_kind::single, "single"},
      {win_kind::gammon, "gammon"},
      {win_kind::backgammon, "backgammon"},
  }};
  k = enum_from_json(j, names, "win kind");
}

void to_json(json& j, end_reason r) {
  j = std::string(to_string(r));
}

void from_json(const json& j, end_reason& r) {
  static constexpr std::array<std::pair<end_reason, std::string_view>, 5> names{{
      {end_reason::borne_off, "borne_off"},
      {end_reason::dropped, "dropped"},
      {end_reason::resigned, "resigned"},
      {end_reason::forfeit, "forfeit"},
      {end_reason::time, "time"},
  }};
  r = enum_from_json(j, names, "end reason");
}

void to_json(json& j, match_kind k) {
  j = std::string(to_string(k));
}

std::string_view to_string(match_kind k) noexcept {
  return enum_name(k, match_kind_names);
}

void from_json(const json& j, match_kind& k) {
  k = enum_from_json(j, match_kind_names, "match kind");
}

void to_json(json& j, const match_options& o) {
  j = json{
      {"variant", std::string(to_string(o.game_variant))}, {"kind", o.kind}, {"length", o.length}};
}

void from_json(const json& j, match_options& o) {
  match_options parsed;
  const auto& variant_text = j.at("variant").get_ref<const std::string&>();
  const auto v = variant_from_string(variant_text);
  if (!v) throw json::other_error::create(501, "unknown variant \"" + variant_text + "\"", &j);
  parsed.game_variant = *v;
  parsed.kind = j.at("kind").get<match_kind>();
  parsed.length = j.contains("length") ? j.at("length").get<int>() : 0;
  o = parsed;
}

void to_json(json& j, const game_result& r) {
  j = json{{"winner", r.winner}, {"kind", r.kind}, {"reason", r.reason}, {"points", r.points}};
}

void from_json(const json& j, game_result& r) {
  game_result parsed;
  parsed.winner = j.at("winner").get<side>();
  parsed.kind = j.at("kind").get<win_kind>();
  parsed.reason = j.at("reason").get<end_reason>();
  parsed.points = j.at("points").get<int>();
  r = parsed;
}

}  // namespace bg::engine

namespace bg::server {

std::string_view to_string(record_action::kind k) noexcept {
  return enum_name(k, action_names);
}

void to_json(json& j, const record_action& a) {
  j = json{{"what", std::string(to_string(a.what))}, {"who", a.who}};
  if (a.dice != engine::roll{}) j["dice"] = a.dice;
  if (!a.play.empty()) j["play"] = a.play;
  if (a.cube_value != 0) j["cube"] = a.cube_value;
  if (a.resign != engine::win_kind::single || a.what == record_action::kind::resign_offer)
    j["resign"] = a.resign;
}

void from_json(const json& j, record_action& a) {
  record_action parsed;
  parsed.what = enum_from_json(j.at("what"), action_names, "action");
  parsed.who = j.at("who").get<engine::side>();
  if (j.contains("dice")) parsed.dice = j.at("dice").get<engine::roll>();
  if (j.contains("play")) parsed.play = j.at("play").get<std::string>();
  if (j.contains("cube")) parsed.cube_value = j.at("cube").get<int>();
  if (j.contains("resign")) parsed.resign = j.at("resign").get<engine::win_kind>();
  a = std::move(parsed);
}

void to_json(json& j, const game_record& g) {
  j = json{{"number", g.number}, {"score_before", g.score_before}, {"crawford", g.crawford},
           {"first", g.first},   {"actions", g.actions},           {"result", nullptr}};
  if (g.opening != engine::roll{}) j["opening"] = g.opening;
  if (g.result) j["result"] = *g.result;
}

void from_json(const json& j, game_record& g) {
  game_record parsed;
  parsed.number = j.at("number").get<int>();
  parsed.score_before = int_pair(j.at("score_before"), "score_before");
  parsed.crawford = j.at("crawford").get<bool>();
  parsed.first = j.at("first").get<engine::side>();
  if (j.contains("opening")) parsed.opening = j.at("opening").get<engine::roll>();
  parsed.actions = j.at("actions").get<std::vector<record_action>>();
  if (const auto& r = j.at("result"); !r.is_null()) parsed.result = r.get<engine::game_result>();
  g = std::move(parsed);
}

void to_json(json& j, const dice_roll_record& r) {
  j = json{{"game", r.game}, {"k", r.k}, {"dice", r.dice}};
}

void from_json(const json& j, dice_roll_record& r) {
  dice_roll_record parsed;
  parsed.game = j.at("game").get<int>();
  parsed.k = j.at("k").get<std::uint32_t>();
  parsed.dice = j.at("dice").get<engine::roll>();
  r = parsed;
}

void to_json(json& j, const dice_record& d) {
  j = json{{"commitment", d.commitment},
           {"seed", d.seed},
           {"player_seeds", d.player_seeds},
           {"rolls", d.rolls}};
}

void from_json(const json& j, dice_record& d) {
  dice_record parsed;
  parsed.commitment = j.at("commitment").get<std::string>();
  parsed.seed = j.at("seed").get<std::string>();
  const auto& seeds = j.at("player_seeds");
  if (!seeds.is_array() || seeds.size() != 2)
    throw json::other_error::create(501, "player_seeds must be a pair", &seeds);
  parsed.player_seeds = {seeds[0].get<std::string>(), seeds[1].get<std::string>()};
  parsed.rolls = j.at("rolls").get<std::vector<dice_roll_record>>();
  d = std::move(parsed);
}

void to_json(json& j, const rating_change& r) {
  j = json{{"name", r.name},
           {"before", r.before},
           {"after", r.after},
           {"experience_before", r.experience_before},
           {"experience_after", r.experience_after}};
}

void from_json(const json& j, rating_change& r) {
  rating_change parsed;
  parsed.name = j.at("name").get<std::string>();
  parsed.before = j.at("before").get<double>();
  parsed.after = j.at("after").get<double>();
  parsed.experience_before = j.at("experience_before").get<int>();
  parsed.experience_after = j.at("experience_after").get<int>();
  r = std::move(parsed);
}

void to_json(json& j, const match_record& m) {
  j = json{{"id", m.id},
           {"table", m.table},
           {"players", m.players},
           {"options", m.options},
           {"games", m.games},
           {"final_score", m.final_score},
           {"started_at", m.started_at},
           {"ended_at", m.ended_at}};
  if (!m.dice.commitment.empty()) j["dice"] = m.dice;
  if (m.ratings) j["ratings"] = {{"red", (*m.ratings)[0]}, {"black", (*m.ratings)[1]}};
  if (m.unfinished) {
    j["unfinished"] = true;
    j["closed_by"] = m.closed_by;
  }
  if (m.private_table) j["private"] = true;
}

void from_json(const json& j, match_record& m) {
  match_record parsed;
  parsed.id = j.at("id").get<std::int64_t>();
  parsed.table = j.at("table").get<std::string>();
  const auto& players = j.at("players");
  if (!players.is_array() || players.size() != 2)
    throw json::other_error::create(501, "players must be a pair", &players);
  parsed.players = {players[0].get<std::string>(), players[1].get<std::string>()};
  parsed.options = j.at("options").get<engine::match_options>();
  parsed.games = j.at("games").get<std::vector<game_record>>();
  parsed.final_score = int_pair(j.at("final_score"), "final_score");
  parsed.started_at = j.at("started_at").get<std::string>();
  parsed.ended_at = j.at("ended_at").get<std::string>();
  if (const auto it = j.find("dice"); it != j.end() && !it->is_null())
    parsed.dice = it->get<dice_record>();
  if (const auto it = j.find("ratings"); it != j.end() && !it->is_null())
    parsed.ratings = std::array<rating_change, 2>{it->at("red").get<rating_change>(),
                                                  it->at("black").get<rating_change>()};
  parsed.unfinished = j.value("unfinished", false);
  if (parsed.unfinished) parsed.closed_by = j.value("closed_by", std::string{});
  parsed.private_table = j.value("private", false);
  m = std::move(parsed);
}

std::string to_json_text(const match_record& m) {
  return json(m).dump();
}

match_record match_record_from_json_text(std::string_view text) {
  return json::parse(text).get<match_record>();
}

}  // namespace bg::server
