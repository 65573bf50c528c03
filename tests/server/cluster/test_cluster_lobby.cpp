// What spans the nodes of a cluster (issue 16, engineer C): two real gammond nodes on
// one throwaway PostgreSQL database, driven by real WebSocket clients. The lobby list,
// lobby chat and who is online are every node's; a name is unique cluster-wide; a resume
// token works on every node and replaces the session of the node that had the name; a
// killed node's tables and names leave the others' lists once its lease is over, and its
// tokens still resume.

#include <catch2/catch.hpp>

#include <csignal>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "eventually.hpp"
#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "postgres_server.hpp"
#include "test_player.hpp"
#include "ws_client.hpp"

using bg::test::eventually;
using bg::test::gammond_process;
using bg::test::player;
using bg::test::postgres_server;
using bg::test::ws_client;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

using database = bg::test::postgres_database;

/// The flags of node `id` on `url`: short heartbeats and lease (a test lasts seconds, but
/// a node on a loaded 2-core machine must not miss its own lease and fence itself), no
/// lobby chat interval (several lines in a row), no command rate limit
/// (bg::test::no_command_limit).
std::vector<std::string> node(const std::string& url, const std::string& id) {
  return bg::test::no_command_limit({"--db", url, "--node-id", id, "--heartbeat", "0.5", "--lease",
                                     "3", "--lobby-chat-interval", "0",
                                     // A name whose last connection closed waits out a short
                                     // resume window here (issue 26), so that "free again" is
                                     // seen within a test's patience.
                                     "--resume-window", "1"});
}

/// The names of the tables in a `tables` message.
std::set<std::string> listed(const json& tables) {
  std::set<std::string> names;
  for (const auto& t : tables.at("tables")) names.insert(t.at("name").get<std::string>());
  return names;
}

/// The names of the tables in a `tables` message that node `id` has.
std::set<std::string> listed_on(const json& tables, const std::string& id) {
  std::set<std::string> names;
  for (const auto& t : tables.at("tables"))
    if (t.at("node") == id) names.insert(t.at("name").get<std::string>());
  return names;
}

/// The names in the answer to /who in the lobby.
std::set<std::string> online(const json& who) {
  std::set<std::string> names;
  for (const auto& n : who.at("data").at("online")) names.insert(n.get<std::string>());
  return names;
}

/// Says hello as `name` on `port` with a raw client and returns the answer (welcome or
/// error); the client is kept open in `ws`.
json hello(ws_client& ws, std::uint16_t port, const json& fields) {
  ws.connect(gammond_process::host(), port);
  json m = fields;
  m["type"] = "hello";
  ws.send_json(m);
  const auto answer = ws.receive_until([](const json& msg) {
    const auto type = msg.value("type", "");
    return type == "welcome" || type == "error";
  });
  REQUIRE(answer);
  return *answer;
}

}  // namespace

TEST_CASE("cluster: a table made on node 1 is listed on node 2, until it is private",
          "[cluster][postgres]") {
  const database db;
  gammond_process one{node(db.url, "n1")};
  gammond_process two{node(db.url, "n2")};
  player alice(one.port(), "alice");
  player bob(two.port(), "bob");
  alice.ok("t1", "/join");
  bob.ok("t2", "/join");
  // Each node lists its own table and the other's, as the database has them.
  CHECK(eventually([&] {
    const auto names = listed(bob.ok("", "/tables"));
    return names.count("t1") == 1 && names.count("t2") == 1;
  }));
  CHECK(eventually([&] {
    const auto t = alice.ok("", "/tables");
    return listed(t) == std::set<std::string>{"t1", "t2"} && t.at("total") == 2;
  }));
  const auto t = bob.ok("", "/tables");
  CHECK(listed_on(t, "n1") == std::set<std::string>{"t1"});
  CHECK(listed_on(t, "n2") == std::set<std::string>{"t2"});
  for (const auto& entry : t.at("tables"))
    if (entry.at("name") == "t1") CHECK(entry.at("players").at("red") == "alice");
  // A private table is not listed anywhere (its entry is not even written).
  alice.ok("t1", "/option private on");
  CHECK(eventually([&] { return listed(bob.ok("", "/tables")).count("t1") == 0; }));
  CHECK(db.sql("SELECT count(*) FROM cluster_lobby WHERE table_name = 't1'") == "0");
}

