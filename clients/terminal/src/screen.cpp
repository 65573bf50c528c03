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
  const std::size_t wide = columns(text);
  if (wide <= n) return text + std::string(n - wide, ' ');
  std::string out;  // the first n - 1 characters, never a part of one
  std::size_t taken = 0;
  for (const char c : text) {
    const bool starts = (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
    if (starts && ++taken == n) break;
    out += c;
  }
  return out + "~";
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
std::string match_text(const json& options, std::string_view lang) {
  if (!options.is_object() || !options.contains("match")) return "-";
  const json& m = options["match"];
  if (m.is_number_integer()) return tr(lang, "term.lobby.match_points", {{"points", m.get<int>()}});
  if (m.is_string() && m.get<std::string>() == "off") return tr(lang, "term.lobby.free_play");
  return m.is_string() ? m.get<std::string>() : "-";
}

/// One `tables` entry as a line of the lobby view's table.
std::string table_row(const json& entry, std::string_view lang) {
  const json options = entry.value("options", json::object());
  std::string row = cell(text_field(entry, "name"), 14) + " " + cell(seat_text(entry, "red"), 15) +
                    " " + cell(seat_text(entry, "black"), 15) + " " +
                    cell(text_field(options, "variant"), 8) + " " +
                    cell(match_text(options, lang), 9) + " " +
                    cell(std::to_string(entry.value("spectators", 0)), 3);
  if (options.is_object() && options.value("private", false))
    row += " " + tr(lang, "term.lobby.private");
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
std::string tournament_heading(const json& t, std::string_view lang) {
  const long long registered = t.contains("registered") && t["registered"].is_number_integer()
                                   ? t["registered"].get<long long>()
                                   : 0;
  return tr(lang, "term.tournament.heading",
            {{"name", text_field(t, "name")},
             {"kind", text_field(t, "kind")},
             {"status", text_field(t, "status")},
             {"round", number_text(t, "round")},
             {"registered", registered}});
}

/// The standings of a tournament view as lines (at most `most` players); `compact`: a
/// short line for the board's side panel ("  1 alice 2 wins 4 pt").
std::vector<std::string> standing_lines(const json& t, std::size_t most, std::string_view lang,
                                        bool compact = false) {
  std::vector<std::string> out;
  if (!t.contains("standings") || !t["standings"].is_array()) return out;
  for (const auto& s : t["standings"]) {
    if (out.size() == most) {
      out.push_back("  " +
                    tr(lang, "term.tournament.more", {{"count", t["standings"].size() - most}}));
      break;
    }
    if (compact) {
      out.push_back("  " + tr(lang, "term.tournament.standing_short",
                              {{"rank", number_text(s, "rank")},
                               {"name", text_field(s, "name")},
                               {"wins", number_text(s, "wins")},
                               {"points", number_text(s, "points")}}));
      continue;
    }
    out.push_back("  " + tr(lang, "term.tournament.standing",
                            {{"rank", cell(number_text(s, "rank"), 4)},
                             {"name", cell(text_field(s, "name"), 18)},
                             {"wins", cell(number_text(s, "wins"), 4)},
                             {"points", cell(number_text(s, "points"), 5)},
                             {"buchholz", number_text(s, "buchholz")}}));
  }
  return out;
}

}  // namespace

screen::screen(style s)
    : style_{std::move(s)},
      board_{board_view::style{style_.colour, style_.viewer, {}, style_.lang}},
      link_{tr(style_.lang, "term.link.connecting")},
      rating_{tr(style_.lang, "term.lobby.guest_short")} {}

void screen::log(std::string line) {
  std::istringstream in{line};
  std::string part;
  while (std::getline(in, part)) log_.push_back(part);
  while (log_.size() > kept_log_lines) log_.pop_front();
}

std::string screen::status(connection::status st, const std::string& detail) {
  switch (st) {
    case connection::status::connected:
      link_ = tr(style_.lang, "term.link.connected", {{"url", detail}});
      break;
    case connection::status::disconnected:
      link_ = tr(style_.lang, "term.link.disconnected");
      log(tr(style_.lang, "term.log.connection_lost", {{"why", detail}}));
      break;
    case connection::status::reconnecting:
      link_ = tr(style_.lang, "term.link.reconnecting", {{"ms", detail}});
      break;
    case connection::status::failed:
      link_ = tr(style_.lang, "term.link.gave_up");
      log("* " + detail);
      break;
    case connection::status::closed:
      link_ = tr(style_.lang, "term.link.closed");
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
  } else if (type == "chat" && m.contains("to")) {  // a private message (/tell)
    log("<" + text_field(m, "from") + " -> " + text_field(m, "to") + "> " + m.value("text", ""));
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
      log(where + tr(style_.lang, "term.log.invitation", {{"text", m.value("text", "")}}));
    } else {
      log(where + m.value("text", ""));
    }
  } else if (type == "broadcast") {  // an administrator's /broadcast (issue 13)
    log(tr(style_.lang, "term.log.broadcast",
           {{"from", text_field(m, "from")}, {"text", m.value("text", "")}}));
  } else if (type == "error") {
    log(tr(style_.lang, "term.log.error",
           {{"message", m.value("message", "")}, {"code", text_field(m, "code")}}));
  } else if (type == "welcome") {
    welcome(m);
  } else if (type == "lobby") {  // the count of players waiting, pushed (S5)
    if (m.contains("seeking") && m["seeking"].is_object()) seeking_ = m["seeking"];
  } else if (type == "tables") {
    tables_ = m;
    if (m.contains("seeking") && m["seeking"].is_object()) seeking_ = m["seeking"];
    if (!style_.table.empty()) {  // drawn in the lobby view; logged at a table
      std::string list = tr(style_.lang, "term.log.tables");
      if (m.contains("tables") && m["tables"].is_array()) {
        for (const auto& t : m["tables"]) list += "\n  " + table_row(t, style_.lang);
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
      std::string line = tournament_heading(t, style_.lang);
      if (text_field(t, "status") == "finished" && t.contains("standings") &&
          t["standings"].is_array() && !t["standings"].empty())
        line = tr(style_.lang, "term.tournament.winner",
                  {{"heading", line}, {"name", text_field(t["standings"][0], "name")}});
      log("* " + line);
    }
  } else if (type == "tournament_pairing") {
    // The link enters the table by itself (connection.cpp); the log says why.
    const std::string text = m.value("text", tr(style_.lang, "term.log.pairing_text",
                                                {{"tournament", text_field(m, "tournament")},
                                                 {"opponent", text_field(m, "opponent")},
                                                 {"table", table}}));
    log(tr(style_.lang, "term.log.pairing", {{"text", text}}));
  } else if (type == "pong") {
    return {};
  }
  return redraw();
}

void screen::welcome(const json& m) {
  const std::string& lang = style_.lang;
  const bool registered =
      m.contains("account") && m["account"].is_object() && m["account"].value("registered", false);
  std::string standard;
  std::string lng;
  if (registered) {
    const auto& a = m["account"];
    const auto rating = [&](const char* v) {
      const double r = a.contains("rating") && a["rating"].is_object() && a["rating"].contains(v) &&
                               a["rating"][v].is_number()
                           ? a["rating"][v].get<double>()
                           : 0.0;
      char buf[48];
      std::snprintf(buf, sizeof buf, "%.2f", r);
      return std::string{buf};
    };
    standard = rating("standard");
    lng = rating("long");
    rating_ = tr(lang, "term.lobby.rating", {{"standard", standard}, {"long", lng}});
  } else {
    rating_ = tr(lang, "term.lobby.guest");
  }
  log(tr(lang, "term.log.welcome",
         {{"name", text_field(m, "name")},
          {"registered", registered ? "yes" : "no"},
          {"standard", standard},
          {"long", lng},
          {"resumed", m.value("resumed", false) ? "yes" : "no"}}));
}

std::vector<std::string> screen::lobby_lines() const {
  const std::string& lang = style_.lang;
  std::vector<std::string> out;
  out.push_back(tr(lang, "term.lobby.title", {{"viewer", style_.viewer}, {"rating", rating_}}));
  out.emplace_back();
  out.push_back(cell(tr(lang, "term.lobby.column_table"), 14) + " " +
                cell(tr(lang, "term.lobby.column_red"), 15) + " " +
                cell(tr(lang, "term.lobby.column_black"), 15) + " " +
                cell(tr(lang, "term.lobby.column_variant"), 8) + " " +
                cell(tr(lang, "term.lobby.column_match"), 9) + " " +
                tr(lang, "term.lobby.column_watchers"));
  constexpr std::size_t shown_tables = 12;
  std::size_t rows = 0;
  std::size_t listed = 0;
  if (tables_.contains("tables") && tables_["tables"].is_array()) {
    listed = tables_["tables"].size();
    for (const auto& t : tables_["tables"]) {
      if (rows == shown_tables) break;
      out.push_back(table_row(t, lang));
      ++rows;
    }
  }
  if (!tables_.is_object()) {
    out.push_back("  " + tr(lang, "term.lobby.asking"));
  } else if (listed == 0) {
    out.push_back("  " + tr(lang, "term.lobby.no_tables"));
  }
  const std::size_t total = tables_.is_object() ? tables_.value("total", listed) : 0;
  if (total > rows)
    out.push_back("  " + tr(lang, "term.lobby.more_tables", {{"count", total - rows}}));
  out.emplace_back();
  if (seeking_.is_object()) {
    const int standard = seeking_.value("standard", 0);
    const int lng = seeking_.value("long", 0);
    out.push_back(standard == 0 && lng == 0
                      ? tr(lang, "term.lobby.seeking_none")
                      : tr(lang, "term.lobby.seeking", {{"standard", standard}, {"long", lng}}));
  }
  if (seek_.is_object()) out.push_back(seek_line());
  out.push_back(online_line());
  if (tournament_.is_object()) {  // the newest tournament's standings (S6)
    constexpr std::size_t shown_standings = 8;
    out.emplace_back();
    out.push_back(tournament_heading(tournament_, lang));
    for (auto& line : standing_lines(tournament_, shown_standings, lang))
      out.push_back(std::move(line));
  }
  return out;
}

std::string screen::seek_line() const {
  const auto waited =
      seek_.value("waited", 0LL) + std::chrono::duration_cast<std::chrono::seconds>(
                                       std::chrono::steady_clock::now() - seek_seen_)
                                       .count();
  // The server's window while it is the one it sent; from then on as S5 widens it.
  long long window = seek_.contains("window") && seek_["window"].is_number()
                         ? std::llround(seek_["window"].get<double>())
                         : -1;
  if (waited / 10 != seek_.value("waited", 0LL) / 10) window = window_at(waited);
  return tr(style_.lang, "term.lobby.seek",
            {{"variant", text_field(seek_, "variant")},
             {"waited", waited_text(waited)},
             {"window", window < 0 ? std::string{"any"} : std::to_string(window)}});
}

std::string screen::online_line() const {
  if (!online_.is_object() || !online_.contains("online") || !online_["online"].is_array())
    return tr(style_.lang, "term.lobby.online_asking");
  std::string line = tr(style_.lang, "term.lobby.online",
                        {{"count", online_.value("total", online_["online"].size())}});
  bool first = true;
  for (const auto& n : online_["online"]) {
    if (!n.is_string()) continue;
    const std::string item = (first ? " " : ", ") + n.get<std::string>();
    if (columns(line) + columns(item) > width - 4) {
      line += ", ...";
      break;
    }
    line += item;
    first = false;
  }
  return line;
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
  return (style_.table.empty() ? tr(style_.lang, "term.prompt.lobby") : style_.table) + "> ";
}

std::string screen::hints() const {
  const std::string& lang = style_.lang;
  if (!state_.is_object()) return style_.table.empty() ? tr(lang, "term.hint.lobby") : "";
  const std::string you = board_view::side_of(state_, style_.viewer);
  const std::string phase = text_field(state_, "phase");
  const std::string to_act = text_field(state_, "to_act");
  const bool mine = !you.empty() && to_act == you;
  if (you.empty()) {
    if (phase == "waiting" || phase == "match_over") return tr(lang, "term.hint.watching_join");
    return tr(lang, "term.hint.watching");
  }
  if (phase == "waiting") return tr(lang, "term.hint.waiting");
  if (phase == "opening") return tr(lang, "term.hint.opening");
  if (phase == "match_over") return tr(lang, "term.hint.match_over");
  if (phase == "game_over") return tr(lang, "term.hint.game_over");
  if (!mine) {
    const json players = state_.value("players", json::object());
    const std::string other = to_act.empty() ? std::string{} : text_field(players, to_act.c_str());
    // state.bot_thinking: a computer player's answer is on the way (issue 25).
    if (state_.value("bot_thinking", false)) {
      return other.empty() ? tr(lang, "term.hint.computer_thinking")
                           : tr(lang, "term.hint.thinking", {{"name", other}});
    }
    return tr(lang, "term.hint.waiting_for", {{"name", other.empty() ? to_act : other}});
  }
  if (phase == "roll") {
    return state_.value("may_double", false) ? tr(lang, "term.hint.roll_or_double")
                                             : tr(lang, "term.hint.roll");
  }
  if (phase == "cube_offered") return tr(lang, "term.hint.doubled");
  if (phase == "resign_offered") return tr(lang, "term.hint.resign_offered");
  if (phase == "move") return move_hint();
  return "";
}

std::string screen::move_hint() const {
  std::string out = tr(style_.lang, "term.hint.move");
  std::string line = " ";
  std::size_t shown = 0;
  if (state_.contains("legal") && state_["legal"].is_array()) {
    for (const auto& play : state_["legal"]) {
      if (!play.is_string()) continue;
      if (shown == shown_plays) {
        line +=
            " " + tr(style_.lang, "term.hint.plays_in_all", {{"count", state_["legal"].size()}});
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

std::string screen::redraw() const {
  std::string out = style_.clear ? "\x1b[H\x1b[2J" : "\n";
  if (state_.is_object()) {
    // A running tournament's standings in the side panel (S6), the best first.
    std::vector<std::string> extra;
    if (tournament_.is_object() && text_field(tournament_, "status") == "running") {
      constexpr std::size_t panel_standings = 4;
      extra.push_back(tournament_heading(tournament_, style_.lang));
      for (auto& line : standing_lines(tournament_, panel_standings, style_.lang, true))
        extra.push_back(std::move(line));
    }
    for (const auto& line : board_.render(state_, extra)) out += line + "\n";
  } else if (style_.table.empty()) {
    for (const auto& line : lobby_lines()) out += line + "\n";
  } else {
    out += tr(style_.lang, "term.screen.no_state", {{"table", style_.table}}) + "\n";
  }
  out += "\n";
  const std::size_t from = log_.size() > style_.log_lines ? log_.size() - style_.log_lines : 0;
  for (std::size_t i = from; i < log_.size(); ++i) out += log_[i] + "\n";
  out += tr(style_.lang, "term.screen.status",
            {{"viewer", style_.viewer},
             {"in_lobby", style_.table.empty() ? "yes" : "no"},
             {"table", style_.table},
             {"link", link_}}) +
         "\n";
  const std::string h = hints();
  if (!h.empty()) out += h + "\n";
  out += prompt();
  return out;
}

std::string screen::view(const std::string& table) {
  style_.table = table;
  state_ = nlohmann::json{};
  log(table.empty() ? tr(style_.lang, "term.log.now_lobby")
                    : tr(style_.lang, "term.log.now_at", {{"table", table}}));
  return redraw();
}

}  // namespace bg::term
