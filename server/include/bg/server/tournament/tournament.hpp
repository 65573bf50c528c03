#pragma once
/// @file tournament.hpp
/// One tournament (RULES.md S6) as a state machine with no I/O: registration, the start
/// (or the cancellation under the minimum), each round's pairings, the results taken
/// from finished matches, withdrawals, adjudications and the standings. The game service
/// stores every change (to_json()) before it announces it, seats the new pairings
/// (take_new_pairings()) at tables of their own and reports each finished match back
/// (match_finished()). Times are milliseconds since the Unix epoch.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bg/engine/error.hpp"
#include "bg/engine/variant.hpp"
#include "bg/server/tournament/tournament_rules.hpp"

namespace bg::server {

/// The kinds of S6.
enum class tournament_kind { knockout, swiss, arena };
/// Where a tournament is: `registering` until its start, `running`, then `finished`;
/// `cancelled` by its creator, an administrator, or a field under its minimum.
enum class tournament_status { registering, running, finished, cancelled };

/// "knockout", "swiss", "arena".
[[nodiscard]] std::string_view to_string(tournament_kind k) noexcept;
/// "registering", "running", "finished", "cancelled".
[[nodiscard]] std::string_view to_string(tournament_status s) noexcept;
/// The kind named `text` (lower case), else nullopt.
[[nodiscard]] std::optional<tournament_kind> tournament_kind_of(std::string_view text) noexcept;

/// The terms a tournament is created with (S6): every match has its variant, length
/// and clock (S2).
struct tournament_terms {
  tournament_kind kind = tournament_kind::swiss;
  int rounds = 3;    ///< Swiss: the number of rounds
  int minutes = 60;  ///< arena: how long pairing goes on, from the start
  engine::variant game_variant = engine::variant::standard;
  int match_length = 3;          ///< points
  int clock_minutes = 5;         ///< each player's bank per match (S2)
  int clock_delay_seconds = 12;  ///< the delay per action (S2)
  std::int64_t start_ms = 0;     ///< when it starts
  int min_players = 2;           ///< fewer at the start: cancelled
  int max_players = 64;          ///< registrations stop there (`tournament_full`)
  bool rated = true;             ///< its matches are rated (S1) unless created `unrated`
};

/// One pairing of a round (the `rounds` of the tournament JSON).
struct tournament_pairing {
  int round = 1;  ///< from 1; an arena's pairings are all in round 1
  std::string red;
  std::optional<std::string> black;  ///< empty: a bye for `red`
  std::string table;                 ///< its table; "" for a bye
  std::int64_t match_id = 0;         ///< the match's id, reserved before it is seated
  std::optional<std::string> winner;
  /// How it ended: "" (in play), "played", "bye", "withdrawn" (an absent withdrawal's
  /// walkover), "adjudicated" (with `reason`), "unfinished" (closed: to adjudicate).
  std::string how;
  std::string reason;                  ///< an adjudication's logged reason
  win_kind won_by = win_kind::single;  ///< the deciding game's win (arena scoring)
  std::int64_t started_ms = 0;
};

/// A registered player.
struct tournament_player {
  std::string name;        ///< as registered
  double rating = 1500.0;  ///< in the tournament's variant when registering (S1)
  bool withdrawn = false;
  arena_score arena;  ///< arena: the score so far
  std::int64_t registered_ms = 0;
};

/// The bounds the host sets on one tournament (game service flags).
struct tournament_limits {
  std::size_t max_players = 256;  ///< --max-tournament-players
};

/// One tournament, S6. Not thread-safe: the game service holds it under its mutex.
class tournament {
 public:
  /// A new tournament, registering. `name` must be a valid name (names.hpp).
  tournament(std::string name, std::string creator, tournament_terms terms,
             std::int64_t created_ms);

  /// Rebuilds a tournament from to_json(). Throws std::runtime_error (or
  /// nlohmann::json's exceptions) on a document that is not one.
  [[nodiscard]] static tournament from_json(const nlohmann::json& doc);
  /// The whole state, for storage: from_json(to_json()) is the same tournament.
  [[nodiscard]] nlohmann::json to_json() const;
  /// The public view (PROTOCOL.md "Tournaments"): name, kind, status, terms, players,
  /// rounds (pairings {red, black, table, match_id, winner, how}), standings ({name,
  /// wins, points, buchholz, rank}) and, for a knockout, the bracket.
  [[nodiscard]] nlohmann::json view() const;
  /// The one-line summary of /tournaments and the list API.
  [[nodiscard]] nlohmann::json summary() const;

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const std::string& creator() const noexcept { return creator_; }
  [[nodiscard]] const tournament_terms& terms() const noexcept { return terms_; }
  [[nodiscard]] tournament_status status() const noexcept { return status_; }
  [[nodiscard]] bool open() const noexcept {
    return status_ == tournament_status::registering || status_ == tournament_status::running;
  }
  [[nodiscard]] const std::vector<tournament_player>& players() const noexcept { return players_; }
  [[nodiscard]] const std::vector<tournament_pairing>& pairings() const noexcept {
    return pairings_;
  }
  /// The player registered as `name` (compared by name key), else nullptr.
  [[nodiscard]] const tournament_player* player(const std::string& name) const;
  /// When it ended (finished or cancelled), else 0.
  [[nodiscard]] std::int64_t ended_ms() const noexcept { return ended_ms_; }

