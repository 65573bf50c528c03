// The cost of pairing (RULES.md S5 and S6) with Google Benchmark: matchmaking's
// pair_seeks() over N waiting requests spread over 800 rating points and four waits,
// and a Swiss round of N players after R rounds played (the search that avoids
// rematches). Targets (issue 30): 200 seekers paired well under 1 s of server time;
// a 256-player Swiss round under 50 ms.
//
//   build/bench/bench_pairing
#include <benchmark/benchmark.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "bg/server/lobby/matchmaking.hpp"
#include "bg/server/tournament/tournament_rules.hpp"

namespace {

using bg::server::seek_request;

std::vector<seek_request> seekers(std::size_t n) {
  std::mt19937_64 rng{30};
  std::uniform_real_distribution<double> rating(1100.0, 1900.0);
  std::uniform_int_distribution<int> waited(0, 40);
  const auto now = seek_request::clock_type::time_point{} + std::chrono::hours(1);
  std::vector<seek_request> out;
  for (std::size_t i = 0; i < n; ++i) {
    seek_request r;
    r.name = "p" + std::to_string(i);
    r.rating = rating(rng);
    r.since = now - std::chrono::seconds(waited(rng));
    r.lengths = i % 3 == 0 ? std::vector<int>{5, 7} : std::vector<int>{5};
    out.push_back(std::move(r));
  }
  return out;
}

void pair_seeks(benchmark::State& state) {
  const auto requests = seekers(static_cast<std::size_t>(state.range(0)));
  const auto now = seek_request::clock_type::time_point{} + std::chrono::hours(1);
  const bg::server::ignores_fn nobody = [](const std::string&, const std::string&) {
    return false;
  };
  std::size_t pairs = 0;
  for (auto _ : state) {
    auto p = bg::server::pair_seeks(requests, now, nobody);
    pairs = p.size();
    benchmark::DoNotOptimize(p);
  }
  state.counters["pairs"] = static_cast<double>(pairs);
}
BENCHMARK(pair_seeks)->Arg(200)->Arg(1000)->Unit(benchmark::kMillisecond);

void swiss_round(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto played = static_cast<int>(state.range(1));
  std::vector<bg::server::entrant> field;
  for (std::size_t i = 0; i < n; ++i)
    field.push_back({"p" + std::to_string(i), 1200.0 + static_cast<double>((i * 37) % 800)});
  std::vector<bg::server::swiss_result> results;
  std::mt19937_64 rng{6};
  for (int r = 0; r < played; ++r)
    for (const auto& p : bg::server::swiss_round(field, results))
      results.push_back(
          {p.red, p.black, p.black ? std::optional(rng() % 2 ? p.red : *p.black) : std::nullopt});
  for (auto _ : state) benchmark::DoNotOptimize(bg::server::swiss_round(field, results));
}
BENCHMARK(swiss_round)
    ->Args({256, 0})
    ->Args({256, 4})
    ->Args({256, 8})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
