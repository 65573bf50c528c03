#include "bg/server/cluster/cluster_node.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <utility>

#include "store/postgres/pg_connection.hpp"

namespace bg::server {

namespace {

constexpr const char* heartbeat_sql = "cluster_heartbeat";
constexpr const char* register_sql = "cluster_register";
constexpr const char* reclaim_own_sql = "cluster_reclaim_own";
constexpr const char* claim_dead_sql = "cluster_claim_dead";
constexpr const char* claim_unowned_sql = "cluster_claim_unowned";
constexpr const char* claim_one_sql = "cluster_claim_one";
constexpr const char* take_back_sql = "cluster_take_back";
constexpr const char* release_sql = "cluster_release";
constexpr const char* snapshot_sql = "cluster_snapshot";
constexpr const char* journal_sql = "cluster_journal";
constexpr const char* owners_sql = "cluster_owners";
constexpr const char* seats_sql = "cluster_seats";
constexpr const char* locate_claim_sql = "cluster_locate_claim";
constexpr const char* locate_sql = "cluster_locate";
constexpr const char* seat_of_sql = "cluster_seat_of";

/// The owner's silence in milliseconds (-1: no heartbeat row), as column SQL.
#define SILENT "coalesce((extract(epoch FROM now() - n.heartbeat_at) * 1000)::bigint, -1)"

/// `$n` milliseconds as an interval, for "heartbeat_at > now() - lease".
#define LEASE(n) "$" #n "::bigint * interval '1 millisecond'"

std::vector<pg::statement> statements() {
  return {
      // Renews this node's heartbeat only while its lease holds: no row means it expired.
      {heartbeat_sql,
       "UPDATE cluster_nodes SET heartbeat_at = now(), path = $2 WHERE id = $1 AND "
       "heartbeat_at > now() - " LEASE(3) " RETURNING 1"},
      {register_sql,
       "INSERT INTO cluster_nodes(id, path, heartbeat_at, started_at) VALUES ($1, $2, now(), "
       "now()) ON CONFLICT (id) DO UPDATE SET path = excluded.path, heartbeat_at = now(), "
       "started_at = now()"},
      // A (re)registered node takes its own tables back under a new epoch: whatever an
      // earlier run of it might still write is stale.
      {reclaim_own_sql,
       "UPDATE table_owners SET epoch = epoch + 1 WHERE node = $1 RETURNING table_name, epoch"},
      // The tables of dead nodes (heartbeat older than the lease, or no row), locked so
      // that two sweeping nodes never claim the same table twice.
      {claim_dead_sql,
       "WITH dead AS (SELECT o.table_name FROM table_owners o LEFT JOIN cluster_nodes n ON "
       "n.id = o.node WHERE o.node <> $1 AND (n.id IS NULL OR n.heartbeat_at <= now() - " LEASE(
           2) ") ORDER BY o.table_name LIMIT $3 FOR UPDATE OF o SKIP LOCKED) "
              "UPDATE table_owners o SET node = $1, epoch = o.epoch + 1 FROM dead WHERE "
              "o.table_name = dead.table_name RETURNING o.table_name, o.epoch"},
      // Saved tables no node owns (a database from a single gammond, gammond migrate).
      {claim_unowned_sql,
       "INSERT INTO table_owners(table_name, node, epoch) SELECT t.name, $1, 1 FROM tables t "
       "WHERE NOT EXISTS (SELECT 1 FROM table_owners o WHERE o.table_name = t.name) ORDER BY "
       "t.name LIMIT $2 ON CONFLICT DO NOTHING RETURNING table_name, epoch"},
      {claim_one_sql,
       "UPDATE table_owners o SET node = $1, epoch = o.epoch + 1 WHERE o.table_name = $2 AND "
       "o.node <> $1 AND NOT EXISTS (SELECT 1 FROM cluster_nodes n WHERE n.id = o.node AND "
       "n.heartbeat_at > now() - " LEASE(3) ") RETURNING o.table_name, o.epoch"},
      // A table the store says is this node's but this node does not hold: a new epoch,
      // only while this node's own lease holds.
      {take_back_sql,
       "UPDATE table_owners o SET epoch = o.epoch + 1 WHERE o.table_name = $2 AND o.node = $1 "
       "AND EXISTS (SELECT 1 FROM cluster_nodes n WHERE n.id = $1 AND n.heartbeat_at > now() "
       "- " LEASE(3) ") RETURNING o.table_name, o.epoch"},
      {release_sql, "DELETE FROM table_owners WHERE table_name = $1 AND node = $2"},
      {snapshot_sql, "SELECT snapshot FROM tables WHERE name = $1"},
      {journal_sql, "SELECT entry FROM table_records WHERE table_name = $1 ORDER BY id"},
      {owners_sql,
       "SELECT o.table_name, o.node, coalesce(n.path, ''), coalesce(n.heartbeat_at > now() "
       "- " LEASE(
           2) ", false), " SILENT
              " FROM table_owners o LEFT JOIN cluster_nodes n ON n.id = o.node WHERE o.node <> $1"},
      {seats_sql,
       "SELECT s.name_key, s.table_name, o.node, coalesce(n.path, ''), coalesce(n.heartbeat_at > "
       "now() - " LEASE(
           2) ", false), " SILENT
              " FROM table_seats s JOIN table_owners o ON o.table_name = s.table_name LEFT JOIN "
              "cluster_nodes n ON n.id = o.node WHERE o.node <> $1"},
      // Issue 26: a new table is this node's from its first message, before any write.
      {locate_claim_sql,
       "INSERT INTO table_owners(table_name, node, epoch) VALUES ($2, $1, 1) ON CONFLICT DO "
       "NOTHING RETURNING epoch"},
      {locate_sql,
       "SELECT o.node, o.epoch, coalesce(n.path, ''), coalesce(n.heartbeat_at > now() - " LEASE(
           2) ", false), " SILENT
              ", EXISTS (SELECT 1 FROM tables t WHERE t.name = $1) FROM table_owners o LEFT "
              "JOIN cluster_nodes n ON n.id = o.node WHERE o.table_name = $1"},
      {seat_of_sql,
       "SELECT s.table_name, o.node, coalesce(n.path, ''), coalesce(n.heartbeat_at > now() "
       "- " LEASE(
           3) ", false), " SILENT
              " FROM table_seats s JOIN table_owners o ON o.table_name = s.table_name LEFT JOIN "
              "cluster_nodes n ON n.id = o.node WHERE s.name_key = $1 AND o.node <> $2 ORDER BY "
              "s.table_name LIMIT 1"},
  };
}

#undef LEASE
#undef SILENT

/// The owner in columns `first`.. (node, path, alive, silent ms) of row `row`.
table_owner owner_at(const pg::result& r, int row, int node, int path, int alive, int silent) {
  return table_owner{r.text(row, node), r.text(row, path), r.text(row, alive) == "t",
                     r.integer(row, silent), std::chrono::steady_clock::now()};
}

}  // namespace

cluster_node::cluster_node(cluster_options options, callbacks cb)
    : options_(std::move(options)), cb_(std::move(cb)) {
  pg::connect_settings settings;
  settings.connect_timeout_s = options_.connect_timeout_s;
  // A heartbeat stuck longer than the lease is worthless: cancel it.
  settings.statement_timeout_ms = static_cast<int>(
      std::max<std::int64_t>(100, static_cast<std::int64_t>(options_.lease.count())));
  db_ = std::make_unique<pg::connection>(options_.url, settings, statements());
}

cluster_node::~cluster_node() {
  stop();
}

void cluster_node::start() {
  std::unique_lock lock(mutex_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { loop(); });
  wake_.wait(lock, [this] { return first_beat_done_ || stopping_; });
}

void cluster_node::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::optional<table_owner> cluster_node::owner_of(const std::string& name) const {
  const std::lock_guard lock(mutex_);
  const auto it = owners_.find(name);
  if (it == owners_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::pair<std::string, table_owner>> cluster_node::seat_of(
    const std::string& key) const {
  const std::lock_guard lock(mutex_);
  const auto it = seats_.find(key);
  if (it == seats_.end()) return std::nullopt;
  return it->second;
}

void cluster_node::claim(std::string name, std::function<void(std::optional<claimed_table>)> done) {
  {
    const std::lock_guard lock(mutex_);
    claims_.emplace_back(std::move(name), std::move(done));
  }
  wake_.notify_all();
}

bool cluster_node::enqueue(std::function<void(pg::connection*)> job) {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_ || jobs_.size() >= options_.queue) return false;
    jobs_.push_back(std::move(job));
  }
  wake_.notify_all();
  return true;
}

template <typename T>
void cluster_node::ask(std::string what, std::function<std::optional<T>(pg::connection&)> question,
                       std::function<void(std::optional<T>)> done) {
  auto answer = std::make_shared<std::function<void(std::optional<T>)>>(std::move(done));
  const bool queued = enqueue(
      [this, what = std::move(what), question = std::move(question), answer](pg::connection* db) {
        std::optional<T> out;
        if (db != nullptr) {
          try {
            out = question(*db);
          } catch (const std::exception& e) {
            spdlog::warn("cluster: cannot {}: {}", what, e.what());
            db_->drop();
            out.reset();
          }
        }
        (*answer)(std::move(out));
      });
  if (!queued) (*answer)(std::nullopt);
}

void cluster_node::locate(std::string name, bool claim_if_free,
                          std::function<void(std::optional<located_table>)> done) {
  ask<located_table>(
      "locate table " + name,
      [this, name, claim_if_free](pg::connection& db) -> std::optional<located_table> {
        if (claim_if_free) {
          const auto mine = db.run("claiming a new table", locate_claim_sql, {options_.node, name});
          if (mine.rows() != 0) return located_table{std::nullopt, mine.integer(0, 0), true};
        }
        const auto r =
            db.run("locating a table", locate_sql, {name, std::to_string(options_.lease.count())});
        if (r.rows() == 0) return located_table{};  // nobody's (claim_if_free false): made here
        if (r.text(0, 0) == options_.node)
          return located_table{std::nullopt, r.integer(0, 1), false, r.text(0, 5) == "t"};
        return located_table{owner_at(r, 0, 0, 2, 3, 4), 0, false};
      },
      std::move(done));
}

void cluster_node::find_seat(std::string key,
                             std::function<void(std::optional<seat_elsewhere>)> done) {
  ask<seat_elsewhere>(
      "read a name's seat",
      [this, key](pg::connection& db) -> std::optional<seat_elsewhere> {
        const auto r = db.run("finding a seat", seat_of_sql,
                              {key, options_.node, std::to_string(options_.lease.count())});
        seat_elsewhere out;
        if (r.rows() != 0) out.seat = std::make_pair(r.text(0, 0), owner_at(r, 0, 1, 2, 3, 4));
        return out;
      },
      std::move(done));
}

void cluster_node::take_back(std::string name,
                             std::function<void(std::optional<claimed_table>)> done) {
  ask<claimed_table>(
      "take table " + name + " back",
      [this, name](pg::connection&) -> std::optional<claimed_table> {
        // (claim_where works on db_, the cluster thread's connection: the one given.)
        auto got = claim_where(take_back_sql,
                               {options_.node, name, std::to_string(options_.lease.count())},
                               /*release_empty=*/false);
        if (got.empty()) return std::nullopt;
        return std::move(got.front());
      },
      std::move(done));
}

void cluster_node::release(std::string name) {
  enqueue([this, name](pg::connection* db) {
    if (db == nullptr) return;
    try {
      db->run("releasing a table", release_sql, {name, options_.node});
    } catch (const std::exception& e) {
      spdlog::warn("cluster: cannot release table {}: {}", name, e.what());
      db_->drop();
    }
  });
}

void cluster_node::loop() {
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    std::deque<std::pair<std::string, std::function<void(std::optional<claimed_table>)>>> asked;
    std::deque<std::function<void(pg::connection*)>> jobs;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_until(lock, next,
                       [this] { return stopping_ || !claims_.empty() || !jobs_.empty(); });
      if (stopping_) break;
      asked.swap(claims_);
      jobs.swap(jobs_);
    }
    if (std::chrono::steady_clock::now() >= next) {
      next = std::chrono::steady_clock::now() + options_.heartbeat;
      beat();
      {
        const std::lock_guard lock(mutex_);
        first_beat_done_ = true;
      }
      wake_.notify_all();
    }
    for (auto& [name, done] : asked) {
      std::optional<claimed_table> got;
      if (registered_) {
        try {
          auto claimed = claim_where(claim_one_sql,
                                     {options_.node, name, std::to_string(options_.lease.count())});
          if (!claimed.empty()) got = std::move(claimed.front());
        } catch (const std::exception& e) {
          spdlog::warn("cluster: cannot claim table {}: {}", name, e.what());
          db_->drop();
        }
      }
      try {
        done(std::move(got));
      } catch (const std::exception& e) {
        spdlog::error("cluster: after claiming table {}: {}", name, e.what());
      }
    }
    for (auto& job : jobs) {
      try {
        job(registered_ ? db_.get() : nullptr);
      } catch (const std::exception& e) {
        spdlog::error("cluster: a question to the cluster thread failed: {}", e.what());
      }
    }
  }
  // Wake no one still waiting for a claim; questions are answered "no answer".
  std::deque<std::pair<std::string, std::function<void(std::optional<claimed_table>)>>> left;
  std::deque<std::function<void(pg::connection*)>> jobs;
  {
    const std::lock_guard lock(mutex_);
    left.swap(claims_);
    jobs.swap(jobs_);
  }
  for (auto& [name, done] : left) done(std::nullopt);
  for (auto& job : jobs) job(nullptr);
}

