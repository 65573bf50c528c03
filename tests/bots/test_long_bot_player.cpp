// The long nardy computer player at a table (issue 14): long_bot_player behind the
// bots::player interface, thinking on long_bot_pool's thread; its levels; the names
// reserved for the computer players.

#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "bg/bots/bot_names.hpp"
#include "bg/bots/long_bot_player.hpp"
#include "bg/bots/long_bot_pool.hpp"
#include "bg/bots/situation.hpp"
#include "bg/engine/dice_source.hpp"
#include "bg/engine/match.hpp"
#include "position_builder.hpp"

using namespace bg::bots;
using namespace bg::engine;
using namespace std::chrono_literals;
using bg::test::nardy;

namespace {

/// A deadline for answers from the pool's thread: generous, for a loaded machine.
constexpr auto deadline = 30s;

/// Asks `p` about `s` and waits for the answer, which must come on another thread.
result<std::string> ask(player& p, const situation& s) {
  std::promise<std::pair<result<std::string>, std::thread::id>> answer;
  auto got = answer.get_future();
  p.decide(s, [&answer](result<std::string> a) {
    answer.set_value({std::move(a), std::this_thread::get_id()});
  });
  REQUIRE(got.wait_for(deadline) == std::future_status::ready);
  auto [a, thread] = got.get();
  CHECK(thread != std::this_thread::get_id());
  return a;
}

/// A long nardy match to `length` points in phase move: the opening roll thrown with
/// `seed`'s dice.
match opening_played(int length, std::uint64_t seed) {
  seeded_dice dice(seed);
  match m(match_options{nardy, match_kind::points, length});
  REQUIRE(m.roll_opening(dice).ok());
  REQUIRE(m.phase() == match_phase::move);
  return m;
}

}  // namespace

TEST_CASE(
    "the long bot answers a table's question on its pool's thread, as the "
    "long player of its level would",
    "[bots][long_bot]") {
  long_bot_pool pool({1, 16});
  const gnubg_level level =
      GENERATE(gnubg_level::beginner, gnubg_level::expert, gnubg_level::worldclass);
  long_bot_player bot(pool, level);
  CHECK(bot.name() == "nardy-" + std::string(to_string(level)));
  const long_player same(long_bot_options(level));
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const match m = opening_played(3, seed);
    const side s = *m.to_act();
    const auto asked = situation_of(m, s);
    REQUIRE(asked.has_value());
    const auto answer = ask(bot, *asked);
    REQUIRE(answer.ok());
    CHECK(*answer == *same.next_command(m, s));
    CHECK(answer->rfind("/move ", 0) == 0);
  }
  CHECK(pool.stats().asked == 5);
  CHECK(pool.stats().refused == 0);
}

TEST_CASE("the long bot refuses standard backgammon at once: bot_failed", "[bots][long_bot]") {
  long_bot_pool pool({1, 16});
  long_bot_player bot(pool, gnubg_level::expert);
  situation s;
  s.game_variant = variant::standard;
  std::optional<result<std::string>> answer;
  bot.decide(s, [&answer](result<std::string> a) { answer = std::move(a); });
  REQUIRE(answer.has_value());  // before decide() returned, on this thread
  REQUIRE_FALSE(answer->ok());
  CHECK(answer->err().code == "bot_failed");
  CHECK_THAT(answer->err().message, Catch::Contains("long nardy only"));
  CHECK(pool.stats().asked == 0);
}

TEST_CASE(
    "a full queue answers bot_busy (the table waits and asks again) and a stopped pool refuses",
    "[bots][long_bot]") {
  long_bot_pool pool({1, 1});
  long_bot_player bot(pool, gnubg_level::expert);
  // The one place is taken by a job that waits for the test.
  std::promise<void> release;
  std::promise<void> running;
  REQUIRE(pool.post([&release, &running] {
    running.set_value();
    release.get_future().wait();
  }));
  REQUIRE(running.get_future().wait_for(deadline) == std::future_status::ready);
  const match m = opening_played(1, 3);
  const auto s = *situation_of(m, *m.to_act());
  std::optional<result<std::string>> answer;
  bot.decide(s, [&answer](result<std::string> a) { answer = std::move(a); });
  REQUIRE(answer.has_value());
  REQUIRE_FALSE(answer->ok());
  CHECK(answer->err().code == "bot_busy");
  CHECK_THAT(answer->err().message, Catch::Contains("too many questions"));
  CHECK(pool.stats().refused == 1);
  release.set_value();
  // Once the place is free the same question is answered.
  const bool freed = [&pool] {
    const auto until = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < until) {
      if (pool.stats().waiting == 0) return true;
      std::this_thread::yield();
    }
    return false;
  }();
  REQUIRE(freed);
  CHECK(ask(bot, s).ok());
  pool.stop();
  CHECK_FALSE(pool.post([] {}));
  CHECK(pool.stats().refused == 2);
}

