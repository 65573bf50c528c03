// The cluster (issue 16) against real gammond nodes on one PostgreSQL database: table
// ownership with a fencing epoch, the `moved` redirect (close 4000), failover after the
// lease with players resuming on the new owner, and a paused node fenced (close 4001,
// no write of it accepted). Quick timings: --heartbeat 0.2 --lease 1.

#include <catch2/catch.hpp>

#include <csignal>
#include <string>
#include <vector>

#include "eventually.hpp"
#include "gammond_process.hpp"
#include "postgres_server.hpp"
#include "test_player.hpp"

using bg::test::duel;
using bg::test::eventually;
using bg::test::gammond_process;
using bg::test::player;
using bg::test::postgres_server;
using bg::test::seat;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// A database of its own on the shared server, dropped at the end.
struct database {
  std::string url = postgres_server::shared().create_database();
  database() = default;
  ~database() { postgres_server::shared().drop_database(url); }
  database(const database&) = delete;
  database& operator=(const database&) = delete;
  [[nodiscard]] std::string sql(const std::string& query) const {
    return postgres_server::query(url, query);
  }
};

/// The flags of node `id` on `url`, with quick heartbeats and lease (seconds).
std::vector<std::string> node(const std::string& url, const std::string& id,
                              const std::string& heartbeat = "0.2",
                              const std::string& lease = "1") {
  std::vector<std::string> flags{"--db", url, "--node-id", id, "--heartbeat", heartbeat};
  flags.insert(flags.end(), {"--lease", lease});
  for (const char* f :
       {"--dice-seed", "11", "--commands-per-second", "100000", "--command-burst", "100000"})
    flags.emplace_back(f);
  return flags;
}

/// The fields a player sees of a table's state (without `re`).
json visible(json st) {
  st.erase("re");
  return st;
}

/// Waits for `n` more heartbeats of `server` (so its view of the owners is fresh).
void heartbeats(const gammond_process& server, int n) {
  const double start = server.metric("gammond_cluster_heartbeats_total");
  REQUIRE(eventually([&] { return server.metric("gammond_cluster_heartbeats_total") >= start + n; },
                     20s));
}

}  // namespace

TEST_CASE(
    "cluster: a table's writes carry its node and epoch, and another node answers /join and a "
    "resuming hello for it with moved and close 4000",
    "[postgres][cluster]") {
  database db;
  gammond_process a{node(db.url, "a")};
  gammond_process b{node(db.url, "b")};
  INFO(a.log());
  player red(a.port(), "alice");
  player black(a.port(), "bob");
  seat(red, black, "main");
  duel d{red, black, "main"};
  d.play_until([](const json& s) { return s["phase"] == "roll"; });
  CHECK(db.sql("SELECT node || ':' || epoch FROM table_owners WHERE table_name = 'main'") == "a:1");
  CHECK(db.sql("SELECT count(*) FROM table_records WHERE table_name = 'main' AND "
               "(node IS DISTINCT FROM 'a' OR epoch IS DISTINCT FROM 1)") == "0");
  CHECK(db.sql("SELECT count(*) FROM table_records WHERE table_name = 'main'") != "0");
  CHECK(db.sql("SELECT string_agg(name_key, ',' ORDER BY name_key) FROM table_seats WHERE "
               "table_name = 'main'") == "alice,bob");
  heartbeats(b, 2);

  player carol(b.port(), "carol");
  carol.send("main", "/join");
  const json moved = carol.await([](const json& m) { return m.value("type", "") == "moved"; });
  CHECK(moved["table"] == "main");
  CHECK(moved["node"] == "a");
  CHECK(moved["path"] == "/n/a/ws");
  CHECK(moved["re"]["text"] == "/join");
  REQUIRE(carol.socket().wait_closed(10s));
  CHECK(carol.socket().close_code() == 4000);
  CHECK(carol.socket().close_reason() == "moved");

  // Alice's seat is at a's table: b sends her resuming hello there, without `re`.
  bg::test::ws_client alice_b;
  alice_b.connect("127.0.0.1", b.port());
  alice_b.send_json({{"type", "hello"}, {"name", "alice"}, {"resume", red.token()}});
  const auto first = alice_b.receive_json(10s);
  REQUIRE(first);
  CHECK((*first)["type"] == "moved");
  CHECK((*first)["node"] == "a");
  CHECK_FALSE(first->contains("re"));
  REQUIRE(alice_b.wait_closed(10s));
  CHECK(alice_b.close_code() == 4000);
}

