#pragma once
/// @file record_builder.hpp
/// Test helpers for the server's store, table and process tests (tests/server): a recorder
/// that drives a real engine::match and writes every action into a match_record exactly as
/// a server table does, a random player that uses it to make whole matches from a seed, a
/// record comparison, and a scratch directory.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

#include "bg/engine/dice_source.hpp"
#include "bg/engine/match.hpp"
#include "bg/server/records/match_record.hpp"

namespace bg::test {

using engine::side;
using server::game_record;
using server::match_record;
using server::record_action;

/// Unwraps an engine result; an engine refusal is a bug in the test, so it throws.
template <typename T>
T ok(engine::result<T> r, const char* what) {
  if (!r) throw std::logic_error(std::string(what) + ": " + r.err().code + ": " + r.err().message);
  return std::move(r).value();
}

/// Drives an engine::match and records it. Every command is the engine's, recorded
/// as a table records it: `play` with the engine's notation, `pass` when the roll had no
/// legal play, cube and resignation actions with who did them, and each game's result.
class recorder {
 public:
  recorder(engine::match_options options, std::string red, std::string black)
      : match_(ok(engine::match::check(options), "options")) {
    record_.table = "test-table";
    record_.players = {std::move(red), std::move(black)};
    record_.options = options;
    record_.started_at = "2024-05-01T12:34:56Z";
    record_.games.push_back(game_record{1, {0, 0}, false, side::red, {}, {}, std::nullopt});
  }

  [[nodiscard]] const engine::match& match() const noexcept { return match_; }
  [[nodiscard]] const match_record& record() const noexcept { return record_; }

  /// R2: the opening roll; records who moves first.
  engine::opening_roll opening(engine::dice_source& dice) {
    auto o = ok(match_.roll_opening(dice), "opening");
    current().first = o.first;
    current().opening =
        engine::roll{std::max(o.red_die, o.black_die), std::min(o.red_die, o.black_die)};
    return o;
  }
  /// R3: `s` rolls; a roll with no legal play is recorded as a pass (R6.4).
  engine::roll_outcome roll(side s, engine::dice_source& dice) {
    auto r = ok(match_.roll_dice(s, dice), "roll");
    if (r.passed) add({record_action::kind::pass, s, r.dice, {}, 0, engine::win_kind::single});
    return r;
  }
  /// Plays legal()[index].
  engine::play_outcome play(side s, std::size_t index) {
    auto p = ok(match_.make_play(s, index), "play");
    add({record_action::kind::play, s, p.dice, p.notation, 0, engine::win_kind::single});
    if (p.game_over) game_over(match_.results().back());
    return p;
  }
  /// Plays the legal play written `notation` (gnubg notation, `s`'s own numbering).
  engine::play_outcome play(side s, std::string_view notation) {
    auto p = ok(match_.make_play(s, notation), "play");
    add({record_action::kind::play, s, p.dice, p.notation, 0, engine::win_kind::single});
    if (p.game_over) game_over(match_.results().back());
    return p;
  }
  void offer_double(side s) {
    const int value = ok(match_.offer_double(s), "double");
    add({record_action::kind::double_offer, s, {}, {}, value, engine::win_kind::single});
  }
  void take(side s) {
    const int value = ok(match_.take(s), "take");
    add({record_action::kind::take, s, {}, {}, value, engine::win_kind::single});
  }
  void drop(side s) {
    auto end = ok(match_.drop(s), "drop");
    add({record_action::kind::drop, s, {}, {}, 0, engine::win_kind::single});
    game_over(end.result);
  }
  void offer_resignation(side s, engine::win_kind k) {
    ok(match_.offer_resignation(s, k), "resign");
    add({record_action::kind::resign_offer, s, {}, {}, 0, k});
  }
  void accept_resignation(side s) {
    auto end = ok(match_.accept_resignation(s), "accept");
    add({record_action::kind::resign_accept, s, {}, {}, 0, engine::win_kind::single});
    game_over(end.result);
  }
  void reject_resignation(side s) {
    ok(match_.reject_resignation(s), "reject");
    add({record_action::kind::resign_reject, s, {}, {}, 0, engine::win_kind::single});
  }
  void forfeit(side loser) {
    auto end = ok(match_.forfeit(loser), "forfeit");
    add({record_action::kind::forfeit, loser, {}, {}, 0, engine::win_kind::single});
    game_over(end.result);
  }
  /// R16: both sides go on to the next game of a basis session.
  void continue_session() {
    ok(match_.continue_session(side::red), "continue");
    if (!ok(match_.continue_session(side::black), "continue"))
      throw std::logic_error("the session did not continue");
    start_game();
  }
  /// R16: the session stops.
  void stop_session(side s) {
    ok(match_.stop_session(s), "stop");
    record_.ended_at = "2024-05-01T13:00:00Z";
  }

 private:
  game_record& current() { return record_.games.back(); }
  void add(record_action a) { current().actions.push_back(std::move(a)); }

