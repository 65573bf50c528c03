// A tournament (RULES.md S6) through a cluster of three real gammond nodes on one
// throwaway PostgreSQL database: one node directs it, a tournament command given to
// another node is sent there (`moved`), every node lists it, and when the directing node
// is killed (kill -9) in the middle of round 2 another node takes its row over (fenced
// like a table's), settles the pairings played at other nodes' tables from the store,
// tells the players wherever they are connected, and finishes it with the right
// standings.

#include <catch2/catch.hpp>

#include <csignal>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "eventually.hpp"
#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "postgres_server.hpp"
#include "test_player.hpp"
#include "tournament_play.hpp"
#include "ws_client.hpp"

using bg::test::check_swiss_standings;
using bg::test::eventually;
using bg::test::field;
using bg::test::gammond_process;
using bg::test::player;
using bg::test::resign_out;
using bg::test::round_tables;
using nlohmann::json;
using namespace std::chrono_literals;

// Named, so that these helpers and another file's of the same name share a unity
// build (CMAKE_UNITY_BUILD).
namespace cluster_tournament_tests {

namespace {

using database = bg::test::postgres_database;

/// The flags of node `id` on `url`: root an administrator, room for the tournament's
/// tables, a grace period long enough that nobody forfeits while coming back, a lease of
/// 2 s, bg::test::gammond_flags' reproducible dice and no rate limit.
std::vector<std::string> node(const std::string& url, const std::string& id) {
  std::vector<std::string> flags{"--db",
                                 url,
                                 "--node-id",
                                 id,
                                 "--heartbeat",
                                 "0.25",
                                 "--lease",
                                 "2",
                                 "--admins",
                                 "root",
                                 "--max-tables-per-client",
                                 "50",
                                 "--grace-period",
                                 "60"};
  for (auto& f : bg::test::gammond_flags(41)) flags.push_back(std::move(f));
  return flags;
}

/// The password of the administrator root.
const std::string root_password = "correct horse battery";

/// Node a on `db`, with root made an administrator in that database first (before any
/// other node starts: each reads the accounts as it starts).
std::unique_ptr<gammond_process> node_a_with_root(const database& db) {
  auto a = std::make_unique<gammond_process>(node(db.url, "a"));
  a->create_admin("root", root_password);
  return a;
}

/// Waits for `n` more heartbeats of `server` (its view of who owns what is fresh then).
void heartbeats(const gammond_process& server, int n) {
  const double start = server.metric("gammond_cluster_heartbeats_total");
  REQUIRE(
      eventually([&] { return server.metric("gammond_cluster_heartbeats_total") >= start + n; }));
}

/// The cluster's nodes by id.
using nodes = std::map<std::string, gammond_process*>;

/// `name` comes back to the node at `port` with its resume token `token`, following
/// `moved` (to the node it names, or after `retry_ms` to the same one) until welcomed.
std::unique_ptr<player> come_back(std::uint16_t port, const std::string& name, std::string token,
                                  const nodes& cluster) {
  for (int i = 0; i < 40; ++i) {
    bg::test::ws_client probe;
    probe.connect(gammond_process::host(), port);
    probe.send_json({{"type", "hello"}, {"name", name}, {"resume", token}, {"id", "hello"}});
    const auto m = probe.receive_until(
        [](const json& j) {
          return j.value("type", "") == "moved" || j.value("re", json()) == "hello";
        },
        20s);
    REQUIRE(m);
    INFO(m->dump());
    if ((*m)["type"] == "welcome") {
      // (The welcome rotated the token: the player says hello again with the new one.)
      token = (*m)["resume"].get<std::string>();
      probe.close();
      return std::make_unique<player>(port, name, token);
    }
    REQUIRE((*m)["type"] == "moved");
    if (m->contains("retry_ms")) {
      std::this_thread::sleep_for(std::chrono::milliseconds((*m)["retry_ms"].get<int>()));
    } else {
      REQUIRE(cluster.count((*m)["node"].get<std::string>()) == 1);
      port = cluster.at((*m)["node"].get<std::string>())->port();
    }
  }
  FAIL(name << " found no node to come back to");
  return nullptr;
}

/// `name` enters `table`, following `moved` to the table's node (coming back there).
void enter_following(field& players, const std::string& name, const std::string& table,
                     const nodes& cluster) {
  for (int i = 0; i < 10; ++i) {
    auto& p = players.at(name);
    const std::string id = "enter-" + table;
    p->send_message({{"type", "enter"}, {"table", table}, {"id", id}});
    const auto m = p->await(
        [&](const json& j) {
          return j.value("type", "") == "moved" || j.value("re", json()) == id;
        },
        30s);
    if (m["type"] != "moved") return;
    const std::string token = p->token();
    REQUIRE(p->socket().wait_closed(10s));
    const std::string to = m["node"].get<std::string>();
    REQUIRE(cluster.count(to) == 1);
    if (m.contains("retry_ms"))
      std::this_thread::sleep_for(std::chrono::milliseconds(m["retry_ms"].get<int>()));
    players[name] = come_back(cluster.at(to)->port(), name, token, cluster);
  }
  FAIL(name << " could not enter " << table);
}

/// Plays a pairing where its table is: both players go there, then resign_out().
void play_pairing(field& players, const std::string& table,
                  const std::pair<std::string, std::string>& pair, const nodes& cluster) {
  enter_following(players, pair.first, table, cluster);
  enter_following(players, pair.second, table, cluster);
  resign_out(*players.at(pair.first), *players.at(pair.second), table);
}

/// The tournament `name` as GET /api/tournaments/NAME on `server` answers.
json api_view(const gammond_process& server, const std::string& name) {
  const auto r = server.get("/api/tournaments/" + name);
  REQUIRE(r.status == 200);
  return json::parse(r.body);
}

}  // namespace

TEST_CASE(
    "cluster: S6 a Swiss of 16 through 3 nodes: commands go to the directing node, every node "
    "lists it, and after a kill -9 of that node in round 2 another node directs it to the "
    "end with the right standings",
    "[cluster][postgres][S6][tournament]") {
  const database db;
  const auto node_a = node_a_with_root(db);
  gammond_process& a = *node_a;
  gammond_process b{node(db.url, "b")};
  gammond_process c{node(db.url, "c")};
  const nodes cluster{{"a", &a}, {"b", &b}, {"c", &c}};
  INFO(a.log() << "\n----- b -----\n" << b.log() << "\n----- c -----\n" << c.log());
  player root(a.port(), "root", "", json{{"password", root_password}});
  root.ok("", "/tournament create night swiss rounds 3 match 1 clock 1 0 start +12");
  // Every node lists it, with the node that directs it.
  player root_c(c.port(), "root", "", json{{"password", root_password}});
  CHECK(eventually([&] {
    const auto list = root_c.ok("", "/tournaments")["data"]["tournaments"];
    return list.size() == 1 && list[0]["name"] == "night" && list[0]["node"] == "a";
  }));
  // A name no other node may take while a directs it (once c's heartbeat has read who
  // owns what).
  heartbeats(c, 2);
  root_c.refused("", "/tournament create NIGHT knockout", "tournament_exists");
  CHECK(api_view(b, "night")["status"] == "registering");  // from the store, on b
  // 16 players on the three nodes: those on b and c are sent to a to register.
  const std::uint16_t ports[] = {a.port(), b.port(), c.port()};
  field players;
  for (int i = 1; i <= 16; ++i) {
    const std::string name = (i < 10 ? "p0" : "p") + std::to_string(i);
    auto p = std::make_unique<player>(ports[i % 3], name);
    const auto id = p->send("", "/register night");
    const auto m = p->await([&](const json& j) {
      return j.value("type", "") == "moved" || j.value("re", json()) == id;
    });
    if (i % 3 != 0) {
      INFO(m.dump());
      REQUIRE(m["type"] == "moved");
      CHECK(m["node"] == "a");
      CHECK(m["re"]["text"] == "/register night");
      const std::string token = p->token();
      REQUIRE(p->socket().wait_closed(10s));
      p = come_back(a.port(), name, token, cluster);
      CHECK(p->ok("", "/register night")["topic"] == "tournament");
    } else {
      CHECK(m["topic"] == "tournament");
    }
    players[name] = std::move(p);
  }
  // Round 1 on a, where everyone is now.
  for (const auto& [t, pair] : round_tables(players, 1)) play_pairing(players, t, pair, cluster);
  const auto round2 = round_tables(players, 2);
  REQUIRE(round2.size() == 8);
  // Round 2: half of it is played, then the directing node dies.
  auto it = round2.begin();
  for (int i = 0; i < 4; ++i, ++it) play_pairing(players, it->first, it->second, cluster);
  REQUIRE(eventually([&] {
    int settled = 0;
    const auto view = api_view(a, "night");
    for (const auto& p : view["rounds"][1]) settled += p["winner"].is_string() ? 1 : 0;
    return settled == 4;
  }));
  std::map<std::string, std::string> tokens;
  for (const auto& [n, p] : players) tokens[n] = p->token();
  players.clear();
  REQUIRE(a.stop(SIGKILL) == 137);
  std::this_thread::sleep_for(2500ms);  // past the lease: a is dead
  // Everyone comes back through b or c; tables and the tournament are claimed by them.
  int i = 0;
  for (const auto& [n, token] : tokens)
    players[n] = come_back((i++ % 2 == 0 ? b : c).port(), n, token, cluster);
  for (; it != round2.end(); ++it) play_pairing(players, it->first, it->second, cluster);
  // Round 3 from the new director, whose pairings reach each player on its node.
  for (const auto& [t, pair] : round_tables(players, 3, {}))
    play_pairing(players, t, pair, cluster);
  json view;
  REQUIRE(eventually(
      [&] {
        view = api_view(b, "night");
        return view["status"] == "finished";
      },
      60s));
  REQUIRE(view["rounds"].size() == 3);
  CHECK(check_swiss_standings(view) == 24);  // 3 rounds of 8 matches, each with one winner
  // One node directs it now, b or c, and the list says which.
  const auto list = json::parse(c.get("/api/tournaments").body)["tournaments"];
  REQUIRE(list.size() == 1);
  CHECK((list[0]["node"] == "b" || list[0]["node"] == "c"));
}

TEST_CASE(
    "cluster: S6 a frozen director writes nothing once another node has taken its tournament "
    "over: its next change is refused as stale and the player is sent to the new director",
    "[cluster][postgres][S6][tournament]") {
  const database db;
  const auto node_a = node_a_with_root(db);
  gammond_process& a = *node_a;
  gammond_process b{node(db.url, "b")};
  INFO(a.log() << "\n----- b -----\n" << b.log());
  player root(a.port(), "root", "", json{{"password", root_password}});
  root.ok("", "/tournament create cup swiss start +600");
  heartbeats(b, 2);
  // a stops answering past its lease: b, asked for the tournament, claims its row.
  REQUIRE(::kill(a.pid(), SIGSTOP) == 0);
  std::this_thread::sleep_for(2500ms);
  player bert(b.port(), "bert");
  CHECK(bert.ok("", "/register cup")["topic"] == "tournament");
  // a comes back, finds its own lease expired and fences itself (close 4001)...
  REQUIRE(::kill(a.pid(), SIGCONT) == 0);
  REQUIRE(root.socket().wait_closed(20s));
  CHECK(root.socket().close_code() == 4001);
  // ...and the change its old copy of the tournament still tries is refused by the
  // database (a stale write, never announced): the player is told to try again.
  player cleo(a.port(), "cleo");
  cleo.refused("", "/register cup", "table_moving");
  CHECK(a.metric("gammond_cluster_stale_writes_total") >= 1);
  // Asked again, a sends the player to b, which directs the tournament now.
  const auto id = cleo.send("", "/register cup");
  const auto m = cleo.await(
      [&](const json& j) { return j.value("type", "") == "moved" || j.value("re", json()) == id; });
  INFO(m.dump());
  REQUIRE(m["type"] == "moved");
  CHECK(m["node"] == "b");
  // Only b's change is there.
  CHECK(api_view(b, "cup")["players"] == json::array({"bert"}));
  CHECK(api_view(a, "cup")["players"] == json::array({"bert"}));  // from the store
}

}  // namespace cluster_tournament_tests
