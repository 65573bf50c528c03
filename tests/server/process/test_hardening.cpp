// Bad input against the real gammond (issue 5, "Bad input" at the game level): every
// answer is an error with a code and a sentence, the tables are unchanged, and the
// server keeps serving everyone else. Network-level limits (frame size, binary frames,
// rate limits, slow readers, idle and HTTP timeouts) are in test_network.cpp.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "eventually.hpp"
#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "http_get.hpp"
#include "ws_client.hpp"

using bg::test::eventually;
using bg::test::gammond_flags;
using bg::test::gammond_process;
using bg::test::ws_client;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// A connection that said hello as `name`.
struct client {
  ws_client ws;
  int n = 0;
  /// `forwarded_for`: an X-Forwarded-For header (for a gammond whose --trusted-proxy is
  /// 127.0.0.1), so that one machine can play clients of several addresses.
  explicit client(std::uint16_t port, const std::string& name = "",
                  const std::string& forwarded_for = "") {
    if (!forwarded_for.empty()) ws.set_header("X-Forwarded-For", forwarded_for);
    ws.connect("127.0.0.1", port);
    if (!name.empty()) {
      ws.send_json({{"type", "hello"}, {"name", name}});
      auto w = ws.receive_until([](const json& m) { return m["type"] == "welcome"; });
      REQUIRE(w);
    }
  }
  /// Sends a raw frame with an id appended when it is a JSON object we build.
  json ask(json msg) {
    const std::string id = "h" + std::to_string(++n);
    msg["id"] = id;
    ws.send_json(msg);
    auto r = ws.receive_until([&](const json& m) { return m.value("re", json()) == id; });
    REQUIRE(r);
    return *r;
  }
  json line(const std::string& table, const std::string& text) {
    json m{{"type", "line"}, {"text", text}};
    if (!table.empty()) m["table"] = table;
    return ask(m);
  }
  /// The next error frame (for frames without an id).
  json next_error() {
    auto e = ws.receive_until([](const json& m) { return m["type"] == "error"; });
    REQUIRE(e);
    return *e;
  }
};

std::string code(const json& reply) {
  INFO(reply.dump());
  REQUIRE(reply["type"] == "error");
  REQUIRE(reply["message"].get<std::string>().size() > 5);
  return reply["code"];
}

/// The parts of a state that are the game itself (not presence or seq).
json game_of(const json& st) {
  json g;
  for (const char* k : {"phase", "turn", "dice", "board", "cube", "score", "legal", "position_id",
                        "match_id", "game_number", "players"})
    g[k] = st[k];
  return g;
}

long rss_kib(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") {
      long v = 0;
      in >> v;
      return v;
    }
    std::string rest;
    std::getline(in, rest);
  }
  return -1;
}

}  // namespace

TEST_CASE("malformed frames get an error and change nothing", "[server][hardening]") {
  gammond_process server{gammond_flags(1)};
  client bad(server.port());
  for (const std::string& frame :
       {std::string("not json"), std::string(R"({"type":"line","text":"/jo)"),
        std::string(200, '[') + std::string(200, ']'), std::string("[1,2]"),
        std::string(R"({"type":"dance"})"), std::string(R"({"type":"hello","name":5})"),
        std::string(R"({"type":"line"})"),
        std::string("{\"type\":\"line\",\"text\":\"a\\u0001b\"}")}) {
    bad.ws.send_text(frame);
    const auto e = bad.next_error();
    INFO(frame.substr(0, 60));
    CHECK_FALSE(e["code"].get<std::string>().empty());
  }
  // Still connected and served.
  bad.ws.send_json({{"type", "ping"}, {"id", 1}});
  auto pong = bad.ws.receive_until([](const json& m) { return m["type"] == "pong"; });
  CHECK(pong);
}

TEST_CASE("hello: empty, too long, invalid UTF-8, control characters and taken names",
          "[server][hardening]") {
  gammond_process server{gammond_flags(1, {"--max-name-bytes", "12"})};
  client first(server.port(), "alice");
  for (const auto& name :
       {std::string(""), std::string(13, 'x'), std::string("a b"), std::string("/slash")}) {
    client c(server.port());
    INFO("name '" << name << "'");
    CHECK(code(c.ask({{"type", "hello"}, {"name", name}})) == "bad_name");
  }
  {
    // A text frame that is not UTF-8 breaks the WebSocket protocol itself (RFC 6455
    // 8.1): Beast closes the connection with code 1007, and nobody else notices.
    client c(server.port());
    c.ws.send_text("{\"type\":\"hello\",\"name\":\"\xff\xfe\"}");
    CHECK(c.ws.wait_closed(5s));
    CHECK(c.ws.close_code() == 1007);
  }
  client taken(server.port());
  CHECK(code(taken.ask({{"type", "hello"}, {"name", "alice"}})) == "name_taken");
  CHECK(code(taken.line("t", "/join")) == "hello_first");
  client unknown(server.port());
  CHECK(code(unknown.ask({{"type", "hello"}, {"resume", "0123456789abcdef"}})) == "bad_resume");
  CHECK(code(first.ask({{"type", "hello"}, {"name", "alice2"}})) == "already_hello");
}

