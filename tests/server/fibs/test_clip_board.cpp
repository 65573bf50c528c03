// The FIBS `board:` line and FIBS's move notation (clip_board.hpp), field by field
// against FIBS's published description of the line: "FIBS Client Protocol Detailed
// Specification" (Evan McLean, fibs_interface.html, section "board"), whose example is
//   board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:
//   1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0
// The fields (protocol/FIBS.md): 1 player, 2 opponent, 3 match length, 4-5 points, 6-31
// the board (26 numbers: O's checkers positive, X's negative; 0 and 25 the bars), 32
// turn (-1 X, 1 O, 0 none), 33-34 player's dice, 35-36 opponent's, 37 cube, 38-39 may
// double, 40 was doubled, 41 colour, 42 direction, 43 home, 44 bar, 45-46 borne off
// (player, opponent), 47-48 on the bar, 49 can move, 50 forced move, 51 did Crawford,
// 52 redoubles.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bg/server/fibs/clip_board.hpp"

using bg::server::fibs::board_line;
using bg::server::fibs::fibs_moves;
using bg::server::fibs::gammond_play;
using nlohmann::json;

namespace {

/// The standard start (RULES.md R1 numbering: red moves 1 -> 24, positive).
json start_points() {
  return json::array({2, 0, 0, 0, 0, -5, 0, -3, 0, 0, 0, 5, -5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, -2});
}

/// A gammond `state` message with the fields board_line reads.
json state_of(json points, const std::string& phase, const std::string& turn, json dice) {
  return {{"type", "state"},
          {"table", "t"},
          {"seq", 5},
          {"players", {{"red", "rosa"}, {"black", "bert"}}},
          {"phase", phase},
          {"turn", turn.empty() ? json(nullptr) : json(turn)},
          {"to_act", turn.empty() ? json(nullptr) : json(turn)},
          {"dice", std::move(dice)},
          {"board",
           {{"points", std::move(points)},
            {"bar", {{"red", 0}, {"black", 0}}},
            {"off", {{"red", 0}, {"black", 0}}}}},
          {"cube", {{"value", 1}, {"owner", "center"}, {"offered_by", nullptr}, {"in_play", true}}},
          {"score", {{"red", 0}, {"black", 0}}},
          {"match_length", 3},
          {"crawford", false},
          {"legal", json::array()},
          {"legal_moves", json::array()}};
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in{line};
  std::string f;
  while (std::getline(in, f, ':')) out.push_back(f);
  return out;
}

}  // namespace

TEST_CASE(
    "the board: line of the opening position, seen by black with 6-2 to play, is FIBS's "
    "own example of the line, byte for byte",
    "[fibs][board]") {
  // Given black ("You", FIBS's O moving 24 -> 1) to move 6-2 at the start of a 3-point match
  json s = state_of(start_points(), "move", "black", {6, 2});
  s["players"]["black"] = "me";
  s["players"]["red"] = "someplayer";
  s["legal_moves"] = json::array({json::array({json{{"from", 24}, {"to", 18}, {"hit", false}},
                                               json{{"from", 13}, {"to", 11}, {"hit", false}}})});
  // When it is written as FIBS's board: line from black's side
  // Then it is the example of FIBS's description
  CHECK(board_line(s, "black", true) ==
        "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:"
        "0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0");
}

