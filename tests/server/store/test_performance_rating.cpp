// The performance rating (RULES.md S7) from an analysis's sums: its formula, its bands,
// and the sums read from a stored analysis's player (records/performance_rating).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "bg/server/records/performance_rating.hpp"

using bg::server::performance_rating;
using bg::server::pr_band;
using bg::server::pr_sums_of;

TEST_CASE("S7 a PR is 500 times the equity lost per unforced decision, none without decisions",
          "[records][S7]") {
  CHECK(performance_rating(0.5, 100).value() == Approx(2.5));
  CHECK(performance_rating(0.0, 40).value() == 0.0);
  CHECK(performance_rating(1.2345, 57).value() == Approx(500.0 * 1.2345 / 57));
  CHECK_FALSE(performance_rating(0.3, 0));
  // Over a period: the sums of its matches, not the mean of their PRs.
  const double period = performance_rating(0.2 + 1.0, 10 + 90).value();
  CHECK(period == Approx(6.0));
  CHECK(period !=
        Approx((performance_rating(0.2, 10).value() + performance_rating(1.0, 90).value()) / 2));
}

TEST_CASE("S7 the PR bands are eXtreme Gammon's, each bound belonging to the band above",
          "[records][S7]") {
  CHECK(pr_band(0.0) == "world class");
  CHECK(pr_band(2.49) == "world class");
  CHECK(pr_band(2.5) == "expert");
  CHECK(pr_band(4.99) == "expert");
  CHECK(pr_band(5.0) == "advanced");
  CHECK(pr_band(7.5) == "intermediate");
  CHECK(pr_band(12.5) == "casual");
  CHECK(pr_band(17.5) == "beginner");
  CHECK(pr_band(22.49) == "beginner");
  CHECK(pr_band(22.5) == "distracted");
  CHECK(pr_band(80.0) == "distracted");
}

TEST_CASE("S7 the sums come from a stored analysis's checker play and close cube decisions",
          "[records][S7]") {
  const auto player = nlohmann::json::parse(R"({
    "name": "alice", "error_rate": 55.1,
    "checker": {"moves": 24, "unforced": 20, "error_total": 0.2245},
    "cube": {"decisions": 5, "close": 2, "error_total": 0.988}})");
  const auto sums = pr_sums_of(player);
  CHECK(sums.equity_lost == Approx(1.2125));
  CHECK(sums.decisions == 22);
  // gnubg's error rate (mEMG per decision) is twice the PR.
  CHECK(performance_rating(sums.equity_lost, sums.decisions).value() ==
        Approx(55.1 / 2).margin(0.05));
  // A player with no counted decision, or not an object: nothing to judge.
  CHECK(pr_sums_of(nlohmann::json::parse(R"({"checker": {}, "cube": {}})")).decisions == 0);
  CHECK(pr_sums_of(nlohmann::json("x")).decisions == 0);
}
