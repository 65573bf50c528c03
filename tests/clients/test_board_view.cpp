// gammon-term's drawing and script lines, from state messages built by hand (no
// server): the board in R1 numbering, long nardy's mirrored picture, the script format.
#include <catch2/catch.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "bg/term/board_view.hpp"
#include "bg/term/screen.hpp"
#include "bg/term/script_writer.hpp"
#include "bg/term/term_options.hpp"

using bg::term::board_view;
using bg::term::screen;
using bg::term::script_writer;
using nlohmann::json;

namespace {

/// A state message at `table` t1 with the given board points (positive = red), the
/// tutor option as given (R17).
json state_with(const std::vector<int>& points, const std::string& variant = "standard",
                bool tutor = false) {
  return json{{"type", "state"},
              {"table", "t1"},
              {"seq", 9},
              {"variant", variant},
              {"options", {{"match", "off"}, {"variant", variant}, {"tutor", tutor}}},
              {"players", {{"red", "alice"}, {"black", "bob"}}},
              {"phase", "move"},
              {"turn", "black"},
              {"to_act", "black"},
              {"dice", {6, 3}},
              {"board",
               {{"points", points},
                {"bar", {{"red", 0}, {"black", 0}}},
                {"off", {{"red", 0}, {"black", 0}}}}},
              {"pips", {{"red", 167}, {"black", 167}}},
              {"cube", {{"value", 1}, {"owner", "center"}, {"offered_by", nullptr}}},
              {"score", {{"red", 0}, {"black", 0}}},
              {"match_length", 0},
              {"crawford", false},
              {"game_number", 1},
              {"may_double", false},
              {"legal", {"24/18 13/10", "24/15", "13/7 13/10"}},
              {"resign", nullptr}};
}

/// R1.1 in board numbering: black 2 on 24, 5 on 13, 3 on 8, 5 on 6; red mirrored.
const std::vector<int> standard_start{2,  0, 0, 0, 0, -5, 0, -3, 0, 0, 0, 5,
                                      -5, 0, 0, 0, 3, 0,  5, 0,  0, 0, 0, -2};

/// L1: black's 15 on board point 1, red's 15 on board point 13.
const std::vector<int> long_start{-15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  15,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

/// The board part of each line (the panel on the right cut off).
std::vector<std::string> board_only(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) {
    std::string part = l.substr(0, std::min<std::size_t>(l.size(), 46));
    part.erase(part.find_last_not_of(' ') + 1);
    out.push_back(part);
  }
  return out;
}

}  // namespace

TEST_CASE("R1 the standard start is drawn with 13..24 on top and 12..1 below", "[clients][board]") {
  // Given the standard starting position, seen by a spectator, the tutor on (R17)
  const board_view view{{false, "carol"}};
  // When it is drawn
  const auto lines = board_only(view.render(state_with(standard_start, "standard", true)));
  // Then the stacks stand where R1.1 puts them, in R1 numbering
  const std::vector<std::string> expected{
      "table t1",
      "   13 14 15 16 17 18       19 20 21 22 23 24",
      " +-------------------+---+-------------------+",
      " |  B           R    |   |  R              B |",
      " |  B           R    |   |  R              B |",
      " |  B           R    |   |  R                |",
      " |  B                |   |  R                |",
      " |  B                |   |  R                |",
      " |                   |BAR|                   |",
      " |  R                |   |  B                |",
      " |  R                |   |  B                |",
      " |  R           B    |   |  B                |",
      " |  R           B    |   |  B              R |",
      " |  R           B    |   |  B              R |",
      " +-------------------+---+-------------------+",
      "   12 11 10  9  8  7        6  5  4  3  2  1",
  };
  CHECK(lines == expected);
}