TEST_CASE(
    "cluster: a node paused past its lease loses its tables to a live node, the players resume "
    "there at the same seats and position, and on waking it is fenced: its sockets close with "
    "4001 and none of its writes is accepted",
    "[postgres][cluster]") {
  database db;
  gammond_process a{node(db.url, "a")};
  gammond_process b{node(db.url, "b")};
  player red(a.port(), "alice");
  player black(a.port(), "bob");
  seat(red, black, "main");
  duel d{red, black, "main"};
  d.play_until([](const json& s) { return s["phase"] == "roll"; });
  for (int i = 0; i < 3; ++i) d.step();
  const json before = visible(d.play_until([](const json& s) { return s["phase"] == "roll"; }));
  const std::string a_rows =
      db.sql("SELECT count(*) FROM table_records WHERE table_name = 'main' AND node = 'a'");
  INFO(a.log() << "\n----- b -----\n" << b.log());

  REQUIRE(::kill(a.pid(), SIGSTOP) == 0);
  // After the lease, b's sweep claims the table with the next epoch.
  REQUIRE(eventually(
      [&] {
        return db.sql("SELECT node || ':' || epoch FROM table_owners WHERE table_name = 'main'") ==
               "b:2";
      },
      20s));
  CHECK(b.metric("gammond_cluster_tables_claimed_total") >= 1);
  // A move sent to the paused node waits in its socket.
  player& mover = d.by_side(before["to_act"]);
  const std::string stale_id = mover.send("main", "/roll");

  // The players resume on b with their tokens: same seats, same position.
  player red2(b.port(), "alice", red.token());
  player black2(b.port(), "bob", black.token());
  const json resumed = visible(red2.ok("main", "/board"));
  CHECK(resumed["board"] == before["board"]);
  CHECK(resumed["to_act"] == before["to_act"]);
  CHECK(resumed["phase"] == "roll");
  CHECK(resumed["players"] == before["players"]);

  REQUIRE(::kill(a.pid(), SIGCONT) == 0);
  // a wakes up fenced: its connections close with 4001 and nothing it writes counts.
  REQUIRE(mover.socket().wait_closed(20s));
  CHECK(mover.socket().close_code() == 4001);
  CHECK(mover.socket().close_reason() == "node fenced");
  CHECK(eventually(
      [&] {
        return a.metric("gammond_cluster_self_fences_total") +
                   a.metric("gammond_cluster_stale_writes_total") >=
               1;
      },
      20s));
  CHECK(db.sql("SELECT count(*) FROM table_records WHERE table_name = 'main' AND node = 'a'") ==
        a_rows);
  CHECK(db.sql("SELECT node FROM table_owners WHERE table_name = 'main'") == "b");
  // Play goes on at b from the position the players last saw.
  player& mover_b = mover.name() == "alice" ? red2 : black2;
  const json rolled = mover_b.ok("main", "/roll");
  CHECK(rolled["seq"].get<std::uint64_t>() == resumed["seq"].get<std::uint64_t>() + 1);
  CHECK(db.sql("SELECT count(*) FROM table_records WHERE table_name = 'main' AND node = 'b' AND "
               "epoch = 2") != "0");
  (void)stale_id;
  // A player coming back to the fenced node (as after 4001 through the proxy) with the
  // token it knew there is sent on to b: a no longer holds the seat for her.
  REQUIRE(eventually([&] { return a.metric("gammond_cluster_heartbeats_total") >= 3; }, 20s));
  const double beats = a.metric("gammond_cluster_heartbeats_total");
  REQUIRE(
      eventually([&] { return a.metric("gammond_cluster_heartbeats_total") >= beats + 2; }, 20s));
  bg::test::ws_client back;
  back.connect("127.0.0.1", a.port());
  back.send_json({{"type", "hello"}, {"name", "alice"}, {"resume", red.token()}});
  const auto answer = back.receive_json(10s);
  REQUIRE(answer);
  CHECK((*answer)["type"] == "moved");
  CHECK((*answer)["node"] == "b");
  CHECK((*answer)["path"] == "/n/b/ws");
  REQUIRE(back.wait_closed(10s));
  CHECK(back.close_code() == 4000);
}

TEST_CASE(
    "cluster S2: no clock runs while a table has no owner: a bank shorter than the lease "
    "survives its node's pause, and its player acts in time on the node that took it over",
    "[postgres][cluster]") {
  database db;
  // A 3-second bank (one minute of 3 s, no delay), a 5-second lease.
  const std::vector<std::string> quick_clock{"--clock-minute-seconds", "3"};
  auto flags_a = node(db.url, "a", "1", "5");
  auto flags_b = node(db.url, "b", "1", "5");
  flags_a.insert(flags_a.end(), quick_clock.begin(), quick_clock.end());
  flags_b.insert(flags_b.end(), quick_clock.begin(), quick_clock.end());
  gammond_process a{flags_a};
  gammond_process b{flags_b};
  player red(a.port(), "alice");
  player black(a.port(), "bob");
  seat(red, black, "main", "/option clock 1 0");
  duel d{red, black, "main"};
  const json before = visible(d.play_until([](const json& s) { return s["phase"] == "roll"; }));
  INFO(a.log() << "\n----- b -----\n" << b.log());

  REQUIRE(::kill(a.pid(), SIGSTOP) == 0);
  REQUIRE(eventually(
      [&] { return db.sql("SELECT node FROM table_owners WHERE table_name = 'main'") == "b"; },
      30s));
  // More than the bank has passed since the last change: the player still has time.
  player red2(b.port(), "alice", red.token());
  player black2(b.port(), "bob", black.token());
  player& mover = d.by_side(before["to_act"]).name() == "alice" ? red2 : black2;
  const std::string side = before["to_act"];
  const json resumed = red2.ok("main", "/board");
  INFO(resumed.dump());
  CHECK(resumed["clock"]["running"] == side);
  CHECK(resumed["clock"][side].get<std::int64_t>() > 1000);  // of the 3000 ms bank
  const json rolled = mover.ok("main", "/roll");
  CHECK(rolled["seq"].get<std::uint64_t>() > before["seq"].get<std::uint64_t>());
  for (const player* p : {&red2, &black2})
    for (const auto& e : p->events()) CHECK(e.value("event", "") != "out_of_time");
  REQUIRE(::kill(a.pid(), SIGCONT) == 0);
}
