// FIBS clients (issue 32 "Proof"): the real gammond with --fibs-port on an ephemeral port,
// a scripted CLIP client (bg::test::clip_client) beside WebSocket players
// (bg::test::player): the login and its lines, a whole 3-point match with a double whose
// board: line after each change is checked field by field against gammond's state
// (FIBS's description of the line: fibs_interface.html, "board"; protocol/FIBS.md), the
// guest registration, a wrong password, kill -9 mid-match and the match back after the
// next login, watching, talking, the who-list's logins and logouts, and what clients
// misuse (long lines, telnet bytes, no CR, no login, idling, too many connections).
#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "clip_client.hpp"
#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "test_player.hpp"
#include "ws_client.hpp"

using bg::test::clip_client;
using bg::test::gammond_process;
using bg::test::player;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

std::vector<std::string> flags(std::vector<std::string> more = {}) {
  more.insert(more.begin(), {"--fibs-port", "0", "--fibs-who-interval", "1"});
  return bg::test::gammond_flags(32, std::move(more));
}

/// Registers `name` with `password` over WebSocket (then the connection closes).
void register_account(const gammond_process& server, const std::string& name,
                      const std::string& password) {
  const auto answer = bg::test::first_answer(
      server, {{"type", "register"}, {"name", name}, {"password", password}});
  REQUIRE(answer.value("type", "") == "welcome");
}

/// Logs `name` in on a new FIBS connection; returns the own-info line (CLIP 2).
std::string login(clip_client& fibs, const std::string& name, const std::string& password) {
  fibs.wait_text("login: ");
  fibs.send("login scripted-client 1008 " + name + " " + password);
  fibs.wait_prefix("1 " + name + " ");
  return fibs.wait_prefix("2 " + name + " ");
}

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> out;
  std::stringstream in{text};
  std::string f;
  while (std::getline(in, f, by)) out.push_back(f);
  return out;
}

std::int64_t num(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number_integer() ? j[key].get<std::int64_t>() : 0;
}

/// FIBS's may-double field for `side`: the cube is in play, below 64, centred or that
/// side's, and this is not the Crawford game.
bool may_double(const json& s, const std::string& side) {
  const auto& cube = s["cube"];
  return cube.value("in_play", false) && !s.value("crawford", false) &&
         s.value("phase", "") != "match_over" && cube.value("value", 1) < 64 &&
         (cube.value("owner", "") == "center" || cube.value("owner", "") == side);
}