TEST_CASE("cluster: S5 the lobby's count of players waiting is the node's own, in /tables too",
          "[cluster][postgres][S5]") {
  const database db;
  gammond_process one{node(db.url, "n1")};
  gammond_process two{node(db.url, "n2")};
  player alice(one.port(), "alice");
  player bob(two.port(), "bob");
  player carol(one.port(), "carol");
  // When carol seeks on node 1
  carol.ok("", "/seek long");
  // Then node 1's lobby counts her, pushed and listed; node 2's does not (each node pairs
  // the players connected to it)
  CHECK(alice.await([](const json& m) { return m["type"] == "lobby"; })["seeking"]["long"] == 1);
  CHECK(alice.ok("", "/tables").at("seeking") == json({{"standard", 0}, {"long", 1}}));
  CHECK(bob.ok("", "/tables").at("seeking") == json({{"standard", 0}, {"long", 0}}));
}

TEST_CASE("cluster: lobby chat said on one node is heard on the other, ignores apply",
          "[cluster][postgres]") {
  const database db;
  gammond_process one{node(db.url, "n1")};
  gammond_process two{node(db.url, "n2")};
  player alice(one.port(), "alice");
  player dave(one.port(), "dave");
  player bob(two.port(), "bob");
  player carol(two.port(), "carol");
  carol.ok("", "/ignore alice");
  // Once both nodes listen, a line said on node 1 reaches node 2 (the nodes start
  // listening on their own: alice says it again until bob hears it).
  REQUIRE(eventually(
      [&] {
        alice.send("", "ping from one");
        return bob.socket()
            .receive_until(
                [](const json& m) {
                  return m.value("type", "") == "chat" && m.value("from", "") == "alice";
                },
                500ms)
            .has_value();
      },
      30s));
  alice.send("", "hello from node one");
  const auto heard = bob.await([](const json& m) {
    return m.value("type", "") == "chat" && m.value("text", "") == "hello from node one";
  });
  CHECK(heard.at("from") == "alice");
  CHECK_FALSE(heard.contains("table"));
  // Node 2 to node 1.
  bob.send("", "and back from two");
  CHECK(alice
            .await([](const json& m) {
              return m.value("type", "") == "chat" && m.value("from", "") == "bob";
            })
            .at("text") == "and back from two");
  // carol ignores alice: alice's line does not reach her, dave's (said after it, on the
  // same node, so delivered after it) does.
  alice.send("", "carol must not read this");
  dave.send("", "dave speaks after alice");
  const auto from_dave = carol.socket().receive_until(
      [](const json& m) { return m.value("type", "") == "chat" && m.value("from", "") == "dave"; });
  REQUIRE(from_dave);
  for (const auto& m : carol.socket().skipped())
    CHECK_FALSE((m.value("type", "") == "chat" && m.value("from", "") == "alice"));
}

TEST_CASE("cluster: an administrator's /broadcast on one node reaches every node",
          "[cluster][postgres]") {
  const database db;
  auto flags_one = node(db.url, "n1");
  auto flags_two = node(db.url, "n2");
  for (auto* f : {&flags_one, &flags_two}) f->insert(f->end(), {"--admins", "root"});
  // An --admins name is made on the host only (nobody registers it over the network).
  const auto made =
      bg::test::run_gammond({"admin", "create", "root", "--db", db.url}, "correct horse battery\n");
  REQUIRE(made.exit_code == 0);
  gammond_process one{flags_one};
  gammond_process two{flags_two};
  ws_client admin;
  admin.connect(gammond_process::host(), one.port());
  admin.send_json({{"type", "hello"}, {"name", "root"}, {"password", "correct horse battery"}});
  REQUIRE(admin.receive_until([](const json& m) { return m.value("type", "") == "welcome"; }));
  player bob(two.port(), "bob");
  // Said until node 2 hears it: the nodes start listening on their own.
  int n = 0;
  std::optional<json> heard;
  REQUIRE(eventually([&] {
    const std::string text = "maintenance at noon " + std::to_string(++n);
    admin.send_json({{"type", "line"}, {"text", "/broadcast " + text}});
    heard = bob.socket().receive_until(
        [&](const json& m) {
          return m.value("type", "") == "broadcast" && m.value("text", "") == text;
        },
        500ms);
    return heard.has_value();
  }));
  CHECK(heard->at("from") == "root");
}

