// The GNU Backgammon pool on its own (bots/gnubg_pool.hpp), with the real gnubg: a
// process killed or stopped (SIGSTOP) while it answers, a flood of questions of mixed
// levels, and the limit on process starts. Every question gets its answer; the pool's
// thread never waits on a child, and no zombie is left.
#include <catch2/catch.hpp>

#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "bg/bots/gnubg_player.hpp"
#include "bg/bots/gnubg_pool.hpp"
#include "bg/engine/position.hpp"
#include "eventually.hpp"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using bg::bots::gnubg_level;

/// The gnubg program: $GNUBG, else /usr/games/gnubg. REQUIREs it, with a sentence.
std::string gnubg_program() {
  std::string path = "/usr/games/gnubg";
  if (const char* env = std::getenv("GNUBG"); env != nullptr && *env != '\0') path = env;
  INFO("these tests need GNU Backgammon at " << path << ": scripts/setup installs it");
  REQUIRE(fs::exists(path));
  return path;
}

/// The bot (black) to play `d1`-`d2` from the starting position of a money game.
bg::bots::situation opening_play(int d1, int d2) {
  bg::bots::situation s;
  s.asked = bg::bots::question::play;
  s.bot = bg::engine::side::black;
  s.on_roll = bg::engine::side::black;
  s.position = bg::engine::position::starting(bg::engine::variant::standard);
  s.dice = {d1, d2};
  return s;
}

/// Questions asked and how they were answered; thread-safe (answers come on the
/// pool's thread).
struct tally {
  std::mutex m;
  int answered = 0;
  int failed = 0;
  std::vector<std::string> errors;

  bg::bots::answer_handler handler() {
    return [this](bg::engine::result<std::string> a) {
      const std::lock_guard lock(m);
      if (a && a->rfind("/move ", 0) == 0) {
        ++answered;
      } else {
        ++failed;
        errors.push_back(a ? *a : a.err().code + ": " + a.err().message);
      }
    };
  }
  int done() {
    const std::lock_guard lock(m);
    return answered + failed;
  }
};

/// Asks `player` `n` opening plays, every roll in turn.
void ask_plays(bg::bots::gnubg_player& player, tally& t, int n) {
  for (int i = 0; i < n; ++i) player.decide(opening_play(1 + i % 6, 1 + (i / 6) % 6), t.handler());
}

/// A busy process of the pool (its pid), or 0 when none is busy now.
pid_t busy_process(const bg::bots::gnubg_pool& pool) {
  for (const auto& p : pool.stats().processes)
    if (p.busy) return static_cast<pid_t>(p.pid);
  return 0;
}

/// The pool's counters, for a failure's message.
std::string counters(const bg::bots::gnubg_pool& pool) {
  const auto st = pool.stats();
  std::ostringstream out;
  out << st.processes.size() << " processes, " << st.waiting << " waiting, " << st.requests
      << " asked, " << st.answers << " answered, " << st.failed << " failed, " << st.started
      << " started, " << st.timeouts << " timeouts, " << st.ended << " ended";
  return out.str();
}

/// Children of this process that are zombies (state Z in /proc/PID/stat).
int zombie_children() {
  int zombies = 0;
  const auto me = std::to_string(::getpid());
  for (const auto& e : fs::directory_iterator("/proc")) {
    const auto name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    // pid (comm) state ppid ...: comm may hold blanks, so read after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    std::string state;
    std::string ppid;
    rest >> state >> ppid;
    if (ppid == me && state == "Z") ++zombies;
  }
  return zombies;
}

}  // namespace

TEST_CASE(
    "a gnubg killed with SIGKILL while it answers is replaced and every question is "
    "answered",
    "[bots][gnubg][pool]") {
  bg::bots::gnubg_pool_options o;
  o.program = gnubg_program();
  o.max_processes = 1;
  o.timeout = 120s;  // the end of the process is what is noticed here, not a time limit
  bg::bots::gnubg_pool pool(o);
  bg::bots::gnubg_player player(pool, gnubg_level::intermediate);
  tally t;
  ask_plays(player, t, 1);
  REQUIRE(bg::test::eventually([&] { return t.done() == 1; }));
  const auto victim = static_cast<pid_t>(pool.stats().processes.at(0).pid);
  // Stopped first, so that it is certainly in the middle of a question when it is killed.
  REQUIRE(::kill(victim, SIGSTOP) == 0);
  ask_plays(player, t, 20);
  REQUIRE(bg::test::eventually([&] { return busy_process(pool) == victim; }));
  REQUIRE(::kill(victim, SIGKILL) == 0);
  const bool all = bg::test::eventually([&] { return t.done() == 21; }, 60s);
  INFO(counters(pool));
  REQUIRE(all);
  INFO(t.errors.size() << " failed, the first: " << (t.errors.empty() ? "" : t.errors[0]));
  CHECK(t.answered == 21);
  const auto st = pool.stats();
  CHECK(st.ended >= 1);
  CHECK(st.started == 2);
  CHECK(st.failed == 0);
  CHECK(bg::test::eventually([&] { return ::kill(victim, 0) != 0; }));  // reaped
  CHECK(bg::test::eventually([] { return zombie_children() == 0; }));
}

