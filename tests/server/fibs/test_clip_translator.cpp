// One FIBS connection's translator (clip_translator.hpp) without sockets: the lines a
// FIBS client types become gammond's messages, gammond's messages become CLIP lines
// (protocol/FIBS.md; CLIP: fibs_interface.html).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bg/server/fibs/clip_translator.hpp"

using bg::server::fibs::clip_actions;
using bg::server::fibs::clip_options;
using bg::server::fibs::clip_translator;
using nlohmann::json;

namespace {

constexpr std::int64_t now = 1'700'000'000;

std::vector<json> messages(const clip_actions& a) {
  std::vector<json> out;
  for (const auto& m : a.to_service) out.push_back(json::parse(m));
  return out;
}

/// A translator logged in as alice (rating 1612.5, experience 42), its who-list known.
clip_translator logged_in() {
  clip_translator t{clip_options{"Welcome to the club.\nBe nice.", "10.0.0.7", "0.1.0", 20}};
  (void)t.open();
  const auto login = t.on_line("login test 1008 alice pw-of-alice", now);
  const auto hello = messages(login).at(0);
  json welcome{{"type", "welcome"},
               {"name", "alice"},
               {"re", hello["id"]},
               {"tables", json::array()},
               {"account",
                {{"rating", {{"standard", 1612.5}, {"long", 1500.0}}},
                 {"experience", {{"standard", 42}, {"long", 0}}}}}};
  const auto w = t.on_frame(welcome.dump(), now);
  const auto who = messages(w).at(0);
  (void)t.on_frame(json{{"type", "info"},
                        {"topic", "who"},
                        {"re", who["id"]},
                        {"data", {{"online", {"alice", "bob"}}, {"total", 2}}}}
                       .dump(),
                   now);
  return t;
}

/// A state of table `table` with alice and bob seated (alice red unless `alice_black`).
json state(const std::string& table, const std::string& phase, const std::string& turn, int seq,
           bool alice_black = false) {
  json s{{"type", "state"},
         {"table", table},
         {"seq", seq},
         {"players",
          {{"red", alice_black ? "bob" : "alice"}, {"black", alice_black ? "alice" : "bob"}}},
         {"phase", phase},
         {"turn", turn.empty() ? json(nullptr) : json(turn)},
         {"dice", phase == "move" ? json::array({3, 1}) : json::array()},
         {"board",
          {{"points", {2, 0, 0, 0, 0, -5, 0, -3, 0, 0, 0, 5, -5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, -2}},
           {"bar", {{"red", 0}, {"black", 0}}},
           {"off", {{"red", 0}, {"black", 0}}}}},
         {"cube", {{"value", 1}, {"owner", "center"}, {"offered_by", nullptr}, {"in_play", true}}},
         {"score", {{"red", 0}, {"black", 0}}},
         {"match_length", 3},
         {"crawford", false},
         {"may_double", phase == "roll"},
         {"legal", json::array()},
         {"legal_moves", json::array()}};
  return s;
}

bool has_line(const clip_actions& a, const std::string& line) {
  return a.out.find(line + "\r\n") != std::string::npos;
}

}  // namespace

TEST_CASE(
    "CLIP login: the login line becomes a hello with the password, gammond's welcome "
    "becomes lines 1, 2 (own info), 3, the message of the day and 4, then a who poll",
    "[fibs][clip]") {
  clip_translator t{clip_options{"Line one.\nLine two.", "10.0.0.7", "0.1.0", 20}};
  // Given the banner and the login prompt
  CHECK(t.open().out.find("login: ") != std::string::npos);
  // When the client logs in
  const auto login = t.on_line("login JavaFIBS 1008 alice secret-word", now);
  const auto hello = messages(login);
  REQUIRE(hello.size() == 1);
  CHECK(hello[0]["type"] == "hello");
  CHECK(hello[0]["name"] == "alice");
  CHECK(hello[0]["password"] == "secret-word");
  // Then gammond's welcome is CLIP's welcome
  const auto w = t.on_frame(
      json{{"type", "welcome"},
           {"name", "alice"},
           {"re", hello[0]["id"]},
           {"account", {{"rating", {{"standard", 1612.5}}}, {"experience", {{"standard", 42}}}}}}
          .dump(),
      now);
  CHECK(t.logged_in());
  CHECK(has_line(w, "1 alice 1700000000 10.0.0.7"));
  CHECK(has_line(w, "2 alice 1 1 0 0 0 0 1 1 42 0 1 0 1 1612.50 0 1 0 0 0 UTC"));
  CHECK(w.out.find("3\r\nLine one.\r\nLine two.\r\n4\r\n") != std::string::npos);
  const auto polls = messages(w);
  REQUIRE(polls.size() == 1);
  CHECK(polls[0]["text"] == "/who");
}

