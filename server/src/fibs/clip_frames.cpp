// What gammond sends a FIBS connection, as CLIP lines: the login's lines, the who-list,
// the board, the game's lines, chat (clip_translator.hpp, protocol/FIBS.md).

#include "bg/server/fibs/clip_translator.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "bg/server/fibs/clip_board.hpp"
#include "bg/server/players/names.hpp"
#include "fibs/clip_text.hpp"
#include "fibs/json_fields.hpp"

namespace bg::server::fibs {
namespace {

using nlohmann::json;
using namespace json_fields;
using namespace clip_text;

}  // namespace

clip_actions clip_translator::on_frame(std::string_view frame, std::int64_t now_s) {
  clip_actions a;
  json m = json::parse(frame, nullptr, false);
  if (!m.is_object()) return a;
  const std::string type = text_at(m, "type");
  // Our own requests carry ids "f:KIND:N[:EXTRA]".
  std::string kind;
  std::string extra;
  if (const std::string re = text_at(m, "re"); re.rfind("f:", 0) == 0) {
    const auto second = re.find(':', 2);
    kind = re.substr(2, second == std::string::npos ? std::string::npos : second - 2);
    if (second != std::string::npos) {
      const auto third = re.find(':', second + 1);
      if (third != std::string::npos) extra = re.substr(third + 1);
    }
  }
  if (type == "welcome") {
    on_welcome(a, m, now_s);
  } else if (type == "error") {
    on_error(a, m, kind);
  } else if (type == "state") {
    on_state(a, m);
  } else if (type == "event") {
    on_event(a, m);
  } else if (type == "chat") {
    on_chat(a, m);
  } else if (type == "info") {
    on_info(a, m, kind, extra);
  } else if (type == "tables") {
    on_tables(a, m, extra);
  } else if (type == "broadcast") {
    a.line("13 " + text_at(m, "from") + " " + text_at(m, "text"));
  }
  return a;
}

void clip_translator::on_welcome(clip_actions& a, const json& m, std::int64_t now_s) {
  if (stage_ != stage::waiting) return;
  const bool registered =
      typed_password_.empty() && stage_ == stage::waiting && text_at(m, "re") == "f:register:0";
  name_ = text_at(m, "name");
  stage_ = stage::ready;
  const auto& account = at(m, "account");
  if (const auto& r = at(at(account, "rating"), "standard"); r.is_number())
    rating_ = r.get<double>();
  experience_ = int_at(at(account, "experience"), "standard");
  if (registered) {
    a.line("You are registered.");
    a.line("Type 'help beginner' to get started.");
  }
  login_lines(a, now_s);
  // The seats this account holds (a match left, or one under way when gammond
  // restarted): its state follows the welcome.
  if (const auto& tables = at(m, "tables");
      tables.is_array() && !tables.empty() && tables[0].is_string()) {
    playing_ = tables[0].get<std::string>();
  }
  send_line(a, "", "/who", "who");
}

void clip_translator::login_lines(clip_actions& a, std::int64_t now_s) {
  a.line("1 " + name_ + " " + std::to_string(now_s) + " " +
         (options_.address.empty() ? std::string{"-"} : options_.address));
  const auto flag = [&](const char* n) { return toggles_.at(n).on ? " 1" : " 0"; };
  std::string own = "2 " + name_;
  for (const char* n :
       {"allowpip", "autoboard", "autodouble", "automove", "away", "bell", "crawford", "double"})
    own += flag(n);
  own += " " + std::to_string(experience_);
  for (const char* n : {"greedy", "moreboards", "moves", "notify"}) own += flag(n);
  own += " " + rating_text(rating_);
  own += flag("ratings");
  own += flag("ready");
  own += " 0";  // redoubles
  own += flag("report");
  own += flag("silent");
  own += " UTC";
  a.line(own);
  a.line("3");
  if (!options_.motd.empty()) text_lines(a, options_.motd);
  a.line("4");
}

void clip_translator::who_lines(clip_actions& a, const std::vector<std::string>& names, bool end) {
  for (const auto& n : names) {
    std::string opponent = "-";
    const std::string key = name_key(n);
    for (const auto& [table, state] : states_) {
      const std::string red = name_at(state, "red");
      const std::string black = name_at(state, "black");
      if (!red.empty() && name_key(red) == key && !black.empty()) opponent = black;
      if (!black.empty() && name_key(black) == key && !red.empty()) opponent = red;
    }
    const auto since = seen_since_.find(key);
    const bool ready = is_me(n) ? toggles_.at("ready").on : true;
    const bool away = is_me(n) && toggles_.at("away").on;
    a.line("5 " + n + " " + opponent + " - " + (ready ? "1" : "0") + " " + (away ? "1" : "0") +
           " " + rating_text(is_me(n) ? rating_ : 1500.0) + " " +
           std::to_string(is_me(n) ? experience_ : 0) + " 0 " +
           std::to_string(since == seen_since_.end() ? 0 : since->second) + " - - -");
  }
  if (end) a.line("6");
}

void clip_translator::on_error(clip_actions& a, const json& m, std::string_view kind) {
  const std::string message = text_at(m, "message");
  if (kind == "login" || kind == "register") {
    if (stage_ != stage::waiting) return;
    if (kind == "login") {
      stage_ = stage::login;
      a.line("** " + message);
      a.out += "login: ";
    } else {
      stage_ = stage::guest;
      a.line("** " + message);
      a.line("** Type 'name NAME' to choose another name.");
      a.out += "> ";
    }
    return;
  }
  if (kind == "watch") watch_search_.clear();
  if (kind == "auto" || kind == "who") return;  // our own steps: nothing to tell
  if (stage_ != stage::ready) return;
  a.line("** " + message);
  // The seat of an invite or a join was refused: there is no match to play.
  if (kind == "seat") forget_match();
}

void clip_translator::on_info(clip_actions& a, const json& m, std::string_view kind,
                              std::string_view /*extra*/) {
  const std::string topic = text_at(m, "topic");
  const auto& data = at(m, "data");
  if (kind == "who" && topic == "who") {
    std::set<std::string> now;
    std::map<std::string, std::string> shown;
    if (const auto& online = at(data, "online"); online.is_array()) {
      for (const auto& n : online) {
        if (!n.is_string()) continue;
        const std::string key = name_key(n.get<std::string>());
        now.insert(key);
        shown[key] = n.get<std::string>();
      }
    }
    std::vector<std::string> arrived;
    for (const auto& [key, name] : shown) {
      if (online_.count(key) == 0) {
        arrived.push_back(name);
        seen_since_.emplace(key, 0);
      }
    }
    if (!who_known_) {
      who_lines(a, arrived, true);
    } else {
      for (const auto& n : arrived) {
        who_lines(a, {n}, false);
        if (!is_me(n)) a.line("7 " + n + " " + n + " logs in.");
      }
      for (const auto& [key, name] : online_) {
        if (now.count(key) == 0) {
          a.line("8 " + name + " " + name + " drops connection.");
          seen_since_.erase(key);
        }
      }
    }
    online_ = std::move(shown);
    who_known_ = true;
    return;
  }
  if (topic == "invitation") {
    const std::string by = text_at(data, "by");
    const std::string table = text_at(data, "table");
    if (by.empty() || table.empty()) return;
    invitations_.emplace_back(name_key(by), table);
    if (invitations_.size() > options_.max_invitations) invitations_.erase(invitations_.begin());
    const auto& match = at(data, "match");
    const std::int64_t length = match.is_number_integer() ? match.get<std::int64_t>()
                                : match == "basis"        ? 0
                                                          : -1;
    a.line(by + (length < 0 ? std::string{" wants to play a match with you."}
                            : " wants to play " + length_text(length) + " with you."));
    a.line("Type 'join " + by + "' to accept.");
    return;
  }
  if (kind == "who") return;
  if (topic == "whois") a.line("Information about " + text_at(data, "name") + ":");
  text_lines(a, text_at(m, "text"));
}

void clip_translator::on_tables(clip_actions& a, const json& m, std::string_view extra) {
  const auto& list = at(m, "tables");
  if (!list.is_array()) return;
  if (extra.empty()) {  // show games
    bool any = false;
    for (const auto& t : list) {
      const auto& players = at(t, "players");
      const std::string r = text_at(players, "red");
      const std::string b = text_at(players, "black");
      if (r.empty() || b.empty()) continue;
      any = true;
      const auto length = int_at(at(t, "options"), "match", 0);
      a.line(r + " - " + b + " (" +
             (length > 0 ? std::to_string(length) + " point match" : std::string{"unlimited"}) +
             ", table " + text_at(t, "name") + ")");
    }
    if (!any) a.line("** No games are being played.");
    return;
  }
  // watch NAME: the table where NAME sits.
  const std::string key = name_key(extra);
  for (const auto& t : list) {
    const auto& players = at(t, "players");
    for (const std::string side : {"red", "black"}) {
      const std::string n = text_at(players, side.c_str());
      if (n.empty() || name_key(n) != key) continue;
      if (!watching_.empty() && watching_ != playing_) {
        send(a, json{{"type", "exit"}, {"table", watching_}});
        states_.erase(watching_);
        shown_seq_.erase(watching_);
      }
      watching_ = text_at(t, "name");
      watched_side_ = side;
      shown_seq_.erase(watching_);
      send(a, json{{"type", "enter"}, {"table", watching_}});
      a.line("You're now watching " + n + ".");
      watch_search_.clear();
      return;
    }
  }
  const auto page = int_at(m, "page", 1);
  const auto pages = int_at(m, "pages", 1);
  if (page < pages && page < max_watch_pages) {
    send_line(a, "", "/tables " + std::to_string(page + 1), "watch", extra);
    return;
  }
  watch_search_.clear();
  a.line("** " + std::string(extra) + " is not playing.");
}

void clip_translator::print_board(clip_actions& a, const std::string& table) {
  const auto it = states_.find(table);
  if (it == states_.end()) return;
  const auto& state = it->second;
  const auto seq = static_cast<std::uint64_t>(int_at(state, "seq"));
  if (const auto s = shown_seq_.find(table); s != shown_seq_.end() && s->second == seq) return;
  shown_seq_[table] = seq;
  const std::string me = table == playing_ ? side_of_me(state) : std::string{};
  if (!me.empty()) {
    a.line(board_line(state, me, true));
  } else {
    a.line(board_line(state, watched_side_.empty() ? "red" : watched_side_, false));
  }
}

void clip_translator::on_state(clip_actions& a, const json& m) {
  const std::string table = text_at(m, "table");
  if (table.empty() || (table != playing_ && table != watching_)) return;
  const auto seq = static_cast<std::uint64_t>(int_at(m, "seq"));
  states_[table] = m;
  if (table != playing_) {
    if (toggles_.at("autoboard").on) print_board(a, table);
    return;
  }
  const std::string me = side_of_me(m);
  const std::string phase = text_at(m, "phase");
  const std::string turn = text_at(m, "turn");
  const bool fresh = acted_seq_[table] != seq || seq == 0;
  const bool both = !name_at(m, "red").empty() && !name_at(m, "black").empty();
  if (!me.empty() && fresh) {
    acted_seq_[table] = seq;
    // FIBS starts the match as soon as the invited player joins, rolls the opening roll
    // and every roll of a player who may not double (or asked not to be asked), and goes
    // on after each game of an unlimited match: gammond needs a command for each.
    const bool invited_sat = name_key(name_at(m, other(me))) == invited_name_;
    if (phase == "waiting" && both && table == invited_by_me_ && invited_sat) {
      send_line(a, table, "/start", "auto");
    } else if (phase == "opening") {
      send_line(a, table, "/roll", "auto");
    } else if (phase == "roll" && turn == me &&
               (!(at(m, "may_double").is_boolean() && at(m, "may_double").get<bool>()) ||
                !toggles_.at("double").on)) {
      send_line(a, table, "/roll", "auto");
    } else if (phase == "game_over" && int_at(m, "match_length") == 0) {
      const auto& continuing = at(m, "continuing");
      if (!(at(continuing, me.c_str()).is_boolean() && at(continuing, me.c_str()).get<bool>()))
        send_line(a, table, "/continue", "auto");
    } else if (phase == "move" && turn == me) {
      const auto& legal = at(m, "legal");
      if (toggles_.at("automove").on && legal.is_array() && legal.size() == 1 &&
          legal[0].is_string()) {
        send_line(a, table, "/move " + legal[0].get<std::string>(), "auto");
      }
    }
  }
  if (toggles_.at("autoboard").on && phase != "waiting") print_board(a, table);
  if (!me.empty() && phase == "move" && turn == me && fresh) {
    int pieces = 0;
    if (const auto& legal = at(m, "legal_moves"); legal.is_array())
      for (const auto& p : legal)
        if (p.is_array()) pieces = std::max(pieces, static_cast<int>(p.size()));
    if (pieces > 0)
      a.line("Please move " + std::to_string(pieces) + (pieces == 1 ? " piece." : " pieces."));
  }
}

void clip_translator::on_event(clip_actions& a, const json& m) {
  const std::string table = text_at(m, "table");
  if (table.empty() || (table != playing_ && table != watching_)) return;
  const std::string event = text_at(m, "event");
  const auto& state = states_[table];
  const std::string me = table == playing_ ? side_of_me(state) : std::string{};
  const std::string side = text_at(m, "side");
  const auto who = [&](const std::string& s) {
    if (!me.empty() && s == me) return std::string{"You"};
    const std::string n = name_at(state, s);
    return n.empty() ? s : n;
  };
  const std::string opponent = me.empty() ? std::string{} : name_at(state, other(me));
  const auto length = int_at(state, "match_length");
  const auto& dice = at(m, "dice");
  const auto die = [&](std::size_t i) {
    return dice.is_array() && dice.size() > i && dice[i].is_number_integer()
               ? std::to_string(dice[i].get<int>())
               : std::string{"?"};
  };
  if (event == "joined") {
    const std::string name = text_at(m, "name");
    if (table == invited_by_me_ && !is_me(name))
      a.line("** Player " + name + " has joined you for " + length_text(invited_length_) + ".");
  } else if (event == "started") {
    if (!me.empty()) a.line("** You are now playing " + length_text(length) + " with " + opponent);
  } else if (event == "game_started") {
    if (!me.empty()) a.line("Starting a new game with " + opponent + ".");
  } else if (event == "opening_roll") {
    const std::string red_die = std::to_string(int_at(m, "red_die"));
    const std::string black_die = std::to_string(int_at(m, "black_die"));
    if (!me.empty()) {
      const bool red = me == "red";
      a.line("You rolled " + (red ? red_die : black_die) + ", " + opponent + " rolled " +
             (red ? black_die : red_die));
      a.line(side == me ? std::string{"It's your turn to move."}
                        : opponent + " makes the first move.");
    } else {
      a.line(name_at(state, "red") + " rolled " + red_die + ", " + name_at(state, "black") +
             " rolled " + black_die);
    }
  } else if (event == "rolled") {
    a.line(side == me ? "You roll " + die(0) + " and " + die(1) + "."
                      : who(side) + " rolls " + die(0) + " and " + die(1) + ".");
  } else if (event == "passed") {
    a.line(side == me ? std::string{"You can't move."} : who(side) + " can't move.");
  } else if (event == "moved") {
    if (side != me) {
      const std::string moves =
          fibs_moves(text_at(m, "play"), side, dice, at(at(state, "board"), "points"));
      a.line(who(side) + " moves " + moves + " .");
    }
  } else if (event == "doubled") {
    if (side == me)
      a.line("You double. Please wait for " + opponent + " to accept or reject.");
    else if (!me.empty())
      a.line(who(side) + " doubles. Type 'accept' or 'reject'.");
    else
      a.line(who(side) + " doubles.");
  } else if (event == "took") {
    a.line((side == me ? std::string{"You accept"} : who(side) + " accepts") +
           " the double.  The cube shows " + std::to_string(int_at(m, "value")) + ".");
  } else if (event == "resign_offered") {
    const std::string kind = text_at(m, "kind");
    const std::int64_t per = kind == "backgammon" ? 3 : kind == "gammon" ? 2 : 1;
    const std::int64_t points = per * int_at(at(state, "cube"), "value", 1);
    if (side == me)
      a.line("You want to resign. " + opponent + " will win " + points_text(points) + ".");
    else if (!me.empty())
      a.line(who(side) + " wants to resign. You will win " + points_text(points) +
             ". Type 'accept' or 'reject'.");
    else
      a.line(who(side) + " wants to resign.");
  } else if (event == "resign_rejected") {
    a.line((side == me ? std::string{"You reject"} : who(side) + " rejects") +
           ". The game continues.");
  } else if (event == "game_over") {
    const std::string winner = text_at(m, "winner");
    const std::string loser = winner.empty() ? std::string{} : other(winner);
    const std::string reason = text_at(m, "reason");
    const std::string points = points_text(int_at(m, "points"));
    if (reason == "dropped") {
      a.line(loser == me ? "You give up. " + who(winner) + " wins " + points + "."
                         : who(loser) + " gives up. " + who(winner) +
                               (winner == me ? " win " : " wins ") + points + ".");
    } else if (reason == "resigned") {
      a.line(winner == me ? "You accept and win " + points + "."
                          : who(winner) + " accepts and wins " + points + ".");
    } else if (winner == me) {
      a.line("You win the game and get " + points + ". Congratulations!");
    } else if (!me.empty()) {
      a.line(who(winner) + " wins the game and gets " + points + ". Sorry.");
    } else {
      a.line(who(winner) + " wins the game and gets " + points + ".");
    }
    const auto& score = at(m, "score");
    a.line("score in " +
           (length > 0 ? std::to_string(length) + " point match: "
                       : std::string{"unlimited match: "}) +
           name_at(state, "red") + "-" + std::to_string(int_at(score, "red")) + " " +
           name_at(state, "black") + "-" + std::to_string(int_at(score, "black")));
  } else if (event == "match_over") {
    const std::string winner = text_at(m, "winner");
    const auto& score = at(m, "score");
    if (!winner.empty()) {
      const std::string a_score = std::to_string(int_at(score, winner.c_str()));
      const std::string b_score = std::to_string(int_at(score, other(winner).c_str()));
      const std::string what = length > 0 ? "the " + std::to_string(length) + " point match "
                                          : std::string{"the unlimited match "};
      a.line((winner == me ? std::string{"You win "} : who(winner) + " wins ") + what + a_score +
             "-" + b_score + " .");
    }
    if (table == playing_) {
      // FIBS: a finished match leaves the table; gammond's seat is given up too.
      send_line(a, table, "/leave", "auto");
      send(a, json{{"type", "exit"}, {"table", table}});
      forget_match();
    }
  } else if (event == "absent") {
    if (!is_me(text_at(m, "name")))
      a.line(text_at(m, "name") + " drops connection. The game was saved.");
  } else if (event == "returned") {
    if (!is_me(text_at(m, "name")))
      a.line(text_at(m, "name") + " has joined you. Your running match was loaded.");
  } else if (event == "forfeit" || event == "out_of_time" || event == "bot_failed" ||
             event == "kicked" || event == "closed") {
    a.line("** " + text_at(m, "text"));
    if ((event == "closed" || (event == "kicked" && is_me(text_at(m, "name")))) &&
        table == playing_)
      forget_match();
  }
}

void clip_translator::on_chat(clip_actions& a, const json& m) {
  const std::string from = text_at(m, "from");
  const std::string text = text_at(m, "text");
  if (is_me(from)) return;  // our own lines were echoed when sent
  const std::string table = text_at(m, "table");
  if (table.empty()) {
    if (m.contains("to")) {
      a.line("12 " + from + " " + text);
    } else if (!toggles_.at("silent").on) {
      a.line("13 " + from + " " + text);
    }
    return;
  }
  if (table != playing_ && table != watching_) return;
  const auto& state = states_[table];
  const std::string me = table == playing_ ? side_of_me(state) : std::string{};
  const bool opponent = !me.empty() && name_key(name_at(state, other(me))) == name_key(from);
  a.line((opponent ? "12 " : "15 ") + from + " " + text);
}

}  // namespace bg::server::fibs