/// The first field of FIBS `board:` line `line` that does not say what gammond's state
/// `s` says for the player on `side`, as "field N: got X, want Y"; "" when all 53 agree.
/// Field by field per FIBS's description (protocol/FIBS.md): X is red (direction 1,
/// home 25, bar 0, negative), O is black (direction -1, home 0, bar 25, positive).
std::string board_mismatch(const std::string& line, const json& s, const std::string& side) {
  const auto f = split(line, ':');
  if (f.size() != 53) return "53 fields expected, got " + std::to_string(f.size());
  const std::string them = side == "red" ? "black" : "red";
  const bool red = side == "red";
  std::vector<std::string> want(53);
  want[0] = "board";
  want[1] = "You";
  want[2] = s["players"][them].get<std::string>();
  const auto length = num(s, "match_length");
  want[3] = std::to_string(length > 0 ? length : 9999);
  want[4] = std::to_string(num(s["score"], side.c_str()));
  want[5] = std::to_string(num(s["score"], them.c_str()));
  const auto& board = s["board"];
  want[6] = std::to_string(-num(board["bar"], "red"));
  for (std::size_t i = 0; i < 24; ++i) want[7 + i] = std::to_string(-board["points"][i].get<int>());
  want[31] = std::to_string(num(board["bar"], "black"));
  const std::string turn = s["turn"].is_string() ? s["turn"].get<std::string>() : "";
  want[32] = turn == "red" ? "-1" : turn == "black" ? "1" : "0";
  const bool rolled = s["phase"] == "move";
  for (std::size_t who = 0; who < 2; ++who) {
    const std::string& w = who == 0 ? side : them;
    const bool theirs = rolled && turn == w;
    want[33 + 2 * who] = theirs ? std::to_string(s["dice"][0].get<int>()) : "0";
    want[34 + 2 * who] = theirs ? std::to_string(s["dice"][1].get<int>()) : "0";
  }
  want[37] = std::to_string(s["cube"]["value"].get<int>());
  want[38] = may_double(s, side) ? "1" : "0";
  want[39] = may_double(s, them) ? "1" : "0";
  want[40] = s["phase"] == "cube_offered" && s["cube"]["offered_by"] == them ? "1" : "0";
  want[41] = red ? "-1" : "1";
  want[42] = red ? "1" : "-1";
  want[43] = red ? "25" : "0";
  want[44] = red ? "0" : "25";
  want[45] = std::to_string(num(board["off"], side.c_str()));
  want[46] = std::to_string(num(board["off"], them.c_str()));
  want[47] = std::to_string(num(board["bar"], side.c_str()));
  want[48] = std::to_string(num(board["bar"], them.c_str()));
  std::size_t can_move = 0;
  if (rolled && turn == side)
    for (const auto& p : s["legal_moves"]) can_move = std::max(can_move, p.size());
  want[49] = std::to_string(can_move);
  want[50] = "0";
  const bool post =
      length > 1 && !s.value("crawford", false) &&
      (num(s["score"], "red") == length - 1 || num(s["score"], "black") == length - 1);
  want[51] = post ? "1" : "0";
  want[52] = "0";
  for (std::size_t i = 0; i < 53; ++i)
    if (f[i] != want[i])
      return "field " + std::to_string(i) + ": got " + f[i] + ", want " + want[i];
  return {};
}

/// Reads `fibs`'s lines on until a board: line that says all `s` says for `side`.
void expect_board(clip_client& fibs, const json& s, const std::string& side) {
  std::string last;
  try {
    fibs.wait_line([&](const std::string& l) {
      if (l.rfind("board:", 0) != 0) return false;
      last = l + " (" + board_mismatch(l, s, side) + ")";
      return board_mismatch(l, s, side).empty();
    });
  } catch (const std::exception& e) {
    FAIL("no board: line matches gammond's state " << s.dump() << "\nlast board: " << last << "\n"
                                                   << e.what());
  }
}

/// The FIBS move of a legal play's checker moves (board places are FIBS's points).
std::string fibs_play(const json& moves) {
  std::string out;
  for (const auto& m : moves) {
    const auto place = [](const json& p) {
      return p.is_string() ? p.get<std::string>() : std::to_string(p.get<int>());
    };
    out += (out.empty() ? "" : " ") + place(m["from"]) + "-" + place(m["to"]);
  }
  return out;
}

/// alice on FIBS invites bob (WebSocket) to a `length`-point match; bob sits down.
/// Returns the table.
std::string start_match(clip_client& alice, player& bob, int length) {
  alice.send("invite bob " + std::to_string(length));
  alice.wait_prefix("** You invited bob to a " + std::to_string(length) + " point match.");
  const auto invitation = bob.await([](const json& m) {
    return m.value("type", "") == "info" && m.value("topic", "") == "invitation";
  });
  CHECK(invitation["data"]["by"] == "alice");
  CHECK(invitation["data"]["match"] == length);
  const std::string table = invitation["data"]["table"];
  bob.ok(table, "/join");
  alice.wait_prefix("** Player bob has joined you for a " + std::to_string(length) +
                    " point match.");
  return table;
}

}  // namespace

