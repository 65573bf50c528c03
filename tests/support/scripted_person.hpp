#pragma once
/// @file scripted_person.hpp
/// A scripted person at a table against a computer player, for the bot tests that
/// drive the real gammond (GNU Backgammon's bots and the long nardy bot alike).
///
/// @code
///   bg::test::player alice(server.port(), "alice");
///   alice.ok("t", "/join red");
///   alice.ok("t", "/bot");
///   alice.ok("t", "/start");
///   bg::test::scripted_person me{alice, "t", "red"};
///   const auto last = me.play_until([](const nlohmann::json&) { return false; });
/// @endcode

#include <functional>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_player.hpp"

namespace bg::test {

/// True when `st`'s phase is one of `phases`.
[[nodiscard]] bool is_phase(const nlohmann::json& st, std::initializer_list<const char*> phases);

/// Events named `name` that `p` has read at `table`, in arrival order.
[[nodiscard]] std::vector<nlohmann::json> events_named(const player& p, const std::string& table,
                                                       const std::string& name);

/// A person who rolls, plays a seeded random legal play (among those that hit the most),
/// doubles when `double_when` says so, takes when `take_when` says so, accepts every
/// resignation and continues every basis session; the bot acts by itself. Failures are
/// Catch2 REQUIREs.
struct scripted_person {
  player& me;
  std::string table;
  std::string side;  ///< "red" or "black"
  std::mt19937 rng{14};
  std::function<bool(const nlohmann::json&)> double_when = [](const nlohmann::json&) {
    return false;
  };
  std::function<bool(const nlohmann::json&)> take_when = [](const nlohmann::json&) { return true; };
  int doubles = 0;  ///< the doubles this person offered

  /// The newest state in which the person must act, or the match is over.
  nlohmann::json wait_turn();
  /// One decision in state `st`; returns the state after it.
  nlohmann::json act(const nlohmann::json& st);
  /// Plays until `done(state)` or the match is over; returns the last state.
  nlohmann::json play_until(const std::function<bool(const nlohmann::json&)>& done,
                            int max_steps = 2000);
};

}  // namespace bg::test