TEST_CASE(
    "a gnubg stopped with SIGSTOP while it answers times out, is killed and reaped, and "
    "every question is answered",
    "[bots][gnubg][pool]") {
  bg::bots::gnubg_pool_options o;
  o.program = gnubg_program();
  o.max_processes = 1;
  o.timeout = 1s;  // a stopped process is found out after a second
  bg::bots::gnubg_pool pool(o);
  bg::bots::gnubg_player player(pool, gnubg_level::intermediate);
  tally t;
  ask_plays(player, t, 1);
  REQUIRE(bg::test::eventually([&] { return t.done() == 1; }));
  const auto stopped = static_cast<pid_t>(pool.stats().processes.at(0).pid);
  REQUIRE(::kill(stopped, SIGSTOP) == 0);
  ask_plays(player, t, 20);
  const bool all = bg::test::eventually([&] { return t.done() == 21; }, 60s);
  INFO(counters(pool));
  REQUIRE(all);
  INFO(t.errors.size() << " failed, the first: " << (t.errors.empty() ? "" : t.errors[0]));
  CHECK(t.answered == 21);
  const auto st = pool.stats();
  CHECK(st.failed == 0);
  CHECK(st.timeouts >= 1);
  CHECK(st.started == 2);
  CHECK(bg::test::eventually([&] { return ::kill(stopped, 0) != 0; }));  // killed and reaped
  CHECK(bg::test::eventually([] { return zombie_children() == 0; }));
}

TEST_CASE(
    "a flood of 400 questions of mixed levels on two processes is answered, and no "
    "zombie is left",
    "[bots][gnubg][pool]") {
  bg::bots::gnubg_pool_options o;
  o.program = gnubg_program();
  o.max_processes = 2;
  o.timeout = 15s;
  o.max_waiting = 400;
  o.max_starts = 0;  // the level changes are the point here, not the start limit
  bg::bots::gnubg_pool pool(o);
  bg::bots::gnubg_player beginner(pool, gnubg_level::beginner);
  bg::bots::gnubg_player intermediate(pool, gnubg_level::intermediate);
  bg::bots::gnubg_player advanced(pool, gnubg_level::advanced);
  bg::bots::gnubg_player* players[] = {&beginner, &intermediate, &advanced};
  tally t;
  // Runs of a few questions of one level, then another: processes are replaced often.
  for (int i = 0; i < 400; ++i)
    players[(i / 5) % 3]->decide(opening_play(1 + i % 6, 1 + (i / 6) % 6), t.handler());
  REQUIRE(bg::test::eventually([&] { return t.done() == 400; }, 120s));
  INFO(t.errors.size() << " failed, the first: " << (t.errors.empty() ? "" : t.errors[0]));
  CHECK(t.answered == 400);
  const auto st = pool.stats();
  CHECK(st.answers == 400);
  CHECK(st.failed == 0);
  CHECK(st.started >= 3);  // levels changed: processes were replaced
  CHECK(bg::test::eventually([] { return zombie_children() == 0; }));
  pool.stop();
  CHECK(zombie_children() == 0);
}

TEST_CASE(
    "gnubg starts are limited per window: questions that need a new process wait, then "
    "are answered",
    "[bots][gnubg][pool]") {
  bg::bots::gnubg_pool_options o;
  o.program = gnubg_program();
  o.max_processes = 1;
  o.max_starts = 2;
  o.start_window = 1500ms;
  bg::bots::gnubg_pool pool(o);
  bg::bots::gnubg_player beginner(pool, gnubg_level::beginner);
  bg::bots::gnubg_player intermediate(pool, gnubg_level::intermediate);
  tally t;
  const auto t0 = std::chrono::steady_clock::now();
  // One process, levels taking turns: each question needs a start of its own.
  for (int i = 0; i < 6; ++i)
    (i % 2 == 0 ? beginner : intermediate).decide(opening_play(3, 1), t.handler());
  REQUIRE(bg::test::eventually([&] { return t.done() == 6; }, 60s));
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  INFO(t.errors.size() << " failed, the first: " << (t.errors.empty() ? "" : t.errors[0]));
  CHECK(t.answered == 6);
  const auto st = pool.stats();
  CHECK(st.started == 6);
  CHECK(st.start_delays >= 1);
  CHECK(st.failed == 0);
  // Six starts, two per window: the fifth cannot come before two windows have passed.
  CHECK(elapsed >= 2 * o.start_window);
}
