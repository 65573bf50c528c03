// The long nardy bot's speed: one decision (choose_play) for every position of the long
// nardy corpus x all 21 rolls that has a legal play, at one and two plies, on one thread.
// Reports decisions per second (the inverse is the mean time a table waits for a play).
//
//   build/bench/bench_long_bot --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bg/bots/long_player.hpp"
#include "bg/engine/move_generator.hpp"
#include "bg/engine/position_id.hpp"

using namespace bg::engine;

namespace {

struct decision {
  position before;
  play_list legal;
};

/// Every (position, roll) of bench/data/long.txt with at least one legal play.
const std::vector<decision>& corpus() {
  static const std::vector<decision> decisions = [] {
    std::ifstream in(std::string(BG_BENCH_DATA_DIR) + "/long.txt");
    if (!in) throw std::runtime_error("cannot open long.txt");
    std::vector<decision> out;
    std::string id;
    while (in >> id) {
      const auto p = position_from_id(id, variant::long_nardy);
      if (!p) throw std::runtime_error(id + ": " + p.err().message);
      for (const roll r : all_rolls()) {
        decision d{*p, legal_plays(*p, r, variant::long_nardy)};
        if (!d.legal.empty()) out.push_back(std::move(d));
      }
    }
    return out;
  }();
  return decisions;
}

void BM_long_bot(benchmark::State& state) {
  const bg::bots::long_player bot({1, static_cast<int>(state.range(0))});
  const auto& decisions = corpus();
  std::int64_t made = 0;
  for (auto _ : state) {
    for (const auto& d : decisions) {
      benchmark::DoNotOptimize(bot.choose_play(d.before, d.legal));
      ++made;
    }
  }
  state.counters["decisions/s"] =
      benchmark::Counter(static_cast<double>(made), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_long_bot)->Arg(1)->Arg(2)->ArgName("plies")->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
