// Legal play generation speed: every position of a fixed corpus x all 21 rolls, on one
// thread. Reports generated (distinct resulting) positions per second.
//
//   build/bench/bench_movegen --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bg/engine/move_generator.hpp"
#include "bg/engine/position_id.hpp"

using namespace bg::engine;

namespace {

std::vector<position> load(const std::string& file, variant v) {
  std::ifstream in(std::string(BG_BENCH_DATA_DIR) + "/" + file);
  if (!in) throw std::runtime_error("cannot open " + file);
  std::vector<position> out;
  std::string id;
  while (in >> id) {
    auto p = position_from_id(id, v);
    if (!p) throw std::runtime_error(id + ": " + p.err().message);
    out.push_back(*p);
  }
  return out;
}

void generate_all(benchmark::State& state, const std::vector<position>& corpus, variant v) {
  play_list plays;
  const auto rolls = all_rolls();
  std::int64_t generated = 0;
  for (auto _ : state) {
    for (const auto& p : corpus) {
      for (const auto& r : rolls) {
        legal_plays(p, r, v, plays);
        generated += static_cast<std::int64_t>(plays.size());
        benchmark::DoNotOptimize(plays.size());
      }
    }
  }
  state.counters["positions/s"] =
      benchmark::Counter(static_cast<double>(generated), benchmark::Counter::kIsRate);
  state.counters["plays/call"] =
      static_cast<double>(generated) /
      static_cast<double>(state.iterations() * static_cast<std::int64_t>(corpus.size()) * 21);
}

void BM_contact(benchmark::State& state) {
  static const auto corpus = load("contact.txt", variant::standard);
  generate_all(state, corpus, variant::standard);
}
void BM_race(benchmark::State& state) {
  static const auto corpus = load("race.txt", variant::standard);
  generate_all(state, corpus, variant::standard);
}
void BM_contact_and_race(benchmark::State& state) {
  static const auto corpus = [] {
    auto c = load("contact.txt", variant::standard);
    auto r = load("race.txt", variant::standard);
    c.insert(c.end(), r.begin(), r.end());
    return c;
  }();
  generate_all(state, corpus, variant::standard);
}
void BM_long_nardy(benchmark::State& state) {
  static const auto corpus = load("long.txt", variant::long_nardy);
  generate_all(state, corpus, variant::long_nardy);
}

}  // namespace

BENCHMARK(BM_contact);
BENCHMARK(BM_race);
BENCHMARK(BM_contact_and_race);
BENCHMARK(BM_long_nardy);
BENCHMARK_MAIN();
