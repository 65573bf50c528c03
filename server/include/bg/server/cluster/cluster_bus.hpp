#pragma once
/// @file cluster_bus.hpp
/// What spans every node of a cluster (issue 16): the lobby list, lobby chat, who is
/// online and the names' sessions, kept in PostgreSQL (`cluster_lobby`,
/// `cluster_sessions`) and announced with LISTEN/NOTIFY on the channels
/// `gammond_lobby`, `gammond_chat` and `gammond_sessions`. State lives in the tables;
/// a notification only wakes the other nodes (it is not durable).

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace bg::server {

namespace pg {
class connection;
}

/// One node's link to the cluster: ONE dedicated libpq connection, owned by one thread
/// of its own, that LISTENs on the three channels, polls libpq's socket (never on an
/// I/O thread), runs the cluster's statements in the order they were asked for, and
/// reconnects (and LISTENs again) when PostgreSQL drops it.
///
/// Every request returns at once; its answer, if any, is a callback run on the bus's
/// thread (it must not block). Notifications from the other nodes (never this node's
/// own) go to the event handler through a bounded queue: the bus thread pushes, the
/// `post` function given at construction runs the handler elsewhere (an I/O thread).
/// Both the statements waiting and the events waiting are bounded by `queue`
/// (--cluster-queue); what does not fit is refused and counted (dropped()).
///
/// Liveness: a node is live while its `cluster_nodes.heartbeat_at` (database clock) is
/// younger than the lease. Rows of dead nodes do not count as live (listed tables,
/// online names, names taken) but their resume token hashes still resume.
///
/// Thread-safe.
class cluster_bus {
 public:
  /// A notification from another node: its channel (without the `gammond_` prefix:
  /// "lobby", "chat", "sessions") and its payload (a JSON object with at least `node`).
  struct event {
    std::string channel;
    nlohmann::json payload;
  };
  /// How to run the bus.
  struct options {
    std::string url;      ///< the postgresql:// URL (--db)
    std::string node_id;  ///< this node (--node-id)
    /// The lease (--lease): rows of a node whose heartbeat is older are not live.
    std::chrono::milliseconds lease{5000};
    /// Statements waiting, and events waiting for the service, at most (each).
    std::size_t queue = 10000;
    int connect_timeout_s = 10;
    int statement_timeout_ms = 30000;
    /// Runs a job elsewhere (the service posts it on its io_context).
    std::function<void(std::function<void()>)> post;
    /// Called (through `post`) with each event, in the order received.
    std::function<void(const event&)> on_event;
    /// Run on the bus's thread each time the bus (re)connects, once this node's rows of
    /// before are gone: the service publishes its tables and names again.
    std::function<void()> on_connect;
  };
  /// One name's session as stored: its key, its name as written, its node, and whether
  /// a connection says it now (false: it only holds a seat).
  struct session_row {
    std::string key;
    std::string name;
    std::string node;
    bool live = false;  ///< its node's heartbeat is within the lease
    /// The name is an account's (issue 26: registered on any node, this one may not
    /// have heard of it yet).
    bool registered = false;
  };
  /// The answer of claim(): the name was free and is now this node's, or not.
  enum class claim_result { claimed, taken, registered, failed };

  /// Largest NOTIFY payload PostgreSQL accepts (bytes, less one for its NUL).
  static constexpr std::size_t max_payload = 7999;

  /// Starts the bus's thread (which connects, LISTENs, then forgets this node's rows
  /// of a previous run and runs `on_connect` (the tables and names to publish again).
  /// Never throws for a database that is down: it keeps trying, logging each failure.
  explicit cluster_bus(options o);
  /// stop().
  ~cluster_bus();
  cluster_bus(const cluster_bus&) = delete;
  cluster_bus& operator=(const cluster_bus&) = delete;
  /// Stops the thread; statements still waiting are not run (their callbacks are not
  /// called). Idempotent.
  void stop();

  /// `payload` as the text of a NOTIFY from node `node` (JSON, with `node` set), or
  /// nullopt when it is longer than max_payload bytes (refused: never truncated).
  [[nodiscard]] static std::optional<std::string> encode(nlohmann::json payload,
                                                         const std::string& node);
  /// The event of a notification on `channel` ("gammond_chat"...) with `text`, or
  /// nullopt when it is not one of ours or not a JSON object with a string `node`.
  [[nodiscard]] static std::optional<event> decode(std::string_view channel, std::string_view text);

  // The lobby.
  /// Table `table`'s lobby entry is now `entry` (table::summary_text(), JSON text), or
  /// gone (nullopt; the caller passes nullopt for a private table, which is not listed).
  /// Coalesced: only the last entry of a table waiting to be written is written, with a
  /// NOTIFY on gammond_lobby.
  void publish_table(const std::string& table, std::optional<std::string> entry);
  /// The `tables` message of page `page` (from 1, clamped to the last) of the listed
  /// tables of every live node, in name order, `per_page` a page, each entry with the
  /// `node` that has the table; nullopt when the database could not be read.
  void list_tables(std::size_t page, std::size_t per_page,
                   std::function<void(std::optional<nlohmann::json>)> done);

  /// The `tournaments` of every live node (issue 30): the entries published with
  /// publish_table() under `tournament:KEY` (a name no table can have: names refuse ':'),
  /// each a tournament's summary with the `node` that directs it, in name order; nullopt
  /// when the database could not be read. list_tables() leaves them out.
  void list_tournaments(std::function<void(std::optional<nlohmann::json>)> done);

  // Lobby chat.
  /// Sends `line` ({from, key, text}) on gammond_chat to the other nodes. False (and
  /// nothing sent) when its payload is over max_payload bytes or the queue is full.
  bool say(const nlohmann::json& line);

  /// Sends `message` to the connections the other nodes have of the names whose keys
  /// are `keys` (issue 30: a tournament's news and pairings for players connected
  /// elsewhere), as {deliver: message, to: keys} on gammond_chat. False (and nothing
  /// sent) when the payload is over max_payload bytes or the queue is full.
  bool deliver(const std::vector<std::string>& keys, const nlohmann::json& message);

  // Sessions.
  /// Claims the name of key `key` (`name` as written) for a new guest on this node,
  /// with its resume token's SHA-256 (`token_hash`, 64 hex digits): refused (`taken`)
  /// while another live node has a session of the name, `registered` when it is an
  /// account's (registered on any node). `failed`: the database did not answer.
  void claim(const std::string& key, const std::string& name, const std::string& token_hash,
             std::function<void(claim_result)> done);
  /// The name of key `key` is this node's now (a resume, a login, a new token, a seat
  /// restored), connected or only seated: stored, and, when `announce`, a NOTIFY on
  /// gammond_sessions ({op: "take", key}) tells the node that had it. With
  /// `unless_live_elsewhere` (a seat taken over from a dead node) a row of another live
  /// node is kept instead.
  void take(const std::string& key, const std::string& name, const std::string& token_hash,
            bool connected, bool announce, bool unless_live_elsewhere = false);
  /// Runs `done` on the bus's thread once every statement queued before it has run
  /// (issue 26: a `moved` after a login waits until the cluster's sessions hold the new
  /// token). False (and `done` not called) when the queue is full.
  bool after_queued(std::function<void()> done);
  /// The name of key `key` is free on this node: its row goes, if it is still this
  /// node's.
  void release(const std::string& key);
  /// The session whose resume token has SHA-256 `token_hash` (on any node, live or
  /// not), or nullopt (unknown, or the database did not answer).
  void find_token(const std::string& token_hash,
                  std::function<void(std::optional<session_row>)> done);
  /// The node that has the name of key `key` now ("" when none; nullopt: no answer).
  void owner_of(const std::string& key, std::function<void(std::optional<std::string>)> done);
  /// The names connected on live nodes, in name order, at most `limit` of them, and
  /// how many there are in all; nullopt when the database could not be read.
  void online(
      std::size_t limit,
      std::function<void(std::optional<std::pair<std::vector<std::string>, std::size_t>>)> done);

  /// Requests and events refused because a queue was full, or payloads too long.
  [[nodiscard]] std::uint64_t dropped() const noexcept;
  /// Times the connection was opened again after it was lost.
  [[nodiscard]] std::uint64_t reconnections() const noexcept;
  /// True while the bus is connected and LISTENing.
  [[nodiscard]] bool listening() const noexcept;

 private:
  using job = std::function<void(pg::connection&)>;
  /// Queues `j` (false when the queue is full: counted).
  bool enqueue(job j);
  void run();
  /// Connects, LISTENs, forgets this node's rows; true when done.
  bool connect();
  void flush_lobby(pg::connection& db);
  void receive(pg::connection& db);
  void wake();

  options o_;
  std::unique_ptr<pg::connection> db_;  // the bus thread's only
  int wake_fd_ = -1;                    // an eventfd: a job was queued, or stop

  mutable std::mutex mutex_;  // guards everything below
  std::deque<job> jobs_;
  std::map<std::string, std::optional<std::string>> lobby_;  // table -> entry text to write
  std::deque<event> events_;
  bool draining_ = false;  // a drain of events_ is posted
  bool stopping_ = false;
  std::uint64_t dropped_ = 0;
  std::uint64_t reconnections_ = 0;
  bool listening_ = false;
  std::thread thread_;  // last: started once everything else is there
};

}  // namespace bg::server
