// Matchmaking (RULES.md S5) without a server: the rating window, the terms two requests
// overlap on, who is served first and with whom, and the rematch and ignore rules.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "bg/server/lobby/matchmaking.hpp"

using bg::server::ignores_fn;
using bg::server::pair_seeks;
using bg::server::seek_bot_due;
using bg::server::seek_overlap;
using bg::server::seek_request;
using bg::server::seek_window;
using namespace std::chrono_literals;

namespace {

const auto t0 = seek_request::clock_type::time_point{} + 1h;

seek_request seek(std::string name, double rating, std::chrono::seconds waited_at_t0 = 0s) {
  seek_request r;
  r.name = std::move(name);
  r.rating = rating;
  r.since = t0 - waited_at_t0;
  return r;
}

const ignores_fn nobody_ignores = [](const std::string&, const std::string&) { return false; };

}  // namespace

TEST_CASE(
    "S5 the rating window starts at 100, widens by 50 every 10 s up to 400, then has no bound",
    "[lobby][matchmaking][S5]") {
  CHECK(seek_window(0s) == 100);
  CHECK(seek_window(9s) == 100);
  CHECK(seek_window(10s) == 150);
  CHECK(seek_window(25s) == 200);
  CHECK(seek_window(50s) == 350);
  CHECK(seek_window(60s) == 400);
  CHECK(seek_window(69s) == 400);
  CHECK(std::isinf(seek_window(70s)));
  CHECK(std::isinf(seek_window(1h)));
}

TEST_CASE("S5 two requests overlap on variant, a common match length and a common clock",
          "[lobby][matchmaking][S5]") {
  auto a = seek("alice", 1500);
  auto b = seek("bob", 1500);
  a.lengths = {7, 5, 3};
  b.lengths = {3, 5};
  // The length is the first of the first request's that the other accepts.
  REQUIRE(seek_overlap(a, b));
  CHECK(seek_overlap(a, b)->length == 5);
  CHECK(seek_overlap(b, a)->length == 3);
  CHECK_FALSE(seek_overlap(a, b)->clock);  // both accept any clock
  // One names a clock: the other, accepting any, gets it.
  b.clock = bg::protocol::clock_option{5, 12};
  REQUIRE(seek_overlap(a, b));
  CHECK(seek_overlap(a, b)->clock == bg::protocol::clock_option{5, 12});
  // Two different clocks do not overlap; the same one does.
  a.clock = bg::protocol::clock_option{3, 12};
  CHECK_FALSE(seek_overlap(a, b));
  a.clock = bg::protocol::clock_option{5, 12};
  CHECK(seek_overlap(a, b));
  // No common length, or another variant: no overlap.
  b.lengths = {1};
  CHECK_FALSE(seek_overlap(a, b));
  b.lengths = {5};
  b.game_variant = bg::engine::variant::long_nardy;
  CHECK_FALSE(seek_overlap(a, b));
}

TEST_CASE("S5 two requests pair when their ratings are within both windows",
          "[lobby][matchmaking][S5]") {
  // 1500 and 1640 are 140 apart: not paired at once (±100)...
  std::vector<seek_request> r{seek("alice", 1500), seek("bob", 1640)};
  CHECK(pair_seeks(r, t0, nobody_ignores).empty());
  // ...nor when only one has waited 10 s (both windows must reach)...
  r[0].since = t0 - 10s;
  CHECK(pair_seeks(r, t0, nobody_ignores).empty());
  // ...but when both have waited 10 s (±150).
  const auto pairs = pair_seeks(r, t0 + 10s, nobody_ignores);
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].red == 0);  // the longer waiter is red
  CHECK(pairs[0].black == 1);
  // After 70 s of waiting any two ratings pair.
  std::vector<seek_request> far{seek("carol", 1100, 70s), seek("dave", 2300, 75s)};
  const auto late = pair_seeks(far, t0, nobody_ignores);
  REQUIRE(late.size() == 1);
  CHECK(late[0].red == 1);  // dave waited longer
}