void cluster_node::beat() {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string lease = std::to_string(options_.lease.count());
  // A node whose own lease ran out (paused, cut off) may have lost its tables: before
  // anything else it drops them all, then registers again.
  const auto fence = [&](const char* why) {
    spdlog::warn("cluster: node {}: {}: dropping every table and connection (4001)", options_.node,
                 why);
    ++fences_;
    registered_ = false;
    if (cb_.fenced) cb_.fenced();
  };
  if (registered_ && t0 - last_beat_ > options_.lease) fence("its lease expired");
  try {
    if (registered_) {
      const auto r =
          db_->run("renewing the heartbeat", heartbeat_sql, {options_.node, options_.path, lease});
      if (r.rows() == 0) fence("the database says its lease expired");
    }
    std::vector<claimed_table> claimed;
    if (!registered_) {
      db_->command("beginning the registration", "BEGIN");
      try {
        db_->run("registering the node", register_sql, {options_.node, options_.path});
        claimed = claim_where(reclaim_own_sql, {options_.node});
        db_->command("committing the registration", "COMMIT");
      } catch (...) {
        if (db_->connected()) {
          try {
            db_->command("rolling back", "ROLLBACK");
          } catch (const std::exception&) {
            db_->drop();
          }
        }
        throw;
      }
      registered_ = true;
      spdlog::info("cluster: node {} ({}) registered; {} table(s) of its own taken back",
                   options_.node, options_.path, claimed.size());
    }
    last_beat_ = t0;
    ++heartbeats_;
    // The sweep takes no more than this node may hold (a full node leaves the rest to
    // the others, or to a later sweep).
    const std::size_t room =
        std::min(options_.max_claims, cb_.room ? cb_.room() : options_.max_claims);
    std::vector<claimed_table> dead;
    std::vector<claimed_table> unowned;
    if (room > 0) dead = claim_where(claim_dead_sql, {options_.node, lease, std::to_string(room)});
    if (room > dead.size())
      unowned = claim_where(claim_unowned_sql, {options_.node, std::to_string(room - dead.size())});
    for (auto& t : dead) claimed.push_back(std::move(t));
    for (auto& t : unowned) claimed.push_back(std::move(t));
    if (!claimed.empty()) {
      claimed_ += claimed.size();
      spdlog::info("cluster: node {} claimed {} table(s)", options_.node, claimed.size());
      if (cb_.claimed) cb_.claimed(claimed);
    }
    refresh();
  } catch (const std::exception& e) {
    spdlog::warn("cluster: node {}: heartbeat failed: {}", options_.node, e.what());
    db_->drop();
  }
}