TEST_CASE(
    "the board: line seen by red (X, direction 1) has red's bar at 0, home 25, red's "
    "checkers negative, and red's own counts of checkers borne off and on the bar",
    "[fibs][board]") {
  // Given red with 2 checkers on the bar and 3 borne off, black with 1 on the bar and 5 off
  json points = json::array();
  for (int i = 0; i < 24; ++i) points.push_back(0);
  points[0] = 4;    // red (X) on point 1
  points[18] = 6;   // red on point 19
  points[5] = -4;   // black (O) on point 6
  points[12] = -5;  // black on 13
  json s = state_of(points, "move", "red", {5, 5});
  s["board"]["bar"] = {{"red", 2}, {"black", 1}};
  s["board"]["off"] = {{"red", 3}, {"black", 5}};
  s["cube"] = {{"value", 2}, {"owner", "red"}, {"offered_by", nullptr}, {"in_play", true}};
  s["score"] = {{"red", 1}, {"black", 0}};
  s["legal_moves"] = json::array({json::array({json{{"from", "bar"}, {"to", 5}, {"hit", false}},
                                               json{{"from", "bar"}, {"to", 5}, {"hit", false}},
                                               json{{"from", 5}, {"to", 10}, {"hit", false}}})});
  // When red's player reads it
  const auto f = fields(board_line(s, "red", true));
  // Then every field is red's
  REQUIRE(f.size() == 53);
  CHECK(f[0] == "board");
  CHECK(f[1] == "You");
  CHECK(f[2] == "bert");
  CHECK(f[3] == "3");                     // match length
  CHECK(f[4] == "1");                     // red's points
  CHECK(f[5] == "0");                     // black's
  CHECK(f[6] == "-2");                    // board[0]: X's (red's) bar, X negative
  CHECK(f[7] == "-4");                    // point 1: 4 of red's
  CHECK(f[12] == "4");                    // point 6: 4 of black's (O positive)
  CHECK(f[19] == "5");                    // point 13: black's 5
  CHECK(f[25] == "-6");                   // point 19: red's 6
  CHECK(f[31] == "1");                    // board[25]: O's (black's) bar
  CHECK(f[32] == "-1");                   // turn: X (red)
  CHECK((f[33] == "5" && f[34] == "5"));  // red's dice
  CHECK((f[35] == "0" && f[36] == "0"));  // black has not rolled
  CHECK(f[37] == "2");                    // cube
  CHECK(f[38] == "1");                    // red owns the cube: red may double
  CHECK(f[39] == "0");                    // black may not
  CHECK(f[40] == "0");                    // no double pending
  CHECK(f[41] == "-1");                   // colour X
  CHECK(f[42] == "1");                    // direction 1 -> 24
  CHECK(f[43] == "25");                   // home
  CHECK(f[44] == "0");                    // bar
  CHECK(f[45] == "3");                    // red's checkers borne off
  CHECK(f[46] == "5");                    // black's
  CHECK(f[47] == "2");                    // red on the bar
  CHECK(f[48] == "1");                    // black on the bar
  CHECK(f[49] == "3");                    // can move: the legal play's checker moves
  CHECK(f[50] == "0");                    // forced move
  CHECK(f[51] == "0");                    // did Crawford
  CHECK(f[52] == "0");                    // redoubles
}

TEST_CASE(
    "the board: line seen by black (O, direction -1) has black's bar at 25 and home 0, "
    "a pending double of red's as was-doubled, and no one's dice",
    "[fibs][board]") {
  // Given red doubled black (cube_offered, black to answer), black 2 on the bar, red 7 off
  json points = start_points();
  json s = state_of(points, "cube_offered", "red", json::array());
  s["to_act"] = "black";
  s["board"]["bar"] = {{"red", 0}, {"black", 2}};
  s["board"]["off"] = {{"red", 7}, {"black", 0}};
  s["cube"] = {{"value", 1}, {"owner", "center"}, {"offered_by", "red"}, {"in_play", true}};
  // When black's player reads it
  const auto f = fields(board_line(s, "black", true));
  REQUIRE(f.size() == 53);
  CHECK(f[2] == "rosa");
  CHECK(f[6] == "0");    // X's bar: red has none there
  CHECK(f[31] == "2");   // O's (black's) bar at 25
  CHECK(f[32] == "-1");  // still red's turn
  CHECK((f[33] == "0" && f[34] == "0" && f[35] == "0" && f[36] == "0"));
  CHECK(f[40] == "1");   // the opponent doubled: black must accept or reject
  CHECK(f[41] == "1");   // colour O
  CHECK(f[42] == "-1");  // direction 24 -> 1
  CHECK(f[43] == "0");   // home
  CHECK(f[44] == "25");  // bar
  CHECK(f[45] == "0");   // black borne off
  CHECK(f[46] == "7");   // red borne off
  CHECK(f[47] == "2");   // black on the bar
  CHECK(f[48] == "0");
  CHECK(f[49] == "0");  // nothing to move now
}