TEST_CASE("L1 long nardy is drawn mirrored: both sides move counter-clockwise",
          "[clients][board][long]") {
  // Given the long nardy start, seen by black, the tutor on (R17)
  const board_view view{{false, "bob"}};
  // When it is drawn
  const auto all = view.render(state_with(long_start, "long", true));
  const auto lines = board_only(all);
  // Then black's head (point 1) is bottom left and red's (point 13) top right, so
  // black runs 1 -> 12 along the bottom and 13 -> 24 along the top: counter-clockwise
  const std::vector<std::string> expected{
      "table t1",
      "    1  2  3  4  5  6        7  8  9 10 11 12",  // black's own numbers
      "   24 23 22 21 20 19       18 17 16 15 14 13",
      " +-------------------+---+-------------------+",
      " |                   |   |                 R |",
      " |                   |   |                 R |",
      " |                   |   |                 R |",
      " |                   |   |                 R |",
      " |                   |   |                15 |",
      " |                   |   |                   |",
      " | 15                |   |                   |",
      " |  B                |   |                   |",
      " |  B                |   |                   |",
      " |  B                |   |                   |",
      " |  B                |   |                   |",
      " +-------------------+---+-------------------+",
      "    1  2  3  4  5  6        7  8  9 10 11 12",
      "   24 23 22 21 20 19       18 17 16 15 14 13",  // black's own numbers
  };
  CHECK(lines == expected);
  // And the directions are written beside it
  std::string text;
  for (const auto& l : all) text += l + "\n";
  CHECK(text.find("both move counter-clockwise") != std::string::npos);
  CHECK(text.find("red 13->24->1->12") != std::string::npos);
}

TEST_CASE("R17: the board numbering 1..24 is shown only when the tutor is on",
          "[clients][board][tutor]") {
  const std::string board_top = "   13 14 15 16 17 18       19 20 21 22 23 24";
  const std::string board_bottom = "   12 11 10  9  8  7        6  5  4  3  2  1";
  const auto has = [](const std::vector<std::string>& lines, const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  const auto own_rows = [](const std::vector<std::string>& lines) {
    return std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
      return l.find("(your numbers)") != std::string::npos;
    });
  };
  SECTION("a spectator sees the R1 numbers with the tutor on, none with it off") {
    const board_view view{{false, "carol"}};
    const auto on = view.render(state_with(standard_start, "standard", true));
    CHECK(has(board_only(on), board_top));
    CHECK(has(board_only(on), board_bottom));
    const auto off = view.render(state_with(standard_start, "standard", false));
    CHECK_FALSE(has(board_only(off), board_top));
    CHECK_FALSE(has(board_only(off), board_bottom));
    CHECK(own_rows(off) == 0);
    // The board itself is the same: 1 title, 2 borders, 11 rows of stacks and bar
    CHECK(off.size() >= 14);
    CHECK(board_only(off)[1] == " +-------------------+---+-------------------+");
  }
  SECTION("red sees its own numbers always, the R1 numbers only with the tutor on") {
    const board_view view{{false, "alice"}};
    const std::string red_top = "   12 11 10  9  8  7        6  5  4  3  2  1";
    const auto off = board_only(view.render(state_with(standard_start, "standard", false)));
    const std::string border = " +-------------------+---+-------------------+";
    CHECK(off[1] == red_top);  // red's own numbers over board points 13..24
    CHECK(off[2] == border);   // and no R1 row between them and the board
    const auto on = board_only(view.render(state_with(standard_start, "standard", true)));
    CHECK(on[1] == red_top);
    CHECK(on[2] == board_top);
    CHECK(on[3] == border);
    CHECK(own_rows(view.render(state_with(standard_start, "standard", false))) == 2);
  }
  SECTION("black in standard play: its own numbers are the board's, shown once either way") {
    const board_view view{{false, "bob"}};
    const auto off = view.render(state_with(standard_start, "standard", false));
    CHECK(own_rows(off) == 2);  // what /move takes, without the tutor
    const auto on = view.render(state_with(standard_start, "standard", true));
    CHECK(own_rows(on) == 0);  // the R1 row says it all
    CHECK(has(board_only(on), board_top));
  }
}

TEST_CASE("own_point gives each side's numbering of a board point (R1, long backgammon)",
          "[clients][board]") {
  CHECK(board_view::own_point(false, "black", 24) == 24);
  CHECK(board_view::own_point(false, "red", 1) == 24);
  CHECK(board_view::own_point(false, "red", 19) == 6);
  CHECK(board_view::own_point(true, "black", 1) == 24);
  CHECK(board_view::own_point(true, "black", 24) == 1);
  CHECK(board_view::own_point(true, "red", 13) == 24);
  CHECK(board_view::own_point(true, "red", 24) == 13);
  CHECK(board_view::own_point(true, "red", 12) == 1);
}

