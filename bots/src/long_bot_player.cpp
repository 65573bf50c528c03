#include "bg/bots/long_bot_player.hpp"

#include <memory>
#include <utility>

#include "bg/protocol/codec.hpp"

namespace bg::bots {

long_player_options long_bot_options(gnubg_level level, std::uint64_t seed) {
  switch (level) {
    case gnubg_level::beginner:
      return {seed, 1, 0.060};
    case gnubg_level::intermediate:
      return {seed, 1, 0.040};
    case gnubg_level::advanced:
      return {seed, 1, 0.015};
    case gnubg_level::expert:
      return {seed, 1, 0.0};
    case gnubg_level::worldclass:
      return {seed, 2, 0.0};
  }
  return {seed, 1, 0.0};
}

std::string long_bot_name(gnubg_level level) {
  return "nardy-" + std::string(to_string(level));
}

long_bot_player::long_bot_player(long_bot_pool& pool, gnubg_level level)
    : pool_(pool), level_(level), player_(long_bot_options(level)) {}

std::string long_bot_player::name() const {
  return long_bot_name(level_);
}

void long_bot_player::decide(const situation& s, answer_handler done) {
  if (s.game_variant != engine::variant::long_nardy) {
    done(engine::make_error("bot_failed", "the long nardy computer player plays long nardy only",
                            "table.bot_long_only"));
    return;
  }
  // The job owns `done` until it runs; a refused post leaves it here to answer with.
  auto shared_done = std::make_shared<answer_handler>(std::move(done));
  const bool queued = pool_.post([player = player_, s, shared_done] {
    auto m = match_of(s);
    if (!m) {
      (*shared_done)(protocol::said_error("bot_failed", "table.bot_bad_position",
                                          {{"reason", protocol::said_of(m.err())}}));
      return;
    }
    auto command = player.next_command(*m, s.bot);
    if (!command) {
      (*shared_done)(engine::make_error("bot_failed", "the computer player has nothing to do there",
                                        "table.bot_nothing_to_do"));
      return;
    }
    (*shared_done)(std::move(*command));
  });
  if (!queued)
    // "bot_busy", as the gnubg pool's full queue: the table waits and asks again (issue
    // 25), where "bot_failed" would make the bot resign.
    (*shared_done)(engine::make_error(
        "bot_busy", "too many questions are waiting for the long nardy computer player",
        "table.bot_long_busy"));
}

}  // namespace bg::bots
