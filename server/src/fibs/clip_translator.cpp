// One FIBS connection's translator between CLIP and gammond's protocol
// (clip_translator.hpp, protocol/FIBS.md): the toggles, the banner, the login and the
// guest registration, and the messages it sends. What a logged-in player types is
// clip_commands.cpp; what gammond sends, clip_frames.cpp.

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

void clip_actions::line(std::string_view text) {
  out += text;
  out += "\r\n";
}

clip_translator::clip_translator(clip_options options) : options_{std::move(options)} {
  toggles_ = {
      {"allowpip",
       {true, "** You allow the use of the server's 'pip' command.",
        "** You don't allow the use of the server's 'pip' command."}},
      {"autoboard",
       {true, "** The board will be refreshed after every move.",
        "** The board won't be refreshed after every move."}},
      {"autodouble",
       {false, "** You agree that doublets during opening double the cube.",
        "** You don't agree that doublets during opening double the cube."}},
      {"automove",
       {false, "** Forced moves will be done automatically.",
        "** Forced moves won't be done automatically."}},
      {"away", {false, "** You're away. Please type 'back'", "** Welcome back."}},
      {"bell",
       {false, "** Your terminal will ring if someone talks to you or invites you",
        "** Your terminal won't ring if someone talks to you or invites you"}},
      {"crawford",
       {true, "** You insist on playing with the Crawford rule.",
        "** You would like to play without using the Crawford rule."}},
      {"double",
       {true, "** You will be asked if you want to double.",
        "** You won't be asked if you want to double."}},
      {"greedy",
       {false, "** Will use automatic greedy bearoffs.",
        "** Won't use automatic greedy bearoffs."}},
      {"moreboards",
       {true, "** Will send rawboards after rolling.", "** Won't send rawboards after rolling."}},
      {"moves",
       {false, "** You want a list of moves after this game.",
        "** You won't see a list of moves after this game."}},
      {"notify",
       {true, "** You'll be notified when new users log in.",
        "** You won't be notified when new users log in."}},
      {"ratings",
       {false, "** You'll see how the rating changes are calculated.",
        "** You won't see how the rating changes are calculated."}},
      {"ready",
       {true, "** You're now ready to invite or join someone.",
        "** You're now refusing to play with someone."}},
      {"report",
       {false, "** You will be informed about starting and ending matches.",
        "** You won't be informed about starting and ending matches."}},
      {"silent",
       {false, "** You won't hear what other players shout.",
        "** You will hear what other players shout."}},
      {"telnet",
       {true, "** You use telnet and don't need extra 'newlines'.",
        "** You use a client program and will receive extra 'newlines'."}},
      {"wrap",
       {false, "** The server will wrap long lines.",
        "** Your terminal knows how to wrap long lines."}},
  };
}

clip_actions clip_translator::open() {
  clip_actions a;
  a.line("");
  a.line("gammond " + options_.version +
         ": a backgammon server that speaks FIBS's CLIP (1008 and 1009).");
  a.line("Log in with: login CLIENT 1008 NAME PASSWORD, or type your name.");
  a.line("New here? Log in as 'guest' to register a name.");
  a.out += "login: ";
  return a;
}

void clip_translator::send(clip_actions& a, json message) {
  a.to_service.push_back(message.dump(-1, ' ', false, json::error_handler_t::replace));
}

void clip_translator::send_line(clip_actions& a, std::string_view table, std::string_view text,
                                std::string_view kind, std::string_view extra) {
  json m{{"type", "line"}, {"text", std::string(text)}};
  if (!table.empty()) m["table"] = std::string(table);
  std::string id = "f:" + std::string(kind) + ":" + std::to_string(next_id_++);
  if (!extra.empty()) id += ":" + std::string(extra);
  m["id"] = std::move(id);
  send(a, std::move(m));
}

bool clip_translator::is_me(std::string_view name) const {
  return !name_.empty() && name_key(name) == name_key(name_);
}

std::string clip_translator::name_at(const json& state, const std::string& side) const {
  return text_at(at(state, "players"), side.c_str());
}

std::string clip_translator::side_of_me(const json& state) const {
  for (const std::string side : {"red", "black"})
    if (is_me(name_at(state, side))) return side;
  return {};
}