  /// Registers `who` at `rating`. Errors: "tournament_started" (it runs or ended),
  /// "tournament_full" (max players), "already_registered".
  std::optional<engine::error> enter(const std::string& who, double rating, std::int64_t now);
  /// `who` withdraws: before the start, the registration goes; once running, the
  /// pairing in play (or waiting) is lost (S6: a withdrawn player forfeits the rest) and
  /// `who` is paired no more. Errors: "not_registered", "tournament_over".
  std::optional<engine::error> withdraw(const std::string& who, std::int64_t now);
  /// Cancels it. Errors: "tournament_over" (finished or cancelled already).
  std::optional<engine::error> cancel(std::int64_t now);

  /// Moves it on in time: starts it at its start time (or cancels it under its
  /// minimum), and ends an arena's pairing at its end time. `reserve_id` gives each new
  /// match its id. True when something changed.
  bool tick(std::int64_t now, const std::function<std::int64_t()>& reserve_id);
  /// The match at `table` ended: won by `winner` (nullopt: unfinished, closed by an
  /// administrator: the pairing waits for an adjudication), the deciding game by
  /// `kind`. Starts the next round when this one is complete. False when `table` is no
  /// pairing of this tournament in play (a stale report: nothing changes).
  bool match_finished(const std::string& table, const std::optional<std::string>& winner,
                      win_kind kind, std::int64_t now,
                      const std::function<std::int64_t()>& reserve_id);
  /// An administrator settles the pairing at `table` for `winner` with `reason`.
  /// Errors: "unknown_table" (no such pairing), "pairing_over" (it has a result),
  /// "not_registered" (the winner does not play it).
  std::optional<engine::error> adjudicate(const std::string& table, const std::string& winner,
                                          const std::string& reason, std::int64_t now,
                                          const std::function<std::int64_t()>& reserve_id);
  /// The pairings made since the last call: those with a table to seat, byes (settled)
  /// to tell their player of, walkovers (settled).
  [[nodiscard]] std::vector<tournament_pairing> take_new_pairings();
  /// The pairing at `table`, else nullptr.
  [[nodiscard]] const tournament_pairing* pairing_at(const std::string& table) const;
  /// The standings now (S6): Swiss by wins, Buchholz, rating; a knockout by the round
  /// reached; an arena by points.
  [[nodiscard]] std::vector<standing> standings() const;
  /// The length of an arena's minute in ms (60'000; shorter in tests, like
  /// --clock-minute-seconds).
  void set_minute_ms(std::int64_t ms) noexcept { minute_ms_ = ms; }
  /// The round in play (from 1); 0 before the start.
  [[nodiscard]] int round() const noexcept { return round_; }

 private:
  tournament() = default;
  void start(std::int64_t now, const std::function<std::int64_t()>& reserve_id);
  void finish(std::int64_t now);
  /// Adds `pairs` as round `round_` (byes settled at once, walkovers of withdrawn players).
  void add_round(const std::vector<round_pairing>& pairs, std::int64_t now,
                 const std::function<std::int64_t()>& reserve_id);
  /// After a result: the next round when the round is complete (knockout, Swiss), or the
  /// two players back in the pool (arena).
  void advance(std::int64_t now, const std::function<std::int64_t()>& reserve_id);
  /// After the pairing of `red` and `black` got its result: advance() (knockout, Swiss),
  /// or both back in an open arena's pool and paired (a closed one finishes when its
  /// last match ends).
  void after_result(const std::string& red, const std::string& black, std::int64_t now,
                    const std::function<std::int64_t()>& reserve_id);
  void pair_arena_pool(std::int64_t now, const std::function<std::int64_t()>& reserve_id);
  void settle(tournament_pairing& p, const std::string& winner, std::string how, win_kind kind);
  [[nodiscard]] std::vector<entrant> active_field() const;
  [[nodiscard]] std::vector<entrant> whole_field() const;
  [[nodiscard]] std::vector<swiss_result> swiss_results() const;
  [[nodiscard]] bool round_complete() const;
  tournament_player* find(const std::string& name);

  std::string name_;
  std::string creator_;
  tournament_terms terms_;
  tournament_status status_ = tournament_status::registering;
  std::int64_t created_ms_ = 0;
  std::int64_t started_ms_ = 0;
  std::int64_t ended_ms_ = 0;
  std::string end_reason_;
  std::vector<tournament_player> players_;
  std::vector<tournament_pairing> pairings_;
  int round_ = 0;
  /// Arena: the names waiting for an opponent, in the order they came back.
  std::vector<std::string> pool_;
  std::size_t arena_tables_ = 0;  ///< arena: tables made so far (their names' numbers)
  bool arena_closed_ = false;     ///< arena: the end time passed, no more pairing
  std::size_t announced_ = 0;     ///< pairings_ handed out by take_new_pairings()
  std::int64_t minute_ms_ = 60'000;
};

}  // namespace bg::server