TEST_CASE("chat over the limit and bad table names are refused", "[server][hardening]") {
  gammond_process server{gammond_flags(1, {"--max-chat-bytes", "40"})};
  client a(server.port(), "alice");
  CHECK(code(a.line("t1", std::string(41, 'x'))) == "too_long");
  CHECK(code(a.line("bad table", "hi")) == "bad_table");
  CHECK(code(a.line(std::string(100, 't'), "hi")) == "bad_table");
  CHECK(code(a.line("t1", "/roll now")) == "bad_command");
  CHECK(code(a.line("t1", "/fly")) == "unknown_command");
  CHECK(code(a.line("", "/roll")) == "no_table");
  CHECK(a.line("t1", "hello everyone")["type"] != "error");
}

TEST_CASE("commands out of phase, from the wrong seat or from a spectator change nothing",
          "[server][hardening]") {
  gammond_process server{gammond_flags(2)};
  client a(server.port(), "alice");
  client b(server.port(), "bob");
  client c(server.port(), "carol");
  a.line("t", "/join red");
  b.line("t", "/join black");
  CHECK(code(a.line("t", "/roll")) == "wrong_phase");  // no match yet
  a.line("t", "/option match 3");
  b.line("t", "/start");
  a.line("t", "/roll");  // the opening roll
  auto st = a.line("t", "/board");
  const json before = game_of(st);
  client& mover = st["to_act"] == "red" ? a : b;
  client& other = st["to_act"] == "red" ? b : a;
  CHECK(code(other.line("t", "/move " + st["legal"][0].get<std::string>())) == "not_your_turn");
  CHECK(code(c.line("t", "/move " + st["legal"][0].get<std::string>())) == "not_seated");
  CHECK(code(mover.line("t", "/roll")) == "wrong_phase");
  CHECK(code(mover.line("t", "/double")) == "wrong_phase");
  CHECK(code(mover.line("t", "/take")) == "no_offer");
  CHECK(code(other.line("t", "/accept")) == "no_offer");
  CHECK(code(mover.line("t", "/continue")) == "wrong_phase");
  CHECK(code(mover.line("t", "/start")) == "already_started");
  CHECK(code(mover.line("t", "/leave")) == "in_match");
  CHECK(code(mover.line("t", "/option match 5")) == "options_locked");
  CHECK(code(c.line("t", "/join")) == "table_full");
  // Malformed, illegal and wrong-dice plays.
  CHECK(code(mover.line("t", "/move")) == "bad_command");
  CHECK(code(mover.line("t", "/move 24/x")) == "bad_notation");
  CHECK(code(mover.line("t", "/move 13/18")) == "illegal_play");
  CHECK(code(mover.line("t", "/move 1/off")) == "illegal_play");
  CHECK(code(mover.line("t", "/move 24/23 24/22 24/21 24/20 24/19")) == "bad_notation");
  // Nothing changed.
  CHECK(game_of(a.line("t", "/board")) == before);
  // A play replayed after the turn passed is refused.
  const std::string play = st["legal"][0];
  mover.line("t", "/move " + play);
  CHECK(code(mover.line("t", "/move " + play)) == "wrong_phase");
}

TEST_CASE("the cube: /double twice, at 64, and no take without an offer (R14)",
          "[server][hardening]") {
  gammond_process server{gammond_flags(3)};
  client a(server.port(), "alice");
  client b(server.port(), "bob");
  a.line("c", "/join red");
  b.line("c", "/join black");
  a.line("c", "/option match 64");
  b.line("c", "/start");
  a.line("c", "/roll");
  std::mt19937 rng(1);
  auto by = [&](const json& st) -> client& { return st["to_act"] == "red" ? a : b; };
  json st = a.line("c", "/board");
  bool doubled_twice_checked = false;
  for (int i = 0; i < 400 && st["cube"]["value"] != 64; ++i) {
    if (st["phase"] == "move") {
      const auto legal = st["legal"];
      std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
      st = by(st).line("c", "/move " + legal[pick(rng)].get<std::string>());
    } else if (st["phase"] == "roll" && st["may_double"] == true) {
      client& doubler = by(st);
      doubler.line("c", "/double");
      if (!doubled_twice_checked) {
        CHECK(code(doubler.line("c", "/double")) == "wrong_phase");
        doubled_twice_checked = true;
      }
      st = (&doubler == &a ? b : a).line("c", "/take");
    } else if (st["phase"] == "roll") {
      st = by(st).line("c", "/roll");
    } else {
      FAIL("unexpected phase " << st["phase"]);
    }
  }
  REQUIRE(st["cube"]["value"] == 64);
  CHECK(doubled_twice_checked);
  // Get the owner on roll, then /double must say the cube is at its highest value.
  for (int i = 0; i < 50; ++i) {
    const std::string owner = st["cube"]["owner"];
    if (st["phase"] == "roll" && st["to_act"] == owner) break;
    if (st["phase"] == "move") {
      st = by(st).line("c", "/move " + st["legal"][0].get<std::string>());
    } else if (st["phase"] == "roll") {
      st = by(st).line("c", "/roll");
    }
  }
  REQUIRE(st["phase"] == "roll");
  CHECK(st["may_double"] == false);
  CHECK(code(by(st).line("c", "/double")) == "cube_max");
}