clip_actions clip_translator::on_line(std::string_view raw, std::int64_t now_s) {
  clip_actions a;
  const std::string_view line = trim(raw);
  switch (stage_) {
    case stage::login: {
      if (line.empty()) {
        a.out += "login: ";
        return a;
      }
      const auto [verb, rest] = first_word(line);
      if (lower(verb) == "login") {
        // login CLIENT CLIP-VERSION NAME PASSWORD (CLIP's one-line login).
        std::vector<std::string_view> words;
        std::string_view r = rest;
        while (!r.empty()) {
          const auto [w, more] = first_word(r);
          words.push_back(w);
          r = more;
        }
        if (words.size() == 3 && lower(words[2]) == "guest") {
          stage_ = stage::guest;
          a.line("Welcome, guest. Type 'name NAME' to choose the name you want to register.");
          a.out += "> ";
          return a;
        }
        if (words.size() != 4) {
          a.line("** Please log in with: login CLIENT 1008 NAME PASSWORD");
          a.out += "login: ";
          return a;
        }
        typed_name_ = std::string(words[2]);
        stage_ = stage::waiting;
        send(a, json{{"type", "hello"},
                     {"name", typed_name_},
                     {"password", std::string(words[3])},
                     {"id", "f:login:0"}});
        return a;
      }
      if (lower(line) == "guest") {
        stage_ = stage::guest;
        a.line("Welcome, guest. Type 'name NAME' to choose the name you want to register.");
        a.out += "> ";
        return a;
      }
      typed_name_ = std::string(line);
      stage_ = stage::password;
      a.out += "password: ";
      return a;
    }
    case stage::password:
      stage_ = stage::waiting;
      a.line("");
      send(a, json{{"type", "hello"},
                   {"name", typed_name_},
                   {"password", std::string(line)},
                   {"id", "f:login:0"}});
      return a;
    case stage::guest: {
      const auto [verb, rest] = first_word(line);
      if (lower(verb) == "bye" || lower(verb) == "quit") {
        a.line("Goodbye.");
        a.close = true;
        return a;
      }
      if (lower(verb) != "name" || rest.empty() || rest.find(' ') != std::string_view::npos) {
        a.line("** Type 'name NAME' to choose your name (one word), or 'bye' to leave.");
        a.out += "> ";
        return a;
      }
      typed_name_ = std::string(rest);
      stage_ = stage::guest_password;
      a.line("Your name will be " + typed_name_);
      a.line("Type in no password and hit Enter/Return if you want to change it now.");
      a.out += "Please give your password: ";
      return a;
    }
    case stage::guest_password:
      a.line("");
      if (line.empty()) {
        stage_ = stage::guest;
        a.line("** Type 'name NAME' to choose another name.");
        a.out += "> ";
        return a;
      }
      typed_password_ = std::string(line);
      stage_ = stage::guest_retype;
      a.out += "Please retype your password: ";
      return a;
    case stage::guest_retype:
      a.line("");
      if (std::string(line) != typed_password_) {
        stage_ = stage::guest_password;
        a.line("** The two passwords were not identical. Please give them again.");
        a.out += "Please give your password: ";
        return a;
      }
      stage_ = stage::waiting;
      send(a, json{{"type", "register"},
                   {"name", typed_name_},
                   {"password", typed_password_},
                   {"id", "f:register:0"}});
      typed_password_.clear();
      return a;
    case stage::waiting:
      a.line("** Please wait: logging you in.");
      return a;
    case stage::ready:
      break;
  }
  if (line.empty()) return a;
  const auto [verb, rest] = first_word(line);
  command(a, lower(verb), rest, now_s);
  return a;
}

void clip_translator::forget_match() {
  if (!playing_.empty() && playing_ != watching_) {
    states_.erase(playing_);
    acted_seq_.erase(playing_);
    shown_seq_.erase(playing_);
  }
  playing_.clear();
  invited_by_me_.clear();
  invited_name_.clear();
}

clip_actions clip_translator::on_tick(std::int64_t /*now_s*/) {
  clip_actions a;
  if (stage_ == stage::ready) send_line(a, "", "/who", "who");
  return a;
}

}  // namespace bg::server::fibs