  void game_over(const engine::game_result& result) {
    current().result = result;
    record_.final_score = match_.score();
    if (match_.phase() == engine::match_phase::match_over) {
      record_.ended_at = "2024-05-01T13:00:00Z";
    } else if (match_.phase() == engine::match_phase::opening) {
      start_game();  // points match: the engine has started the next game
    }
  }
  void start_game() {
    record_.games.push_back(game_record{match_.game_number(),
                                        match_.score(),
                                        match_.is_crawford_game(),
                                        side::red,
                                        {},
                                        {},
                                        std::nullopt});
  }

  engine::match match_;
  match_record record_;
};

/// How the random player behaves; rates are probabilities per decision.
struct random_policy {
  double double_rate = 0.15;  ///< offer the cube when allowed, before rolling
  double take_rate = 0.65;    ///< take an offered cube (else drop)
  double resign_rate = 0.01;  ///< offer to resign (random kind) before rolling or moving
  double accept_rate = 0.5;   ///< accept a resignation (else reject)
  double forfeit_rate = 0.0;  ///< forfeit the game instead of rolling
  int max_basis_games = 3;    ///< a basis session stops after this many games
};

/// Plays a whole match with seeded dice, choosing uniformly among the legal plays and
/// taking cube and resignation decisions at the policy's rates.
inline match_record play_random_match(engine::match_options options, std::uint64_t seed,
                                      const random_policy& policy = {},
                                      std::string red = "Red Player", std::string black = "black") {
  recorder rec(options, std::move(red), std::move(black));
  engine::seeded_dice dice(seed);
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + 1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto chance = [&](double p) { return unit(rng) < p; };
  const auto random_kind = [&] {
    return static_cast<engine::win_kind>(std::uniform_int_distribution<int>(1, 3)(rng));
  };
  for (int steps = 0; steps < 100000; ++steps) {
    const auto& m = rec.match();
    switch (m.phase()) {
      case engine::match_phase::opening:
        rec.opening(dice);
        break;
      case engine::match_phase::roll: {
        const side s = m.current_game().turn();
        if (chance(policy.forfeit_rate)) {
          rec.forfeit(s);
        } else if (chance(policy.resign_rate)) {
          rec.offer_resignation(s, random_kind());
        } else if (m.may_double(s) && chance(policy.double_rate)) {
          rec.offer_double(s);
        } else {
          rec.roll(s, dice);
        }
        break;
      }
      case engine::match_phase::move: {
        const side s = m.current_game().turn();
        if (chance(policy.resign_rate / 2)) {
          rec.offer_resignation(s, random_kind());
          break;
        }
        const auto n = m.current_game().legal().size();
        rec.play(s, std::uniform_int_distribution<std::size_t>(0, n - 1)(rng));
        break;
      }
      case engine::match_phase::cube_offered: {
        const side s = *m.to_act();
        if (chance(policy.take_rate))
          rec.take(s);
        else
          rec.drop(s);
        break;
      }
      case engine::match_phase::resign_offered: {
        const side s = *m.to_act();
        if (chance(policy.accept_rate))
          rec.accept_resignation(s);
        else
          rec.reject_resignation(s);
        break;
      }
      case engine::match_phase::game_over:
        if (static_cast<int>(rec.record().games.size()) >= policy.max_basis_games)
          rec.stop_session(side::black);
        else
          rec.continue_session();
        break;
      case engine::match_phase::match_over:
        return rec.record();
    }
  }
  throw std::logic_error("the random match did not end");
}

/// Field-by-field equality of two records (the record types have no operator==, and
/// engine::game_result has none either). Returns an empty string when equal, else what
/// differs first.
inline std::string record_difference(const match_record& a, const match_record& b) {
  if (a.id != b.id) return "id";
  if (a.table != b.table) return "table";
  if (a.players != b.players) return "players";
  if (!(a.options == b.options)) return "options";
  if (a.final_score != b.final_score) return "final_score";
  if (a.started_at != b.started_at || a.ended_at != b.ended_at) return "times";
  if (a.games.size() != b.games.size()) return "number of games";
  for (std::size_t i = 0; i < a.games.size(); ++i) {
    const auto& x = a.games[i];
    const auto& y = b.games[i];
    const std::string where = "game " + std::to_string(i + 1) + ": ";
    if (x.number != y.number || x.score_before != y.score_before || x.crawford != y.crawford ||
        x.first != y.first || x.opening != y.opening)
      return where + "header";
    if (x.actions != y.actions) return where + "actions";
    if (x.result.has_value() != y.result.has_value()) return where + "result presence";
    if (x.result && (x.result->winner != y.result->winner || x.result->kind != y.result->kind ||
                     x.result->reason != y.result->reason || x.result->points != y.result->points))
      return where + "result";
  }
  return {};
}

/// A fresh directory under the system temp dir, removed with its contents on scope exit.
class temp_dir {
 public:
  temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gammond-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace bg::test
