// What a logged-in FIBS player types, as gammond's messages (clip_translator.hpp,
// protocol/FIBS.md "Commands").

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

void clip_translator::command(clip_actions& a, std::string_view verb, std::string_view rest,
                              std::int64_t now_s) {
  const auto need_match = [&]() {
    if (!playing_.empty()) return true;
    a.line("** You're not playing.");
    return false;
  };
  const auto play = [&](std::string_view text) {
    if (need_match()) send_line(a, playing_, text, "cmd");
  };
  if (verb == "roll" || verb == "r") return play("/roll");
  if (verb == "double" || verb == "d") return play("/double");
  if (verb == "accept" || verb == "take") return play("/accept");
  if (verb == "reject" || verb == "drop") return play("/reject");
  if (verb == "move" || verb == "m") {
    if (!need_match()) return;
    const auto& state = states_[playing_];
    const std::string side = side_of_me(state);
    const auto written = gammond_play(rest, side.empty() ? "black" : side);
    if (!written) {
      a.line("** " + written.err().message);
      return;
    }
    return send_line(a, playing_, "/move " + *written, "cmd");
  }
  if (verb == "resign") {
    const std::string kind = lower(rest);
    std::string word = "single";
    if (kind == "g" || kind == "gammon")
      word = "gammon";
    else if (kind == "b" || kind == "backgammon")
      word = "backgammon";
    else if (!(kind == "n" || kind == "normal" || kind == "s" || kind == "single" ||
               kind.empty())) {
      a.line("** Type 'resign n', 'resign g' or 'resign b'.");
      return;
    }
    return play("/resign " + word);
  }
  if (verb == "leave") {
    if (!need_match()) return;
    const auto& state = states_[playing_];
    const std::string phase = text_at(state, "phase");
    const std::string me = side_of_me(state);
    if (phase == "waiting" || phase == "match_over" || me.empty()) {
      if (!me.empty()) send_line(a, playing_, "/leave", "auto");
      send(a, json{{"type", "exit"}, {"table", playing_}});
      a.line("** You left the table.");
    } else {
      // The seat is kept (gammond's grace period, S3): `join NAME` comes back to it.
      const std::string opponent = name_at(state, other(me));
      if (!opponent.empty()) {
        saved_[name_key(opponent)] = playing_;
        if (saved_.size() > options_.max_invitations) saved_.erase(saved_.begin());
      }
      send(a, json{{"type", "exit"}, {"table", playing_}});
      a.line("** You terminated the game. The game was saved.");
    }
    forget_match();
    return;
  }
  if (verb == "invite") {
    const auto [who, length_word] = first_word(rest);
    if (who.empty()) {
      a.line("** invite whom? Type 'invite NAME N' (N points, or 'unlimited').");
      return;
    }
    if (!playing_.empty()) {
      a.line("** You can't play two games at once");
      return;
    }
    const std::string key = name_key(who);
    if (who_known_ && online_.count(key) == 0) {
      a.line("** There is no one called " + std::string(who) + ".");
      return;
    }
    int length = 1;
    const std::string lw = lower(length_word);
    if (lw == "unlimited") {
      length = 0;
    } else if (!lw.empty()) {
      length = 0;
      for (const char ch : lw) {
        if (!std::isdigit(static_cast<unsigned char>(ch)) || length > 1000) {
          a.line("** The match length is a number of points, or 'unlimited'.");
          return;
        }
        length = length * 10 + (ch - '0');
      }
      if (length < 1) {
        a.line("** The match length is a number of points, or 'unlimited'.");
        return;
      }
    }
    char table[32];
    std::snprintf(table, sizeof table, "fibs-%08llx",
                  static_cast<unsigned long long>(
                      (std::hash<std::string>{}(name_key(name_) + "/" + key) ^
                       static_cast<std::uint64_t>(now_s) * 0x9e3779b97f4a7c15ULL ^ next_id_) &
                      0xffffffffULL));
    playing_ = table;
    invited_by_me_ = table;
    invited_name_ = name_key(who);
    invited_length_ = length;
    send_line(a, playing_, "/join", "seat");
    send_line(
        a, playing_,
        length > 0 ? "/option match " + std::to_string(length) : std::string{"/option match basis"},
        "cmd");
    send_line(a, playing_, "/invite " + std::string(who), "cmd");
    a.line("** You invited " + std::string(who) + " to " + length_text(length) + ".");
    return;
  }
  if (verb == "join") {
    const std::string who{first_word(rest).first};
    if (who.empty()) {
      a.line("** join whom? Type 'join NAME' after NAME invited you.");
      return;
    }
    if (!playing_.empty()) {
      a.line("** You can't play two games at once");
      return;
    }
    const std::string key = name_key(who);
    if (const auto saved = saved_.find(key); saved != saved_.end()) {
      playing_ = saved->second;
      saved_.erase(saved);
      send(a, json{{"type", "enter"}, {"table", playing_}});
      a.line("You are now playing with " + who + ". Your running match was loaded.");
      return;
    }
    const auto it = std::find_if(invitations_.rbegin(), invitations_.rend(),
                                 [&](const auto& i) { return i.first == key; });
    if (it == invitations_.rend()) {
      a.line("** " + who + " didn't invite you.");
      return;
    }
    playing_ = it->second;
    send_line(a, playing_, "/join", "seat");
    send_line(a, playing_, "/start", "auto");
    return;
  }
  if (verb == "watch") {
    const std::string who{first_word(rest).first};
    if (who.empty()) {
      a.line("** watch whom? Type 'watch NAME'.");
      return;
    }
    if (!watch_search_.empty()) {
      a.line("** Please wait: still looking for " + watch_search_ + ".");
      return;
    }
    if (who.size() > 30) {
      a.line("** There is no one called " + who + ".");
      return;
    }
    watch_search_ = who;
    send_line(a, "", "/tables", "watch", who);
    return;
  }
  if (verb == "unwatch") {
    if (watching_.empty()) {
      a.line("** You're not watching.");
      return;
    }
    const std::string watched = name_at(states_[watching_], watched_side_);
    send(a, json{{"type", "exit"}, {"table", watching_}});
    if (watching_ != playing_) {
      states_.erase(watching_);
      shown_seq_.erase(watching_);
    }
    watching_.clear();
    a.line("You stop watching " + watched + ".");
    return;
  }
  if (verb == "board" || verb == "rawboard" || verb == "look") {
    const std::string& table = !playing_.empty() ? playing_ : watching_;
    if (table.empty() || states_.count(table) == 0) {
      a.line("** You're not playing or watching.");
      return;
    }
    shown_seq_.erase(table);
    print_board(a, table);
    return;
  }
  if (verb == "pip") {
    const std::string& table = !playing_.empty() ? playing_ : watching_;
    if (table.empty() || states_.count(table) == 0) {
      a.line("** You're not playing or watching.");
      return;
    }
    const auto& state = states_[table];
    const auto& pips = at(state, "pips");
    a.line("pip counts: " + name_at(state, "red") + " " + std::to_string(int_at(pips, "red")) +
           ", " + name_at(state, "black") + " " + std::to_string(int_at(pips, "black")));
    return;
  }
  if (verb == "tell" || verb == "message") {
    const auto [who, text] = first_word(rest);
    if (who.empty() || text.empty()) {
      a.line("** Type 'tell NAME TEXT'.");
      return;
    }
    send_line(a, "", "/tell " + std::string(who) + " " + std::string(text), "cmd");
    a.line("16 " + std::string(who) + " " + std::string(text));
    return;
  }
  if (verb == "say") {
    if (playing_.empty()) {
      a.line("** You're not playing, so you can't say something.");
      return;
    }
    if (rest.empty()) return;
    send_line(a, playing_, as_chat(rest), "cmd");
    const std::string me = side_of_me(states_[playing_]);
    a.line("16 " + (me.empty() ? std::string{"-"} : name_at(states_[playing_], other(me))) + " " +
           std::string(rest));
    return;
  }
  if (verb == "kibitz" || verb == "whisper") {
    const std::string& table = !watching_.empty() ? watching_ : playing_;
    if (table.empty()) {
      a.line("** You're not watching or playing.");
      return;
    }
    if (rest.empty()) return;
    send_line(a, table, as_chat(rest), "cmd");
    a.line((verb == "kibitz" ? "19 " : "18 ") + std::string(rest));
    return;
  }
  if (verb == "shout") {
    if (rest.empty()) return;
    send_line(a, "", as_chat(rest), "cmd");
    a.line("17 " + std::string(rest));
    return;
  }
  if (verb == "who" || verb == "rawwho") {
    std::vector<std::string> names;
    for (const auto& [key, name] : online_) names.push_back(name);
    who_lines(a, names, true);
    return;
  }
  if (verb == "whois") {
    const std::string who{first_word(rest).first};
    if (who.empty()) {
      a.line("** whois whom? Type 'whois NAME'.");
      return;
    }
    send_line(a, "", "/whois " + who, "cmd");
    return;
  }
  if (verb == "rating" || verb == "ratings") {
    send_line(a, "", "/ratings", "cmd");
    return;
  }
  if (verb == "show") {
    const std::string what = lower(first_word(rest).first);
    if (what == "games") {
      send_line(a, "", "/tables", "games");
      return;
    }
    if (what == "saved" || what == "savedcount") {
      if (saved_.empty()) a.line("no saved games.");
      for (const auto& [key, table] : saved_) a.line("  " + key + "  (" + table + ")");
      return;
    }
    a.line("** 'show " + what + "' is not known here. Try 'show games' or 'show saved'.");
    return;
  }
  if (verb == "toggle" || verb == "away" || verb == "back") {
    std::string which = verb == "toggle" ? lower(first_word(rest).first) : std::string{"away"};
    if (which == "autoroll") which = "double";  // FIBS rolls for you when asked not to ask
    if (which.empty()) {
      a.line("The current settings are:");
      for (const auto& [n, t] : toggles_) a.line(n + "\t" + (t.on ? "YES" : "NO"));
      return;
    }
    const auto it = toggles_.find(which);
    if (it == toggles_.end()) {
      a.line("** Don't know how to toggle " + which + ".");
      return;
    }
    if (verb == "away")
      it->second.on = true;
    else if (verb == "back")
      it->second.on = false;
    else
      it->second.on = !it->second.on;
    a.line(it->second.on ? it->second.yes : it->second.no);
    return;
  }
  if (verb == "set") {
    const auto [what, value] = first_word(rest);
    if (what.empty()) {
      a.line("Settings of variables:");
      a.line("boardstyle: 3");
      a.line("linelength: 0");
      a.line("pagelength: 0");
      a.line("redoubles: none");
      a.line("sortwho: login");
      a.line("timezone: UTC");
      return;
    }
    static const std::set<std::string> known{"boardstyle", "linelength", "pagelength",
                                             "redoubles",  "sortwho",    "timezone"};
    if (known.count(lower(what)) == 0 || value.empty()) {
      a.line("** Type 'set' to see the variables, 'set NAME VALUE' to set one.");
      return;
    }
    a.line("Value of '" + lower(what) + "' set to " + std::string(value) + ".");
    return;
  }
  if (verb == "time") {
    a.line("Unix time " + std::to_string(now_s) + " (UTC).");
    return;
  }
  if (verb == "version") {
    a.line("gammond " + options_.version + " (CLIP 1008 and 1009)");
    return;
  }
  if (verb == "help") {
    text_lines(a, help_text);
    return;
  }
  if (verb == "bye" || verb == "quit" || verb == "logout" || verb == "adios" || verb == "ciao") {
    a.line("Goodbye.");
    a.close = true;
    return;
  }
  a.line("** Unknown command: '" + std::string(verb) + "'");
}

}  // namespace bg::server::fibs