TEST_CASE("a refused login says why and shows the login prompt again", "[fibs][clip]") {
  clip_translator t{clip_options{}};
  (void)t.open();
  const auto hello = messages(t.on_line("login x 1008 alice wrong", now)).at(0);
  const auto refused = t.on_frame(json{{"type", "error"},
                                       {"code", "bad_password"},
                                       {"message", "wrong name or password"},
                                       {"re", hello["id"]}}
                                      .dump(),
                                  now);
  CHECK(!t.logged_in());
  CHECK(has_line(refused, "** wrong name or password"));
  CHECK(refused.out.size() >= 7);
  CHECK(refused.out.substr(refused.out.size() - 7) == "login: ");
}

TEST_CASE(
    "FIBS's guest login registers a name: guest, name NAME, the password twice, two "
    "different passwords are asked again",
    "[fibs][clip]") {
  clip_translator t{clip_options{}};
  (void)t.open();
  CHECK(t.on_line("guest", now).out.find("name") != std::string::npos);
  CHECK(t.on_line("name carol", now).out.find("Please give your password: ") != std::string::npos);
  CHECK(t.on_line("first-try", now).out.find("Please retype your password: ") != std::string::npos);
  const auto differ = t.on_line("second-try", now);
  CHECK(differ.out.find("not identical") != std::string::npos);
  CHECK(differ.to_service.empty());
  (void)t.on_line("good-password", now);
  const auto sent = messages(t.on_line("good-password", now));
  REQUIRE(sent.size() == 1);
  CHECK(sent[0]["type"] == "register");
  CHECK(sent[0]["name"] == "carol");
  CHECK(sent[0]["password"] == "good-password");
  const auto w =
      t.on_frame(json{{"type", "welcome"}, {"name", "carol"}, {"re", sent[0]["id"]}}.dump(), now);
  CHECK(has_line(w, "You are registered."));
  CHECK(w.out.find("1 carol ") != std::string::npos);
}

TEST_CASE(
    "the who-list: the first poll lists everyone (5 lines, then 6), later polls add 7 for "
    "a login and 8 for a logout",
    "[fibs][clip]") {
  clip_translator t{clip_options{}};
  (void)t.open();
  const auto hello = messages(t.on_line("login x 1008 alice pw", now)).at(0);
  const auto w =
      t.on_frame(json{{"type", "welcome"}, {"name", "alice"}, {"re", hello["id"]}}.dump(), now);
  const auto poll = messages(w).at(0);
  const auto first = t.on_frame(json{{"type", "info"},
                                     {"topic", "who"},
                                     {"re", poll["id"]},
                                     {"data", {{"online", {"alice", "bob"}}}}}
                                    .dump(),
                                now);
  CHECK(first.out.find("5 alice - - 1 0 ") != std::string::npos);
  CHECK(first.out.find("5 bob - - 1 0 1500.00 0 ") != std::string::npos);
  CHECK(first.out.find("6\r\n") != std::string::npos);
  const auto tick = messages(t.on_tick(now + 5)).at(0);
  CHECK(tick["text"] == "/who");
  const auto later = t.on_frame(json{{"type", "info"},
                                     {"topic", "who"},
                                     {"re", tick["id"]},
                                     {"data", {{"online", {"alice", "dave"}}}}}
                                    .dump(),
                                now + 5);
  CHECK(later.out.find("5 dave - - ") != std::string::npos);
  CHECK(has_line(later, "7 dave dave logs in."));
  CHECK(has_line(later, "8 bob bob drops connection."));
}