TEST_CASE("one client cannot create tables without bound", "[server][hardening]") {
  gammond_process server{gammond_flags(
      4, {"--max-tables-per-client", "5", "--max-tables", "8", "--trusted-proxy", "127.0.0.1"})};
  client a(server.port(), "alice", "192.0.2.1");
  int created = 0;
  std::string last_code;
  for (int i = 0; i < 2000; ++i) {
    const auto r = a.line("flood" + std::to_string(i), "hi");
    if (r["type"] == "error") {
      last_code = r["code"];
      break;
    }
    ++created;
  }
  CHECK(created == 5);
  CHECK(last_code == "too_many_tables");
  client b(server.port(), "bob", "192.0.2.2");  // another name from another address
  CHECK(b.line("b1", "hi")["type"] != "error");
  CHECK(b.line("b2", "hi")["type"] != "error");
  CHECK(b.line("b3", "hi")["type"] != "error");
  CHECK(code(b.line("b4", "hi")) == "too_many_tables");  // 8 in all
}

TEST_CASE("many connections from one address are bounded by a flag", "[server][hardening]") {
  gammond_process server{gammond_flags(5, {"--max-connections-per-address", "20"})};
  std::vector<std::unique_ptr<ws_client>> held;
  int refused = 0;
  for (int i = 0; i < 30; ++i) {
    auto c = std::make_unique<ws_client>();
    try {
      c->connect("127.0.0.1", server.port());
      held.push_back(std::move(c));
    } catch (const std::exception&) {
      ++refused;
    }
  }
  CHECK(held.size() == 20);
  CHECK(refused == 10);
  held.clear();
  // Room again once the server has seen them close: no fixed wait, but its own count,
  // then connections until one is let in (the address's slot is released just after
  // the count drops, when the session object goes).
  CHECK(eventually([&] {
    try {
      return server.metric("gammond_connections") == 0;
    } catch (const std::exception&) {
      return false;  // GET /metrics is refused (503) too while the address is still full
    }
  }));
  std::unique_ptr<ws_client> again;
  CHECK(eventually([&] {
    auto c = std::make_unique<ws_client>();
    try {
      c->connect("127.0.0.1", server.port());
    } catch (const std::exception&) {
      return false;
    }
    again = std::move(c);
    return true;
  }));
  REQUIRE(again);
  again->send_json({{"type", "hello"}, {"name", "late"}});
  CHECK(again->receive_until([](const json& m) { return m["type"] == "welcome"; }));
}

TEST_CASE("a flood is answered with rate_limited and then closed, others keep playing",
          "[server][hardening]") {
  gammond_process server{{"--dice-seed", "6", "--commands-per-second", "20", "--command-burst",
                          "20", "--rate-limit-strikes", "10"}};
  client a(server.port(), "alice");
  client b(server.port(), "bob");
  a.line("t", "/join red");
  b.line("t", "/join black");
  ws_client flood;
  flood.connect("127.0.0.1", server.port());
  flood.send_json({{"type", "hello"}, {"name", "flooder"}});
  for (int i = 0; i < 200 && flood.is_open(); ++i) {
    try {
      flood.send_json({{"type", "line"}, {"table", "x"}, {"text", "spam"}, {"id", i}});
    } catch (const std::exception&) {
      break;
    }
  }
  const bool closed = flood.wait_closed(bg::test::generous_deadline);
  CHECK(closed);
  bool limited = false;
  while (auto m = flood.receive_json(10ms)) {
    if ((*m)["type"] == "error" && (*m)["code"] == "rate_limited") {
      limited = true;
      // Like every error, it answers the request's id (PROTOCOL.md).
      CHECK((*m)["re"].is_number_integer());
    }
  }
  CHECK(limited);
  // The players at table t are still served, at once (each connection has its own
  // bucket: no pause is needed, and none is taken).
  CHECK(a.line("t", "/option match 3")["type"] != "error");
  CHECK(b.line("t", "/start")["type"] != "error");
}

// Tagged [rss] (CTest label rss): not against a sanitized gammond, since ASan's allocator
// holds freed memory in a quarantine and TSan's keeps its own caches and shadow, so the
// RSS of such a gammond cannot return (both stages failed on it); the main stage runs
// them.
TEST_CASE("memory returns to its level after a burst of connections", "[server][hardening][rss]") {
  gammond_process server{gammond_flags(7, {"--max-connections-per-address", "5000"})};
  {
    client warm(server.port(), "warm");
    warm.line("w", "hi");
  }
  // The base once the server has seen warm go (no fixed wait: its connection count).
  REQUIRE(eventually([&] { return server.metric("gammond_connections") == 0; }));
  const long base = rss_kib(server.pid());
  REQUIRE(base > 0);
  for (int round = 0; round < 3; ++round) {
    std::vector<std::unique_ptr<client>> burst;
    for (int i = 0; i < 300; ++i)
      burst.push_back(std::make_unique<client>(
          server.port(), "p" + std::to_string(round) + "_" + std::to_string(i)));
    for (auto& c : burst) c->line("m" + std::to_string(round), "hello");
  }
  // Once the server has seen all 900 go, and then under the generous deadline (freeing
  // may trail the count), the RSS must come back: no fixed wait either way.
  REQUIRE(eventually([&] { return server.metric("gammond_connections") == 0; }));
  long after = 0;
  // Allocator caches may keep some pages; growth must stay far below what 900 live
  // connections with their tables would hold.
  const bool back = eventually([&] {
    after = rss_kib(server.pid());
    return after < base + 8 * 1024;
  });
  INFO("RSS before " << base << " KiB, after 900 connections came and went " << after << " KiB");
  CHECK(back);
}

