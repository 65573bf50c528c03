#include "bg/bots/situation.hpp"

#include <array>
#include <optional>
#include <utility>

namespace bg::bots {

std::string_view to_string(question q) noexcept {
  switch (q) {
    case question::play:
      return "play";
    case question::double_or_roll:
      return "double_or_roll";
    case question::take_or_drop:
      return "take_or_drop";
    case question::accept_or_reject:
      return "accept_or_reject";
  }
  return "play";
}

std::optional<situation> situation_of(const engine::match& m, engine::side bot) {
  using engine::match_phase;
  if (m.to_act() != bot) return std::nullopt;
  const auto& g = m.current_game();
  situation s;
  switch (m.phase()) {
    case match_phase::roll:
      s.asked = question::double_or_roll;
      break;
    case match_phase::move:
      s.asked = question::play;
      s.dice = g.dice();
      s.legal = g.legal_notations();
      break;
    case match_phase::cube_offered:
      s.asked = question::take_or_drop;
      break;
    case match_phase::resign_offered:
      s.asked = question::accept_or_reject;
      s.resign_kind = m.pending_resignation()->kind;
      break;
    default:
      return std::nullopt;
  }
  const auto& options = m.options();
  s.game_variant = options.game_variant;
  s.bot = bot;
  s.on_roll = g.turn();
  s.position = g.turn() == bot ? g.current() : g.current().swapped();
  s.cube = m.doubling_cube();
  s.kind = options.kind;
  s.match_length = options.kind == engine::match_kind::points ? options.length : 0;
  s.bot_score = m.score()[static_cast<std::size_t>(engine::index_of(bot))];
  s.opponent_score =
      m.score()[static_cast<std::size_t>(engine::index_of(engine::opponent_of(bot)))];
  s.crawford = m.is_crawford_game();
  s.post_crawford = m.crawford_done() && !m.is_crawford_game();
  return s;
}

engine::result<engine::match> match_of(const situation& s) {
  using engine::match_phase;
  engine::match_options options;
  options.game_variant = s.game_variant;
  options.kind = s.kind;
  options.length = s.kind == engine::match_kind::points ? s.match_length : 0;
  if (const auto checked = engine::match::check(options); !checked) {
    auto e = checked.err();  // the engine's sentence (and its catalogue key), code bad_state
    e.code = "bad_state";
    return e;
  }

  match_phase phase = match_phase::roll;
  switch (s.asked) {
    case question::play:
      phase = match_phase::move;
      break;
    case question::double_or_roll:
      phase = match_phase::roll;
      break;
    case question::take_or_drop:
      phase = match_phase::cube_offered;
      break;
    case question::accept_or_reject:
      phase = match_phase::resign_offered;
      break;
  }
  const engine::position seen_by_turn = s.on_roll == s.bot ? s.position : s.position.swapped();
  auto game = engine::game::restore(
      s.game_variant,
      phase == match_phase::move ? engine::game_phase::move : engine::game_phase::roll, s.on_roll,
      phase == match_phase::move ? s.dice : engine::roll{}, seen_by_turn, 0, std::nullopt);
  if (!game) return game.err();

  std::array<int, 2> score{};
  score[static_cast<std::size_t>(engine::index_of(s.bot))] = s.bot_score;
  score[static_cast<std::size_t>(engine::index_of(engine::opponent_of(s.bot)))] = s.opponent_score;
  std::optional<engine::resignation> pending;
  if (phase == match_phase::resign_offered)
    pending = engine::resignation{engine::opponent_of(s.bot), s.resign_kind, match_phase::roll};
  engine::cube cube = s.cube;
  if (phase == match_phase::cube_offered && !cube.offered_by)
    cube.offered_by = engine::opponent_of(s.bot);
  return engine::match::restore(options, phase, std::move(*game), cube, score, 1, s.crawford,
                                s.post_crawford, pending, {}, {});
}

}  // namespace bg::bots