TEST_CASE("script mode prints a STATE block: key=value line, board, LEGAL plays, END",
          "[clients][script]") {
  // Given black's client in script mode
  const script_writer out{{true, "bob"}};
  // When a state arrives
  const std::string text = out.message(state_with(standard_start));
  // Then it opens with every scalar as key=value and ends with the legal plays
  CHECK(text.rfind("STATE t1 seq=9 game=1 variant=standard phase=move turn=black to_act=black "
                   "you=black dice=6-3 cube=1 owner=center offered_by=- may_double=no resign=- "
                   "red=alice black=bob score_red=0 score_black=0 match_length=0 crawford=no "
                   "pips_red=167 pips_black=167 last_match=-\n",
                   0) == 0);
  CHECK(text.find("\n     13 14 15 16 17 18") != std::string::npos);
  CHECK(text.find("\nLEGAL 24/18 13/10|24/15|13/7 13/10\nEND t1\n") != std::string::npos);
  // And without the board, the block is three lines
  const script_writer bare{{false, "bob"}};
  const std::string short_text = bare.message(state_with(standard_start));
  CHECK(std::count(short_text.begin(), short_text.end(), '\n') == 3);
}

TEST_CASE(
    "S2 the side panel prints both clocks as they stand when drawn, the running one "
    "after its delay",
    "[clients][board][clock]") {
  // Given a state with a clock: black runs since t = 1,000,000 ms with 12 s of delay.
  auto st = state_with(standard_start);
  st["clock"] = {{"red", 272'000},
                 {"black", 300'000},
                 {"delay_ms", 12'000},
                 {"running", "black"},
                 {"since", 1'000'000}};
  // When it is drawn 5 s later, only the delay has been spent.
  CHECK(board_view::clock_line(st, 1'005'000) ==
        "clock red 4:32 black 5:00 - black running (delay 7 s)");
  // When it is drawn 42 s later, 30 s came out of black's bank.
  CHECK(board_view::clock_line(st, 1'042'000) == "clock red 4:32 black 4:30 - black running");
  // Under 10 s: tenths.
  CHECK(board_view::clock_line(st, 1'303'000) == "clock red 4:32 black 0:09.0 - black running");
  // And the board's panel has the line, drawn at the view's clock.
  const board_view view{{false, "bob", [] { return std::int64_t{1'005'000}; }}};
  bool found = false;
  for (const auto& line : view.render(st))
    found = found || line.find("clock red 4:32 black 5:00 - black running") != std::string::npos;
  CHECK(found);
  // Without a clock, no line; script mode prints a CLOCK line with the raw fields.
  CHECK(board_view::clock_line(state_with(standard_start), 0).empty());
  const script_writer out{{false, "bob"}};
  CHECK(out.message(st).find("\nCLOCK red=272000 black=300000 delay_ms=12000 running=black "
                             "since=1000000\n") != std::string::npos);
}

TEST_CASE("script mode prints events, chat, errors and welcome as one line each",
          "[clients][script]") {
  const script_writer out{{false, "bob"}};
  CHECK(
      out.message(
          {{"type", "event"}, {"table", "t1"}, {"event", "rolled"}, {"text", "black rolls 6-3"}}) ==
      "EVENT t1 rolled: black rolls 6-3\n");
  CHECK(out.message({{"type", "chat"}, {"table", "t1"}, {"from", "alice"}, {"text", "hi"}}) ==
        "CHAT t1 alice: hi\n");
  CHECK(out.message({{"type", "chat"}, {"from", "alice"}, {"text", "lobby"}}) ==
        "CHAT - alice: lobby\n");
  // issue 13: an administrator's broadcast
  CHECK(out.message({{"type", "broadcast"}, {"from", "root"}, {"text", "restart at 18:00"}}) ==
        "BROADCAST root: restart at 18:00\n");
  CHECK(out.message(
            {{"type", "error"}, {"code", "illegal_play"}, {"message", "point 5 is blocked"}}) ==
        "ERROR illegal_play: point 5 is blocked\n");
  CHECK(out.message(
            {{"type", "welcome"}, {"name", "bob"}, {"resumed", true}, {"tables", {"t1", "t2"}}}) ==
        "WELCOME bob resumed=yes tables=t1,t2\n");
  CHECK(out.message({{"type", "info"}, {"table", "t1"}, {"topic", "who"}, {"text", "a\nb"}}) ==
        "INFO t1 who: a\nINFO t1 who: b\n");
  CHECK(out.message({{"type", "pong"}}).empty());
}

TEST_CASE("the screen lists the legal plays to the player on turn only", "[clients][screen]") {
  // Given black to move
  const json st = state_with(standard_start);
  // When black's and red's screens draw it
  screen black{{false, false, "bob", "t1", 12}};
  screen red{{false, false, "alice", "t1", 12}};
  const std::string mine = black.message(st);
  const std::string theirs = red.message(st);
  // Then black sees the plays to copy, red sees who is awaited
  CHECK(mine.find("your move: /move <play>") != std::string::npos);
  CHECK(mine.find("24/15") != std::string::npos);
  CHECK(theirs.find("24/15") == std::string::npos);
  CHECK(theirs.find("waiting for bob") != std::string::npos);
}

TEST_CASE("the screen says a computer player is thinking while the match waits for it",
          "[clients][screen]") {
  // Given black, a computer player, to move, and the state saying it is thinking
  json st = state_with(standard_start);
  st["players"]["black"] = "gnubg-expert";
  st["bots"]["black"] = "expert";
  st["bot_thinking"] = true;
  // When red (the person) draws it
  screen red{{false, false, "alice", "t1", 12}};
  const std::string theirs = red.message(st);
  // Then red reads that the bot is thinking
  CHECK(theirs.find("gnubg-expert is thinking...") != std::string::npos);
}

TEST_CASE(
    "the lobby view draws each listed table as a row (seats with ratings, bots by name, "
    "variant, match, watchers), who is online and the viewer's rating, the prompt says where",
    "[clients][term][lobby]") {
  screen s{{false, false, "carol", "", 12}};
  CHECK(s.prompt() == "lobby> ");
  (void)s.message(json{
      {"type", "welcome"},
      {"name", "carol"},
      {"account", {{"registered", true}, {"rating", {{"standard", 1612.5}, {"long", 1500.0}}}}}});
  (void)s.message(json::parse(R"({"type":"tables","page":1,"pages":1,"total":2,"tables":[
    {"name":"t1","players":{"red":"alice","black":"bob"},"bots":{"red":null,"black":null},
     "ratings":{"red":1544.4,"black":null},"spectators":3,"phase":"move",
     "options":{"match":7,"variant":"standard","private":false}},
    {"name":"long-one","players":{"red":"dave","black":null},"bots":{"red":null,"black":"nardy-expert"},
     "ratings":{"red":null,"black":null},"spectators":0,"phase":"waiting",
     "options":{"match":"off","variant":"long","private":false}}]})"));
  (void)s.message(json::parse(
      R"({"type":"info","topic":"who","text":"3 online: alice, bob, carol",
          "data":{"online":["alice","bob","carol"],"total":3}})"));
  const auto lines = s.lobby_lines();
  REQUIRE(lines.size() >= 6);
  CHECK(lines[0] == "lobby - carol, rating: standard 1612.50, long 1500.00");
  const auto row_of = [&](const std::string& name) {
    const auto it = std::find_if(lines.begin(), lines.end(),
                                 [&](const std::string& l) { return l.rfind(name + " ", 0) == 0; });
    REQUIRE(it != lines.end());
    return *it;
  };
  const std::string t1 = row_of("t1");
  CHECK(t1.find("alice (1544)") != std::string::npos);
  CHECK(t1.find("bob ") != std::string::npos);
  CHECK(t1.find("7 pt") != std::string::npos);
  CHECK(t1.substr(t1.size() - 3) == "3  ");
  const std::string long_one = row_of("long-one");
  CHECK(long_one.find("nardy-expert") != std::string::npos);
  CHECK(long_one.find("long") != std::string::npos);
  CHECK(long_one.find("free play") != std::string::npos);
  for (const auto& l : lines) CHECK(l.size() <= 78);
  CHECK(std::find(lines.begin(), lines.end(), "online (3): alice, bob, carol") != lines.end());
  // At a table the prompt names it and /tables answers go to the log instead
  (void)s.view("t1");
  CHECK(s.prompt() == "t1> ");
}

TEST_CASE(
    "S5 the lobby view shows how many players wait per variant, pushed or listed, and the "
    "viewer's own waiting /seek with its time waited and rating window until it is paired",
    "[clients][term][lobby][S5]") {
  screen s{{false, false, "erin", "", 12}};
  const auto line_with = [&](const std::string& part) {
    for (const auto& l : s.lobby_lines())
      if (l.find(part) != std::string::npos) return l;
    return std::string{};
  };
  // Given the count listed with the tables, then pushed by the server
  (void)s.message(json::parse(
      R"({"type":"tables","page":1,"pages":1,"total":0,"tables":[],"seeking":{"standard":0,"long":0}})"));
  CHECK(line_with("play now") == "play now (/seek): nobody is waiting for a game");
  (void)s.message(json::parse(R"({"type":"lobby","seeking":{"standard":3,"long":1}})"));
  CHECK(line_with("play now") == "play now (/seek): 3 waiting for standard, 1 for long");
  // When the viewer's /seek waits (12 s in already: the window has widened once)
  (void)s.message(json::parse(R"({"type":"info","topic":"seek","text":"you wait",
      "data":{"status":"waiting","variant":"long","lengths":[5],"clock":null,"bot_after":null,
              "rating":1500,"window":150,"waited":12,"waiting":{"standard":3,"long":1}}})"));
  // Then the view says so, with the time waited and the window
  const std::string mine = line_with("you wait");
  CHECK(mine.find("(long)") != std::string::npos);
  CHECK(mine.find("0:12") != std::string::npos);
  CHECK(mine.find("rating within 150") != std::string::npos);
  for (const auto& l : s.lobby_lines()) CHECK(l.size() <= 78);
  // And once paired, the line is gone
  (void)s.message(json::parse(
      R"({"type":"info","topic":"play","text":"paired","data":{"table":"match-1","opponent":"x","side":"red"}})"));
  CHECK(line_with("you wait").empty());
}

TEST_CASE("S5 script mode prints the lobby's pushed count of players waiting as one SEEKING line",
          "[clients][term][script][S5]") {
  const script_writer w{{false, "erin"}};
  CHECK(w.message(json::parse(R"({"type":"lobby","seeking":{"standard":2,"long":0}})")) ==
        "SEEKING standard=2 long=0\n");
}

TEST_CASE("gammon-term's language: --lang, else LC_ALL, LC_MESSAGES, LANG, else English",
          "[clients][term][i18n]") {
  using bg::term::term_options;
  // The locale's text alone decides: "ru_RU.UTF-8" need not be an installed locale
  CHECK(term_options::language_of("", nullptr, nullptr, "ru_RU.UTF-8") == "ru");
  CHECK(term_options::language_of("fr", nullptr, nullptr, "ru_RU.UTF-8") == "fr");
  CHECK(term_options::language_of("", "de_DE.UTF-8", "fr_FR", "ru_RU.UTF-8") == "de");
  CHECK(term_options::language_of("", "", "fr_FR", "ru_RU.UTF-8") == "fr");
  CHECK(term_options::language_of("", nullptr, nullptr, "C.UTF-8") == "en");
  CHECK(term_options::language_of("", nullptr, nullptr, nullptr) == "en");
  CHECK(term_options::language_of("xx", nullptr, nullptr, "ru_RU.UTF-8") == "en");
}

TEST_CASE("the side panel is drawn in the viewer's language, the board's numbers kept",
          "[clients][term][i18n]") {
  const json st = state_with(standard_start);
  const board_view english{{false, "alice"}};
  const board_view russian{{false, "alice", {}, "ru"}};
  std::string en;
  for (const auto& line : english.render(st)) en += line + "\n";
  std::string ru;
  for (const auto& line : russian.render(st)) ru += line + "\n";
  CHECK(en.find("cube 1 centred") != std::string::npos);
  CHECK(ru.find("куб 1 в центре") != std::string::npos);
  CHECK(ru.find("счёт: красные 0, чёрные 0") != std::string::npos);
  CHECK(ru.find("cube") == std::string::npos);
  // The board itself (its borders and numbers) is the same drawing
  CHECK(ru.find(" +-------------------+---+-------------------+") != std::string::npos);
  CHECK(ru.find(" 13 14 15 16 17 18") != std::string::npos);
  // The protocol's words (the phase) are said in the language too, kept in English.
  const board_view french{{false, "alice", {}, "fr"}};
  std::string fr;
  for (const auto& line : french.render(st)) fr += line + "\n";
  REQUIRE(st["phase"] == "move");
  CHECK(en.find("phase move") != std::string::npos);
  CHECK(fr.find("phase jouer") != std::string::npos);
}
