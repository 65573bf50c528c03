// The cluster (issue 16) against real gammond nodes on one PostgreSQL database: table
// ownership with a fencing epoch, the `moved` redirect (close 4000), failover after the
// lease with players resuming on the new owner, and a paused node fenced (close 4001,
// no write of it accepted). Quick timings: --heartbeat 0.2 --lease 1.

#include <catch2/catch.hpp>

#include <csignal>
#include <string>
#include <utility>
#include <vector>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "eventually.hpp"
#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "piped_process.hpp"
#include "postgres_server.hpp"
#include "test_player.hpp"

using bg::test::duel;
using bg::test::eventually;
using bg::test::gammond_process;
using bg::test::piped_process;
using bg::test::player;
using bg::test::postgres_server;
using bg::test::seat;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

using database = bg::test::postgres_database;

/// The flags of node `id` on `url`, with quick heartbeats and lease (seconds), and
/// bg::test::gammond_flags' reproducible dice and no rate limit.
std::vector<std::string> node(const std::string& url, const std::string& id,
                              const std::string& heartbeat = "0.2",
                              const std::string& lease = "1") {
  std::vector<std::string> flags{"--db",        url,       "--node-id", id,
                                 "--heartbeat", heartbeat, "--lease",   lease};
  for (auto& f : bg::test::gammond_flags(11)) flags.push_back(std::move(f));
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
  // (Counted once the claimed table is rebuilt, just after the claim's commit.)
  CHECK(eventually([&] { return b.metric("gammond_cluster_tables_claimed_total") >= 1; }, 10s));
  // A move sent to the paused node waits in its socket.
  player& mover = d.by_side(before["to_act"]);
  const std::string stale_id = mover.send("main", "/roll");

  // The players resume on b with their tokens: same seats, same position.
  player red2(b.port(), "alice", red.token());
  player black2(b.port(), "bob", black.token());
  // Both at the table again (a seated player's return is a change of its own: without
  // this, whoever had not looked yet would enter with the roll below, one seq more).
  (void)black2.ok("main", "/board");
  const json resumed = visible(red2.ok("main", "/board"));
  CHECK(resumed["present"]["red"] == true);
  CHECK(resumed["present"]["black"] == true);
  CHECK(resumed["board"] == before["board"]);
  CHECK(resumed["to_act"] == before["to_act"]);
  CHECK(resumed["phase"] == "roll");
  CHECK(resumed["players"] == before["players"]);

  REQUIRE(::kill(a.pid(), SIGCONT) == 0);
  // a wakes up fenced: its connections close with 4001 and nothing it writes counts.
  // (Or, when a's cluster bus delivers b's taking of the name before a's heartbeat
  // thread finds its lease expired, with 1000 "replaced by a new connection": seen
  // under ASan. Either way the stale connection is closed, and the client goes back.)
  REQUIRE(mover.socket().wait_closed(20s));
  const bool fenced =
      mover.socket().close_code() == 4001 && mover.socket().close_reason() == "node fenced";
  const bool replaced = mover.socket().close_code() == 1000 &&
                        mover.socket().close_reason() == "replaced by a new connection";
  INFO("close " << mover.socket().close_code() << " " << mover.socket().close_reason());
  CHECK((fenced || replaced));
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

TEST_CASE(
    "cluster: a node takes over no more tables than --max-tables allows, and the paused node "
    "takes back the rest under a new epoch when it wakes",
    "[postgres][cluster]") {
  database db;
  gammond_process a{node(db.url, "a")};
  auto flags_b = node(db.url, "b");
  flags_b.insert(flags_b.end(), {"--max-tables", "1"});
  gammond_process b{flags_b};
  player red(a.port(), "alice");
  player black(a.port(), "bob");
  seat(red, black, "t1");
  player carol(a.port(), "carol");
  player dave(a.port(), "dave");
  seat(carol, dave, "t2");
  INFO(a.log() << "\n----- b -----\n" << b.log());
  const auto owners = [&] {
    return db.sql(
        "SELECT string_agg(table_name || '=' || node || ':' || epoch, ',' ORDER BY "
        "table_name) FROM table_owners");
  };
  REQUIRE(owners() == "t1=a:1,t2=a:1");

  REQUIRE(::kill(a.pid(), SIGSTOP) == 0);
  REQUIRE(eventually(
      [&] { return db.sql("SELECT count(*) FROM table_owners WHERE node = 'b'") == "1"; }, 20s));
  heartbeats(b, 3);  // more sweeps: b is full
  CHECK(db.sql("SELECT count(*) FROM table_owners WHERE node = 'b'") == "1");
  CHECK(b.metric("gammond_tables") == 1);

  REQUIRE(::kill(a.pid(), SIGCONT) == 0);
  // a fenced itself and took back, at epoch 2, the table nobody took.
  CHECK(eventually(
      [&] {
        return db.sql("SELECT count(*) FROM table_owners WHERE node = 'a' AND epoch = 2") == "1";
      },
      20s));
  CHECK(eventually([&] { return a.metric("gammond_tables") == 1; }, 20s));
  CHECK(a.metric("gammond_cluster_self_fences_total") >= 1);
}

namespace {

/// A TCP port free on 127.0.0.1 a moment ago (for HAProxy, which cannot report one).
std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  socklen_t size = sizeof address;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0);
  ::close(fd);
  return ntohs(address.sin_port);
}

}  // namespace

