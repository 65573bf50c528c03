// The cluster bus (issue 16): its NOTIFY payload codec, and two buses on one real
// PostgreSQL database (a throwaway server, tests/support/postgres_server) that hear each
// other, not themselves, and listen again after PostgreSQL drops their connections.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <mutex>
#include <string>
#include <vector>

#include "bg/server/cluster/cluster_bus.hpp"
#include "bg/server/store/postgres_store.hpp"
#include "eventually.hpp"
#include "postgres_server.hpp"

using bg::server::cluster_bus;
using bg::test::eventually;
using bg::test::postgres_server;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("cluster bus: payloads carry their node, are at most 7999 bytes, and only ours decode",
          "[cluster][postgres]") {
  const auto text = cluster_bus::encode(json{{"from", "alice"}, {"text", "hi"}}, "n1");
  REQUIRE(text);
  const auto e = cluster_bus::decode("gammond_chat", *text);
  REQUIRE(e);
  CHECK(e->channel == "chat");
  CHECK(e->payload.at("node") == "n1");
  CHECK(e->payload.at("text") == "hi");
  // The largest payload that fits, and one byte more: refused, never cut.
  const auto overhead = cluster_bus::encode(json{{"text", ""}}, "n1")->size();
  const std::string fits(cluster_bus::max_payload - overhead, 'x');
  const auto at_limit = cluster_bus::encode(json{{"text", fits}}, "n1");
  REQUIRE(at_limit);
  CHECK(at_limit->size() == cluster_bus::max_payload);
  CHECK_FALSE(cluster_bus::encode(json{{"text", fits + "x"}}, "n1"));
  // Not ours: another channel, not JSON, not an object, no node.
  CHECK_FALSE(cluster_bus::decode("other_chat", *text));
  CHECK_FALSE(cluster_bus::decode("gammond_other", *text));
  CHECK_FALSE(cluster_bus::decode("gammond_chat", "not json"));
  CHECK_FALSE(cluster_bus::decode("gammond_chat", "[1,2]"));
  CHECK_FALSE(cluster_bus::decode("gammond_chat", R"({"text":"hi"})"));
  CHECK_FALSE(cluster_bus::decode("gammond_chat", R"({"node":7})"));
}

namespace {

/// What one bus heard, from any thread.
struct heard {
  std::mutex mutex;
  std::vector<cluster_bus::event> events;
  std::size_t count(const std::string& text) {
    std::lock_guard lock(mutex);
    std::size_t n = 0;
    for (const auto& e : events)
      if (e.channel == "chat" && e.payload.value("text", "") == text) ++n;
    return n;
  }
};

cluster_bus::options bus_options(const std::string& url, const std::string& node, heard& h) {
  cluster_bus::options o;
  o.url = url;
  o.node_id = node;
  o.lease = 1000ms;
  o.queue = 100;
  o.post = [](std::function<void()> f) { f(); };  // on the bus's thread: enough here
  o.on_event = [&h](const cluster_bus::event& e) {
    std::lock_guard lock(h.mutex);
    h.events.push_back(e);
  };
  return o;
}

}  // namespace

TEST_CASE(
    "cluster bus: a line said by one node is heard by the other, not by itself, and again "
    "after PostgreSQL dropped both connections",
    "[cluster][postgres]") {
  auto& server = postgres_server::shared();
  const std::string url = server.create_database();
  { bg::server::postgres_store schema(url); }  // the tables, by the store's migration
  heard h1;
  heard h2;
  cluster_bus one(bus_options(url, "n1", h1));
  cluster_bus two(bus_options(url, "n2", h2));
  REQUIRE(eventually([&] { return one.listening() && two.listening(); }));
  REQUIRE(one.say(json{{"from", "alice"}, {"key", "alice"}, {"text", "first"}}));
  CHECK(eventually([&] { return h2.count("first") == 1; }));
  // Its own line is never handed back to the node that said it (which already
  // delivered it): a later line of the other node shows none came meanwhile.
  REQUIRE(two.say(json{{"from", "bob"}, {"key", "bob"}, {"text", "second"}}));
  CHECK(eventually([&] { return h1.count("second") == 1; }));
  CHECK(h1.count("first") == 0);
  CHECK(h2.count("second") == 0);
  // A payload over the limit is refused and counted, not sent.
  CHECK_FALSE(one.say(json{{"from", "alice"}, {"key", "alice"}, {"text", std::string(8000, 'x')}}));
  CHECK(one.dropped() == 1);

  // PostgreSQL ends both sessions (a restart, a failover, an administrator): each bus
  // finds out, connects again and LISTENs again.
  CHECK(postgres_server::query(
            url,
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = "
            "current_database() AND pid <> pg_backend_pid() AND application_name = 'gammond'") ==
        "2");
  REQUIRE(eventually([&] { return one.reconnections() >= 1 && two.reconnections() >= 1; }));
  REQUIRE(eventually([&] { return one.listening() && two.listening(); }));
  REQUIRE(one.say(json{{"from", "alice"}, {"key", "alice"}, {"text", "after"}}));
  CHECK(eventually([&] { return h2.count("after") == 1; }));
  one.stop();
  two.stop();
  server.drop_database(url);
}