TEST_CASE("the long bot's levels: noise below expert, two plies at world class",
          "[bots][long_bot]") {
  CHECK(long_bot_options(gnubg_level::beginner).noise == Approx(0.060));
  CHECK(long_bot_options(gnubg_level::intermediate).noise == Approx(0.040));
  CHECK(long_bot_options(gnubg_level::advanced).noise == Approx(0.015));
  CHECK(long_bot_options(gnubg_level::expert).noise == 0.0);
  CHECK(long_bot_options(gnubg_level::expert).plies == 1);
  CHECK(long_bot_options(gnubg_level::worldclass).plies == 2);
  CHECK(long_bot_options(gnubg_level::worldclass).noise == 0.0);
  CHECK(long_bot_name(gnubg_level::intermediate) == "nardy-intermediate");
}

TEST_CASE("a noisy level errs, the same way each time, and loses to the expert",
          "[bots][long_bot]") {
  const long_player beginner(long_bot_options(gnubg_level::beginner));
  const long_player beginner_again(long_bot_options(gnubg_level::beginner));
  const long_player expert(long_bot_options(gnubg_level::expert));
  // 200 seeded games, the beginner red in half of them: every play of the beginner is
  // compared with the expert's choice in the same position.
  int differs = 0;
  int beginner_plays = 0;
  int beginner_wins = 0;
  for (int n = 0; n < 200; ++n) {
    seeded_dice dice(static_cast<std::uint64_t>(500 + n));
    const side weak = n % 2 == 0 ? side::red : side::black;
    match m(match_options{nardy, match_kind::free_play, 0});
    while (m.phase() != match_phase::match_over) {
      if (m.phase() == match_phase::opening) {
        REQUIRE(m.roll_opening(dice).ok());
        continue;
      }
      const side s = *m.to_act();
      if (m.phase() == match_phase::roll) {
        REQUIRE(m.roll_dice(s, dice).ok());
        continue;
      }
      const auto& g = m.current_game();
      const std::size_t pick = (s == weak ? beginner : expert).choose_play(g.current(), g.legal());
      if (s == weak) {
        ++beginner_plays;
        CHECK(beginner_again.choose_play(g.current(), g.legal()) == pick);
        differs += expert.choose_play(g.current(), g.legal()) != pick;
      }
      REQUIRE(m.make_play(s, pick).ok());
    }
    beginner_wins += m.results().back().winner == weak;
  }
  INFO(differs << " of " << beginner_plays << " plays differ; the beginner won " << beginner_wins
               << " of 200");
  CHECK(differs > beginner_plays / 20);
  CHECK(beginner_wins < 100);
}

TEST_CASE("the computer players' names are reserved, and only those", "[bots][names]") {
  const auto names = bot_names();
  REQUIRE(names.size() == 10);
  CHECK(names.front() == "gnubg-beginner");
  CHECK(names.back() == "nardy-worldclass");
  for (const auto& name : names) CHECK(is_bot_name(name));
  for (const char* name : {"gnubg", "GNUBG-Expert", "gnubg-anything", "nardy", "Nardy-Expert",
                           "NARDY-WORLDCLASS", "nardy-beginner"})
    CHECK(is_bot_name(name));
  for (const char* name : {"gnubgfan", "alice", "gnu", "nardy-fan", "nardy-expert2", "nardyexpert",
                           "nardy-", "xnardy-expert"})
    CHECK_FALSE(is_bot_name(name));
}
