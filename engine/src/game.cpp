#include "bg/engine/game.hpp"

#include "bg/engine/notation.hpp"
#include "turn_errors.hpp"

namespace bg::engine {

game::game(variant v) : variant_(v), position_(position::starting(v)) {}

using detail::not_your_turn;
using detail::wrong_phase;

position game::seen_by(side s) const noexcept {
  return s == turn_ ? position_ : position_.swapped();
}

int game::pip_count(side s) const noexcept {
  return s == turn_ ? position_.mover_pip_count() : position_.opponent_pip_count();
}

result<opening_roll> game::roll_opening(dice_source& dice) {
  if (phase_ != game_phase::opening)
    return wrong_phase("roll the opening dice", "engine.cannot_roll_opening");
  opening_roll o;
  for (;;) {
    const int red = dice.roll_die();
    const int black = dice.roll_die();
    if (red == black) {
      o.ties.push_back(roll{red, black});
      continue;
    }
    o.red_die = red;
    o.black_die = black;
    o.first = red > black ? side::red : side::black;
    break;
  }
  turn_ = o.first;
  // The position is symmetric at the start: the mover's view is the same for both.
  position_ = position::starting(variant_);
  start_turn_with(roll{o.red_die > o.black_die ? o.red_die : o.black_die,
                       o.red_die > o.black_die ? o.black_die : o.red_die});
  return o;
}

void game::start_turn_with(roll r) {
  dice_ = r;
  phase_ = game_phase::move;
  legal_plays(position_, r, variant_, legal_);
}

void game::pass_turn() {
  position_ = position_.swapped();
  turn_ = opponent_of(turn_);
  dice_ = roll{};
  legal_.clear();
  phase_ = game_phase::roll;
  ++turns_;
}

result<roll_outcome> game::roll_dice(side s, dice_source& dice) {
  if (phase_ != game_phase::roll) return wrong_phase("roll", "engine.cannot_roll");
  if (s != turn_) return not_your_turn();
  const roll r = dice.roll_dice();
  start_turn_with(r);
  roll_outcome out{s, r, false};
  if (legal_.empty()) {  // R6.4
    out.passed = true;
    pass_turn();
  }
  return out;
}

result<play_outcome> game::make_play(side s, std::string_view notation) {
  if (phase_ != game_phase::move) return wrong_phase("move", "engine.cannot_move");
  if (s != turn_) return not_your_turn();
  auto index = match_play(position_, dice_, variant_, legal_, notation);
  if (!index) return index.err();
  return apply(s, *index);
}

result<play_outcome> game::make_play(side s, std::size_t index) {
  if (phase_ != game_phase::move) return wrong_phase("move", "engine.cannot_move");
  if (s != turn_) return not_your_turn();
  if (index >= legal_.size())
    return make_error("illegal_play", "there is no such play", "engine.no_such_play");
  return apply(s, static_cast<int>(index));
}

result<play_outcome> game::apply(side s, int index) {
  const play chosen = legal_[static_cast<std::size_t>(index)];
  play_outcome out{s, dice_, chosen, format_play(position_, chosen, variant_), false};
  position_ = chosen.result;
  if (position_.mover(off_index) == checkers_per_side) {  // R11: all 15 off
    const win_kind kind = kind_if_won_now(s);
    result_ = game_result{s, kind, end_reason::borne_off, 0};
    phase_ = game_phase::over;
    dice_ = roll{};
    legal_.clear();
    ++turns_;
    out.game_over = true;
    return out;
  }
  pass_turn();
  return out;
}

win_kind game::kind_if_won_now(side winner) const noexcept {
  const position p = seen_by(winner);
  if (p.opponent(off_index) > 0) return win_kind::single;        // R11.1, L7 oyn
  if (variant_ == variant::long_nardy) return win_kind::gammon;  // L7 mars
  // R11.3: the loser still has a checker on the bar or in the winner's home board
  // (the winner's points 1..6 are the loser's 19..24).
  if (p.opponent(bar_index) > 0) return win_kind::backgammon;
  for (int q = 19; q <= 24; ++q)
    if (p.opponent(q) > 0) return win_kind::backgammon;
  return win_kind::gammon;  // R11.2
}

void game::finish(side winner, win_kind kind, end_reason reason) {
  result_ = game_result{winner, kind, reason, 0};
  phase_ = game_phase::over;
  dice_ = roll{};
  legal_.clear();
}

std::vector<std::string> game::legal_notations() const {
  std::vector<std::string> out;
  out.reserve(legal_.size());
  for (const auto& p : legal_) out.push_back(format_play(position_, p, variant_));
  return out;
}

result<game> game::restore(variant v, game_phase phase, side turn, roll dice,
                           const position& seen_by_turn, int turns,
                           std::optional<game_result> result) {
  if (!seen_by_turn.is_ok(v))
    return make_error("bad_state", "the saved position is invalid",
                      "engine.saved_position_invalid");
  game g(v);
  g.phase_ = phase;
  g.turn_ = turn;
  g.position_ = seen_by_turn;
  g.turns_ = turns;
  g.result_ = result;
  if (phase == game_phase::move) {
    if (!dice.valid())
      return make_error("bad_state", "the saved dice are invalid", "engine.saved_dice_invalid");
    g.start_turn_with(dice);
  }
  if (phase == game_phase::over && !result)
    return make_error("bad_state", "no saved result", "engine.no_saved_result");
  return g;
}

}  // namespace bg::engine