TEST_CASE(
    "a CLIP client logs in, gets its own info and the who-list, and plays a whole 3-point "
    "match with a double against a WebSocket player, its board: line after each change "
    "agreeing with gammond's state field by field",
    "[fibs][process][R13][R14]") {
  gammond_process server{flags()};
  REQUIRE(server.fibs_port() != 0);
  register_account(server, "alice", "alice-password");
  player bob{server.port(), "bob"};
  clip_client alice{server.fibs_port()};
  const auto own = split(login(alice, "alice", "alice-password"), ' ');
  // CLIP 2: name, 8 toggles, experience, 4 toggles, rating, 2 toggles, redoubles, 2
  // toggles, timezone.
  REQUIRE(own.size() == 22);
  CHECK(own[15] == "1500.00");
  alice.wait_line([](const std::string& l) { return l == "3"; });
  alice.wait_line([](const std::string& l) { return l == "4"; });
  std::vector<std::string> who;
  for (std::string l = alice.wait_prefix(""); l != "6"; l = alice.wait_prefix("")) {
    if (l.rfind("5 ", 0) == 0) who.push_back(split(l, ' ').at(1));
  }
  std::sort(who.begin(), who.end());
  CHECK(who == std::vector<std::string>{"alice", "bob"});

  const std::string table = start_match(alice, bob, 3);
  alice.wait_prefix("** You are now playing a 3 point match with bob");
  std::mt19937 rng{32};
  bool doubled = false;
  json s = bob.ok(table, "/board");
  const std::string alice_side = s["players"]["red"] == "alice" ? "red" : "black";
  std::uint64_t checked = 0;
  for (int step = 0; step < 4000 && s["phase"] != "match_over"; ++step) {
    const std::uint64_t seq = s["seq"];
    if (seq != checked && s["phase"] != "waiting") {
      expect_board(alice, s, alice_side);
      checked = seq;
    }
    const std::string phase = s["phase"];
    const std::string to_act = s["to_act"].is_string() ? s["to_act"].get<std::string>() : "";
    const bool alices = to_act == alice_side;
    if (phase == "roll" && alices && s.value("may_double", false)) {
      // FIBS asks a player who may double to double or roll; the first time she doubles.
      alice.send(doubled ? "roll" : "double");
      doubled = true;
    } else if (phase == "move" && alices) {
      const auto& legal = s["legal_moves"];
      REQUIRE_FALSE(legal.empty());
      std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
      alice.send("move " + fibs_play(legal[pick(rng)]));
    } else if (phase == "cube_offered" && alices) {
      alice.send("accept");
    } else if (phase == "cube_offered") {
      bob.send(table, "/take");
    } else if (phase == "roll" && !alices) {
      bob.send(table, "/roll");
    } else if (phase == "move" && !alices) {
      const auto legal = s["legal"].get<std::vector<std::string>>();
      REQUIRE_FALSE(legal.empty());
      std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
      bob.send(table, "/move " + legal[pick(rng)]);
    }
    // Otherwise (the opening roll, a roll of a player who may not double) FIBS acts.
    bob.await_state(table, [&](const json& n) { return n["seq"].get<std::uint64_t>() > seq; });
    s = bob.ok(table, "/board");
  }
  REQUIRE(s["phase"] == "match_over");
  CHECK(doubled);
  const std::string winner = s["score"]["red"] >= 3 ? "red" : "black";
  const std::string winner_name = winner == alice_side ? "You win" : "bob wins";
  alice.wait_prefix(winner_name + " the 3 point match ");
  const auto& lines = alice.lines();
  const auto any = [&](const std::string& prefix) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
  };
  CHECK(any("bob rolls "));
  CHECK(any("bob moves "));
  CHECK(any("You double. Please wait for bob to accept or reject."));
  CHECK(any("bob accepts the double.  The cube shows 2."));
  CHECK(any("score in 3 point match: "));
}