std::vector<claimed_table> cluster_node::claim_where(
    const char* statement, const std::vector<std::optional<std::string>>& params,
    bool release_empty) {
  // The claim and the reads of what is claimed see one state: nobody else writes these
  // tables once the claim commits (their old owner's writes are fenced).
  const bool own_transaction = statement != reclaim_own_sql;
  if (own_transaction) db_->command("beginning a claim", "BEGIN");
  std::vector<claimed_table> out;
  try {
    const auto r = db_->run("claiming tables", statement, params);
    for (int i = 0; i < r.rows(); ++i) {
      claimed_table t;
      t.saved.name = r.text(i, 0);
      t.epoch = r.integer(i, 1);
      const auto snap = db_->run("reading a claimed table", snapshot_sql, {t.saved.name});
      if (snap.rows() == 0 && !release_empty) {  // a new table, not written yet
        out.push_back(std::move(t));
        continue;
      }
      if (snap.rows() == 0) {  // an owner without a table: nothing to take over
        db_->run("releasing an empty claim", release_sql, {t.saved.name, options_.node});
        continue;
      }
      t.saved.snapshot = snap.text(0, 0);
      const auto journal = db_->run("reading a claimed journal", journal_sql, {t.saved.name});
      for (int j = 0; j < journal.rows(); ++j) t.saved.record_journal.push_back(journal.text(j, 0));
      out.push_back(std::move(t));
    }
    if (own_transaction) db_->command("committing a claim", "COMMIT");
  } catch (...) {
    if (own_transaction && db_->connected()) {
      try {
        db_->command("rolling back", "ROLLBACK");
      } catch (const std::exception&) {
        db_->drop();
      }
    }
    throw;
  }
  return out;
}

void cluster_node::refresh() {
  const std::string lease = std::to_string(options_.lease.count());
  const auto o = db_->run("reading the table owners", owners_sql, {options_.node, lease});
  const auto s = db_->run("reading the seats", seats_sql, {options_.node, lease});
  std::map<std::string, table_owner> owners;
  for (int i = 0; i < o.rows(); ++i) owners[o.text(i, 0)] = owner_at(o, i, 1, 2, 3, 4);
  std::map<std::string, std::pair<std::string, table_owner>> seats;
  for (int i = 0; i < s.rows(); ++i)
    seats[s.text(i, 0)] = {s.text(i, 1), owner_at(s, i, 2, 3, 4, 5)};
  const std::lock_guard lock(mutex_);
  owners_ = std::move(owners);
  seats_ = std::move(seats);
}

}  // namespace bg::server
