#include "bg/server/table/bot_turn.hpp"

#include "bg/server/table/table.hpp"

namespace bg::server {

std::optional<bot_turn> next_bot_turn(const table& t) {
  const auto& m = t.current_match();
  if (!m) return std::nullopt;
  using engine::match_phase;
  const auto phase = m->phase();
  if (phase == match_phase::match_over) return std::nullopt;

  // The seat of the bot that acts: the one the match waits for, or (opening, between
  // basis games) any bot that has something to say.
  std::optional<engine::side> who;
  if (const auto s = m->to_act(); s && t.bot_level(*s)) who = s;
  if (phase == match_phase::opening || phase == match_phase::game_over) {
    for (const auto s : {engine::side::red, engine::side::black}) {
      if (!t.bot_level(s)) continue;
      if (phase == match_phase::game_over &&
          m->continuing()[static_cast<std::size_t>(engine::index_of(s))])
        continue;
      who = s;
      break;
    }
  }
  if (!who) return std::nullopt;

  bot_turn turn;
  turn.side = *who;
  turn.name = t.seats()[static_cast<std::size_t>(engine::index_of(*who))]->name;
  turn.level = *t.bot_level(*who);
  if (phase == match_phase::opening) {
    turn.now = protocol::command_of(protocol::command_kind::roll);
    return turn;
  }
  if (phase == match_phase::game_over) {
    turn.now = protocol::command_of(protocol::command_kind::continue_session);
    return turn;
  }
  if (phase == match_phase::roll && !m->may_double(*who)) {
    turn.now = protocol::command_of(protocol::command_kind::roll);
    return turn;
  }
  auto s = bots::situation_of(*m, *who);
  if (!s) return std::nullopt;
  turn.ask = std::move(*s);
  return turn;
}

}  // namespace bg::server
