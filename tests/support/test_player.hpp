#pragma once
/// @file test_player.hpp
/// A player of the real gammond for integration tests: one WebSocket connection that
/// said hello, sends lines with ids and waits for their answers, and keeps every state
/// and event it reads. Shared by every suite that drives gammond through whole games.
///
/// @code
///   bg::test::gammond_process server{{"--dice-seed", "11"}};
///   bg::test::player alice(server.port(), "alice");
///   bg::test::player bob(server.port(), "bob");
///   bg::test::seat(alice, bob, "t1", "/option match 3");
///   bg::test::duel d{alice, bob, "t1"};
///   const auto last = d.play_until([](const nlohmann::json& st) {
///     return st["phase"] == "match_over"; });
/// @endcode
/// Every wait uses one generous deadline (30 s: CI is a loaded 2-core machine; a test
/// that passes waits only as long as the message takes). Failures are Catch2
/// REQUIREs, so these helpers are for Catch2 test cases only.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gammond_process.hpp"
#include "ws_client.hpp"

namespace bg::test {

/// A player (or spectator): one WebSocket connection to gammond on 127.0.0.1 that said
/// hello. Not thread-safe.
class player {
 public:
  /// Connects to `port` and says hello as `name` (with the resume token `resume` when
  /// it is not empty, and any extra fields of `hello_fields`, e.g. a password). REQUIREs
  /// a `welcome`.
  player(std::uint16_t port, std::string name, std::string resume = {},
         const nlohmann::json& hello_fields = nlohmann::json::object());

  /// Sends `line` to `table` ("" = the lobby) without waiting; returns the message id
  /// to wait for with answer().
  std::string send(const std::string& table, const std::string& line);
  /// Sends `m` as it is.
  void send_message(const nlohmann::json& m);
  /// The message answering the message with id `id` (its `re`); REQUIREs it in time.
  nlohmann::json answer(const std::string& id);
  /// Sends `line` to `table` and returns the reply it causes (state, info or error).
  nlohmann::json say(const std::string& table, const std::string& line);
  /// say() that must succeed (the reply is not an `error`).
  nlohmann::json ok(const std::string& table, const std::string& line);
  /// say() that must fail with `code`.
  void refused(const std::string& table, const std::string& line, const std::string& code);
  /// Reads messages until one for which `wanted` holds, and returns it; REQUIREs one
  /// before `timeout`. Every message read on the way updates state() and events().
  nlohmann::json await(const std::function<bool(const nlohmann::json&)>& wanted,
                       std::chrono::milliseconds timeout = std::chrono::seconds{30});
  /// await() for a state of `table` for which `wanted` holds; the newest state already
  /// seen counts too.
  nlohmann::json await_state(const std::string& table,
                             const std::function<bool(const nlohmann::json&)>& wanted);
  /// await() for the event named `name` at `table`, reading on from now (events read
  /// earlier do not count).
  nlohmann::json await_event(const std::string& table, const std::string& name);

  /// The newest state of `table` this client has seen (null when none).
  const nlohmann::json& state(const std::string& table) { return states_[table]; }
  /// The same, for a const player.
  [[nodiscard]] nlohmann::json latest(const std::string& table) const;
  /// The distinct `seq` of the states of `table` seen, in arrival order.
  const std::vector<std::uint64_t>& seqs(const std::string& table) { return seqs_[table]; }
  /// Every state and every event read, in arrival order.
  [[nodiscard]] const std::vector<nlohmann::json>& states() const { return all_states_; }
  [[nodiscard]] const std::vector<nlohmann::json>& events() const { return events_; }
  /// Every message read (the welcome included), in arrival order.
  [[nodiscard]] const std::vector<nlohmann::json>& received() const { return received_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  /// The resume token of the welcome.
  [[nodiscard]] const std::string& token() const { return token_; }
  [[nodiscard]] const nlohmann::json& welcome() const { return welcome_; }
  ws_client& socket() { return ws_; }

 private:
  void absorb(const std::vector<nlohmann::json>& messages);

  ws_client ws_;
  std::string name_;
  std::string token_;
  nlohmann::json welcome_;
  int counter_ = 0;
  std::map<std::string, nlohmann::json> states_;
  std::map<std::string, std::vector<std::uint64_t>> seqs_;
  std::vector<nlohmann::json> all_states_;
  std::vector<nlohmann::json> events_;
  std::vector<nlohmann::json> received_;
};

/// Two seated players at a table, played by random legal plays (a seeded generator).
struct duel {
  player& red;
  player& black;
  std::string table;
  std::mt19937 rng{7};

  player& by_side(const std::string& s) { return s == "red" ? red : black; }
  /// The table's state now (/board by red).
  nlohmann::json fresh();
  /// One step of the game: whoever must act rolls or plays a random legal play.
  /// Returns the state after it. FAILs in a phase with no such step.
  nlohmann::json step();
  /// Steps until `done(state)` or the phase is not one of opening, roll, move.
  nlohmann::json play_until(const std::function<bool(const nlohmann::json&)>& done,
                            int max_steps = 3000);
};

/// `red` joins red and `black` black at `table`; `red` sets `options` (a line such as
/// "/option match 3", none when empty) and `black` starts.
void seat(player& red, player& black, const std::string& table, const std::string& options = "");

/// Sends `hello` (a hello or register message) to `server` on a new connection (`keep`,
/// when given: a client not yet connected, e.g. with a header set, that the caller uses
/// on) with the id "first", and returns the answer: the
/// message with `re` "first" (welcome or error), or an error without `re` (a frame that
/// could not be decoded, `bad_message`). FAILs with gammond's log when none comes.
nlohmann::json first_answer(const gammond_process& server, nlohmann::json hello,
                            ws_client* keep = nullptr);

}  // namespace bg::test