TEST_CASE(
    "FIBS's guest registration makes an account: guest, name, the password twice, the name "
    "then logs in on FIBS and over WebSocket",
    "[fibs][process]") {
  gammond_process server{flags()};
  {
    clip_client guest{server.fibs_port()};
    guest.wait_text("login: ");
    guest.send("guest");
    guest.wait_text("> ");
    guest.send("name carol");
    guest.wait_prefix("Your name will be carol");
    guest.wait_text("Please give your password: ");
    guest.send("carols-password");
    guest.wait_text("Please retype your password: ");
    guest.send("carols-password");
    guest.wait_prefix("You are registered.");
    guest.wait_prefix("1 carol ");
    guest.wait_prefix("2 carol ");
    guest.send("bye");
    CHECK(guest.wait_closed());
  }
  clip_client again{server.fibs_port()};
  login(again, "carol", "carols-password");
  const auto answer = bg::test::first_answer(
      server, {{"type", "hello"}, {"name", "carol"}, {"password", "carols-password"}});
  CHECK(answer.value("type", "") == "welcome");
  CHECK(answer["account"]["registered"] == true);
}

TEST_CASE(
    "a wrong password is refused with a line and the login prompt, the right one then "
    "logs in on the same connection",
    "[fibs][process]") {
  gammond_process server{flags()};
  register_account(server, "alice", "alice-password");
  clip_client fibs{server.fibs_port()};
  fibs.wait_text("login: ");
  fibs.send("login scripted-client 1008 alice not-her-password");
  const auto refused = fibs.wait_prefix("** ");
  CHECK(refused.find("password") != std::string::npos);
  fibs.wait_text("login: ");
  CHECK(std::none_of(fibs.lines().begin(), fibs.lines().end(),
                     [](const std::string& l) { return l.rfind("1 alice", 0) == 0; }));
  fibs.send("login scripted-client 1008 alice alice-password");
  fibs.wait_prefix("1 alice ");
}

TEST_CASE(
    "kill -9 of gammond mid-match: when the CLIP player logs in again the match is back, "
    "its board: line agreeing with the state gammond restored, and play goes on",
    "[fibs][process][S3]") {
  gammond_process server{flags()};
  register_account(server, "alice", "alice-password");
  json before;
  std::string table;
  std::string bob_token;
  {
    player bob{server.port(), "bob"};
    bob_token = bob.token();
    clip_client alice{server.fibs_port()};
    login(alice, "alice", "alice-password");
    table = start_match(alice, bob, 5);
    // Play on until bob has made a move or two (alice's opening roll is rolled for her).
    std::mt19937 rng{5};
    json s = bob.ok(table, "/board");
    for (int i = 0; i < 200 && num(s, "seq") < 12; ++i) {
      const std::string alice_side = s["players"]["red"] == "alice" ? "red" : "black";
      const std::uint64_t seq = s["seq"];
      const bool alices = s["to_act"] == alice_side;
      if (s["phase"] == "move" && alices) {
        std::uniform_int_distribution<std::size_t> pick(0, s["legal_moves"].size() - 1);
        alice.send("move " + fibs_play(s["legal_moves"][pick(rng)]));
      } else if (s["phase"] == "roll" && alices) {
        alice.send("roll");
      } else if (s["phase"] == "roll") {
        bob.send(table, "/roll");
      } else if (s["phase"] == "move") {
        bob.send(table, "/move " + s["legal"][0].get<std::string>());
      }
      bob.await_state(table, [&](const json& n) { return n["seq"].get<std::uint64_t>() > seq; });
      s = bob.ok(table, "/board");
    }
    before = s;
    REQUIRE(before["game_number"] == 1);
    server.restart(SIGKILL);
  }
  // bob comes back with his resume token, alice logs in on FIBS again.
  player bob{server.port(), "bob", bob_token};
  clip_client alice{server.fibs_port()};
  login(alice, "alice", "alice-password");
  const json after = bob.ok(table, "/board");
  CHECK(after["board"] == before["board"]);
  CHECK(after["score"] == before["score"]);
  const std::string alice_side = after["players"]["red"] == "alice" ? "red" : "black";
  expect_board(alice, after, alice_side);
  // The match goes on from FIBS: a roll or a move of hers, or bob's, changes the state.
  alice.send("board");
  expect_board(alice, after, alice_side);
}