// ---------------------------------------------------------------------------------
// Issue 11: what a stranger could break (names, tokens, seats, limits)

namespace {

/// A hello on `c` with a resume token (and maybe a name); the answer.
json resume(client& c, const std::string& token, const std::string& name = "") {
  json m{{"type", "hello"}, {"resume", token}};
  if (!name.empty()) m["name"] = name;
  return c.ask(m);
}

/// The welcome of a fresh hello as `name` on a new connection of `c`.
json hello(client& c, const std::string& name) {
  return c.ask({{"type", "hello"}, {"name", name}});
}

/// The event `name` seen by `c` (waiting up to 10 s).
json wait_event(client& c, const std::string& name, std::chrono::milliseconds t = 10s) {
  auto e = c.ws.receive_until(
      [&](const json& m) { return m["type"] == "event" && m["event"] == name; }, t);
  INFO("waiting for event " << name);
  REQUIRE(e);
  return *e;
}

/// Names of the tables in the lobby list (every page).
std::vector<std::string> lobby_tables(client& c) {
  std::vector<std::string> names;
  for (int page = 1;; ++page) {
    const json t = c.line("", "/tables " + std::to_string(page));
    REQUIRE(t["type"] == "tables");
    for (const auto& s : t["tables"]) names.push_back(s["name"]);
    if (page >= t["pages"].get<int>()) break;
  }
  return names;
}

}  // namespace

TEST_CASE(
    "a stranger's hello, /join and close do not lock a name: its owner gets it, the stranger's "
    "token is void",
    "[server][hardening]") {
  gammond_process server{gammond_flags(11)};
  std::string stolen;
  {
    // Given a stranger says hello as victim, sits down anywhere and leaves.
    client stranger(server.port());
    const json w = hello(stranger, "victim");
    REQUIRE(w["type"] == "welcome");
    stolen = w["resume"];
    CHECK(stranger.line("anywhere", "/join")["type"] != "error");
  }
  // Then the real victim gets the name, and the stranger's token is worth nothing.
  client real(server.port());
  json w;
  for (int i = 0; i < 100; ++i) {  // the close reaches the table asynchronously
    w = hello(real, "victim");
    if (w["type"] == "welcome") break;
    REQUIRE(code(w) == "name_taken");
    real = client(server.port());
  }
  CHECK(w["type"] == "welcome");
  client thief(server.port());
  CHECK(code(resume(thief, stolen)) == "bad_resume");
}

TEST_CASE("a resume token is rotated on every resume and works once", "[server][hardening]") {
  gammond_process server{gammond_flags(12)};
  client a(server.port());
  const std::string first = hello(a, "alice")["resume"];
  client b(server.port());
  const json again = resume(b, first);
  REQUIRE(again["type"] == "welcome");
  CHECK(again["resumed"] == true);
  CHECK(again["name"] == "alice");
  const std::string second = again["resume"];
  CHECK(second != first);
  CHECK(second.size() == 32);
  client c(server.port());
  CHECK(code(resume(c, first)) == "bad_resume");  // used once: rotated
  CHECK(resume(c, second)["type"] == "welcome");
}

TEST_CASE("names are compared case-insensitively, lookalikes are refused", "[server][hardening]") {
  gammond_process server{gammond_flags(13)};
  client alice(server.port(), "Alice");
  client other(server.port());
  CHECK(code(hello(other, "ALICE")) == "name_taken");
  CHECK(code(hello(other, "alice")) == "name_taken");
  for (const std::string& bad : {
           std::string("\xd0\xb0lice"),  // Cyrillic a + Latin lice
           std::string("ali\xe2\x80\x8b"
                       "ce"),               // zero-width space inside
           std::string("bob\xe2\x80\xae"),  // right-to-left override
           std::string("b\xc2\xad"
                       "ob"),                   // soft hyphen
           std::string("bob\xf0\x9f\x8e\xb2"),  // a die emoji
       }) {
    INFO(bad);
    CHECK(code(hello(other, bad)) == "bad_name");
  }
  CHECK(hello(other, "\xd0\x98\xd0\xb2\xd0\xb0\xd0\xbd")["type"] == "welcome");  // "Иван"
  client ivan(server.port());
  CHECK(code(hello(ivan, "\xd0\xb8\xd0\xb2\xd0\xb0\xd0\xbd")) == "name_taken");  // "иван"
}