TEST_CASE(
    "cluster: gammon-term behind HAProxy follows moved and close 4000 to the node that owns "
    "its table, through the node's path, and plays there",
    "[postgres][cluster][clients]") {
  database db;
  gammond_process a{node(db.url, "a")};
  gammond_process b{node(db.url, "b")};
  player bob(b.port(), "bob");
  player carol(b.port(), "carol");
  seat(bob, carol, "main");
  heartbeats(a, 2);  // a knows main is b's
  // HAProxy as README's hosts' section has it: /n/ID/... to node ID with the prefix
  // stripped, anything else to node a.
  const auto port = std::to_string(free_port());
  const auto config = a.directory() / "haproxy.cfg";
  {
    std::ofstream out{config};
    out << "defaults\n  mode http\n  timeout connect 5s\n  timeout client 60s\n"
           "  timeout server 60s\n  timeout tunnel 60s\n"
           "frontend web\n  bind 127.0.0.1:"
        << port
        << "\n  use_backend node_b if { path_beg /n/b/ }\n  default_backend node_a\n"
           "backend node_a\n  server a 127.0.0.1:"
        << a.port()
        << "\nbackend node_b\n  http-request set-path %[path,regsub(^/n/b/,/)]\n"
           "  server b 127.0.0.1:"
        << b.port() << "\n";
  }
  piped_process haproxy{{"/usr/sbin/haproxy", "-f", config.string(), "-db"}};
  REQUIRE(eventually([&] {
    try {
      return bg::test::http_get("127.0.0.1", static_cast<std::uint16_t>(std::stoi(port)),
                                "/healthz", 2s)
                 .status == 200;
    } catch (const std::exception&) {
      return false;  // HAProxy not listening yet
    }
  }));

  piped_process term{{GAMMON_TERM_BINARY, "--url", "ws://127.0.0.1:" + port + "/ws", "--name",
                      "alice", "--table", "main"}};
  const auto deadline = piped_process::clock_type::now() + 30s;
  std::vector<std::string> lines;
  bool state = false;
  while (!state) {
    const auto line = term.read_line(deadline);
    INFO(term.transcript() << "\n----- a -----\n" << a.log() << "\n----- b -----\n" << b.log());
    REQUIRE(line);
    lines.push_back(*line);
    state = line->rfind("STATE main", 0) == 0;
  }
  const auto saw = [&](const std::string& prefix) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
  };
  INFO(term.transcript());
  CHECK(saw("DISCONNECTED moved"));
  CHECK(saw("CONNECTED ws://127.0.0.1:" + port + "/n/b/ws"));
  // She watches main at b: bob sees her there.
  CHECK(eventually([&] {
    const json st = bob.ok("main", "/board");
    for (const auto& name : st.value("spectators", json::array()))
      if (name == "alice") return true;
    return false;
  }));
}