TEST_CASE(
    "an invitation from a WebSocket player reads as FIBS's, and join NAME sits down at "
    "that table and starts the match",
    "[fibs][clip]") {
  auto t = logged_in();
  const auto invited = t.on_frame(json{{"type", "info"},
                                       {"topic", "invitation"},
                                       {"table", "bobs"},
                                       {"data", {{"table", "bobs"}, {"by", "bob"}, {"match", 5}}}}
                                      .dump(),
                                  now);
  CHECK(has_line(invited, "bob wants to play a 5 point match with you."));
  CHECK(has_line(invited, "Type 'join bob' to accept."));
  CHECK(has_line(t.on_line("join carol", now), "** carol didn't invite you."));
  const auto join = messages(t.on_line("join bob", now));
  REQUIRE(join.size() == 2);
  CHECK(join[0]["table"] == "bobs");
  CHECK(join[0]["text"] == "/join");
  CHECK(join[1]["text"] == "/start");
}

TEST_CASE(
    "invite NAME N makes a table, sits down, sets the match and invites NAME, the match "
    "starts when NAME sits down, and the opening roll is rolled at once",
    "[fibs][clip]") {
  auto t = logged_in();
  // Nobody called zed is online: FIBS's answer, and nothing is made.
  const auto nobody = t.on_line("invite zed 1", now);
  CHECK(has_line(nobody, "** There is no one called zed."));
  CHECK(nobody.to_service.empty());
  const auto a = t.on_line("invite bob 3", now);
  const auto sent = messages(a);
  REQUIRE(sent.size() == 3);
  const std::string table = sent[0]["table"];
  CHECK(table.rfind("fibs-", 0) == 0);
  CHECK(sent[0]["text"] == "/join");
  CHECK(sent[1]["text"] == "/option match 3");
  CHECK(sent[2]["text"] == "/invite bob");
  CHECK(has_line(a, "** You invited bob to a 3 point match."));
  CHECK(has_line(t.on_line("invite bob 1", now), "** You can't play two games at once"));
  // bob sits down: the match starts.
  json waiting = state(table, "waiting", "", 3);
  const auto start = messages(t.on_frame(waiting.dump(), now));
  REQUIRE(start.size() == 1);
  CHECK(start[0]["text"] == "/start");
  // The opening roll is FIBS's to roll.
  const auto roll = messages(t.on_frame(state(table, "opening", "", 4).dump(), now));
  REQUIRE(roll.size() == 1);
  CHECK(roll[0]["text"] == "/roll");
}

TEST_CASE(
    "FIBS rolls for a player who may not double, and waits for one who may, a play typed "
    "by red in FIBS's numbering is sent in red's own",
    "[fibs][clip][R14]") {
  auto t = logged_in();
  const auto sent = messages(t.on_line("invite bob 3", now));
  const std::string table = sent[0]["table"];
  // alice (red) may double: nothing is rolled for her.
  json may = state(table, "roll", "red", 7);
  CHECK(messages(t.on_frame(may.dump(), now)).empty());
  json may_not = state(table, "roll", "red", 8);
  may_not["may_double"] = false;
  const auto rolled = messages(t.on_frame(may_not.dump(), now));
  REQUIRE(rolled.size() == 1);
  CHECK(rolled[0]["text"] == "/roll");
  // Red's move from FIBS's points 1 and 12 is red's own 24/21 13/12.
  (void)t.on_frame(state(table, "move", "red", 9).dump(), now);
  const auto move = messages(t.on_line("move 1-4 12-13", now));
  REQUIRE(move.size() == 1);
  CHECK(move[0]["text"] == "/move 24/21 13/12");
  CHECK(has_line(t.on_line("move 1-", now), "** '1-' is not FROM-TO, as in 24-18"));
}