TEST_CASE("the token of a seated player survives a restart, as a hash only",
          "[server][hardening]") {
  gammond_process server{gammond_flags(14)};
  std::string token;
  {
    client a(server.port(), "");
    token = hello(a, "alice")["resume"];
    client b(server.port(), "bob");
    a.line("t", "/join red");
    b.line("t", "/join black");
    CHECK(a.line("t", "/start")["type"] != "error");
  }
  server.restart();
  // The database keeps the token's SHA-256, not the token.
  const std::string bytes = server.database_contents();
  REQUIRE_FALSE(bytes.empty());
  CHECK(bytes.find(token) == std::string::npos);
  client again(server.port());
  const json w = resume(again, token);
  INFO(w.dump() << "\n" << server.log());
  REQUIRE(w["type"] == "welcome");
  CHECK(w["tables"] == json::array({"t"}));
  server.restart();  // the rotated token was written before the welcome handed it out
  client third(server.port());
  CHECK(resume(third, w["resume"])["type"] == "welcome");
}

TEST_CASE("S3: a forfeited table disappears and its seats and names are free",
          "[server][hardening]") {
  gammond_process server{gammond_flags(15, {"--grace-period", "1"})};
  {
    client a(server.port(), "alice");
    client b(server.port(), "bob");
    a.line("t", "/join red");
    b.line("t", "/join black");
    a.line("t", "/option match 5");
    REQUIRE(a.line("t", "/start")["type"] != "error");
    b.ws.close();
    // alice sees bob forfeit the match (S3), not one game after another.
    const json f = wait_event(a, "forfeit");
    CHECK(f["text"].get<std::string>().find("match") != std::string::npos);
    const json over = wait_event(a, "match_over");
    CHECK(over["winner"] == "red");
    wait_event(a, "left");  // bob's seat is free again
  }
  // Both gone: the table is removed and both names are free.
  client watcher(server.port(), "watcher");
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    const auto names = lobby_tables(watcher);
    gone = std::find(names.begin(), names.end(), "t") == names.end();
    if (!gone) static_cast<void>(watcher.ws.receive_json(20ms));  // poll, 4 s at most
  }
  CHECK(gone);
  client bob(server.port());
  CHECK(hello(bob, "bob")["type"] == "welcome");
}

TEST_CASE("tables per creator are limited per name and per address", "[server][hardening]") {
  gammond_process server{gammond_flags(16, {"--max-tables-per-client", "2"})};
  client a(server.port(), "alice");
  CHECK(a.line("a1", "hi")["type"] != "error");
  CHECK(a.line("a2", "hi")["type"] != "error");
  CHECK(code(a.line("a3", "hi")) == "too_many_tables");
  // Another name from the same address is counted with it.
  client b(server.port(), "bob");
  CHECK(code(b.line("b1", "hi")) == "too_many_tables");
  // Entering an existing table is always possible.
  CHECK(b.line("a1", "hi")["type"] != "error");
}

TEST_CASE("spectators, the lobby list and the lobby chat are bounded", "[server][hardening]") {
  gammond_process server{
      gammond_flags(17, {"--max-spectators", "2", "--tables-page-size", "3",
                         "--lobby-chat-interval", "60", "--max-tables-per-client", "50"})};
  client a(server.port(), "alice");
  client b(server.port(), "bob");
  client c(server.port(), "carol");
  CHECK(a.line("t", "hi")["type"] != "error");
  CHECK(b.line("t", "hi")["type"] != "error");
  CHECK(code(c.line("t", "hi")) == "table_crowded");
  for (int i = 0; i < 7; ++i) a.line("x" + std::to_string(i), "hi");
  const json page1 = a.line("", "/tables");
  CHECK(page1["tables"].size() == 3);
  CHECK(page1["total"] == 8);
  CHECK(page1["pages"] == 3);
  CHECK(a.line("", "/tables 3")["tables"].size() == 2);
  CHECK(code(a.line("", "/tables 0")) == "bad_command");
  a.ws.send_json({{"type", "line"}, {"text", "hello lobby"}});
  CHECK(a.ws.receive_until([](const json& m) { return m["type"] == "chat"; }, 10s));
  CHECK(code(a.line("", "again")) == "chat_throttled");
}

TEST_CASE("/who in the lobby lists who is online, at most --who-limit names",
          "[server][hardening]") {
  gammond_process server{gammond_flags(21, {"--who-limit", "2"})};
  client c(server.port(), "carol");
  client a(server.port(), "Alice");
  json who = a.line("", "/who");
  REQUIRE(who["type"] == "info");
  CHECK(who["topic"] == "who");
  CHECK(who["data"]["online"] == json::array({"Alice", "carol"}));  // in name order
  CHECK(who["data"]["total"] == 2);
  CHECK(who["text"] == "2 online: Alice, carol");
  {
    client b(server.port(), "bob");
    who = a.line("", "/who");
    CHECK(who["data"]["online"] == json::array({"Alice", "bob"}));  // the first two
    CHECK(who["data"]["total"] == 3);
    CHECK(who["text"] == "3 online: Alice, bob, ...");
  }
  // bob is gone once his connection is.
  CHECK(eventually([&] { return a.line("", "/who")["data"]["total"] == 2; }));
}

