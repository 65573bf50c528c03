#pragma once
/// @file table_host.hpp
/// What a table_actor needs from the server around it, and nothing more: where its
/// changes are written, the counters, the limits, the people (tokens, accounts,
/// ignores, notices), the lobby, the computer players and the analysis queue. The actor
/// owns this interface and includes no game service; game_service implements it
/// (issue 29: the one arrow that ran back up inside game/ is gone).

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bg/bots/analysis_queue.hpp"
#include "bg/engine/variant.hpp"
#include "bg/server/lobby/lobby.hpp"
#include "bg/server/net/client.hpp"
#include "bg/server/records/match_record.hpp"
#include "bg/server/store/moderation_action.hpp"
#include "bg/server/table/table.hpp"

namespace bg::bots {
class player;
}

namespace bg::server {

class ignore_list;
class metrics;
class storage_writer;
class table_actor;
struct server_config;

/// A match that ended at a table, as written: what a tournament's director (RULES.md
/// S6) takes its result from.
struct match_end {
  std::int64_t match_id = 0;
  std::array<std::string, 2> players;  ///< [red, black]
  /// Who won; nullopt when nobody did (a match an administrator closed unfinished).
  std::optional<engine::side> winner;
  /// How the last game was won (an arena scores by it).
  engine::win_kind deciding = engine::win_kind::single;
};

/// The server as a table_actor sees it. Every member may be called from any thread (an
/// actor calls from its strand); the host outlives every actor it made.
class table_host {
 public:
  virtual ~table_host() = default;

  // Wiring.
  /// Where the actor writes its changes (group commit), and reads its last written state.
  virtual storage_writer& writer() noexcept = 0;
  /// The server's counters (commands, errors, games started and finished).
  virtual metrics& counters() noexcept = 0;
  /// The limits the actor applies (--max-table-backlog, --grace-period).
  [[nodiscard]] virtual const server_config& config() const noexcept = 0;
  /// The hooks a table is made or restored with (the clocks' time, dice seeds, limits).
  virtual table_hooks hooks() = 0;
  /// A new match id (> 0), reserved in memory without I/O (store::reserve_match_id()),
  /// for a table whose match wants one (table::wants_match_id()).
  [[nodiscard]] virtual std::int64_t reserve_match_id() = 0;
  /// The time the tables' clocks read, in milliseconds since the Unix epoch (never back).
  [[nodiscard]] virtual std::int64_t clock_ms() const = 0;

  // The lobby and the cluster.
  /// The lobby line of `table` is `summary` (nullopt: the table is idle and goes),
  /// ignored unless `from` is still the table's actor (nullptr: unconditionally).
  virtual void set_summary(const std::string& table, std::optional<lobby_entry> summary,
                           const table_actor* from) = 0;
  /// Cluster: `actor`'s write was refused as stale (`claim_lost`: a new table another
  /// node claimed first); the host forgets the table.
  virtual void table_fenced(const table_actor& actor, bool claim_lost) = 0;

  // The people.
  /// The SHA-256 (64 hex digits) of `name`'s resume token, nullopt when it has none.
  virtual std::optional<std::string> token_hash_of(const std::string& name) = 0;
  /// The names holding a seat in a match at `table` went from `before` to `after`;
  /// `moved_away`: the table was fenced here and its seats live on at another node.
  virtual void holds_changed(const std::string& table, const std::vector<std::string>& before,
                             const std::vector<std::string>& after, bool moved_away) = 0;
  /// The match at `table` ended and is written (once per match, after its write).
  virtual void match_ended(const std::string& table, const match_end& m) = 0;
  /// False when the matches at `table` are not rated whoever plays them (an unrated
  /// tournament's, S6); true otherwise.
  [[nodiscard]] virtual bool rated_table(const std::string& table) = 0;
  /// The account key of `name` when it is a registered account's, else "" (a guest).
  virtual std::string account_key_of(const std::string& name) = 0;
  /// After a rated match in `v`: its players' ratings are now those of `changes`.
  virtual void ratings_changed(engine::variant v, const std::array<rating_change, 2>& changes) = 0;
  /// The names `name` ignores while it is in use, else nullptr.
  [[nodiscard]] virtual std::shared_ptr<ignore_list> ignores_of(const std::string& name) const = 0;
  /// Connection `client_id` was sent away from `table` (kicked, or the table closed).
  virtual void left_table(std::uint64_t client_id, const std::string& table) = 0;
  /// Sends `message` to every connection of `name` (unless `name` ignores its sender).
  virtual void notify(const std::string& name, const nlohmann::json& message) = 0;
  /// Moderation action `a` taken at the table (a kick, a close) is written: the host
  /// logs it.
  virtual void moderation_written(const moderation_action& a) = 0;

  // Computer players and analysis.
  /// The computer player of `level` for variant `v`, nullptr when there is none.
  virtual bots::player* bot_player(const std::string& level, engine::variant v) = 0;
  /// True when finished standard matches are analysed.
  [[nodiscard]] virtual bool analysing() const noexcept = 0;
  /// Queues the analysis of an archived match (never blocks; a full queue refuses it).
  virtual void queue_analysis(bots::analysis_queue::job j) = 0;
  /// Answers `c`'s /analysis of match `id` (asked at `table`) with an `info` or
  /// `unknown_match`, `re` echoed.
  virtual void answer_analysis(const std::shared_ptr<client>& c, std::int64_t id,
                               std::optional<nlohmann::json> re, std::string table) = 0;
  /// The name keys a finished match between `players` ([red, black]) counts against in
  /// the analysis queue: its players, computer players left out.
  [[nodiscard]] virtual std::vector<std::string> owners_of(
      const std::array<std::string, 2>& players) const = 0;

 protected:
  table_host() = default;
  table_host(const table_host&) = default;
  table_host& operator=(const table_host&) = default;
};

}  // namespace bg::server