TEST_CASE(
    "a WebSocket player's /invite reaches a FIBS client as FIBS's invitation, and join "
    "NAME sits it down at that table and starts the match",
    "[fibs][process]") {
  gammond_process server{flags()};
  register_account(server, "alice", "alice-password");
  player bob{server.port(), "bob"};
  clip_client alice{server.fibs_port()};
  login(alice, "alice", "alice-password");
  alice.wait_line([](const std::string& l) { return l == "6"; });
  bob.ok("den", "/join");
  bob.ok("den", "/option match 3");
  bob.ok("den", "/invite alice");
  alice.wait_prefix("bob wants to play a 3 point match with you.");
  alice.wait_prefix("Type 'join bob' to accept.");
  alice.send("join carol");
  alice.wait_prefix("** carol didn't invite you.");
  alice.send("join bob");
  const json started = bob.await_event("den", "started");
  CHECK(started["name"].is_string());
  alice.wait_prefix("** You are now playing a 3 point match with bob");
  const json s = bob.await_state("den", [](const json& n) { return n["phase"] != "waiting"; });
  CHECK((s["players"]["red"] == "alice" || s["players"]["black"] == "alice"));
}

TEST_CASE("a FIBS client watches a match by a player's name and sees that player's board",
          "[fibs][process]") {
  gammond_process server{flags()};
  register_account(server, "alice", "alice-password");
  register_account(server, "carol", "carols-password");
  player bob{server.port(), "bob"};
  clip_client alice{server.fibs_port()};
  login(alice, "alice", "alice-password");
  const std::string table = start_match(alice, bob, 1);
  const json s = bob.await_state(
      table, [](const json& n) { return n["phase"] != "waiting" && n["phase"] != "opening"; });
  clip_client carol{server.fibs_port()};
  login(carol, "carol", "carols-password");
  carol.send("watch alice");
  carol.wait_prefix("You're now watching alice.");
  const auto line = carol.wait_prefix("board:alice:bob:1:");
  CHECK(split(line, ':').size() == 53);
  carol.send("unwatch");
  carol.wait_prefix("You stop watching alice.");
  carol.send("watch nobody-here");
  carol.wait_prefix("** nobody-here is not playing.");
}

TEST_CASE(
    "talking: tell, shout and say reach WebSocket players and come back as CLIP 12, 13 "
    "and 16-17, an ignoring player hears nothing, the who-list shows logins and logouts",
    "[fibs][process]") {
  gammond_process server{flags({"--lobby-chat-interval", "0", "--table-chat-interval", "0"})};
  register_account(server, "alice", "alice-password");
  player bob{server.port(), "bob"};
  clip_client alice{server.fibs_port()};
  login(alice, "alice", "alice-password");
  alice.wait_line([](const std::string& l) { return l == "6"; });
  CHECK(server.metric("gammond_fibs_connections") == 1);
  alice.send("tell bob psst, bob");
  alice.wait_prefix("16 bob psst, bob");
  const auto told = bob.await([](const json& m) { return m.value("type", "") == "chat"; });
  CHECK(told["from"] == "alice");
  CHECK(told["to"] == "bob");
  CHECK(told["text"] == "psst, bob");
  bob.ok("", "/tell alice hello alice");
  alice.wait_prefix("12 bob hello alice");
  bob.send("", "anyone here?");
  alice.wait_prefix("13 bob anyone here?");
  alice.send("shout hello all");
  alice.wait_prefix("17 hello all");
  CHECK(bob.await([](const json& m) {
    return m.value("type", "") == "chat" && m.value("from", "") == "alice";
  })["text"] == "hello all");
  alice.send("tell nobody-online hi");
  alice.wait_prefix("** nobody-online is not online");
  // bob ignores alice: her tell is not delivered, and she is told nothing different.
  bob.ok("", "/ignore alice");
  alice.send("tell bob are you there?");
  alice.wait_prefix("16 bob are you there?");
  bob.ok("", "/who");  // a round trip: anything alice's tell sent bob has arrived by now
  CHECK(std::none_of(bob.received().begin(), bob.received().end(), [](const json& m) {
    return m.value("type", "") == "chat" && m.value("text", "") == "are you there?";
  }));
  // Logins and logouts reach the who-list (CLIP 7 and 8).
  {
    player dave{server.port(), "dave"};
    alice.wait_prefix("7 dave dave logs in.");
  }
  alice.wait_prefix("8 dave dave drops connection.");
}