TEST_CASE("L7: a long /resign backgammon is refused", "[server][hardening]") {
  gammond_process server{gammond_flags(18)};
  client a(server.port(), "alice");
  client b(server.port(), "bob");
  a.line("t", "/join red");
  b.line("t", "/join black");
  a.line("t", "/option variant long");
  REQUIRE(a.line("t", "/start")["type"] != "error");
  a.line("t", "/roll");
  // Whoever is on turn (after the opening roll) offers to resign.
  json st = a.line("t", "/board");
  const std::string turn = st["turn"];
  client& mover = turn == "red" ? a : b;
  CHECK(code(mover.line("t", "/resign backgammon")) == "no_backgammon");
  CHECK(mover.line("t", "/resign gammon")["type"] != "error");
}

TEST_CASE("games started and finished are counted in /metrics", "[server][hardening]") {
  gammond_process server{gammond_flags(19)};
  client a(server.port(), "alice");
  client b(server.port(), "bob");
  a.line("t", "/join red");
  b.line("t", "/join black");
  REQUIRE(a.line("t", "/start")["type"] != "error");
  a.line("t", "/roll");
  const std::string turn = a.line("t", "/board")["turn"];
  client& mover = turn == "red" ? a : b;
  client& other = turn == "red" ? b : a;
  REQUIRE(mover.line("t", "/resign")["type"] != "error");
  REQUIRE(other.line("t", "/accept")["type"] != "error");
  const auto body = server.get("/metrics").body;
  INFO(body);
  CHECK(body.find("gammond_games_started_total 1") != std::string::npos);
  CHECK(body.find("gammond_games_finished_total 1") != std::string::npos);
}

TEST_CASE("10,000 rounds of hello, join and close leave memory flat", "[server][hardening][rss]") {
  gammond_process server{gammond_flags(20, {"--max-connections-per-address", "100000"})};
  auto rounds = [&](int from, int to) {
    for (int i = from; i < to; ++i) {
      client c(server.port(), "u" + std::to_string(i));
      c.line("t" + std::to_string(i % 10), "/join");
    }
  };
  rounds(0, 1000);
  client probe(server.port(), "probe");
  probe.line("", "/tables");
  const long base = rss_kib(server.pid());
  rounds(1000, 10000);
  probe.line("", "/tables");
  const long after = rss_kib(server.pid());
  INFO("RSS after 1,000 rounds " << base << " KiB, after 10,000 " << after << " KiB");
  CHECK(after < base + 4 * 1024);
  // And a bogus resume is answered at once (found by hash, no scan).
  std::vector<double> ms;
  for (int i = 0; i < 200; ++i) {
    client c(server.port());
    const auto t0 = std::chrono::steady_clock::now();
    CHECK(code(resume(c, "0123456789abcdef0123456789abcdef")) == "bad_resume");
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  INFO("bogus resume: median " << ms[100] << " ms, p99 " << ms[198] << " ms");
  CHECK(ms[100] < 10.0);
}

TEST_CASE("a table's backlog during a write is bounded (table_busy)", "[server][hardening]") {
  gammond_process server{gammond_flags(21, {"--max-table-backlog", "1"})};
  client a(server.port(), "alice");
  REQUIRE(a.line("t", "/join")["type"] != "error");
  // Every /option tutor is a change, written before it is announced: a burst of them
  // finds the table writing with its one backlog place taken.
  const int n = 300;
  for (int i = 0; i < n; ++i)
    a.ws.send_json({{"type", "line"},
                    {"table", "t"},
                    {"text", i % 2 ? "/option tutor on" : "/option tutor off"},
                    {"id", i}});
  int busy = 0;
  int answered = 0;
  while (answered < n) {
    auto m = a.ws.receive_until([](const json& j) { return j.contains("re"); }, 30s);
    REQUIRE(m);
    ++answered;
    if ((*m)["type"] == "error") {
      CHECK((*m)["code"] == "table_busy");
      ++busy;
    }
  }
  CHECK(busy > 0);
  CHECK(busy < n);
  // The table still serves.
  CHECK(a.line("t", "/board")["type"] == "state");
}

// Issue 11: origins, security headers and network limits, against the real gammond.

TEST_CASE(
    "a foreign Origin is refused with 403 and counted, the page's own origin is served, and the "
    "web client's files carry CSP, nosniff and Referrer-Policy",
    "[server][hardening][issue11]") {
  gammond_process server{gammond_flags(11)};
  const std::string own = "http://127.0.0.1:" + std::to_string(server.port());

  ws_client foreign;
  foreign.set_header("Origin", "https://evil.example");
  try {
    foreign.connect("127.0.0.1", server.port());
    FAIL("a WebSocket from https://evil.example was accepted");
  } catch (const std::runtime_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("HTTP 403"));
  }
  CHECK_THAT(server.get("/metrics").body,
             Catch::Contains("gammond_connections_refused_total{reason=\"origin\"} 1\n"));
  CHECK_THAT(server.log(), Catch::Contains("foreign origin \"https://evil.example\""));

  client own_page(server.port());  // no Origin: gammon-term
  ws_client browser;
  browser.set_header("Origin", own);
  browser.connect("127.0.0.1", server.port());
  browser.send_json({{"type", "hello"}, {"name", "alice"}, {"id", 1}});
  CHECK(browser.receive_until([](const json& m) { return m["type"] == "welcome"; }));

  for (const std::string method : {"GET", "HEAD"}) {
    for (const std::string target : {"/", "/app.js", "/style.css", "/nope"}) {
      CAPTURE(method, target);
      const auto res = bg::test::http_request("127.0.0.1", server.port(), target, method);
      REQUIRE(res.fields.count("content-security-policy") == 1);
      const auto& csp = res.fields.at("content-security-policy");
      CHECK_THAT(csp, Catch::Contains("default-src 'self'"));
      CHECK_THAT(csp, Catch::Contains("frame-ancestors 'none'"));
      CHECK_THAT(csp, Catch::Contains("ws://127.0.0.1:" + std::to_string(server.port())));
      CHECK(res.fields.count("x-content-type-options") == 1);
      CHECK(res.fields.count("referrer-policy") == 1);
    }
  }
}