namespace {

/// A registered player's password in these tests.
const json password_of(const std::string& name) {
  return {{"password", name + "-secret-26"}};
}

/// Registers `name` on `port` (a `register` instead of a hello).
player register_on(std::uint16_t port, const std::string& name) {
  json fields = password_of(name);
  fields["type"] = "register";
  return player(port, name, "", fields);
}

/// The standard rating of each named account, "name=rating" joined by ",".
std::string ratings_of(const database& db) {
  return db.sql(
      "SELECT string_agg(a.name || '=' || round(r.rating::numeric, 2), ',' ORDER BY a.name) "
      "FROM accounts a JOIN ratings r ON r.account_id = a.id AND r.variant = 'standard' WHERE "
      "a.kind = 'player'");
}

/// Reads from `ws` until a `welcome` or an `error` (other messages skipped).
json welcome_or_error(bg::test::ws_client& ws) {
  const auto m = ws.receive_until([](const json& msg) {
    const auto type = msg.value("type", "");
    return type == "welcome" || type == "error";
  });
  REQUIRE(m);
  return *m;
}

}  // namespace

TEST_CASE(
    "cluster: a registered player sent on by moved resumes on the table's node as the same "
    "account, with its rating, sits down and plays a rated match there",
    "[postgres][cluster]") {
  database db;
  gammond_process a{node(db.url, "a")};
  gammond_process b{node(db.url, "b")};
  INFO(a.log() << "\n----- b -----\n" << b.log());
  // Each registers on its own node after both started: neither node knew the other's
  // account at its start.
  player alice = register_on(a.port(), "alice");
  player bob = register_on(b.port(), "bob");
  alice.ok("clu1", "/join red");
  bob.send("clu1", "/join black");
  const json moved = bob.await([](const json& m) { return m.value("type", "") == "moved"; });
  CHECK(moved["node"] == "a");
  CHECK(moved["path"] == "/n/a/ws");
  CHECK_FALSE(moved.contains("retry_ms"));
  REQUIRE(bob.socket().wait_closed(10s));
  CHECK(bob.socket().close_code() == 4000);
  // Node b has seen the close (the name is in its resume window, not freed) before bob
  // says hello on a: the order that failed before (name_registered 1 ms after the close).
  REQUIRE(eventually([&] { return b.metric("gammond_connections") == 0; }, 10s));
  player bob_a(a.port(), "bob", bob.token());
  CHECK(bob_a.welcome()["resumed"] == true);
  CHECK(bob_a.welcome()["account"]["registered"] == true);
  CHECK(bob_a.welcome()["account"]["rating"]["standard"] == 1500.0);
  const json seated = bob_a.ok("clu1", moved["re"]["text"].get<std::string>());
  CHECK(seated["players"]["black"] == "bob");
  CHECK(seated["ratings"].contains("alice"));
  CHECK(seated["ratings"].contains("bob"));
  alice.ok("clu1", "/option match 1");
  bob_a.ok("clu1", "/start");
  duel d{alice, bob_a, "clu1"};
  const json over = d.play_until([](const json& s) { return s["phase"] == "match_over"; });
  REQUIRE(over["phase"] == "match_over");
  // Rated (two accounts): both ratings moved away from 1500.
  const std::string after = ratings_of(db);
  CHECK(after.find("alice=1500.00") == std::string::npos);
  CHECK(after.find("bob=1500.00") == std::string::npos);
  CHECK(after.find("alice=") != std::string::npos);
  CHECK(after.find("bob=") != std::string::npos);
}

