#pragma once
/// @file game_service.hpp
/// The game service: players (names, resume tokens), the lobby, and one table actor
/// (a table on its own strand) per table.

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "bg/bots/gnubg_player.hpp"
#include "bg/bots/gnubg_pool.hpp"
#include "bg/bots/player.hpp"
#include "bg/engine/dice_source.hpp"
#include "bg/protocol/codec.hpp"
#include "bg/server/game/lobby.hpp"
#include "bg/server/game/players.hpp"
#include "bg/server/game/table.hpp"
#include "bg/server/metrics.hpp"
#include "bg/server/net/service.hpp"
#include "bg/server/server_config.hpp"
#include "bg/server/store/storage_writer.hpp"
#include "bg/server/store/store.hpp"

namespace bg::server {

/// A dice source shared by every table: one secure (or, for tests, seeded) source
/// behind a mutex, since tables run on different threads.
class shared_dice final : public engine::dice_source {
 public:
  /// seed 0: secure_dice; otherwise seeded_dice(seed) (tests only).
  explicit shared_dice(std::uint64_t seed);
  int roll_die() override;

 private:
  std::mutex mutex_;
  std::unique_ptr<engine::dice_source> source_;
};

class table_actor;
using clock_type = std::chrono::steady_clock;

/// gammond's service: implements bg::server::service.
class game_service final : public service, public std::enable_shared_from_this<game_service> {
 public:
  /// Opens the storage at config.db and restores every saved table. Throws storage_error.
  game_service(const server_config& config, metrics& counters, boost::asio::io_context& io);
  ~game_service() override;

  void on_open(const std::shared_ptr<client>& c) override;
  void on_text(const std::shared_ptr<client>& c, std::string text) override;
  void on_close(const std::shared_ptr<client>& c) override;
  /// GET /matches/<id>.mat: the match is read on the storage thread and `reply` is
  /// called from there (nullopt: no such match, 404).
  void on_http_request(std::string_view target, http_callback reply) override;
  void shutdown() override;
  /// The `rate_limited` error with the refused message's `id` as `re` (nullptr when
  /// the message has no id or is not a message at all).
  std::shared_ptr<const std::string> rate_limited_reply(std::string_view text) override;

  /// Starts the grace timers of tables restored with absent players. Called once the
  /// service is owned by a shared_ptr (make_game_service does it).
  void start();

  // Used by table actors (any thread).
  /// Records the lobby summary of `table` (written state only). nullptr: the table is
  /// idle and is forgotten, its row deleted through the writer (no SQLite call here).
  /// With `from`, ignored unless `from` is still the table's actor (a summary written
  /// after the table was forgotten, or replaced by a new one, is stale).
  void set_summary(const std::string& table, nlohmann::json summary,
                   const table_actor* from = nullptr);
  /// The hooks every table gets: match ids reserved from the store, the clock, limits.
  table_hooks hooks();
  /// Where table actors write their changes (group commit).
  storage_writer& writer() noexcept { return *writer_; }
  metrics& counters() noexcept { return metrics_; }
  const server_config& config() const noexcept { return config_; }
  engine::dice_source& dice() noexcept { return dice_; }
  /// The SHA-256 (64 hex digits) of the resume token of `name`, or null when the name
  /// has none; table snapshots keep it for their seated players (never the token).
  nlohmann::json token_hash_of(const std::string& name);
  /// Table `table`'s players holding a seat in a match in progress went from `before`
  /// to `after` (table::held_seats()). A name that no longer holds any seat and is not
  /// connected loses its resume token, and the name is free again.
  void holds_changed(const std::string& table, const std::vector<std::string>& before,
                     const std::vector<std::string>& after);
  /// The computer player of `level` for variant `v` (issue 14), or nullptr when there
  /// is none (GNU Backgammon missing, another variant). Lives as long as the service.
  bots::player* bot_player(const std::string& level, engine::variant v);
  /// The name of the computer player of `level` for variant `v` ("gnubg-expert"), or
  /// why none can sit down: "no_bot" (GNU Backgammon is not installed here),
  /// "bot_variant" (none plays long nardy yet), "bad_command" (not a level).
  engine::result<std::string> bot_name(const std::string& level, engine::variant v) const;

 private:
  void on_hello(const std::shared_ptr<client>& c, const protocol::client_message& m);
  void on_lobby_line(const std::shared_ptr<client>& c, const std::string& name,
                     const protocol::client_message& m, std::chrono::steady_clock::time_point t0);
  /// The actor of table `name`, created when absent (limits checked); nullptr with
  /// `why` set when refused.
  std::shared_ptr<table_actor> table_for(const std::string& name, const players::session& s,
                                         std::string& why_code, std::string& why);
  void send_error(const std::shared_ptr<client>& c, std::string_view code, std::string_view message,
                  const std::optional<nlohmann::json>& re);
  /// Why `name` cannot be a player's or table's name (names.hpp), or nullopt.
  std::optional<std::string> name_problem_of(const std::string& name) const;
  /// The `tables` message: page `page` (from 1) of the lobby list.
  nlohmann::json tables_message(std::size_t page) const;
  /// `/play bot ...` from the lobby (issue 14): a new table with a fresh name, the
  /// player and the computer seated, options set, the match started.
  void on_play_bot(const std::shared_ptr<client>& c, const std::string& name,
                   const protocol::command& cmd, const std::optional<nlohmann::json>& re,
                   clock_type::time_point t0);
  /// The computer players' section of /metrics (Prometheus text).
  std::string bot_metrics() const;

  server_config config_;
  metrics& metrics_;
  boost::asio::io_context& io_;
  std::unique_ptr<store> storage_;
  std::unique_ptr<storage_writer> writer_;  // after storage_: stopped before it closes
  shared_dice dice_;
  /// Why GNU Backgammon cannot run here (empty: it can). Fixed at start.
  std::string gnubg_problem_;
  std::unique_ptr<bots::gnubg_pool> gnubg_;  ///< null without gnubg
  std::map<std::string, std::unique_ptr<bots::gnubg_player>> gnubg_players_;  // by level

  mutable std::mutex mutex_;  // guards everything below
  players players_;
  lobby lobby_;
  std::map<std::string, std::shared_ptr<table_actor>> tables_;  // by table name
  bool shutting_down_ = false;
  std::uint64_t next_bot_table_ = 1;  ///< the number in the next /play bot table's name
};

}  // namespace bg::server