TEST_CASE(
    "gammond's events are FIBS's lines: rolls, moves in FIBS's numbering, doubles, the "
    "cube taken, a game and a match won",
    "[fibs][clip]") {
  auto t = logged_in();
  const std::string table = messages(t.on_line("invite bob 3", now))[0]["table"];
  (void)t.on_frame(state(table, "roll", "black", 10).dump(), now);
  const auto ev = [&](json e) {
    e["type"] = "event";
    e["table"] = table;
    e["text"] = "x";
    return t.on_frame(e.dump(), now);
  };
  CHECK(has_line(ev({{"event", "rolled"}, {"side", "black"}, {"dice", {3, 1}}}),
                 "bob rolls 3 and 1."));
  CHECK(has_line(ev({{"event", "moved"}, {"side", "black"}, {"dice", {3, 1}}, {"play", "8/5 6/5"}}),
                 "bob moves 8-5 6-5 ."));
  CHECK(
      has_line(ev({{"event", "rolled"}, {"side", "red"}, {"dice", {6, 4}}}), "You roll 6 and 4."));
  CHECK(has_line(ev({{"event", "doubled"}, {"side", "black"}, {"value", 2}}),
                 "bob doubles. Type 'accept' or 'reject'."));
  CHECK(has_line(ev({{"event", "took"}, {"side", "red"}, {"value", 2}}),
                 "You accept the double.  The cube shows 2."));
  const auto over = ev({{"event", "game_over"},
                        {"winner", "red"},
                        {"reason", "borne_off"},
                        {"points", 2},
                        {"score", {{"red", 2}, {"black", 0}}}});
  CHECK(has_line(over, "You win the game and get 2 points. Congratulations!"));
  CHECK(has_line(over, "score in 3 point match: alice-2 bob-0"));
  const auto match =
      ev({{"event", "match_over"}, {"winner", "black"}, {"score", {{"red", 2}, {"black", 3}}}});
  CHECK(has_line(match, "bob wins the 3 point match 3-2 ."));
  // The match is over: the seat is given up and the table left.
  const auto left = messages(match);
  REQUIRE(left.size() == 2);
  CHECK(left[0]["text"] == "/leave");
  CHECK(left[1]["type"] == "exit");
  CHECK(has_line(t.on_line("roll", now), "** You're not playing."));
}

TEST_CASE(
    "talking: tell, say, kibitz, whisper and shout go to gammond's private, table and "
    "lobby chat, echoed as CLIP 16-19, what others say comes as 12, 13 and 15",
    "[fibs][clip]") {
  auto t = logged_in();
  const auto tell = t.on_line("tell bob hi there", now);
  CHECK(messages(tell).at(0)["text"] == "/tell bob hi there");
  CHECK(has_line(tell, "16 bob hi there"));
  const auto shout = t.on_line("shout /not a command", now);
  CHECK(has_line(shout, "17 /not a command"));
  CHECK(messages(shout).at(0)["text"] == "\u2060/not a command");  // chat, not a command
  CHECK(
      has_line(t.on_line("say hello", now), "** You're not playing, so you can't say something."));
  const std::string table = messages(t.on_line("invite bob 3", now))[0]["table"];
  (void)t.on_frame(state(table, "roll", "black", 3).dump(), now);
  const auto say = t.on_line("say good luck", now);
  CHECK(messages(say).at(0)["table"] == table);
  CHECK(has_line(say, "16 bob good luck"));
  CHECK(has_line(t.on_line("kibitz nice", now), "19 nice"));
  CHECK(has_line(t.on_line("whisper psst", now), "18 psst"));
  const auto chat = [&](json c) {
    c["type"] = "chat";
    return t.on_frame(c.dump(), now);
  };
  CHECK(has_line(chat({{"table", table}, {"from", "bob"}, {"text", "thanks"}}), "12 bob thanks"));
  CHECK(has_line(chat({{"table", table}, {"from", "carol"}, {"text", "wow"}}), "15 carol wow"));
  CHECK(has_line(chat({{"from", "carol"}, {"text", "anyone?"}}), "13 carol anyone?"));
  CHECK(has_line(chat({{"from", "dave"}, {"to", "alice"}, {"text", "psst"}}), "12 dave psst"));
  CHECK(chat({{"from", "alice"}, {"text", "my own"}}).out.empty());
  CHECK(has_line(t.on_line("frobnicate", now), "** Unknown command: 'frobnicate'"));
}