TEST_CASE(
    "cluster: a name live on node 1 is name_taken on node 2, its token resumes on node 2 "
    "and closes the session on node 1, and /who lists every node's names",
    "[cluster][postgres]") {
  const database db;
  gammond_process one{node(db.url, "n1")};
  gammond_process two{node(db.url, "n2")};
  player alice(one.port(), "Alice");
  player bob(two.port(), "bob");
  {
    ws_client ws;
    const auto answer = hello(ws, two.port(), {{"name", "ALICE"}});
    CHECK(answer.at("type") == "error");
    CHECK(answer.at("code") == "name_taken");
  }
  // Who is online, from either node: both names.
  CHECK(eventually([&] {
    return online(bob.ok("", "/who")) == std::set<std::string>{"Alice", "bob"};
  }));
  const auto who = alice.ok("", "/who");
  CHECK(online(who) == std::set<std::string>{"Alice", "bob"});
  CHECK(who.at("data").at("total") == 2);
  CHECK(who.at("topic") == "who");
  // The token is stored as its SHA-256 only.
  CHECK(db.sql("SELECT count(*) FROM cluster_sessions WHERE token_hash = sha256('" + alice.token() +
               "'::bytea)") == "1");
  CHECK(one.database_contents().find(alice.token()) == std::string::npos);
  // alice's token from node 1 resumes her on node 2; node 1 closes her old connection.
  player again(two.port(), "", alice.token());
  CHECK(again.welcome().at("resumed") == true);
  CHECK(again.welcome().at("name") == "Alice");
  REQUIRE(alice.socket().wait_closed());
  CHECK(alice.socket().close_code() == 1000);
  CHECK(alice.socket().close_reason() == "replaced by a new connection");
  // The name is node 2's now: a guest cannot take it on node 1, and the token just used
  // works no more.
  {
    ws_client ws;
    const auto answer = hello(ws, one.port(), {{"name", "alice"}});
    CHECK(answer.at("code") == "name_taken");
  }
  {
    ws_client ws;
    const auto answer = hello(ws, one.port(), {{"resume", alice.token()}});
    CHECK(answer.at("code") == "bad_resume");
  }
  // The new token goes back to node 1 (and node 2's connection closes in turn).
  player back(one.port(), "", again.token());
  CHECK(back.welcome().at("resumed") == true);
  REQUIRE(again.socket().wait_closed());
  CHECK(again.socket().close_reason() == "replaced by a new connection");
  // Gone: once its last connection closed and its resume window (1 s here) is over, the
  // name is free on every node.
  back.socket().close();
  CHECK(eventually([&] {
    ws_client ws;
    return hello(ws, two.port(), {{"name", "alice"}}).at("type") == "welcome";
  }));
}

TEST_CASE(
    "cluster: a killed node's tables and names leave the others' lists after the lease, "
    "its tokens still resume and its names are free",
    "[cluster][postgres]") {
  const database db;
  gammond_process one{node(db.url, "n1")};
  gammond_process two{node(db.url, "n2")};
  player alice(one.port(), "alice");
  player bob(two.port(), "bob");
  player carol(two.port(), "carol");
  bob.ok("t2", "/join");
  REQUIRE(eventually([&] { return listed_on(alice.ok("", "/tables"), "n2").count("t2") == 1; }));
  REQUIRE(eventually([&] { return online(alice.ok("", "/who")).count("bob") == 1; }));
  const std::string token = bob.token();
  CHECK(two.stop(SIGKILL) == 137);
  // After the lease (3 s) node 2 is dead: its table and names are not listed (the table
  // may come back as another node's, once one takes it over).
  CHECK(eventually([&] {
    return listed_on(alice.ok("", "/tables"), "n2").empty() &&
           online(alice.ok("", "/who")) == std::set<std::string>{"alice"};
  }));
  // bob's token from the dead node resumes him here; carol's name is free.
  player bob_again(one.port(), "", token);
  CHECK(bob_again.welcome().at("resumed") == true);
  CHECK(bob_again.welcome().at("name") == "bob");
  player carol_again(one.port(), "carol");
  CHECK(carol_again.welcome().at("resumed") == false);
  CHECK(online(alice.ok("", "/who")) == std::set<std::string>{"alice", "bob", "carol"});
}
