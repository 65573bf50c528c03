#include "bg/server/api/match_replay.hpp"

#include <optional>
#include <string>
#include <string_view>

#include "bg/engine/board.hpp"
#include "bg/engine/cube.hpp"
#include "bg/engine/game.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/position_id.hpp"
#include "bg/server/api/analysis_view.hpp"
#include "bg/server/records/record_json.hpp"

namespace bg::server {

using nlohmann::json;

namespace {

using action_kind = record_action::kind;

/// The step's `what` for a recorded action: the protocol's command words.
std::string_view step_name(action_kind k) noexcept {
  switch (k) {
    case action_kind::play:
      return "play";
    case action_kind::pass:
      return "pass";
    case action_kind::double_offer:
      return "double";
    case action_kind::take:
      return "take";
    case action_kind::drop:
      return "drop";
    case action_kind::resign_offer:
      return "resign_offer";
    case action_kind::resign_accept:
      return "resign_accept";
    case action_kind::resign_reject:
      return "resign_reject";
    case action_kind::forfeit:
      return "forfeit";
  }
  return "play";
}

/// "3-1".
std::string roll_text(engine::roll r) {
  return std::to_string(r.die1) + "-" + std::to_string(r.die2);
}

/// `[d1, d2]`, or [] for no roll ({0, 0}).
json dice_json(engine::roll r) {
  return r == engine::roll{} ? json::array() : json::array({r.die1, r.die2});
}

/// The cube as a step gives it: value and owner, and `offered_by` while a double waits.
json cube_json(const engine::cube& c, int offered_value) {
  json j{{"value", c.offered_by ? offered_value : c.value},
         {"owner", c.owner ? std::string(engine::to_string(*c.owner)) : std::string("center")}};
  if (c.offered_by) j["offered_by"] = engine::to_string(*c.offered_by);
  return j;
}

/// One game made again through the engine, step by step, into `out` (a game of the
/// answer); `left` is the number of steps still allowed and goes down with each.
/// run() returns false when a step was not made because `left` was 0.
class game_replay {
 public:
  game_replay(const game_record& rec, const engine::match_options& options, json& out,
              std::size_t& left)
      : rec_(rec), options_(options), out_(out), left_(left), game_(options.game_variant) {}

  bool run() {
    if (left_ == 0) return false;
    // R2, L8: the first player plays the opening roll; {0, 0}: the game ended before it.
    std::optional<std::string> refused;
    if (rec_.opening != engine::roll{}) {
      auto restored = engine::game::restore(
          options_.game_variant, engine::game_phase::move, rec_.first, rec_.opening,
          engine::position::starting(options_.game_variant), 0, std::nullopt);
      if (restored)
        game_ = std::move(*restored);
      else
        refused = "the opening roll " + roll_text(rec_.opening) +
                  " is refused: " + restored.err().message;
    }
    add({{"what", "start"},
         {"who", engine::to_string(rec_.first)},
         {"dice", dice_json(rec_.opening)}});
    if (refused) {
      out_["problem"] = *refused;
      return true;
    }
    for (std::size_t i = 0; i < rec_.actions.size(); ++i) {
      if (left_ == 0) return false;
      const auto& a = rec_.actions[i];
      json step{{"what", step_name(a.what)}, {"who", engine::to_string(a.who)}};
      if (options_.game_variant == engine::variant::standard)
        step["position_id"] = engine::position_id(game_.current());
      if (const auto why = apply(a, step)) {
        out_["problem"] = "action " + std::to_string(i + 1) + " of game " +
                          std::to_string(rec_.number) + " (" +
                          std::string(engine::to_string(a.who)) + "'s " +
                          std::string(step_name(a.what)) + ") cannot be made: " + *why;
        return true;
      }
      add(std::move(step));
    }
    return true;
  }

 private:
  /// Appends `step` with the board, pips and cube as they are now, and counts it (the
  /// caller has checked that one is left).
  void add(json step) {
    --left_;
    const auto b = game_.board();
    step["board"] = {{"points", b.points},
                     {"bar", {{"red", b.bar[0]}, {"black", b.bar[1]}}},
                     {"off", {{"red", b.off[0]}, {"black", b.off[1]}}}};
    step["pips"] = {{"red", b.pips[0]}, {"black", b.pips[1]}};
    if (!step.contains("cube")) step["cube"] = cube_json(cube_, offered_value_);
    out_["steps"].push_back(std::move(step));
  }