TEST_CASE(
    "refused hellos are strikes: bad resumes and refused names close the connection at "
    "--rate-limit-strikes",
    "[server][hardening][issue11]") {
  gammond_process server{gammond_flags(12, {"--rate-limit-strikes", "3"})};
  client alice(server.port(), "alice");
  client c(server.port());
  CHECK(code(c.ask({{"type", "hello"}, {"name", "alice"}})) == "name_taken");
  CHECK(code(c.ask({{"type", "hello"}, {"name", "/x"}})) == "bad_name");
  c.ws.send_json({{"type", "hello"}, {"resume", "0123456789abcdef"}, {"id", "last"}});
  const auto last =
      c.ws.receive_until([](const json& m) { return m.value("re", json()) == "last"; });
  REQUIRE(last);
  CHECK((*last)["code"] == "bad_resume");
  CHECK(c.ws.wait_closed(10s));
  CHECK(c.ws.close_code() == 1008);
  CHECK(c.ws.close_reason() == "bad resume token");

  // N bad resumes alone do it too, and the player who holds the name is not disturbed.
  client d(server.port());
  for (int i = 0; i < 3; ++i) {
    d.ws.send_json({{"type", "hello"}, {"resume", "bogus" + std::to_string(i)}});
  }
  CHECK(d.ws.wait_closed(10s));
  CHECK(d.ws.close_code() == 1008);
  CHECK(alice.ask({{"type", "ping"}})["type"] == "pong");
}

TEST_CASE("strikes decay: after --strike-decay periods refused hellos are forgiven",
          "[server][hardening][issue11]") {
  gammond_process server{gammond_flags(13, {"--rate-limit-strikes", "3", "--strike-decay", "1"})};
  client c(server.port());
  CHECK(code(c.ask({{"type", "hello"}, {"resume", "bogus1"}})) == "bad_resume");
  CHECK(code(c.ask({{"type", "hello"}, {"resume", "bogus2"}})) == "bad_resume");
  // Waiting is what is tested: more time (a loaded machine) only forgives more.
  std::this_thread::sleep_until(std::chrono::steady_clock::now() + 2500ms);
  CHECK(code(c.ask({{"type", "hello"}, {"resume", "bogus3"}})) == "bad_resume");
  CHECK(code(c.ask({{"type", "hello"}, {"resume", "bogus4"}})) == "bad_resume");
  // Without decay the fourth refusal was strike 4 of 3 and this would find it closed.
  CHECK(c.ask({{"type", "ping"}})["type"] == "pong");
  CHECK(c.ask({{"type", "hello"}, {"name", "carol"}})["type"] == "welcome");
}

TEST_CASE("a connection that never says hello is closed after --hello-timeout, one that did stays",
          "[server][hardening][issue11]") {
  gammond_process server{gammond_flags(14, {"--hello-timeout", "1"})};
  client alice(server.port(), "alice");  // connected first: identified before its timer
  client silent(server.port());
  CHECK(silent.ws.wait_closed(10s));
  CHECK(silent.ws.close_code() == 1008);
  CHECK(silent.ws.close_reason() == "no hello in time");
  CHECK(alice.ask({{"type", "ping"}})["type"] == "pong");
  CHECK_THAT(server.get("/metrics").body,
             Catch::Contains("gammond_connections_dropped_total{reason=\"hello_timeout\"} 1\n"));
}

TEST_CASE(
    "through --trusted-proxy without X-Forwarded-For, WebSockets are counted under the proxy's "
    "address",
    "[server][hardening][issue11]") {
  gammond_process server{
      gammond_flags(15, {"--trusted-proxy", "127.0.0.1", "--max-connections-per-address", "2"})};
  client a(server.port(), "a");
  client b(server.port(), "b");
  ws_client third;
  CHECK_THROWS_WITH(third.connect("127.0.0.1", server.port()), Catch::Contains("HTTP 503"));
  ws_client forwarded;  // a client the proxy names has its own count
  forwarded.set_header("X-Forwarded-For", "203.0.113.5");
  CHECK_NOTHROW(forwarded.connect("127.0.0.1", server.port()));
  CHECK(a.ask({{"type", "ping"}})["type"] == "pong");
}

