// Script mode's plain-text lines (script_writer.hpp).

#include "bg/term/script_writer.hpp"

#include <cstdio>
#include <sstream>

namespace bg::term {
namespace {

using nlohmann::json;

/// A field as one word: strings as they are ("-" when empty), numbers in decimal,
/// booleans as yes/no, null or missing as "-".
std::string word(const json& j, const char* key) {
  if (!j.is_object()) return "-";
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "-";
  if (it->is_string()) return it->get<std::string>().empty() ? "-" : it->get<std::string>();
  if (it->is_boolean()) return it->get<bool>() ? "yes" : "no";
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  return it->dump();
}

/// A sub-object (an empty object when missing).
json object(const json& j, const char* key) {
  if (!j.is_object()) return json::object();
  const auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : json::object();
}

/// A rating as one word with two decimals ("1517.32"; "-" when missing).
std::string rating_word(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", j[key].get<double>());
  return buf;
}

/// Each line of `text` prefixed by `prefix`.
std::string per_line(const std::string& prefix, const std::string& text) {
  std::string out;
  std::istringstream in{text};
  std::string line;
  bool any = false;
  while (std::getline(in, line)) {
    out += prefix + line + "\n";
    any = true;
  }
  return any ? out : prefix + "\n";
}

}  // namespace

script_writer::script_writer(style s)
    : style_{std::move(s)}, board_{board_view::style{false, style_.viewer, {}, style_.lang}} {}

std::string script_writer::status(connection::status st, const std::string& detail) const {
  switch (st) {
    case connection::status::connected:
      return "CONNECTED " + detail + "\n";
    case connection::status::disconnected:
      return "DISCONNECTED " + detail + "\n";
    case connection::status::reconnecting:
      return "RECONNECT " + detail + "\n";
    case connection::status::failed:
      return "FAILED " + detail + "\n";
    case connection::status::closed:
      return "CLOSED\n";
  }
  return "STATUS " + detail + "\n";
}

std::string script_writer::message(const json& m) const {
  const std::string type = m.value("type", "");
  const std::string table = word(m, "table");
  if (type == "state") return state_block(m);
  if (type == "event") {
    return "EVENT " + table + " " + word(m, "event") + ": " + m.value("text", "") + "\n";
  }
  if (type == "chat" && m.contains("to")) {  // a private message (/tell)
    return per_line("TELL " + word(m, "from") + " " + word(m, "to") + ": ", m.value("text", ""));
  }
  if (type == "chat") {
    return per_line("CHAT " + table + " " + word(m, "from") + ": ", m.value("text", ""));
  }
  if (type == "info") {
    return per_line("INFO " + table + " " + word(m, "topic") + ": ", m.value("text", ""));
  }
  if (type == "broadcast") {  // an administrator's /broadcast (issue 13)
    return per_line("BROADCAST " + word(m, "from") + ": ", m.value("text", ""));
  }
  if (type == "error") {
    return "ERROR " + word(m, "code") + ": " + m.value("message", "") + "\n";
  }
  if (type == "welcome") {
    std::string tables;
    if (m.contains("tables") && m["tables"].is_array()) {
      for (const auto& t : m["tables"]) {
        if (!t.is_string()) continue;
        if (!tables.empty()) tables += ",";
        tables += t.get<std::string>();
      }
    }
    std::string out = "WELCOME " + word(m, "name") + " resumed=" + word(m, "resumed") +
                      " tables=" + (tables.empty() ? "-" : tables) + "\n";
    if (m.contains("account") && m["account"].is_object()) {
      const json& a = m["account"];
      const json rating = object(a, "rating");
      const json experience = object(a, "experience");
      out += "ACCOUNT registered=" + word(a, "registered") + " admin=" + word(a, "admin") +
             " rating_standard=" + rating_word(rating, "standard") +
             " rating_long=" + rating_word(rating, "long") +
             " experience_standard=" + word(experience, "standard") +
             " experience_long=" + word(experience, "long") + "\n";
    }
    return out;
  }
  if (type == "tables") {
    // A header, then one row per table; a row always has fields after the name, which
    // tells it from the view's `TABLE name` line.
    std::string out = "TABLES total=" + word(m, "total") + " page=" + word(m, "page") +
                      " pages=" + word(m, "pages") + "\n";
    if (m.contains("tables") && m["tables"].is_array()) {
      for (const auto& t : m["tables"]) {
        const json players = object(t, "players");
        const json score = object(t, "score");
        const json options = object(t, "options");
        out += "TABLE " + word(t, "name") + " phase=" + word(t, "phase") +
               " red=" + word(players, "red") + " black=" + word(players, "black") +
               " score_red=" + word(score, "red") + " score_black=" + word(score, "black") +
               " spectators=" + word(t, "spectators") + " variant=" + word(options, "variant") +
               " match=" + word(options, "match") + "\n";
      }
    }
    return out;
  }
  if (type == "lobby" && m.contains("seeking") && m["seeking"].is_object()) {
    // The count of players waiting per variant (S5), pushed when it changes.
    return "SEEKING standard=" + word(m["seeking"], "standard") +
           " long=" + word(m["seeking"], "long") + "\n";
  }
  if (type == "tournament") {
    // RULES.md S6: a header, then one line per player of the standings, best first.
    const json t = object(m, "tournament");
    std::string out = "TOURNAMENT " + word(t, "name") + " kind=" + word(t, "kind") +
                      " status=" + word(t, "status") + " round=" + word(t, "round") +
                      " registered=" + word(t, "registered") + "\n";
    if (t.contains("standings") && t["standings"].is_array()) {
      for (const auto& s : t["standings"]) {
        out += "STANDING " + word(s, "rank") + " " + word(s, "name") + " wins=" + word(s, "wins") +
               " points=" + word(s, "points") + " buchholz=" + word(s, "buchholz") + "\n";
      }
    }
    return out;
  }
  if (type == "tournament_pairing") {
    // The link goes to the table by itself: a TABLE line follows.
    return "PAIRING " + word(m, "tournament") + " round=" + word(m, "round") +
           " table=" + word(m, "table") + " opponent=" + word(m, "opponent") +
           " side=" + word(m, "side") + ": " + m.value("text", "") + "\n";
  }
  if (type == "pong") return {};
  return "MESSAGE " + m.dump() + "\n";
}

std::string script_writer::state_block(const json& m) const {
  const json players = object(m, "players");
  const json score = object(m, "score");
  const json pips = object(m, "pips");
  const json cube = object(m, "cube");
  const std::string you = board_view::side_of(m, style_.viewer);
  std::string dice = "-";
  if (m.contains("dice") && m["dice"].is_array() && !m["dice"].empty()) {
    dice.clear();
    for (const auto& d : m["dice"]) {
      if (!dice.empty()) dice += "-";
      dice += d.dump();
    }
  }
  std::string resign = "-";
  if (m.contains("resign") && m["resign"].is_object()) {
    resign = word(m["resign"], "by") + ":" + word(m["resign"], "kind");
  }
  const std::string table = word(m, "table");
  std::string out =
      "STATE " + table + " seq=" + word(m, "seq") + " game=" + word(m, "game_number") +
      " variant=" + word(m, "variant") + " phase=" + word(m, "phase") + " turn=" + word(m, "turn") +
      " to_act=" + word(m, "to_act") + " you=" + (you.empty() ? "-" : you) + " dice=" + dice +
      " cube=" + word(cube, "value") + " owner=" + word(cube, "owner") +
      " offered_by=" + word(cube, "offered_by") + " may_double=" + word(m, "may_double") +
      " resign=" + resign + " red=" + word(players, "red") + " black=" + word(players, "black") +
      " score_red=" + word(score, "red") + " score_black=" + word(score, "black") +
      " match_length=" + word(m, "match_length") + " crawford=" + word(m, "crawford") +
      " pips_red=" + word(pips, "red") + " pips_black=" + word(pips, "black") +
      " last_match=" + word(m, "last_match_id") + "\n";
  if (style_.board) {
    for (const auto& line : board_.render(m)) out += "  " + line + "\n";
  }
  if (const json clock = object(m, "clock"); !clock.empty()) {
    out += "CLOCK red=" + word(clock, "red") + " black=" + word(clock, "black") +
           " delay_ms=" + word(clock, "delay_ms") + " running=" + word(clock, "running") +
           " since=" + word(clock, "since") + "\n";
  }
  if (m.contains("last_result") && m["last_result"].is_object()) {
    const json& r = m["last_result"];
    out += "RESULT winner=" + word(r, "winner") + " kind=" + word(r, "kind") +
           " reason=" + word(r, "reason") + " points=" + word(r, "points") + "\n";
  }
  std::string legal;
  if (m.contains("legal") && m["legal"].is_array()) {
    for (const auto& play : m["legal"]) {
      if (!play.is_string()) continue;
      legal += (legal.empty() ? " " : "|") + play.get<std::string>();
    }
  }
  out += "LEGAL" + legal + "\n";
  out += "END " + table + "\n";
  return out;
}

std::string script_writer::view(const std::string& table) {
  return "TABLE " + (table.empty() ? std::string{"-"} : table) + "\n";
}

}  // namespace bg::term