TEST_CASE(
    "toggle and set answer as FIBS does, toggle double off makes FIBS roll for a player "
    "who could double",
    "[fibs][clip]") {
  auto t = logged_in();
  const auto list = t.on_line("toggle", now);
  CHECK(has_line(list, "The current settings are:"));
  CHECK(has_line(list, "double\tYES"));
  CHECK(has_line(t.on_line("toggle ready", now), "** You're now refusing to play with someone."));
  CHECK(has_line(t.on_line("toggle double", now), "** You won't be asked if you want to double."));
  CHECK(has_line(t.on_line("set boardstyle 3", now), "Value of 'boardstyle' set to 3."));
  CHECK(has_line(t.on_line("toggle nonsense", now), "** Don't know how to toggle nonsense."));
  const std::string table = messages(t.on_line("invite bob 3", now))[0]["table"];
  const auto rolled = messages(t.on_frame(state(table, "roll", "red", 7).dump(), now));
  REQUIRE(rolled.size() == 1);
  CHECK(rolled[0]["text"] == "/roll");
}

TEST_CASE(
    "any line a stranger types and any message, even malformed, leave the translator "
    "whole: nothing thrown, a bounded answer, and only well-formed messages for gammond",
    "[fibs][clip][robustness]") {
  std::mt19937 rng{32};
  const std::vector<std::string> words{
      "login",   "guest",  "name",     "invite", "join",      "roll",  "move",   "double", "accept",
      "reject",  "resign", "leave",    "watch",  "unwatch",   "board", "tell",   "say",    "kibitz",
      "whisper", "shout",  "who",      "whois",  "rating",    "show",  "toggle", "set",    "pip",
      "bye",     "bob",    "alice",    "3",      "unlimited", "24-18", "bar-22", "6-off",  "b-3",
      "-",       "/",      "\xff\xfe", "é",      "",          "x"};
  const std::vector<json> values{nullptr,
                                 1,
                                 -7,
                                 1e300,
                                 "x",
                                 "red",
                                 "black",
                                 json::array(),
                                 json::object(),
                                 true,
                                 {{"red", "alice"}, {"black", 3}}};
  const std::vector<std::string> keys{"type",        "table",  "seq",   "phase", "turn", "players",
                                      "board",       "dice",   "event", "side",  "play", "from",
                                      "text",        "re",     "topic", "data",  "cube", "score",
                                      "legal_moves", "winner", "name",  "to"};
  const std::vector<std::string> types{"welcome", "state", "event",     "chat", "info",
                                       "tables",  "error", "broadcast", "pong"};
  auto t = logged_in();
  const std::string table = messages(t.on_line("invite bob 3", now))[0]["table"];
  std::uniform_int_distribution<std::size_t> pick(0, 1'000'000);
  for (int i = 0; i < 4000; ++i) {
    clip_actions a;
    const auto kind = pick(rng) % 4;
    if (kind == 0) {
      std::string line;
      const auto n = pick(rng) % 6;
      for (std::size_t w = 0; w < n; ++w) line += words[pick(rng) % words.size()] + " ";
      a = t.on_line(line, now);
    } else if (kind == 1) {
      std::string bytes(pick(rng) % 40, '\0');
      for (auto& b : bytes) b = static_cast<char>(pick(rng) % 256);
      a = pick(rng) % 2 ? t.on_line(bytes, now) : t.on_frame(bytes, now);
    } else {
      json m = kind == 2 ? state(table, "move", "red", static_cast<int>(pick(rng) % 50))
                         : json::object();
      m["type"] = types[pick(rng) % types.size()];
      if (pick(rng) % 2) m["table"] = table;
      for (std::size_t f = pick(rng) % 6; f > 0; --f)
        m[keys[pick(rng) % keys.size()]] = values[pick(rng) % values.size()];
      a = t.on_frame(m.dump(), now);
    }
    CHECK(a.out.size() < 64 * 1024);
    CHECK(a.to_service.size() <= 8);
    for (const auto& sent : a.to_service) {
      const json parsed = json::parse(sent, nullptr, false);
      REQUIRE(parsed.is_object());
      CHECK(parsed["type"].is_string());
    }
  }
}
