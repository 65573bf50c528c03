// Interactive mode's display (screen.hpp).

#include "bg/term/screen.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <sstream>

namespace bg::term {
namespace {

using nlohmann::json;

constexpr std::size_t kept_log_lines = 500;
constexpr std::size_t shown_plays = 60;
constexpr std::size_t width = 78;

/// `text` cut or padded with spaces to exactly `n` columns (a cut ends in '~').
std::string cell(const std::string& text, std::size_t n) {
  if (text.size() > n) return text.substr(0, n - 1) + "~";
  return text + std::string(n - text.size(), ' ');
}

/// A seat of a `tables` entry: the name (a bot's name for a computer player), with
/// the rating in the table's variant rounded to a whole number when there is one;
/// "-" for a free seat.
std::string seat_text(const json& entry, const char* side) {
  const json empty = json::object();
  const json& players =
      entry.contains("players") && entry["players"].is_object() ? entry["players"] : empty;
  const json& bots = entry.contains("bots") && entry["bots"].is_object() ? entry["bots"] : empty;
  std::string name = text_field(bots, side);
  if (name.empty()) name = text_field(players, side);
  if (name.empty()) return "-";
  if (entry.contains("ratings") && entry["ratings"].is_object() &&
      entry["ratings"].contains(side) && entry["ratings"][side].is_number()) {
    name += " (" + std::to_string(std::lround(entry["ratings"][side].get<double>())) + ")";
  }
  return name;
}

/// A `tables` entry's match as a player says it: "7 points", "basis", "free play".
std::string match_text(const json& options) {
  if (!options.is_object() || !options.contains("match")) return "-";
  const json& m = options["match"];
  if (m.is_number_integer()) return std::to_string(m.get<int>()) + " pt";
  if (m.is_string() && m.get<std::string>() == "off") return "free play";
  return m.is_string() ? m.get<std::string>() : "-";
}

/// One `tables` entry as a line of the lobby view's table.
std::string table_row(const json& entry) {
  const json options = entry.value("options", json::object());
  std::string row = cell(text_field(entry, "name"), 14) + " " + cell(seat_text(entry, "red"), 15) +
                    " " + cell(seat_text(entry, "black"), 15) + " " +
                    cell(text_field(options, "variant"), 8) + " " + cell(match_text(options), 9) +
                    " " + cell(std::to_string(entry.value("spectators", 0)), 3);
  if (options.is_object() && options.value("private", false)) row += " private";
  return row;
}

/// "0:07", "1:02": seconds as minutes and seconds.
std::string waited_text(long long seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld", seconds / 60, seconds % 60);
  return buf;
}

/// The rating window `seconds` into a wait, as S5 widens it: ±100, 50 wider every 10 s
/// up to ±400, no bound (-1) from 70 s. For the display only: the server pairs.
long long window_at(long long seconds) {
  const long long tens = std::max(0LL, seconds) / 10;
  return tens >= 7 ? -1 : std::min(400LL, 100 + 50 * tens);
}

/// A number field as text ("0" when missing).
std::string number_text(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return "0";
  if (j[key].is_number_integer()) return std::to_string(j[key].get<long long>());
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", j[key].get<double>());
  return buf;
}

/// A tournament view's heading: "tournament spring: knockout, running, round 1".
std::string tournament_heading(const json& t) {
  std::string out = "tournament " + text_field(t, "name") + ": " + text_field(t, "kind") + ", " +
                    text_field(t, "status");
  if (text_field(t, "status") == "running") out += ", round " + number_text(t, "round");
  if (text_field(t, "status") == "registering")
    out += ", " + number_text(t, "registered") + " registered";
  return out;
}

/// The standings of a tournament view as lines (at most `most` players); `compact`: a
/// short line for the board's side panel ("  1 alice 2 wins 4 pt").
std::vector<std::string> standing_lines(const json& t, std::size_t most, bool compact = false) {
  std::vector<std::string> out;
  if (!t.contains("standings") || !t["standings"].is_array()) return out;
  for (const auto& s : t["standings"]) {
    if (out.size() == most) {
      out.push_back("  ... " + std::to_string(t["standings"].size() - most) + " more");
      break;
    }
    if (compact) {
      out.push_back("  " + number_text(s, "rank") + " " + text_field(s, "name") + " " +
                    number_text(s, "wins") + " wins " + number_text(s, "points") + " pt");
      continue;
    }
    out.push_back("  " + cell(number_text(s, "rank"), 4) + cell(text_field(s, "name"), 18) +
                  " wins " + cell(number_text(s, "wins"), 4) + " points " +
                  cell(number_text(s, "points"), 5) + " Buchholz " + number_text(s, "buchholz"));
  }
  return out;
}

}  // namespace

screen::screen(style s)
    : style_{std::move(s)}, board_{board_view::style{style_.colour, style_.viewer}} {}

void screen::log(std::string line) {
  std::istringstream in{line};
  std::string part;
  while (std::getline(in, part)) log_.push_back(part);
  while (log_.size() > kept_log_lines) log_.pop_front();
}

std::string screen::status(connection::status st, const std::string& detail) {
  switch (st) {
    case connection::status::connected:
      link_ = "connected to " + detail;
      break;
    case connection::status::disconnected:
      link_ = "disconnected";
      log("* connection lost: " + detail);
      break;
    case connection::status::reconnecting:
      link_ = "reconnecting in " + detail + " ms";
      break;
    case connection::status::failed:
      link_ = "gave up";
      log("* " + detail);
      break;
    case connection::status::closed:
      link_ = "closed";
      break;
  }
  return redraw();
}

std::string screen::message(const json& m) {
  const std::string type = m.value("type", "");
  const std::string table = text_field(m, "table");
  const std::string where = table.empty() || table == style_.table ? "" : "[" + table + "] ";
  if (type == "state") {
    if (table == style_.table) state_ = m;
  } else if (type == "event") {
    log(where + m.value("text", ""));
  } else if (type == "chat") {
    log(where + "<" + text_field(m, "from") + "> " + m.value("text", ""));
  } else if (type == "info") {
    const std::string topic = text_field(m, "topic");
    if (topic == "who" && m.contains("data") && m["data"].is_object()) online_ = m["data"];
    if (topic == "who" && style_.table.empty() && online_.is_object()) return redraw();
    // The viewer's own /seek: kept while it waits, gone when withdrawn or paired.
    const json data = m.value("data", json::object());
    if (topic == "seek" && data.is_object() && text_field(data, "status") == "waiting") {
      seek_ = data;
      seek_seen_ = std::chrono::steady_clock::now();
    } else if (topic == "seek" || topic == "play") {
      seek_ = json{};
    }
    if (topic == "invitation") {  // /go alone enters the table invited to
      log(where + m.value("text", "") + " (/go to enter)");
    } else {
      log(where + m.value("text", ""));
    }
  } else if (type == "broadcast") {  // an administrator's /broadcast (issue 13)
    log("** " + text_field(m, "from") + " (administrator): " + m.value("text", ""));
  } else if (type == "error") {
    log("! " + m.value("message", "") + " (" + text_field(m, "code") + ")");
  } else if (type == "welcome") {
    std::string account;
    if (m.contains("account") && m["account"].is_object() &&
        m["account"].value("registered", false)) {
      const auto& a = m["account"];
      char buf[96];
      const auto rating = [&](const char* v) {
        return a.contains("rating") && a["rating"].is_object() && a["rating"].contains(v) &&
                       a["rating"][v].is_number()
                   ? a["rating"][v].get<double>()
                   : 0.0;
      };
      std::snprintf(buf, sizeof buf, " (registered: standard %.2f, long %.2f)", rating("standard"),
                    rating("long"));
      account = buf;
      std::snprintf(buf, sizeof buf, "rating: standard %.2f, long %.2f", rating("standard"),
                    rating("long"));
      rating_ = buf;
    } else {
      rating_ = "a guest: register to be rated";
    }
    log("* welcome, " + text_field(m, "name") + account +
        (m.value("resumed", false) ? " (resumed: seats kept)" : ""));
  } else if (type == "lobby") {  // the count of players waiting, pushed (S5)
    if (m.contains("seeking") && m["seeking"].is_object()) seeking_ = m["seeking"];
  } else if (type == "tables") {
    tables_ = m;
    if (m.contains("seeking") && m["seeking"].is_object()) seeking_ = m["seeking"];
    if (!style_.table.empty()) {  // drawn in the lobby view; logged at a table
      std::string list = "tables:";
      if (m.contains("tables") && m["tables"].is_array()) {
        for (const auto& t : m["tables"]) list += "\n  " + table_row(t);
      }
      log(list);
    }
  } else if (type == "tournament" && m.contains("tournament") && m["tournament"].is_object()) {
    // The newest view of a tournament (RULES.md S6): its standings in the lobby view; a
    // line in the log when it starts a round or ends.
    const json& t = m["tournament"];
    const bool same =
        tournament_.is_object() && text_field(tournament_, "name") == text_field(t, "name");
    const bool moved = !same || text_field(tournament_, "status") != text_field(t, "status") ||
                       number_text(tournament_, "round") != number_text(t, "round");
    tournament_ = t;
    if (moved) {
      std::string line = "* " + tournament_heading(t);
      if (text_field(t, "status") == "finished" && t.contains("standings") &&
          t["standings"].is_array() && !t["standings"].empty())
        line += ": " + text_field(t["standings"][0], "name") + " wins";
      log(line);
    }
  } else if (type == "tournament_pairing") {
    // The link enters the table by itself (connection.cpp); the log says why.
    log("* " +
        m.value("text", "tournament " + text_field(m, "tournament") + ": you play " +
                            text_field(m, "opponent") + " at table " + table) +
        " - gammon-term takes you there");
  } else if (type == "pong") {
    return {};
  }
  return redraw();
}

std::vector<std::string> screen::lobby_lines() const {
  std::vector<std::string> out;
  out.push_back("lobby - " + style_.viewer + ", " + rating_);
  out.emplace_back();
  out.push_back(cell("table", 14) + " " + cell("red", 15) + " " + cell("black", 15) + " " +
                cell("variant", 8) + " " + cell("match", 9) + " " + "watchers");
  constexpr std::size_t shown_tables = 12;
  std::size_t rows = 0;
  std::size_t listed = 0;
  if (tables_.contains("tables") && tables_["tables"].is_array()) {
    listed = tables_["tables"].size();
    for (const auto& t : tables_["tables"]) {
      if (rows == shown_tables) break;
      out.push_back(table_row(t));
      ++rows;
    }
  }
  if (!tables_.is_object()) {
    out.emplace_back("  (asking the server...)");
  } else if (listed == 0) {
    out.emplace_back("  no table yet: /go NAME opens one, /play bot plays the computer");
  }
  const std::size_t total = tables_.is_object() ? tables_.value("total", listed) : 0;
  if (total > rows) {
    out.push_back("  ... " + std::to_string(total - rows) +
                  " more (/tables shows them in the log)");
  }
  out.emplace_back();
  if (seeking_.is_object()) {
    const int standard = seeking_.value("standard", 0);
    const int lng = seeking_.value("long", 0);
    out.push_back(standard == 0 && lng == 0
                      ? "play now (/seek): nobody is waiting for a game"
                      : "play now (/seek): " + std::to_string(standard) +
                            " waiting for standard, " + std::to_string(lng) + " for long");
  }
  if (seek_.is_object()) {
    const auto waited =
        seek_.value("waited", 0LL) + std::chrono::duration_cast<std::chrono::seconds>(
                                         std::chrono::steady_clock::now() - seek_seen_)
                                         .count();
    // The server's window while it is the one it sent; from then on as S5 widens it.
    long long window = seek_.contains("window") && seek_["window"].is_number()
                           ? std::llround(seek_["window"].get<double>())
                           : -1;
    if (waited / 10 != seek_.value("waited", 0LL) / 10) window = window_at(waited);
    out.push_back(
        "you wait for an opponent (" + text_field(seek_, "variant") + "): " + waited_text(waited) +
        ", " +
        (window < 0 ? std::string{"any rating"} : "rating within " + std::to_string(window)) +
        " (/unseek to stop)");
  }
  if (online_.is_object() && online_.contains("online") && online_["online"].is_array()) {
    std::string line =
        "online (" + std::to_string(online_.value("total", online_["online"].size())) + "):";
    bool first = true;
    for (const auto& n : online_["online"]) {
      if (!n.is_string()) continue;
      const std::string item = (first ? " " : ", ") + n.get<std::string>();
      if (line.size() + item.size() > width - 4) {
        line += ", ...";
        break;
      }
      line += item;
      first = false;
    }
    out.push_back(line);
  } else {
    out.emplace_back("online: (asking the server...)");
  }
  if (tournament_.is_object()) {  // the newest tournament's standings (S6)
    constexpr std::size_t shown_standings = 8;
    out.emplace_back();
    out.push_back(tournament_heading(tournament_));
    for (auto& line : standing_lines(tournament_, shown_standings)) out.push_back(std::move(line));
  }
  return out;
}

std::string screen::tick() {
  if (!style_.clear || !style_.table.empty() || !seek_.is_object() || state_.is_object()) return {};
  const auto waited = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::steady_clock::now() - seek_seen_)
                          .count();
  if (waited == seek_drawn_) return {};
  seek_drawn_ = waited;
  return redraw();
}