TEST_CASE(
    "cluster: a login on a node without the player's seat is welcomed and sent to the table's "
    "node in one redirect, after a kill -9 of that node the players wait (moved with retry_ms) "
    "until the lease runs out, then resume elsewhere as registered with their ratings",
    "[postgres][cluster]") {
  database db;
  // A lease long enough that the wait can be seen between the missed heartbeats and the
  // lease's end on a loaded machine.
  gammond_process a{node(db.url, "a", "0.2", "3")};
  gammond_process b{node(db.url, "b", "0.2", "3")};
  INFO(a.log() << "\n----- b -----\n" << b.log());
  player alice = register_on(a.port(), "alice");
  player bob = register_on(a.port(), "bob");
  seat(alice, bob, "main", "/option match 1");
  duel d{alice, bob, "main"};
  d.play_until([](const json& s) { return s["phase"] == "roll"; });
  // bob comes back in a new browser: he logs in on b, which does not have his table.
  bob.socket().close();
  bg::test::ws_client login;
  login.connect("127.0.0.1", b.port());
  json hello{{"type", "hello"}, {"name", "bob"}, {"id", "in"}};
  hello.update(password_of("bob"));
  login.send_json(hello);
  const json welcome = welcome_or_error(login);
  REQUIRE(welcome["type"] == "welcome");
  CHECK(welcome["account"]["registered"] == true);
  CHECK(welcome["tables"] == json::array());
  const auto sent_on =
      login.receive_until([](const json& m) { return m.value("type", "") == "moved"; });
  REQUIRE(sent_on);
  CHECK((*sent_on)["table"] == "main");
  CHECK((*sent_on)["path"] == "/n/a/ws");
  CHECK_FALSE(sent_on->contains("re"));
  REQUIRE(login.wait_closed(10s));
  CHECK(login.close_code() == 4000);
  player bob_a(a.port(), "bob", welcome["resume"].get<std::string>());
  CHECK(bob_a.welcome()["resumed"] == true);
  CHECK(bob_a.welcome()["tables"] == json::array({"main"}));
  CHECK(bob_a.welcome()["account"]["registered"] == true);

  // The owner dies. Past two missed heartbeats and before the lease ends, b answers a
  // resuming hello with a wait: moved to the plain /ws with retry_ms.
  const std::string alice_token = alice.token();
  const std::string bob_token = bob_a.token();
  CHECK(a.stop(SIGKILL) == 137);
  std::this_thread::sleep_for(800ms);
  {
    bg::test::ws_client early;
    early.connect("127.0.0.1", b.port());
    early.send_json({{"type", "hello"}, {"resume", alice_token}});
    const auto wait = early.receive_json(10s);
    REQUIRE(wait);
    INFO(wait->dump());
    // (Unless the machine was so slow that the lease is already over: then the seat is
    // claimed and the hello welcomed.)
    if ((*wait)["type"] == "moved") {
      CHECK((*wait)["path"] == "/ws");
      CHECK((*wait)["node"] == "a");
      CHECK((*wait)["retry_ms"].get<std::int64_t>() > 0);
      CHECK((*wait)["retry_ms"].get<std::int64_t>() <= 3200);
      REQUIRE(early.wait_closed(10s));
      CHECK(early.close_code() == 4000);
    } else {
      CHECK((*wait)["type"] == "welcome");
    }
  }
  // Once the lease is over, both resume on b: registered, seated, ratings shown.
  std::optional<player> alice_b;
  REQUIRE(eventually(
      [&] {
        bg::test::ws_client probe;
        probe.connect("127.0.0.1", b.port());
        probe.send_json({{"type", "hello"}, {"resume", alice_token}, {"id", "p"}});
        const auto m = probe.receive_json(10s);
        if (!m || (*m)["type"] != "welcome") return false;
        probe.close();
        return true;
      },
      20s));
  // (The probe's welcome rotated alice's token: she logs in again, as a new browser.)
  alice_b.emplace(b.port(), "alice", "", password_of("alice"));
  CHECK(alice_b->welcome()["account"]["registered"] == true);
  CHECK(alice_b->welcome()["tables"] == json::array({"main"}));
  player bob_b(b.port(), "", bob_token);
  CHECK(bob_b.welcome()["account"]["registered"] == true);
  CHECK(bob_b.welcome()["tables"] == json::array({"main"}));
  const json board = bob_b.ok("main", "/board");
  CHECK(board["ratings"]["alice"] == 1500.0);
  CHECK(board["ratings"]["bob"] == 1500.0);
  duel d2{*alice_b, bob_b, "main"};
  const json over = d2.play_until([](const json& s) { return s["phase"] == "match_over"; });
  REQUIRE(over["phase"] == "match_over");
  const std::string after = ratings_of(db);
  CHECK(after.find("alice=1500.00") == std::string::npos);
  CHECK(after.find("bob=1500.00") == std::string::npos);
}

