#pragma once
/// @file cluster_node.hpp
/// This gammond's membership in a cluster (issue 16): its heartbeat in PostgreSQL's
/// `cluster_nodes`, the fencing of itself when its own lease expired, the sweep that
/// claims the tables of dead nodes (and tables without an owner), and a view of who
/// owns which table and where each seat-holding name plays, refreshed each heartbeat.
/// All of it on one thread of its own with its own connection: never on an I/O thread,
/// never behind the storage writer's queue.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
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

#include "bg/server/store/store.hpp"

namespace bg::server {

namespace pg {
class connection;
}

/// Where a table lives, as the database said when it was read.
struct table_owner {
  std::string node;    ///< the owner's node id
  std::string path;    ///< its public path prefix (--node-path, "/n/b")
  bool alive = false;  ///< its heartbeat is within the lease
  /// Milliseconds since the owner's last heartbeat when this was read (database clock);
  /// -1 when the owner has no row in cluster_nodes (dead).
  std::int64_t silent_ms = -1;
  /// When this was read (this process's clock): silent_now() adds the time since.
  std::chrono::steady_clock::time_point read_at = std::chrono::steady_clock::now();

  /// How the owner stands now (issue 26): `live` (its heartbeat is recent: send the
  /// client there), `failing` (it missed more than two heartbeats of `heartbeat` but its
  /// lease has not run out: nobody may claim the table yet, and HAProxy already reports
  /// it down: the client waits), `dead` (its lease ran out: claim the table).
  enum class standing { live, failing, dead };
  [[nodiscard]] standing standing_now(std::chrono::milliseconds heartbeat,
                                      std::chrono::milliseconds lease) const {
    if (!alive || silent_ms < 0) return standing::dead;
    const auto silent = silent_now();
    if (silent >= lease) return standing::dead;
    return silent > 2 * heartbeat ? standing::failing : standing::live;
  }
  /// The owner's silence now: silent_ms plus the time since the read.
  [[nodiscard]] std::chrono::milliseconds silent_now() const {
    return std::chrono::milliseconds{silent_ms < 0 ? 0 : silent_ms} +
           std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 read_at);
  }
  /// How long a client should wait before asking again while the owner is failing:
  /// until its lease runs out and one more heartbeat (a sweep, or a claim on demand),
  /// at least 250 ms.
  [[nodiscard]] std::chrono::milliseconds retry_after(std::chrono::milliseconds heartbeat,
                                                      std::chrono::milliseconds lease) const {
    const auto left = lease - silent_now() + heartbeat;
    return std::clamp(left, std::chrono::milliseconds{250}, lease + heartbeat);
  }
};

/// What cluster_node::locate() found: the table is another node's (`elsewhere`), or
/// this node's at `epoch` (claimed just now for a new table, or already its own).
struct located_table {
  std::optional<table_owner> elsewhere;
  std::int64_t epoch = 0;    ///< this node's epoch when `elsewhere` is empty
  bool claimed_now = false;  ///< this call made the ownership row (a new table)
  bool stored = false;       ///< the store holds a table of that name (a snapshot)
};

/// What cluster_node::find_seat() found: the table (another node's) where a name holds
/// a seat, with its owner; no `seat` when it holds none elsewhere.
struct seat_elsewhere {
  std::optional<std::pair<std::string, table_owner>> seat;
};

/// A table this node has just claimed: its epoch and what the store holds of it.
struct claimed_table {
  saved_table saved;       ///< snapshot and record journal, as a restart reads them
  std::int64_t epoch = 0;  ///< the fencing epoch this node now owns it at
};

/// How a cluster_node runs (from server_config's cluster fields).
struct cluster_options {
  std::string url;                            ///< the PostgreSQL URL (--db)
  std::string node;                           ///< --node-id
  std::string path;                           ///< --node-path
  std::chrono::milliseconds heartbeat{1000};  ///< --heartbeat
  std::chrono::milliseconds lease{5000};      ///< --lease
  int connect_timeout_s = 10;                 ///< --db-connect-timeout
  /// Tables one sweep claims at most (--max-tables bounds what a node holds).
  std::size_t max_claims = 5000;
  /// Questions (locate, find_seat, release) waiting for the cluster thread, at most
  /// (--cluster-queue); more are answered nullopt at once.
  std::size_t queue = 10000;
};

/// This node in the cluster. Thread-safe; its callbacks run on its own thread.
class cluster_node {
 public:
  /// What the node tells its host (the game service), on the cluster thread.
  struct callbacks {
    /// This node's own lease expired (it was paused, or cut off from the database):
    /// drop every table and close every socket with 4001 before anything else.
    std::function<void()> fenced;
    /// Tables this node claimed (a sweep, its own tables after a restart, or
    /// claim()): rebuild each from its snapshot and journal, clocks from now.
    std::function<void(std::vector<claimed_table>&)> claimed;
    /// How many more tables this node may hold now (--max-tables less those it has): a
    /// sweep claims at most that many. Unset: cluster_options::max_claims.
    std::function<std::size_t()> room;
  };

  /// Connects lazily; start() begins the heartbeats.
  cluster_node(cluster_options options, callbacks cb);
  /// stop().
  ~cluster_node();
  cluster_node(const cluster_node&) = delete;
  cluster_node& operator=(const cluster_node&) = delete;

