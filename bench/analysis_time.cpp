// bench_analysis: how long gammond's match analysis takes (issue 14), measured exactly
// as gammond runs it: bg::bots::analysis_queue with one worker starts gnubg on the
// .mat, imports and analyses it, reads gnubg's answer and converts it.
//
//   build/bench/bench_analysis [--level worldclass] [--runs 3] [--gnubg PATH] FILE.mat...
//
// Prints one line per run and, per file, the median, min and max wall time in seconds
// and the number of decisions. Not a test: bench/analysis-time runs it on the 7-point
// matches of bench/data and the figure goes to README's Performance section.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "bg/bots/analysis_queue.hpp"

namespace {

using bg::bots::analysis_queue;

int usage() {
  std::cerr << "usage: bench_analysis [--level expert|worldclass|grandmaster] [--runs N] "
               "[--gnubg PATH] FILE.mat...\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  analysis_queue::options opts;
  opts.timeout = std::chrono::hours(2);
  int runs = 3;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--level" && i + 1 < argc) {
      const auto level = bg::bots::analysis_level_from_string(argv[++i]);
      if (!level) return usage();
      opts.level = *level;
    } else if (a == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
      if (runs < 1) return usage();
    } else if (a == "--gnubg" && i + 1 < argc) {
      opts.gnubg = argv[++i];
    } else if (!a.empty() && a[0] == '-') {
      return usage();
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) return usage();

  std::mutex mutex;
  std::condition_variable done;
  std::vector<analysis_queue::outcome> outcomes;
  analysis_queue queue(opts, [&](const analysis_queue::job&, analysis_queue::outcome& o) {
    std::lock_guard lock(mutex);
    outcomes.push_back(o);
    done.notify_one();
  });
  std::printf("level %s, gnubg %s, one worker, %d run(s) per file\n",
              std::string(bg::bots::to_string(opts.level)).c_str(), opts.gnubg.c_str(), runs);
  std::int64_t id = 0;
  for (const auto& file : files) {
    std::ifstream in(file);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
      std::cerr << "bench_analysis: cannot read " << file << "\n";
      return 1;
    }
    std::vector<double> seconds;
    std::size_t decisions = 0;
    for (int r = 0; r < runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      queue.submit({++id, "bench", text.str(), {"red", "black"}, {}});
      analysis_queue::outcome o;
      {
        std::unique_lock lock(mutex);
        done.wait(lock, [&] { return !outcomes.empty(); });
        o = outcomes.back();
        outcomes.clear();
      }
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!o.done) {
        std::cerr << "bench_analysis: " << file << ": " << o.reason << "\n";
        return 1;
      }
      decisions = o.result["decisions"].size();
      seconds.push_back(wall);
      std::printf("  %s run %d: %.2f s (%zu decisions)\n", file.c_str(), r + 1, wall, decisions);
    }
    std::sort(seconds.begin(), seconds.end());
    std::printf("%s: median %.2f s, min %.2f s, max %.2f s, %zu decisions\n", file.c_str(),
                seconds[seconds.size() / 2], seconds.front(), seconds.back(), decisions);
  }
  return 0;
}