TEST_CASE("S5 the longest-waiting request is served first, with the nearest rating",
          "[lobby][matchmaking][S5]") {
  // carol waited longest; both alice (20 away) and bob (60 away) fit her window: alice.
  // Then bob is left with dave.
  std::vector<seek_request> r{seek("alice", 1520, 5s), seek("bob", 1560, 8s),
                              seek("carol", 1500, 9s), seek("dave", 1580, 1s)};
  const auto pairs = pair_seeks(r, t0, nobody_ignores);
  REQUIRE(pairs.size() == 2);
  CHECK(pairs[0].red == 2);
  CHECK(pairs[0].black == 0);
  CHECK(pairs[1].red == 1);
  CHECK(pairs[1].black == 3);
  // Equally near: the longer waiter is the partner.
  std::vector<seek_request> tie{seek("erin", 1500, 9s), seek("frank", 1550, 2s),
                                seek("gina", 1450, 6s)};
  const auto tied = pair_seeks(tie, t0, nobody_ignores);
  REQUIRE(tied.size() == 1);
  CHECK(tied[0].red == 0);
  CHECK(tied[0].black == 2);
}

TEST_CASE("S5 nobody is paired with a name they ignore, either way round",
          "[lobby][matchmaking][S5]") {
  std::vector<seek_request> r{seek("alice", 1500, 9s), seek("bob", 1500, 5s),
                              seek("carol", 1560, 1s)};
  const ignores_fn bob_ignores_alice = [](const std::string& who, const std::string& whom) {
    return who == "bob" && whom == "alice";
  };
  const auto pairs = pair_seeks(r, t0, bob_ignores_alice);
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].red == 0);
  CHECK(pairs[0].black == 2);  // alice gets carol, though bob is nearer
}

TEST_CASE("S5 the same two are not paired twice in a row while another could play either",
          "[lobby][matchmaking][S5]") {
  std::vector<seek_request> r{seek("alice", 1500, 9s), seek("bob", 1500, 8s),
                              seek("carol", 1550, 1s)};
  r[0].last_opponent = "bob";
  r[1].last_opponent = "alice";
  auto pairs = pair_seeks(r, t0, nobody_ignores);
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].red == 0);
  CHECK(pairs[0].black == 2);  // carol, not bob again
  // Alone together (carol plays long nardy), they may play again.
  r[2].game_variant = bg::engine::variant::long_nardy;
  pairs = pair_seeks(r, t0, nobody_ignores);
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].black == 1);
}

TEST_CASE("S5 every request is in one pair at most, and the pairs are the same for the same input",
          "[lobby][matchmaking][S5]") {
  std::vector<seek_request> r;
  for (int i = 0; i < 41; ++i)
    r.push_back(seek("p" + std::to_string(i), 1400 + 5 * i, std::chrono::seconds(i % 13)));
  const auto pairs = pair_seeks(r, t0, nobody_ignores);
  CHECK(pairs.size() == 20);  // 41 requests all within reach of someone: one left over
  std::set<std::size_t> seen;
  for (const auto& p : pairs) {
    CHECK(seen.insert(p.red).second);
    CHECK(seen.insert(p.black).second);
    CHECK(r[p.red].since <= r[p.black].since);
    CHECK(std::abs(r[p.red].rating - r[p.black].rating) <= 100);
  }
  const auto again = pair_seeks(r, t0, nobody_ignores);
  REQUIRE(again.size() == pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    CHECK(again[i].red == pairs[i].red);
    CHECK(again[i].black == pairs[i].black);
  }
}

TEST_CASE("S5 a request that asked for a computer player gets one after its wait",
          "[lobby][matchmaking][S5]") {
  auto r = seek("alice", 1500, 0s);
  CHECK_FALSE(seek_bot_due(r, t0 + 1h));  // never asked
  r.bot_after = 30s;
  CHECK_FALSE(seek_bot_due(r, t0 + 29s));
  CHECK(seek_bot_due(r, t0 + 30s));
}