  /// Starts the heartbeat thread and returns once its first heartbeat was tried: the
  /// node is registered (and has claimed the tables a previous run of this node id
  /// left) before it serves anyone, unless the database could not be reached (then
  /// writes are refused until a heartbeat succeeds).
  void start();
  /// Ends the thread (its row stays: the lease makes the node dead). Idempotent.
  void stop();

  /// The owner of table `name` as of the last heartbeat, when another node owns it;
  /// nullopt when this node does, or no node does.
  [[nodiscard]] std::optional<table_owner> owner_of(const std::string& name) const;
  /// The table where name key `key` holds a seat at another node's table (as of the
  /// last heartbeat), with its owner; nullopt when none.
  [[nodiscard]] std::optional<std::pair<std::string, table_owner>> seat_of(
      const std::string& key) const;
  /// Claims table `name` now when its owner is dead (on demand, a client asked for
  /// it), on the cluster thread; `done` gets the claimed table or nullopt (still owned
  /// by a live node, or not stored).
  void claim(std::string name, std::function<void(std::optional<claimed_table>)> done);

  /// Where table `name` lives, read from the store now (not the heartbeat's view), on the
  /// cluster thread (issue 26: a table exists on one node from its first message). When
  /// no node owns it and `claim_if_free`, this node claims it at epoch 1 before anything
  /// is written (its first write then passes the fencing check at that epoch). `done`
  /// gets nullopt when the database did not answer (or the queue of such questions,
  /// `--cluster-queue` long, is full).
  void locate(std::string name, bool claim_if_free,
              std::function<void(std::optional<located_table>)> done);
  /// The table of another node where name key `key` holds a seat, read from the store
  /// now, on the cluster thread; nullopt when the database did not answer.
  void find_seat(std::string key, std::function<void(std::optional<seat_elsewhere>)> done);
  /// Takes table `name` back under a new epoch when the store says it is this node's
  /// but this node does not hold it (its copy was dropped: a write the store refused
  /// while this node's lease had lapsed), on the cluster thread. Only while this node's
  /// own lease holds. `done` gets the table (`saved.snapshot` empty when the store holds
  /// no table of that name: a new table this node may make at that epoch), or nullopt
  /// when the row is no longer this node's, its lease lapsed, or the database did not
  /// answer.
  void take_back(std::string name, std::function<void(std::optional<claimed_table>)> done);
  /// Gives up this node's ownership row of table `name` (claimed by locate() for a table
  /// that was then not made: a refused creation). On the cluster thread; no answer.
  void release(std::string name);
  /// --heartbeat and --lease, for table_owner::standing_now().
  [[nodiscard]] std::chrono::milliseconds heartbeat() const noexcept { return options_.heartbeat; }
  [[nodiscard]] std::chrono::milliseconds lease() const noexcept { return options_.lease; }

  /// Heartbeats written so far (metrics).
  [[nodiscard]] std::uint64_t heartbeats() const noexcept { return heartbeats_.load(); }
  /// Times this node found its own lease expired and fenced itself (metrics).
  [[nodiscard]] std::uint64_t self_fences() const noexcept { return fences_.load(); }
  /// Tables claimed from dead nodes (or unowned) so far (metrics).
  [[nodiscard]] std::uint64_t tables_claimed() const noexcept { return claimed_.load(); }

 private:
  /// Queues a question for the cluster thread; false (not queued) when the queue is full.
  bool enqueue(std::function<void(pg::connection*)> job);
  /// Runs `question` on the cluster thread with its connection and gives `done` the
  /// answer, there; nullopt when this node is not registered, the database failed (logged
  /// as "cannot `what`", the connection dropped), or the queue is full (then at once).
  template <typename T>
  void ask(std::string what, std::function<std::optional<T>(pg::connection&)> question,
           std::function<void(std::optional<T>)> done);
  void loop();
  void beat();
  /// Runs claim `statement` (rows: table name, epoch) and reads each claimed table; a
  /// claimed row without a stored table is released when `release_empty`, else returned
  /// with an empty snapshot.
  std::vector<claimed_table> claim_where(const char* statement,
                                         const std::vector<std::optional<std::string>>& params,
                                         bool release_empty = true);
  void refresh();

  cluster_options options_;
  callbacks cb_;
  std::unique_ptr<pg::connection> db_;               ///< used on the cluster thread only
  bool registered_ = false;                          ///< cluster thread only
  std::chrono::steady_clock::time_point last_beat_;  ///< cluster thread only

  mutable std::mutex mutex_;  ///< guards what follows
  std::condition_variable wake_;
  bool stopping_ = false;
  bool first_beat_done_ = false;  ///< the first heartbeat was tried
  std::deque<std::pair<std::string, std::function<void(std::optional<claimed_table>)>>> claims_;
  /// Questions for the cluster thread (locate, find_seat, release): each runs with the
  /// thread's connection, or with nullptr when it is not registered (answer nullopt).
  std::deque<std::function<void(pg::connection*)>> jobs_;
  std::map<std::string, table_owner> owners_;                         ///< other nodes' tables
  std::map<std::string, std::pair<std::string, table_owner>> seats_;  ///< by name key
  std::thread thread_;

  std::atomic<std::uint64_t> heartbeats_{0};
  std::atomic<std::uint64_t> fences_{0};
  std::atomic<std::uint64_t> claimed_{0};
};

}  // namespace bg::server
