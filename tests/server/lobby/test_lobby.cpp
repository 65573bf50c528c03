// The lobby without a server: its list of tables, page by page, and the bounds on its
// chat (server/src/lobby/). The same list and chat through a real gammond are in
// process/ (test_hardening.cpp, test_moderation.cpp) and cluster/test_cluster_lobby.cpp.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "bg/server/lobby/lobby.hpp"

using bg::server::lobby;
using bg::server::lobby_entry;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// A table's summary text as a table writes it (only its name matters here).
lobby_entry summary(const std::string& table, bool listed = true) {
  return lobby_entry{json{{"name", table}, {"players", json::object()}}.dump(), listed};
}

std::vector<std::string> names_on(const json& page) {
  std::vector<std::string> out;
  for (const auto& t : page.at("tables")) out.push_back(t.at("name").get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("the lobby lists tables in name order, a page at a time, the page clamped to the list",
          "[lobby]") {
  lobby l;
  for (const char* t : {"delta", "alpha", "echo", "charlie", "bravo"}) l.set(t, summary(t));
  const json first = l.page(1, 2);
  CHECK(first.at("type") == "tables");
  CHECK(names_on(first) == std::vector<std::string>{"alpha", "bravo"});
  CHECK(first.at("page") == 1);
  CHECK(first.at("pages") == 3);
  CHECK(first.at("total") == 5);
  CHECK(names_on(l.page(3, 2)) == std::vector<std::string>{"echo"});
  // A page past the last is the last; page 0 is the first.
  CHECK(l.page(99, 2).at("page") == 3);
  CHECK(names_on(l.page(99, 2)) == std::vector<std::string>{"echo"});
  CHECK(names_on(l.page(0, 2)) == std::vector<std::string>{"alpha", "bravo"});
}

TEST_CASE("an empty lobby is one empty page", "[lobby]") {
  const lobby l;
  const json p = l.page(5, 20);
  CHECK(p.at("tables").empty());
  CHECK(p.at("page") == 1);
  CHECK(p.at("pages") == 1);
  CHECK(p.at("total") == 0);
}

TEST_CASE("a table's newer summary replaces its older one, and a private table leaves the list",
          "[lobby]") {
  lobby l;
  l.set("alpha", summary("alpha"));
  l.set("bravo", summary("bravo"));
  l.set("alpha", lobby_entry{json{{"name", "alpha"}, {"seq", 9}}.dump(), true});
  CHECK(l.entries().size() == 2);
  CHECK(json::parse(l.entries().at("alpha")).at("seq") == 9);
  l.set("bravo", summary("bravo", /*listed=*/false));  // made private
  CHECK(names_on(l.page(1, 10)) == std::vector<std::string>{"alpha"});
  l.erase("alpha");
  l.erase("never-listed");  // erasing a table the lobby does not hold changes nothing
  CHECK(l.page(1, 10).at("total") == 0);
}

TEST_CASE("a player's lobby chat lines are an interval apart at least", "[lobby][chat]") {
  lobby l;
  const auto t0 = lobby::clock_type::time_point{} + 1h;
  lobby::clock_type::time_point alice{};
  lobby::clock_type::time_point bob{};
  CHECK_FALSE(l.allow_chat(alice, t0, 2s, 100));
  CHECK(alice == t0);
  const auto refused = l.allow_chat(alice, t0 + 1s, 2s, 100);
  REQUIRE(refused);
  CHECK(*refused == "one lobby line every 2 s: wait a moment");
  CHECK(alice == t0);                                // a refused line does not restart the interval
  CHECK_FALSE(l.allow_chat(bob, t0 + 1s, 2s, 100));  // another player is not held back
  CHECK_FALSE(l.allow_chat(alice, t0 + 2s, 2s, 100));
}

TEST_CASE("the lobby chat passes a bounded number of lines a minute from everyone together",
          "[lobby][chat]") {
  lobby l;
  const auto t0 = lobby::clock_type::time_point{} + 1h;
  std::vector<lobby::clock_type::time_point> last(4);
  for (std::size_t i = 0; i < 3; ++i) CHECK_FALSE(l.allow_chat(last[i], t0, 0s, 3));
  const auto busy = l.allow_chat(last[3], t0 + 30s, 0s, 3);
  REQUIRE(busy);
  CHECK(*busy == "the lobby chat is busy: wait a moment and try again");
  CHECK(last[3] == lobby::clock_type::time_point{});  // refused: nothing recorded
  // A minute after the window began, lines pass again.
  CHECK_FALSE(l.allow_chat(last[3], t0 + 60s, 0s, 3));
}