TEST_CASE(
    "what FIBS clients misuse gets bounded handling and a line: a line over the bound, "
    "telnet option bytes, a line without CR, a client that never logs in, an idle one",
    "[fibs][process]") {
  gammond_process server{flags(
      {"--fibs-login-timeout", "2", "--fibs-idle-timeout", "3", "--fibs-max-line-bytes", "256"})};
  register_account(server, "alice", "alice-password");
  {
    clip_client fibs{server.fibs_port()};
    fibs.wait_text("login: ");
    fibs.send(std::string(5000, 'x'));
    fibs.wait_prefix("** Your line was too long: at most 256 bytes.");
    // Telnet negotiation (IAC DO TERMINAL-TYPE, a subnegotiation) and a bare LF.
    fibs.send_raw("\xff\xfd\x18\xff\xfa\x18\x01\xff\xf0guest\n");
    fibs.wait_prefix("Welcome, guest.");
    fibs.send("bye");
    CHECK(fibs.wait_closed());
  }
  {
    // The login timeout counts from the connection: empty lines do not put it off.
    clip_client silent{server.fibs_port()};
    silent.wait_text("login: ");
    bool told = false;
    for (int i = 0; i < 20 && !told; ++i) {
      try {
        silent.send("");
      } catch (const std::exception&) {
        break;  // closed: what it was told before is in lines()
      }
      try {
        silent.wait_prefix("** You did not log in in time. Goodbye.", 500ms);
        told = true;
      } catch (const std::exception&) {
      }
    }
    CHECK(silent.wait_closed(5s));
    const auto& seen = silent.lines();
    told = told || std::find(seen.begin(), seen.end(), "** You did not log in in time. Goodbye.") !=
                       seen.end();
    CHECK(told);
  }
  {
    clip_client idle{server.fibs_port()};
    login(idle, "alice", "alice-password");
    idle.wait_prefix("** You have been idle for too long. Goodbye.", 15s);
    CHECK(idle.wait_closed(5s));
  }
  // gammond is fine after all of it.
  CHECK(server.get("/healthz").status == 200);
}

TEST_CASE("SIGTERM: a FIBS client is told that the server is shutting down, then closed",
          "[fibs][process]") {
  gammond_process server{flags()};
  register_account(server, "alice", "alice-password");
  clip_client alice{server.fibs_port()};
  login(alice, "alice", "alice-password");
  CHECK(server.stop(SIGTERM) == 0);
  alice.wait_prefix("** The server is shutting down. Goodbye.");
  CHECK(alice.wait_closed(5s));
}

TEST_CASE(
    "the connection bound, --max-connections, counts the FIBS and the WebSocket connections "
    "together",
    "[fibs][process]") {
  gammond_process server{flags({"--max-connections", "2"})};
  clip_client one{server.fibs_port()};
  one.wait_text("login: ");
  player ws{server.port(), "wsplayer"};
  clip_client third{server.fibs_port()};
  third.wait_prefix("** Too many connections. Please try again later.");
  CHECK(third.wait_closed());
  bg::test::ws_client more;
  CHECK_THROWS(more.connect("127.0.0.1", server.port()));
}