TEST_CASE("a flood of WebSocket pings is counted in the rate limit and closed like commands",
          "[server][hardening]") {
  gammond_process server{
      {"--commands-per-second", "20", "--command-burst", "20", "--rate-limit-strikes", "10"}};
  client a(server.port(), "alice");
  ws_client flood;
  flood.connect("127.0.0.1", server.port());
  flood.send_json({{"type", "hello"}, {"name", "pinger"}});
  for (int i = 0; i < 400 && flood.is_open(); ++i) {
    try {
      flood.send_ping();
    } catch (const std::exception&) {
      break;
    }
  }
  CHECK(flood.wait_closed(bg::test::generous_deadline));
  CHECK(flood.close_code() == 1008);
  CHECK(flood.close_reason() == "rate limit");
  // Everyone else is still served.
  CHECK(a.line("", "/who")["type"] != "error");
}

TEST_CASE("/metrics answers loopback clients, and others only with the bearer token",
          "[server][hardening]") {
  const std::map<std::string, std::string> remote{{"X-Forwarded-For", "203.0.113.7"}};
  {
    // No token: a client from elsewhere (through the trusted proxy) is refused.
    gammond_process server{{"--trusted-proxy", "127.0.0.1"}};
    CHECK(server.get("/metrics").status == 200);
    const auto refused =
        bg::test::http_request("127.0.0.1", server.port(), "/metrics", "GET", remote);
    CHECK(refused.status == 403);
    CHECK(json::parse(refused.body)["error"] == "forbidden");
    CHECK(refused.body.find("gammond_") == std::string::npos);
  }
  gammond_process server{{"--trusted-proxy", "127.0.0.1", "--metrics-token", "s3cret-token"}};
  auto with = remote;
  with["Authorization"] = "Bearer s3cret-token";
  const auto ok = bg::test::http_request("127.0.0.1", server.port(), "/metrics", "GET", with);
  CHECK(ok.status == 200);
  CHECK(ok.body.find("gammond_") != std::string::npos);
  with["Authorization"] = "Bearer s3cret-tokeX";
  CHECK(bg::test::http_request("127.0.0.1", server.port(), "/metrics", "GET", with).status == 403);
  CHECK(bg::test::http_request("127.0.0.1", server.port(), "/metrics", "GET", remote).status ==
        403);
  // The token is not shown where the flags are (the log of the start).
  CHECK(server.log().find("s3cret-token") == std::string::npos);
}

TEST_CASE("HTTP reads are throttled per client address with 429 rate_limited",
          "[server][hardening]") {
  gammond_process server{
      {"--trusted-proxy", "127.0.0.1", "--api-reads-per-second", "1", "--api-read-burst", "5"}};
  const auto from = [&](const std::string& address, const std::string& target) {
    return bg::test::http_request("127.0.0.1", server.port(), target, "GET",
                                  {{"X-Forwarded-For", address}});
  };
  int answered = 0;
  bg::test::http_result last;
  for (int i = 0; i < 30; ++i) {
    last = from("203.0.113.7", i % 2 == 0 ? "/api/ratings" : "/matches/1.mat");
    if (last.status == 429) break;
    ++answered;
  }
  // The burst (5), and perhaps one or two more as the bucket refills: never all 30.
  CHECK(answered >= 5);
  CHECK(answered < 30);
  REQUIRE(last.status == 429);
  const auto body = json::parse(last.body);
  CHECK(body["error"] == "rate_limited");
  CHECK(body["message"].get<std::string>().size() > 5);
  CHECK(last.fields["retry-after"] == "1");
  // Another address is served; static files and /healthz are not throttled.
  CHECK(from("198.51.100.1", "/api/ratings").status == 200);
  CHECK(from("203.0.113.7", "/healthz").status == 200);
}

TEST_CASE("HTTP reads are served while the storage writer waits for the database",
          "[server][hardening][sqlite]") {
  gammond_process server{gammond_flags(31)};
  if (server.uses_postgres()) return;  // a SQLite file's write lock is what stalls the writer
  client a(server.port(), "alice");
  // Another connection takes SQLite's write lock: the writer's next commit waits for it
  // (up to its busy timeout, 5 s).
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(server.db().c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
  a.ws.send_json({{"type", "line"}, {"table", "t"}, {"text", "/join red"}, {"id", "j"}});
  // The reads do not queue behind that write: they are answered while it still waits.
  CHECK(server.get("/api/ratings").status == 200);
  CHECK(server.get("/api/players/alice").status != 500);
  const bool command_waiting =
      !a.ws.receive_until([](const json& m) { return m.value("re", json()) == "j"; }, 0ms);
  sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  CHECK(command_waiting);  // the read above really was served during the stalled write
  CHECK(a.ws.receive_until([](const json& m) { return m.value("re", json()) == "j"; }));
}
