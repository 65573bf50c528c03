// The analysis queue (bots/analysis_queue.hpp) with the real GNU Backgammon: the
// recorded match with a known blunder (tests/server/data/analysis_blunder.mat, made by
// hand with gnubg, see tests/server/data/README.md) is analysed and the blunder found
// with gnubg's equity; and with wrappers around gnubg that crash, hang or wait: a crash
// is run again once and never stops the queue, the time limit kills a hung gnubg, a
// full queue refuses, stop() ends a running gnubg.
//
// gnubg is required (scripts/setup installs it). Set GNUBG to use another binary than
// /usr/games/gnubg.

#include <sys/stat.h>

#include <csignal>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "bg/bots/analysis_queue.hpp"
#include "eventually.hpp"

// Named, so that these helpers and another file's of the same name share a unity
// build (CMAKE_UNITY_BUILD).
namespace analysis_queue_tests {

namespace {

namespace fs = std::filesystem;
using bg::bots::analysis_level;
using bg::bots::analysis_queue;
using nlohmann::json;
using namespace std::chrono_literals;

std::string gnubg_path() {
  const char* env = std::getenv("GNUBG");  // NOLINT(concurrency-mt-unsafe): tests
  return env && *env ? env : "/usr/games/gnubg";
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A fresh directory, removed with its contents on scope exit.
struct scratch {
  fs::path path;
  scratch() {
    std::string pattern = (fs::temp_directory_path() / "gammond-queue-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
  /// Writes an executable shell script `name` whose body is `body`; returns its path.
  [[nodiscard]] std::string script(const std::string& name, const std::string& body) const {
    const auto p = path / name;
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    REQUIRE(::chmod(p.c_str(), 0755) == 0);
    return p.string();
  }
};

/// The recorded match with a known blunder (gnubg's own export of it).
analysis_queue::job blunder_job(std::int64_t id) {
  return {id,
          "t1",
          read_text(fs::path(BG_SERVER_TEST_DATA) / "analysis_blunder.mat"),
          {"alice", "bob"},
          {}};
}

/// The outcomes reported by a queue, in the order they came.
struct reports {
  std::mutex mutex;
  std::vector<std::pair<std::int64_t, analysis_queue::outcome>> all;
  analysis_queue::done_handler handler() {
    return [this](const analysis_queue::job& j, analysis_queue::outcome& o) {
      std::lock_guard lock(mutex);
      all.emplace_back(j.match_id, o);
    };
  }
  std::size_t size() {
    std::lock_guard lock(mutex);
    return all.size();
  }
  analysis_queue::outcome of(std::int64_t id) {
    std::lock_guard lock(mutex);
    for (const auto& [match, o] : all)
      if (match == id) return o;
    FAIL("no outcome for match " << id);
    return {};
  }
};

analysis_queue::options fast(const std::string& gnubg, const fs::path& scratch_dir) {
  analysis_queue::options o;
  o.gnubg = gnubg;
  o.level = analysis_level::expert;  // 0-ply: deterministic and fast
  o.timeout = 120s;
  o.scratch = scratch_dir;
  return o;
}

const json* decision_with(const json& result, const std::string& kind, const std::string& skill) {
  for (const auto& d : result["decisions"])
    if (d["kind"] == kind && d["skill"] == skill) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE("the real gnubg finds the recorded blunder with the equity noted by hand",
          "[analysis][gnubg]") {
  // Given the 2-point match of tests/server/data/analysis_blunder.mat, where red (the
  // left column) drops a take in game 1 and plays 42 as 24/22 5/1 in game 2,
  scratch dir;
  reports got;
  analysis_queue queue(fast(gnubg_path(), dir.path), got.handler());
  // When gnubg analyses it at the expert level (0-ply),
  REQUIRE(queue.submit(blunder_job(7)) == analysis_queue::submitted::queued);
  REQUIRE(bg::test::eventually([&] { return got.size() == 1; }, 120s));
  const auto o = got.of(7);
  REQUIRE(o.done);
  CHECK(o.crashes == 0);
  const json& r = o.result;
  // Then the play is a blunder ("very bad") costing 0.2245 EMG, as gnubg showed by hand
  // (README: `analyse match` at 0 plies, then its hint for that position),
  const json* blunder = decision_with(r, "move", "very bad");
  REQUIRE(blunder);
  CHECK((*blunder)["side"] == "red");
  CHECK((*blunder)["game"] == 2);
  CHECK((*blunder)["dice"] == json::array({4, 2}));
  CHECK((*blunder)["played"] == "24/22 5/1");
  CHECK((*blunder)["best"] == "13/11 13/9");
  CHECK((*blunder)["equity_lost"].get<double>() == Approx(0.2245).margin(0.0005));
  CHECK((*blunder)["position_id"] == "2J7dAADYVuQAJg");
  CHECK((*blunder)["match_id"].get<std::string>().size() == 12);
  // the board after it moved one red checker from red's 24 (board point 1) to 22
  // (board 3) and one from red's 5 (board 20) to 1 (board 24), nothing else,
  const auto& before = (*blunder)["board_before"]["points"];
  const auto& after = (*blunder)["board_after"]["points"];
  for (std::size_t p = 1; p <= 24; ++p) {
    const int delta = after[p - 1].get<int>() - before[p - 1].get<int>();
    const int expected = p == 1 || p == 20 ? -1 : p == 3 || p == 24 ? 1 : 0;
    INFO("board point " << p);
    CHECK(delta == expected);
  }
  // the drop of game 1 is a cube blunder costing 0.988 (gnubg: "Wrong passes 1 (-0.988)"),
  const json* pass = decision_with(r, "drop", "very bad");
  REQUIRE(pass);
  CHECK((*pass)["side"] == "red");
  CHECK((*pass)["best"] == "take");
  CHECK((*pass)["equity_lost"].get<double>() == Approx(0.9881).margin(0.0005));
  // and the summary is gnubg's `show statistics match`: red's error rate 55.1 mEMG,
  // Snowie error rate 28.9, "Awful!"; one blunder in checker play and one in cube
  // decisions; black made no error.
  const json& red = r["players"]["red"];
  CHECK(red["name"] == "alice");
  CHECK(red["error_rate"].get<double>() == Approx(55.1).margin(0.05));
  CHECK(red["snowie_error_rate"].get<double>() == Approx(28.9).margin(0.05));
  CHECK(red["rating"] == "Awful!");
  CHECK(red["checker"]["blunders"] == 1);
  CHECK(red["checker"]["errors"] == 0);
  CHECK(red["checker"]["rating"] == "Advanced");
  CHECK(red["cube"]["blunders"] == 1);
  CHECK(red["cube"]["wrong_drops"] == 1);
  CHECK(red["luck"]["total"].get<double>() == Approx(-0.575).margin(0.001));
  const json& black = r["players"]["black"];
  CHECK(black["name"] == "bob");
  CHECK(black["error_rate"] == 0.0);
  CHECK(black["rating"] == "Supernatural");
  // Every decision has a board and the chart's value; moves have a board after.
  CHECK(r["decisions"].size() == 44);
  for (const auto& d : r["decisions"]) {
    CHECK(d.contains("board_before"));
    CHECK((d["kind"] != "move" || d.contains("board_after")));
  }
}

TEST_CASE("a gnubg that crashes once is run again and the analysis is done", "[analysis][gnubg]") {
  scratch dir;
  const auto marker = (dir.path / "crashed").string();
  const auto wrapper =
      dir.script("gnubg", "if [ ! -e " + marker + " ]; then : > " + marker +
                              "; kill -SEGV $$; fi\nexec " + gnubg_path() + " \"$@\"");
  reports got;
  analysis_queue queue(fast(wrapper, dir.path), got.handler());
  REQUIRE(queue.submit(blunder_job(1)) == analysis_queue::submitted::queued);
  REQUIRE(bg::test::eventually([&] { return got.size() == 1; }, 120s));
  const auto o = got.of(1);
  CHECK(o.done);
  CHECK(o.crashes == 1);
  CHECK(decision_with(o.result, "move", "very bad"));
}

TEST_CASE("a gnubg that crashes twice fails that analysis and the queue goes on",
          "[analysis][gnubg]") {
  scratch dir;
  const auto count = (dir.path / "count").string();
  // Runs 1 and 2 crash (both for match 1), then the real gnubg.
  const auto wrapper =
      dir.script("gnubg", "n=$(cat " + count + " 2>/dev/null || echo 0)\necho $((n + 1)) > " +
                              count + "\nif [ \"$n\" -lt 2 ]; then kill -SEGV $$; fi\nexec " +
                              gnubg_path() + " \"$@\"");
  reports got;
  analysis_queue queue(fast(wrapper, dir.path), got.handler());
  REQUIRE(queue.submit(blunder_job(1)) == analysis_queue::submitted::queued);
  REQUIRE(queue.submit(blunder_job(2)) == analysis_queue::submitted::queued);
  REQUIRE(bg::test::eventually([&] { return got.size() == 2; }, 120s));
  const auto first = got.of(1);
  CHECK_FALSE(first.done);
  CHECK(first.crashes == 2);
  CHECK(first.reason.find("crashed twice") != std::string::npos);
  const auto second = got.of(2);
  CHECK(second.done);
  CHECK(second.crashes == 0);
}

TEST_CASE("a gnubg past the time limit is killed and the analysis fails", "[analysis][gnubg]") {
  scratch dir;
  const auto pid_file = (dir.path / "pid").string();
  const auto wrapper = dir.script("gnubg", "echo $$ > " + pid_file + "\nexec sleep 600");
  reports got;
  auto opts = fast(wrapper, dir.path);
  opts.timeout = 1s;
  analysis_queue queue(opts, got.handler());
  REQUIRE(queue.submit(blunder_job(3)) == analysis_queue::submitted::queued);
  REQUIRE(bg::test::eventually([&] { return got.size() == 1; }, 60s));
  const auto o = got.of(3);
  CHECK_FALSE(o.done);
  CHECK(o.reason.find("time limit (1 s)") != std::string::npos);
  CHECK(o.seconds >= 1.0);
  // The hung process is gone.
  const auto pid = std::stoi(read_text(pid_file));
  CHECK(bg::test::eventually([&] { return ::kill(pid, 0) != 0; }));
}

TEST_CASE("a full queue refuses a match, and the waiting ones are analysed later",
          "[analysis][gnubg]") {
  scratch dir;
  const auto gate = (dir.path / "open").string();
  // gnubg waits until the test opens the gate: the first match holds the only worker.
  const auto wrapper =
      dir.script("gnubg", "while [ ! -e " + gate + " ]; do [ -d " + dir.path.string() +
                              " ] || exit 1; sleep 0.05; done\nexec " + gnubg_path() + " \"$@\"");
  reports got;
  auto opts = fast(wrapper, dir.path);
  opts.capacity = 1;
  analysis_queue queue(opts, got.handler());
  REQUIRE(queue.submit(blunder_job(1)) == analysis_queue::submitted::queued);
  REQUIRE(bg::test::eventually([&] { return queue.running() == 1 && queue.waiting() == 0; }));
  CHECK(queue.submit(blunder_job(2)) == analysis_queue::submitted::queued);
  CHECK(queue.waiting() == 1);
  CHECK(queue.submit(blunder_job(3)) == analysis_queue::submitted::full);
  CHECK(queue.submit(blunder_job(2)) == analysis_queue::submitted::duplicate);
  CHECK(queue.waiting() == 1);
  std::ofstream(gate).put('\n');
  REQUIRE(bg::test::eventually([&] { return got.size() == 2; }, 120s));
  CHECK(got.of(1).done);
  CHECK(got.of(2).done);
}

TEST_CASE("while the server says it is busy no analysis starts, one starts once it is calm",
          "[analysis][gnubg][issue15]") {
  scratch dir;
  reports got;
  std::atomic<bool> busy{true};
  std::atomic<int> asked{0};
  auto opts = fast(gnubg_path(), dir.path);
  opts.busy = [&] {
    ++asked;
    return busy.load();
  };
  opts.busy_poll = 20ms;
  analysis_queue queue(opts, got.handler());
  REQUIRE(queue.submit(blunder_job(1)) == analysis_queue::submitted::queued);
  // Asked again and again, and each time the match stays where it is.
  REQUIRE(bg::test::eventually([&] { return asked.load() >= 10; }));
  CHECK(queue.running() == 0);
  CHECK(queue.waiting() == 1);
  CHECK(got.size() == 0);
  busy = false;
  REQUIRE(bg::test::eventually([&] { return got.size() == 1; }, 120s));
  CHECK(got.of(1).done);
}

TEST_CASE("stop() ends a running gnubg and drops the waiting matches unreported",
          "[analysis][gnubg]") {
  scratch dir;
  const auto pid_file = (dir.path / "pid").string();
  const auto wrapper = dir.script("gnubg", "echo $$ > " + pid_file + "\nexec sleep 600");
  reports got;
  analysis_queue queue(fast(wrapper, dir.path), got.handler());
  REQUIRE(queue.submit(blunder_job(1)) == analysis_queue::submitted::queued);
  REQUIRE(queue.submit(blunder_job(2)) == analysis_queue::submitted::queued);
  REQUIRE(
      bg::test::eventually([&] { return fs::exists(pid_file) && !read_text(pid_file).empty(); }));
  const auto pid = std::stoi(read_text(pid_file));
  queue.stop();
  CHECK(got.size() == 0);
  CHECK(::kill(pid, 0) != 0);
  CHECK(queue.submit(blunder_job(3)) == analysis_queue::submitted::stopped);
}

TEST_CASE("a file gnubg cannot import fails its analysis at once, without a second run",
          "[analysis][gnubg]") {
  scratch dir;
  reports got;
  analysis_queue queue(fast(gnubg_path(), dir.path), got.handler());
  auto job = blunder_job(4);
  job.mat = "this is not a match\n";
  REQUIRE(queue.submit(job) == analysis_queue::submitted::queued);
  REQUIRE(bg::test::eventually([&] { return got.size() == 1; }, 120s));
  const auto o = got.of(4);
  CHECK_FALSE(o.done);
  CHECK(o.crashes == 0);
  CHECK(o.reason == "GNU Backgammon could not analyse the match");
}

TEST_CASE(
    "the queue is fair per player: at most per_owner waiting each, and players are "
    "served in turn, so many tiny matches of one cannot starve another's",
    "[analysis][fairness]") {
  scratch dir;
  const auto gate = (dir.path / "open").string();
  // gnubg waits for the gate, then answers at once with an error (one run per match,
  // no retry): the order of the reports is the order the worker took the matches.
  const auto wrapper =
      dir.script("gnubg", "while [ ! -e " + gate + " ]; do [ -d " + dir.path.string() +
                              " ] || exit 1; sleep 0.05; done\necho '{\"error\":\"test\"}' > "
                              "\"$GAMMOND_ANALYSIS_OUT\"");
  reports got;
  auto opts = fast(wrapper, dir.path);
  opts.capacity = 100;
  opts.per_owner = 3;
  analysis_queue queue(opts, got.handler());
  const auto match = [](std::int64_t id, const std::string& person) {
    auto j = blunder_job(id);
    j.players = {person, "gnubg-expert"};  // a computer player counts for no one
    return j;
  };
  // The spammer's first match holds the only worker; three more wait, a fifth is refused.
  REQUIRE(queue.submit(match(1, "spammer")) == analysis_queue::submitted::queued);
  REQUIRE(bg::test::eventually([&] { return queue.running() == 1; }));
  for (std::int64_t id = 2; id <= 4; ++id)
    CHECK(queue.submit(match(id, "spammer")) == analysis_queue::submitted::queued);
  CHECK(queue.submit(match(5, "spammer")) == analysis_queue::submitted::owner_full);
  // alice's one real match comes after them, and is not refused.
  CHECK(queue.submit(match(10, "alice")) == analysis_queue::submitted::queued);
  CHECK(queue.waiting() == 4);
  std::ofstream(gate).put('\n');
  REQUIRE(bg::test::eventually([&] { return got.size() == 5; }, 120s));
  // alice's match is taken next, ahead of the spammer's waiting ones.
  std::vector<std::int64_t> ids;
  {
    std::lock_guard lock(got.mutex);
    for (const auto& [id, o] : got.all) ids.push_back(id);
  }
  CHECK(ids == std::vector<std::int64_t>{1, 10, 2, 3, 4});
  // Once the spammer's matches have gone, more of theirs are taken again.
  CHECK(queue.submit(match(5, "spammer")) == analysis_queue::submitted::queued);
}

}  // namespace analysis_queue_tests