std::string screen::prompt() const {
  return (style_.table.empty() ? std::string{"lobby"} : style_.table) + "> ";
}

std::string screen::hints() const {
  if (!state_.is_object())
    return style_.table.empty()
               ? "lobby: /go TABLE enters a table, /seek [standard|long] finds an opponent, "
                 "/play bot [LEVEL] [standard|long] [match N], /help, chat"
               : "";
  const std::string you = board_view::side_of(state_, style_.viewer);
  const std::string phase = text_field(state_, "phase");
  const std::string to_act = text_field(state_, "to_act");
  const bool mine = !you.empty() && to_act == you;
  if (you.empty()) {
    if (phase == "waiting" || phase == "match_over") return "watching: /join to sit down";
    return "watching";
  }
  if (phase == "waiting")
    return "/start (both seats taken), /option match 7|basis|off, /option variant long";
  if (phase == "opening") return "/roll for the opening roll";
  if (phase == "match_over") return "match over: /start to play again";
  if (phase == "game_over") return "/continue or /stop";
  if (!mine) {
    const json players = state_.value("players", json::object());
    const std::string other = to_act.empty() ? std::string{} : text_field(players, to_act.c_str());
    // state.bot_thinking: a computer player's answer is on the way (issue 25).
    if (state_.value("bot_thinking", false))
      return (other.empty() ? std::string("the computer") : other) + " is thinking...";
    return "waiting for " + (other.empty() ? to_act : other);
  }
  if (phase == "roll") {
    return state_.value("may_double", false) ? "your turn: /roll or /double" : "your turn: /roll";
  }
  if (phase == "cube_offered") return "you are doubled: /take or /drop";
  if (phase == "resign_offered") return "a resignation is offered: /accept or /reject";
  if (phase == "move") {
    std::string out = "your move: /move <play>, one of:";
    std::string line = " ";
    std::size_t shown = 0;
    if (state_.contains("legal") && state_["legal"].is_array()) {
      for (const auto& play : state_["legal"]) {
        if (!play.is_string()) continue;
        if (shown == shown_plays) {
          line += " ... (" + std::to_string(state_["legal"].size()) + " in all)";
          break;
        }
        const std::string item = "  " + play.get<std::string>();
        if (line.size() + item.size() > width) {
          out += "\n" + line;
          line = " ";
        }
        line += item;
        ++shown;
      }
    }
    return out + "\n" + line;
  }
  return "";
}