  /// Makes `a` and completes its `step`; the reason it is refused (a sentence), if it is.
  std::optional<std::string> apply(const record_action& a, json& step) {
    const std::string who(engine::to_string(a.who));
    if (over_) return "the game was already over";
    switch (a.what) {
      case action_kind::play:
      case action_kind::pass:
        return roll_and_play(a, step);
      case action_kind::double_offer: {
        if (options_.kind == engine::match_kind::free_play)
          return std::string("free play has no cube (R12)");
        if (rec_.crawford) return std::string("nobody may double in the Crawford game (R15)");
        if (auto busy = waiting()) return busy;
        if (game_.phase() != engine::game_phase::roll || game_.turn() != a.who)
          return who + " may double only on turn before rolling (R14.1)";
        if (cube_.owner && *cube_.owner != a.who)
          return "the other side owns the cube (R14.1, R14.3)";
        if (cube_.value >= engine::max_cube_value)
          return std::string("the cube is already at 64, its highest value (R14.4)");
        if (a.cube_value != 0 && a.cube_value != cube_.value * 2)
          return "a double to " + std::to_string(a.cube_value) + " with the cube at " +
                 std::to_string(cube_.value);
        cube_.offered_by = a.who;
        offered_value_ = cube_.value * 2;
        step["cube"] = cube_json(cube_, offered_value_);
        return std::nullopt;
      }
      case action_kind::take:
      case action_kind::drop:
        if (!cube_.offered_by || *cube_.offered_by == a.who)
          return "no double waits for " + who + "'s answer (R14.2)";
        cube_.offered_by.reset();
        if (a.what == action_kind::take) {
          cube_.value = offered_value_;
          cube_.owner = a.who;
        } else {
          over_ = true;
        }
        return std::nullopt;
      case action_kind::resign_offer:
        if (auto busy = waiting()) return busy;
        if (game_.phase() != engine::game_phase::roll && game_.phase() != engine::game_phase::move)
          return std::string("a resignation is offered only during play (R18)");
        if (options_.game_variant == engine::variant::long_nardy &&
            a.resign == engine::win_kind::backgammon)
          return std::string("a long game is worth at most mars (L7)");
        resigner_ = a.who;
        step["resign"] = engine::to_string(a.resign);
        return std::nullopt;
      case action_kind::resign_accept:
      case action_kind::resign_reject:
        if (!resigner_ || *resigner_ == a.who)
          return "no resignation waits for " + who + "'s answer (R18)";
        resigner_.reset();
        over_ = a.what == action_kind::resign_accept;
        return std::nullopt;
      case action_kind::forfeit:
        cube_.offered_by.reset();
        resigner_.reset();
        over_ = true;
        return std::nullopt;
    }
    return std::string("an unknown action");
  }

  /// Why play cannot go on now: a double or a resignation waits for its answer.
  [[nodiscard]] std::optional<std::string> waiting() const {
    if (cube_.offered_by)
      return std::string(engine::to_string(*cube_.offered_by)) +
             "'s double waits for an answer (R14.2)";
    if (resigner_)
      return std::string(engine::to_string(*resigner_)) +
             "'s resignation waits for an answer (R18)";
    return std::nullopt;
  }

  /// A play or a pass: rolls the recorded dice when the game waits for a roll (R3), then
  /// makes the play (R6) or checks that the roll had none (R6.4).
  std::optional<std::string> roll_and_play(const record_action& a, json& step) {
    if (auto busy = waiting()) return busy;
    if (!a.dice.valid()) return "the recorded dice " + roll_text(a.dice) + " are not a roll";
    step["dice"] = dice_json(a.dice);
    if (a.what == action_kind::play) step["play"] = a.play;
    if (game_.phase() == engine::game_phase::roll) {
      engine::scripted_dice dice({a.dice.die1, a.dice.die2});
      const auto rolled = game_.roll_dice(a.who, dice);
      if (!rolled) return "the roll " + roll_text(a.dice) + " is refused: " + rolled.err().message;
      if (a.what == action_kind::pass) {
        if (rolled->passed) return std::nullopt;
        return roll_text(a.dice) + " has a legal play, so it is no pass (R6.4)";
      }
      if (rolled->passed) return "there is no legal play with " + roll_text(a.dice) + " (R6.4)";
    } else if (game_.phase() == engine::game_phase::move) {
      // The opening play: its dice are the opening roll's.
      if (a.what == action_kind::pass)
        return "the opening roll " + roll_text(game_.dice()) + " has a legal play (R6.4)";
      if (game_.dice().high() != a.dice.high() || game_.dice().low() != a.dice.low())
        return "the dice to play are " + roll_text(game_.dice()) + ", not " + roll_text(a.dice);
    }
    const auto played = game_.make_play(a.who, a.play);
    if (!played) return "the play " + a.play + " is refused: " + played.err().message;
    over_ = played->game_over;
    return std::nullopt;
  }

  const game_record& rec_;
  const engine::match_options& options_;
  json& out_;
  std::size_t& left_;
  engine::game game_;
  engine::cube cube_;
  int offered_value_ = 0;  ///< the value a waiting double offers
  std::optional<engine::side> resigner_;
  bool over_ = false;
};

}  // namespace

json replay_json(std::int64_t id, const match_record& m, std::size_t max_steps) {
  json games = json::array();
  std::size_t left = max_steps;
  bool truncated = false;
  for (const auto& rec : m.games) {
    json g{{"number", rec.number},
           {"score_before", {{"red", rec.score_before[0]}, {"black", rec.score_before[1]}}},
           {"crawford", rec.crawford},
           {"first", engine::to_string(rec.first)},
           {"result", rec.result ? json(*rec.result) : json(nullptr)},
           {"steps", json::array()}};
    truncated = !game_replay(rec, m.options, g, left).run();
    if (!g["steps"].empty() || !truncated) games.push_back(std::move(g));
    if (truncated) break;
  }
  return json{{"match_id", id},
              {"match", match_summary_json(m)},
              {"games", std::move(games)},
              {"truncated", truncated}};
}

}  // namespace bg::server
