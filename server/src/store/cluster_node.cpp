#include "bg/server/store/cluster_node.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <utility>

#include "pg_connection.hpp"

namespace bg::server {

namespace {

constexpr const char* heartbeat_sql = "cluster_heartbeat";
constexpr const char* register_sql = "cluster_register";
constexpr const char* reclaim_own_sql = "cluster_reclaim_own";
constexpr const char* claim_dead_sql = "cluster_claim_dead";
constexpr const char* claim_unowned_sql = "cluster_claim_unowned";
constexpr const char* claim_one_sql = "cluster_claim_one";
constexpr const char* release_sql = "cluster_release";
constexpr const char* snapshot_sql = "cluster_snapshot";
constexpr const char* journal_sql = "cluster_journal";
constexpr const char* owners_sql = "cluster_owners";
constexpr const char* seats_sql = "cluster_seats";

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
      {release_sql, "DELETE FROM table_owners WHERE table_name = $1 AND node = $2"},
      {snapshot_sql, "SELECT snapshot FROM tables WHERE name = $1"},
      {journal_sql, "SELECT entry FROM table_records WHERE table_name = $1 ORDER BY id"},
      {owners_sql,
       "SELECT o.table_name, o.node, coalesce(n.path, ''), coalesce(n.heartbeat_at > now() "
       "- " LEASE(
           2) ", false) FROM table_owners o LEFT JOIN cluster_nodes n ON n.id = o.node WHERE "
              "o.node <> $1"},
      {seats_sql,
       "SELECT s.name_key, s.table_name, o.node, coalesce(n.path, ''), coalesce(n.heartbeat_at > "
       "now() - " LEASE(2) ", false) FROM table_seats s JOIN table_owners o ON o.table_name = "
                           "s.table_name LEFT JOIN cluster_nodes n ON n.id = o.node WHERE o.node "
                           "<> $1"},
  };
}

#undef LEASE

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

void cluster_node::loop() {
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    std::deque<std::pair<std::string, std::function<void(std::optional<claimed_table>)>>> asked;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_until(lock, next, [this] { return stopping_ || !claims_.empty(); });
      if (stopping_) break;
      asked.swap(claims_);
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
  }
  // Wake no one still waiting for a claim.
  std::deque<std::pair<std::string, std::function<void(std::optional<claimed_table>)>>> left;
  {
    const std::lock_guard lock(mutex_);
    left.swap(claims_);
  }
  for (auto& [name, done] : left) done(std::nullopt);
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
    const char* statement, const std::vector<std::optional<std::string>>& params) {
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
  for (int i = 0; i < o.rows(); ++i)
    owners[o.text(i, 0)] = table_owner{o.text(i, 1), o.text(i, 2), o.text(i, 3) == "t"};
  std::map<std::string, std::pair<std::string, table_owner>> seats;
  for (int i = 0; i < s.rows(); ++i)
    seats[s.text(i, 0)] = {s.text(i, 1),
                           table_owner{s.text(i, 2), s.text(i, 3), s.text(i, 4) == "t"}};
  const std::lock_guard lock(mutex_);
  owners_ = std::move(owners);
  seats_ = std::move(seats);
}

}  // namespace bg::server
