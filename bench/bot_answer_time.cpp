// How long a computer player takes to answer (issue 14): for each level, the time from
// asking the bot a question to its answer, through the same pool gammond uses, over a
// fixed set of positions (seeded random self-play games): bg::bots::gnubg_player for
// standard backgammon, bg::bots::long_bot_player with --variant long.
//
//   build/bench/bench_bot_answer_time [--gnubg PATH] [--positions N] [--seed S]
//                                     [--levels beginner,expert,...] [--variant long]
//
// One process (--bot-processes 1) or one long bot thread, one question at a time: the
// latency a player sees on an otherwise idle server. Each level's first question (which
// starts gnubg's process) is timed apart. Per level and kind (plays; double-or-roll decisions) it
// prints the median, p99 and maximum in milliseconds, and a Markdown table at the end.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "bg/bots/gnubg_level.hpp"
#include "bg/bots/gnubg_player.hpp"
#include "bg/bots/gnubg_pool.hpp"
#include "bg/bots/long_bot_player.hpp"
#include "bg/bots/long_bot_pool.hpp"
#include "bg/engine/dice_source.hpp"
#include "bg/engine/game.hpp"

namespace {

using namespace bg;
using clock_type = std::chrono::steady_clock;

/// A position with the dice to play, seen from the side on roll.
struct sample {
  engine::position position;
  engine::roll dice;
  std::vector<std::string> legal;
};

/// `n` positions from seeded random self-play: every third turn of games played with
/// random legal plays, skipping turns with fewer than two legal plays.
std::vector<sample> fixed_positions(std::size_t n, std::uint64_t seed, engine::variant v) {
  engine::seeded_dice dice(seed);
  std::mt19937_64 rng(seed);
  std::vector<sample> out;
  while (out.size() < n) {
    engine::game g(v);
    if (!g.roll_opening(dice)) break;
    for (int turn = 0; g.phase() != engine::game_phase::over && out.size() < n; ++turn) {
      if (g.phase() == engine::game_phase::roll) {
        if (!g.roll_dice(g.turn(), dice)) break;
        continue;
      }
      const auto count = g.legal().size();
      if (turn % 3 == 0 && count >= 2) out.push_back({g.current(), g.dice(), g.legal_notations()});
      std::uniform_int_distribution<std::size_t> pick(0, count - 1);
      if (!g.make_play(g.turn(), pick(rng))) break;
    }
  }
  return out;
}

double ms(clock_type::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

/// The q-quantile (0..1) of sorted `v`, nearest rank.
double quantile(const std::vector<double>& v, double q) {
  if (v.empty()) return 0.0;
  const auto rank = static_cast<std::size_t>(q * static_cast<double>(v.size()) + 0.999999);
  return v[std::min(v.size(), std::max<std::size_t>(rank, 1)) - 1];
}

/// Asks `p` and waits for the answer; returns the milliseconds it took (the answer in
/// `answer`).
double timed(bots::player& p, const bots::situation& s, std::string& answer) {
  std::promise<engine::result<std::string>> promise;
  auto future = promise.get_future();
  const auto t0 = clock_type::now();
  p.decide(s, [&promise](engine::result<std::string> a) { promise.set_value(std::move(a)); });
  const auto a = future.get();
  const double took = ms(clock_type::now() - t0);
  if (!a) {
    std::cerr << "bench_bot_answer_time: no answer: " << a.err().message << "\n";
    std::exit(1);
  }
  answer = *a;
  return took;
}

struct row {
  std::string level;
  std::string kind;
  std::size_t n = 0;
  double median = 0;
  double p99 = 0;
  double max = 0;
};

row summary(std::string level, std::string kind, std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return {std::move(level),     std::move(kind),       times.size(),
          quantile(times, 0.5), quantile(times, 0.99), times.empty() ? 0.0 : times.back()};
}

}  // namespace

int main(int argc, char** argv) {
  std::string program = "/usr/games/gnubg";
  if (const char* env = std::getenv("GNUBG"); env != nullptr && *env != '\0') program = env;
  std::size_t positions = 200;
  std::uint64_t seed = 14;
  engine::variant v = engine::variant::standard;
  std::vector<bots::gnubg_level> levels(bots::all_gnubg_levels.begin(),
                                        bots::all_gnubg_levels.end());
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--gnubg" && has_value) {
      program = argv[++i];
    } else if (arg == "--positions" && has_value) {
      positions = std::stoul(argv[++i]);
    } else if (arg == "--seed" && has_value) {
      seed = std::stoull(argv[++i]);
    } else if (arg == "--variant" && has_value) {
      const std::string word = argv[++i];
      if (word != "standard" && word != "long") {
        std::cerr << "bench_bot_answer_time: the variants are standard and long\n";
        return 2;
      }
      v = word == "long" ? engine::variant::long_nardy : engine::variant::standard;
    } else if (arg == "--levels" && has_value) {
      levels.clear();
      std::string list = argv[++i];
      for (std::size_t at = 0; at <= list.size();) {
        const auto comma = std::min(list.find(',', at), list.size());
        const auto l = bots::gnubg_level_from_string(list.substr(at, comma - at));
        if (!l) {
          std::cerr << "bench_bot_answer_time: unknown level in " << list << "\n";
          return 2;
        }
        levels.push_back(*l);
        at = comma + 1;
      }
    } else {
      std::cerr << "usage: bench_bot_answer_time [--gnubg PATH] [--positions N] [--seed S] "
                   "[--levels beginner,intermediate,advanced,expert,worldclass] "
                   "[--variant standard|long]\n";
      return 2;
    }
  }
  const bool long_nardy = v == engine::variant::long_nardy;
  if (const auto why = long_nardy ? std::string() : bots::gnubg_pool::problem_with(program);
      !why.empty()) {
    std::cerr << "bench_bot_answer_time: " << why << "\n";
    return 1;
  }
  const auto samples = fixed_positions(positions, seed, v);
  std::cout << "positions: " << samples.size() << " (seed " << seed << "), "
            << (long_nardy ? std::string("the long nardy bot") : "gnubg: " + program) << "\n";

  std::vector<row> rows;
  for (const auto level : levels) {
    bots::gnubg_pool_options options;
    options.program = program;
    options.max_processes = 1;
    options.timeout = std::chrono::minutes(2);
    // gammond's pools: gnubg's processes (none started for long nardy), the long bots' thread.
    bots::gnubg_pool pool(options);
    bots::long_bot_pool long_pool(bots::long_bot_pool_options{1, 256});
    bots::gnubg_player gnubg(pool, level);
    bots::long_bot_player nardy(long_pool, level);
    bots::player& player = long_nardy ? static_cast<bots::player&>(nardy) : gnubg;
    const std::string name(bots::to_string(level));

    bots::situation s;
    s.game_variant = v;
    s.kind = engine::match_kind::points;
    s.match_length = 7;
    std::string answer;
    // The first question starts the process: timed apart.
    s.asked = bots::question::play;
    s.position = samples.front().position;
    s.dice = samples.front().dice;
    s.legal = samples.front().legal;
    const double start = timed(player, s, answer);

    std::vector<double> plays;
    std::vector<double> cubes;
    for (const auto& x : samples) {
      s.asked = bots::question::play;
      s.position = x.position;
      s.dice = x.dice;
      s.legal = x.legal;
      plays.push_back(timed(player, s, answer));
      s.asked = bots::question::double_or_roll;
      s.dice = {};
      cubes.push_back(timed(player, s, answer));
    }
    rows.push_back(summary(name, "play", plays));
    rows.push_back(summary(name, "double or roll", cubes));
    std::printf(
        "%-12s start %.0f ms; play median %.2f ms p99 %.2f ms; cube median %.2f ms p99 %.2f ms\n",
        name.c_str(), start, rows[rows.size() - 2].median, rows[rows.size() - 2].p99,
        rows.back().median, rows.back().p99);
    std::fflush(stdout);
  }
  std::cout << "\n| level | question | n | median | p99 | max |\n|---|---|---:|---:|---:|---:|\n";
  for (const auto& r : rows)
    std::printf("| %s | %s | %zu | %.2f ms | %.2f ms | %.2f ms |\n", r.level.c_str(),
                r.kind.c_str(), r.n, r.median, r.p99, r.max);
  return 0;
}