TEST_CASE(
    "cluster: a table is one node's from its first message: entered on another node before any "
    "heartbeat could tell, it is sent there, never made twice",
    "[postgres][cluster]") {
  database db;
  // Heartbeats far apart: the other node's view of the owners is of no help here.
  gammond_process a{node(db.url, "a", "3", "10")};
  gammond_process b{node(db.url, "b", "3", "10")};
  INFO(a.log() << "\n----- b -----\n" << b.log());
  player alice(a.port(), "alice");
  player bob(b.port(), "bob");
  alice.ok("fresh", "/join");
  CHECK(db.sql("SELECT node || ':' || epoch FROM table_owners WHERE table_name = 'fresh'") ==
        "a:1");
  bob.send("fresh", "/join");
  const json moved = bob.await([](const json& m) { return m.value("type", "") == "moved"; });
  CHECK(moved["node"] == "a");
  REQUIRE(bob.socket().wait_closed(10s));
  CHECK(bob.socket().close_code() == 4000);
  player bob_a(a.port(), "", bob.token());
  const json both = bob_a.ok("fresh", "/join");
  CHECK(both["players"]["red"] == "alice");
  CHECK(both["players"]["black"] == "bob");
  CHECK(b.metric("gammond_cluster_claims_lost_total") == 0);
  CHECK(a.metric("gammond_cluster_claims_lost_total") == 0);
  CHECK(db.sql("SELECT node || ':' || epoch FROM table_owners WHERE table_name = 'fresh'") ==
        "a:1");
  // The first write kept the epoch the first message claimed.
  CHECK(db.sql("SELECT count(*) FROM table_records WHERE table_name = 'fresh' AND (node <> 'a' "
               "OR epoch <> 1)") == "0");
}

TEST_CASE(
    "cluster: a seat announced in a match survives a kill -9 of its node at once: resumed on "
    "another node, the player is welcomed with the seat",
    "[postgres][cluster]") {
  database db;
  gammond_process a{node(db.url, "a")};
  gammond_process b{node(db.url, "b")};
  INFO(a.log() << "\n----- b -----\n" << b.log());
  player alice(a.port(), "alice");
  player bob(a.port(), "bob");
  seat(alice, bob, "now");  // the match's first state is announced
  const std::string token = alice.token();
  CHECK(a.stop(SIGKILL) == 137);
  std::optional<json> welcome;
  REQUIRE(eventually(
      [&] {
        bg::test::ws_client ws;
        ws.connect("127.0.0.1", b.port());
        ws.send_json({{"type", "hello"}, {"resume", token}});
        const auto m = ws.receive_json(10s);
        if (!m || (*m)["type"] != "welcome") return false;
        welcome = *m;
        return true;
      },
      20s));
  CHECK((*welcome)["tables"] == json::array({"now"}));
  CHECK((*welcome)["resumed"] == true);
}

TEST_CASE(
    "cluster: a player at the table limit who names a new table is refused with "
    "too_many_tables at once, and the node goes on answering",
    "[postgres][cluster]") {
  database db;
  auto flags = node(db.url, "a");
  flags.insert(flags.end(), {"--max-tables-per-client", "1"});
  gammond_process a{flags};
  player alice(a.port(), "alice");
  (void)alice.ok("t1", "/join");
  // A new table this player may not make is refused, not looked up in the store again
  // and again.
  alice.refused("t2", "/join", "too_many_tables");
  alice.refused("t3", "hello", "too_many_tables");
  player bob(a.port(), "bob");
  const json st = bob.ok("t1", "/join");
  CHECK(st["players"]["black"] == "bob");
  CHECK(db.sql("SELECT count(*) FROM table_owners") == "1");
}