TEST_CASE(
    "the board: line in the Crawford game says no one may double, and after it that the "
    "Crawford game was played, a spectator's line names the player watched",
    "[fibs][board][R15]") {
  json s = state_of(start_points(), "roll", "black", json::array());
  s["score"] = {{"red", 2}, {"black", 0}};
  s["crawford"] = true;
  auto f = fields(board_line(s, "black", true));
  CHECK(f[38] == "0");
  CHECK(f[39] == "0");
  CHECK(f[51] == "0");
  s["crawford"] = false;
  s["score"] = {{"red", 2}, {"black", 1}};
  f = fields(board_line(s, "black", true));
  CHECK(f[38] == "1");
  CHECK(f[39] == "1");
  CHECK(f[51] == "1");
  // A 1-point match has no Crawford game: both sides start at length - 1.
  s["match_length"] = 1;
  s["score"] = {{"red", 0}, {"black", 0}};
  f = fields(board_line(s, "black", true));
  CHECK(f[51] == "0");
  // A spectator watching rosa: rosa's name, not "You"; a match without a target is 9999.
  s["match_length"] = 0;
  f = fields(board_line(s, "red", false));
  CHECK(f[1] == "rosa");
  CHECK(f[2] == "bert");
  CHECK(f[3] == "9999");
}

TEST_CASE(
    "FIBS's move notation becomes gammond's in the mover's own numbering: absolute points "
    "for black, mirrored for red, bar and off in FIBS's abbreviations",
    "[fibs][notation]") {
  CHECK(*gammond_play("24-18 13-11", "black") == "24/18 13/11");
  CHECK(*gammond_play("1-7 12-14", "red") == "24/18 13/11");
  CHECK(*gammond_play("bar-22", "black") == "bar/22");
  CHECK(*gammond_play("b-3", "red") == "bar/22");
  CHECK(*gammond_play("0-3", "red") == "bar/22");      // red's bar is FIBS's 0
  CHECK(*gammond_play("25-20", "black") == "bar/20");  // black's is 25
  CHECK(*gammond_play("19-off 20-o", "red") == "6/off 5/off");
  CHECK(*gammond_play("6-off 1-0", "black") == "6/off 1/off");
  CHECK(*gammond_play("24 18 13 11", "black") == "24/18 13/11");
  CHECK(*gammond_play("8/5, 6/5", "black") == "8/5 6/5");
  for (const std::string bad :
       {"", "24-", "-18", "24-18-12", "24 18 13", "x-3", "off-3", "5-bar"}) {
    const auto r = gammond_play(bad, "black");
    INFO(bad);
    REQUIRE(!r);
    CHECK(r.err().code == "bad_notation");
  }
}

TEST_CASE(
    "a moved event's play is written as FIBS's moves: one from-to per die, in FIBS's "
    "absolute numbering, through the point the opponent did not hold",
    "[fibs][notation]") {
  const json points = start_points();
  CHECK(fibs_moves("24/18 13/11", "black", {6, 2}, points) == "24-18 13-11");
  CHECK(fibs_moves("24/18 13/11", "red", {6, 2}, points) == "1-7 12-14");
  CHECK(fibs_moves("bar/22 22/21", "black", {3, 1}, points) == "bar-22 22-21");
  CHECK(fibs_moves("bar/22 6/5", "red", {3, 1}, points) == "bar-3 19-20");
  CHECK(fibs_moves("6/off 5/off", "red", {6, 5}, points) == "19-off 20-off");
  CHECK(fibs_moves("8/2(2)", "black", {3, 3}, points) == "8-5 5-2 8-5 5-2");
  // 24/13 with 6-5: 24-18 is open on the opening board (18 holds nothing of red's).
  CHECK(fibs_moves("24/13", "black", {6, 5}, points) == "24-18 18-13");
  // With red holding point 18, black's checker goes through 19 instead.
  json blocked = points;
  blocked[17] = 2;  // point 18: two of red's (a block)
  blocked[18] = 0;  // point 19: empty (open)
  blocked[16] = 6;  // point 17: the rest of red's
  CHECK(fibs_moves("24/13", "black", {6, 5}, blocked) == "24-19 19-13");
  CHECK(fibs_moves("13/7*/1", "black", {6, 6}, points) == "13-7 7-1");
  CHECK(fibs_moves("not a play", "black", {6, 6}, points).empty());
}