std::string screen::redraw() const {
  std::string out = style_.clear ? "\x1b[H\x1b[2J" : "\n";
  if (state_.is_object()) {
    // A running tournament's standings in the side panel (S6), the best first.
    std::vector<std::string> extra;
    if (tournament_.is_object() && text_field(tournament_, "status") == "running") {
      constexpr std::size_t panel_standings = 4;
      extra.push_back(tournament_heading(tournament_));
      for (auto& line : standing_lines(tournament_, panel_standings, true))
        extra.push_back(std::move(line));
    }
    for (const auto& line : board_.render(state_, extra)) out += line + "\n";
  } else if (style_.table.empty()) {
    for (const auto& line : lobby_lines()) out += line + "\n";
  } else {
    out += "table " + style_.table + " (no state yet)\n";
  }
  out += "\n";
  const std::size_t from = log_.size() > style_.log_lines ? log_.size() - style_.log_lines : 0;
  for (std::size_t i = from; i < log_.size(); ++i) out += log_[i] + "\n";
  out += "-- " + style_.viewer + (style_.table.empty() ? " in the lobby" : " at " + style_.table) +
         " - " + link_ + " - Ctrl-D quits\n";
  const std::string h = hints();
  if (!h.empty()) out += h + "\n";
  out += prompt();
  return out;
}

std::string screen::view(const std::string& table) {
  style_.table = table;
  state_ = nlohmann::json{};
  log(table.empty() ? "now in the lobby" : "now at table " + table + " (/lobby to leave)");
  return redraw();
}

}  // namespace bg::term
