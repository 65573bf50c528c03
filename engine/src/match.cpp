#include "bg/engine/match.hpp"
#include "turn_errors.hpp"

namespace bg::engine {

std::string_view to_string(match_phase p) noexcept {
  switch (p) {
    case match_phase::opening:
      return "opening";
    case match_phase::roll:
      return "roll";
    case match_phase::move:
      return "move";
    case match_phase::cube_offered:
      return "cube_offered";
    case match_phase::resign_offered:
      return "resign_offered";
    case match_phase::game_over:
      return "game_over";
    case match_phase::match_over:
      return "match_over";
  }
  return "opening";
}

using detail::not_your_turn;
using detail::wrong_phase;

match::match(match_options options) : options_(options), game_(options.game_variant) {}

result<match_options> match::check(match_options options) {
  if (options.kind == match_kind::points) {
    if (options.length < 1 || options.length > 64)
      return make_error("bad_option", "a match is 1 to 64 points long", "engine.match_length");
  } else if (options.length != 0) {
    return make_error("bad_option", "only a points match has a length",
                      "engine.length_only_points");
  }
  return options;
}

void match::sync_phase_from_game() {
  switch (game_.phase()) {
    case game_phase::opening:
      phase_ = match_phase::opening;
      break;
    case game_phase::roll:
      phase_ = match_phase::roll;
      break;
    case game_phase::move:
      phase_ = match_phase::move;
      break;
    case game_phase::over:
      break;  // end_game() decides
  }
}

result<opening_roll> match::roll_opening(dice_source& dice) {
  if (phase_ != match_phase::opening)
    return wrong_phase("roll the opening dice", "engine.cannot_roll_opening");
  auto r = game_.roll_opening(dice);
  if (r) sync_phase_from_game();
  return r;
}

result<roll_outcome> match::roll_dice(side s, dice_source& dice) {
  if (phase_ == match_phase::opening)
    return wrong_phase("roll: the opening roll comes first", "engine.cannot_roll_before_opening");
  if (phase_ != match_phase::roll) return wrong_phase("roll", "engine.cannot_roll");
  auto r = game_.roll_dice(s, dice);
  if (r) sync_phase_from_game();
  return r;
}

result<play_outcome> match::make_play(side s, std::string_view notation) {
  if (phase_ != match_phase::move) return wrong_phase("move", "engine.cannot_move");
  auto r = game_.make_play(s, notation);
  if (!r) return r;
  if (r->game_over) {
    const auto& res = *game_.result_of_game();
    end_game(res.winner, res.kind, res.reason);
  } else {
    sync_phase_from_game();
  }
  return r;
}

result<play_outcome> match::make_play(side s, std::size_t index) {
  if (phase_ != match_phase::move) return wrong_phase("move", "engine.cannot_move");
  auto r = game_.make_play(s, index);
  if (!r) return r;
  if (r->game_over) {
    const auto& res = *game_.result_of_game();
    end_game(res.winner, res.kind, res.reason);
  } else {
    sync_phase_from_game();
  }
  return r;
}

bool match::may_double(side s) const noexcept {
  return uses_cube() && phase_ == match_phase::roll && game_.turn() == s && !crawford_game_ &&
         cube_.may_offer(s);
}

result<int> match::offer_double(side s) {
  if (!uses_cube())
    return make_error("no_cube", "the cube is used only with /option match (R12)",
                      "engine.no_cube");
  if (phase_ != match_phase::roll)
    return wrong_phase("double: only before you roll", "engine.cannot_double_now");
  if (game_.turn() != s) return not_your_turn();
  if (crawford_game_)
    return make_error("crawford", "nobody may double in the Crawford game (R15)",
                      "engine.crawford");
  if (cube_.value >= max_cube_value)
    return make_error("cube_max", "the cube is already at 64, its highest value",
                      "engine.cube_max");
  if (cube_.owner && *cube_.owner != s)
    return make_error("not_cube_owner", "your opponent owns the cube: only they may double",
                      "engine.not_cube_owner");
  cube_.offered_by = s;
  phase_ = match_phase::cube_offered;
  return cube_.value * 2;
}

result<int> match::take(side s) {
  if (phase_ != match_phase::cube_offered)
    return make_error("no_offer", "no double is offered", "engine.no_double_offered");
  if (*cube_.offered_by == s) return not_your_turn();
  cube_.value *= 2;
  cube_.owner = s;
  cube_.offered_by.reset();
  phase_ = match_phase::roll;
  return cube_.value;
}

result<game_end> match::drop(side s) {
  if (phase_ != match_phase::cube_offered)
    return make_error("no_offer", "no double is offered", "engine.no_double_offered");
  if (*cube_.offered_by == s) return not_your_turn();
  const side doubler = *cube_.offered_by;
  cube_.offered_by.reset();
  return end_game(doubler, win_kind::single, end_reason::dropped);
}

result<resignation> match::offer_resignation(side s, win_kind kind) {
  if (phase_ != match_phase::roll && phase_ != match_phase::move)
    return wrong_phase("resign: only during play", "engine.cannot_resign_now");
  if (options_.game_variant == variant::long_nardy && kind == win_kind::backgammon)
    return make_error("no_backgammon",
                      "a long game is worth at most mars (L7): /resign single (oyn) or "
                      "/resign gammon (mars)",
                      "engine.no_backgammon_long");
  resignation_ = resignation{s, kind, phase_};
  phase_ = match_phase::resign_offered;
  return *resignation_;
}

result<game_end> match::accept_resignation(side s) {
  if (phase_ != match_phase::resign_offered)
    return make_error("no_offer", "no resignation is offered", "engine.no_resignation_offered");
  if (resignation_->by == s) return not_your_turn();
  const resignation r = *resignation_;
  resignation_.reset();
  return end_game(opponent_of(r.by), r.kind, end_reason::resigned);
}

result<resignation> match::reject_resignation(side s) {
  if (phase_ != match_phase::resign_offered)
    return make_error("no_offer", "no resignation is offered", "engine.no_resignation_offered");
  if (resignation_->by == s) return not_your_turn();
  const resignation r = *resignation_;
  resignation_.reset();
  phase_ = r.resume_phase;
  return r;
}

result<bool> match::continue_session(side s) {
  if (phase_ != match_phase::game_over) return wrong_phase("continue", "engine.cannot_continue");
  continuing_[static_cast<std::size_t>(index_of(s))] = true;
  if (continuing_[0] && continuing_[1]) {
    start_next_game();
    return true;
  }
  return false;
}

result<bool> match::stop_session(side /*s*/) {
  if (phase_ != match_phase::game_over) return wrong_phase("stop", "engine.cannot_stop");
  phase_ = match_phase::match_over;
  return true;
}

result<game_end> match::forfeit(side loser, end_reason reason) {
  if (phase_ == match_phase::game_over || phase_ == match_phase::match_over)
    return wrong_phase("forfeit", "engine.cannot_forfeit");
  resignation_.reset();
  cube_.offered_by.reset();
  // S3: the most the position could still be lost by. A loser who has borne off a
  // checker can lose only a single game (oyn); otherwise a backgammon (standard) or
  // mars (long, L7: there is no backgammon in long play).
  const board_view b = game_.board();
  const bool borne_off = b.off[static_cast<std::size_t>(index_of(loser))] > 0;
  win_kind kind = win_kind::single;
  if (!borne_off)
    kind = options_.game_variant == variant::long_nardy ? win_kind::gammon : win_kind::backgammon;
  // S3: a forfeit ends a match (awarded to the opponent) and a basis session:
  // end_game() sees the reason.
  return end_game(opponent_of(loser), kind,
                  reason == end_reason::time ? end_reason::time : end_reason::forfeit);
}

result<game_end> match::end_game(side winner, win_kind kind, end_reason reason) {
  const side loser = opponent_of(winner);
  game_result res{winner, kind, reason, 0};
  if (options_.kind == match_kind::free_play) {
    res.points = game_.pip_count(loser);  // R12
  } else {
    res.points = cube_.value * multiplier(kind);  // R13, R14.2
  }
  if (game_.phase() != game_phase::over) game_.finish(winner, kind, reason);
  score_[static_cast<std::size_t>(index_of(winner))] += res.points;
  results_.push_back(res);
  game_end out{res, score_, false, false};
  if (crawford_game_) crawford_done_ = true;
  switch (options_.kind) {
    case match_kind::free_play:
      phase_ = match_phase::match_over;
      out.match_over = true;
      break;
    case match_kind::basis:
      if (is_forfeit(reason)) {  // S2, S3: the session ends
        phase_ = match_phase::match_over;
        out.match_over = true;
        break;
      }
      phase_ = match_phase::game_over;
      continuing_ = {false, false};
      break;
    case match_kind::points: {
      const int n = options_.length;
      if (score_[0] >= n || score_[1] >= n || is_forfeit(reason)) {  // S2, S3
        phase_ = match_phase::match_over;
        out.match_over = true;
        break;
      }
      // R15: the game right after a player first reaches n - 1 is the Crawford game.
      const bool someone_at_n_minus_1 = score_[0] == n - 1 || score_[1] == n - 1;
      out.crawford_next = !crawford_done_ && !crawford_game_ && someone_at_n_minus_1;
      const bool next_crawford = out.crawford_next;
      start_next_game();
      crawford_game_ = next_crawford;
      break;
    }
  }
  return out;
}

void match::start_next_game() {
  game_ = game(options_.game_variant);
  ++game_number_;
  cube_ = cube{};
  crawford_game_ = false;
  resignation_.reset();
  continuing_ = {false, false};
  phase_ = match_phase::opening;
}

std::optional<side> match::to_act() const noexcept {
  switch (phase_) {
    case match_phase::roll:
    case match_phase::move:
      return game_.turn();
    case match_phase::cube_offered:
      return opponent_of(*cube_.offered_by);
    case match_phase::resign_offered:
      return opponent_of(resignation_->by);
    default:
      return std::nullopt;
  }
}

std::optional<side> match::match_winner() const noexcept {
  if (phase_ != match_phase::match_over) return std::nullopt;
  // S3: a match that ended by a forfeit (or on time, S2) is awarded to the opponent.
  if (options_.kind == match_kind::points && !results_.empty() &&
      is_forfeit(results_.back().reason))
    return results_.back().winner;
  if (score_[0] == score_[1]) return std::nullopt;
  return score_[0] > score_[1] ? side::red : side::black;
}

std::string match::id() const {
  match_id_fields f;
  f.cube = cube_.value;
  f.cube_owner = cube_.owner ? index_of(*cube_.owner) : -1;
  f.player_on_roll = index_of(game_.turn());
  f.crawford = crawford_game_;
  f.game_state = 1;
  if (phase_ == match_phase::game_over || phase_ == match_phase::match_over) {
    f.game_state = 2;
    if (!results_.empty()) {
      if (results_.back().reason == end_reason::resigned) f.game_state = 3;
      if (results_.back().reason == end_reason::dropped) f.game_state = 4;
    }
  }
  f.turn = to_act() ? index_of(*to_act()) : index_of(game_.turn());
  f.double_offered = phase_ == match_phase::cube_offered;
  if (resignation_) f.resign = multiplier(resignation_->kind);
  if (phase_ == match_phase::move) f.dice = {game_.dice().die1, game_.dice().die2};
  f.match_length = options_.kind == match_kind::points ? options_.length : 0;
  f.score = score_;
  return match_id(f);
}

match match::restore(match_options options, match_phase phase, game g, cube c,
                     std::array<int, 2> score, int game_number, bool crawford_game,
                     bool crawford_done, std::optional<resignation> pending,
                     std::array<bool, 2> continuing, std::vector<game_result> results) {
  match m(options);
  m.phase_ = phase;
  m.game_ = std::move(g);
  m.cube_ = c;
  m.score_ = score;
  m.game_number_ = game_number;
  m.crawford_game_ = crawford_game;
  m.crawford_done_ = crawford_done;
  m.resignation_ = pending;
  m.continuing_ = continuing;
  m.results_ = std::move(results);
  return m;
}

}  // namespace bg::engine
