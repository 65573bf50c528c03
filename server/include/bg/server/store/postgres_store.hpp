#pragma once
/// @file postgres_store.hpp
/// The PostgreSQL implementation of store (store.hpp), through libpq.

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bg/server/records/match_record.hpp"
#include "bg/server/store/store.hpp"

namespace bg::server {

namespace pg {
class connection;
}

/// How a postgres_store connects (gammond's --db-connect-timeout,
/// --db-statement-timeout, --sync, --db-id-block).
struct postgres_options {
  /// libpq's connect_timeout: how long opening a connection may take, in seconds.
  int connect_timeout_s = 10;
  /// The session's statement_timeout in milliseconds: a statement running longer is
  /// cancelled and its write fails with storage_error. 0: no limit.
  int statement_timeout_ms = 30000;
  /// The session's synchronous_commit: on for sync_mode::full (a commit is on the
  /// server's disk, and on its synchronous standbys if any, before it returns), off for
  /// sync_mode::normal (a crash of the PostgreSQL server may lose the last commits of
  /// the last few hundred milliseconds, never half of one).
  sync_mode sync = sync_mode::full;
  /// How many match ids one refill takes from the `match_ids` sequence (see
  /// reserve_match_id()); at least 2.
  std::size_t id_block = 1000;
  /// Cluster (issue 16): this node's id (--node-id); empty: a single node, no fencing.
  std::string node;
  /// Cluster: the lease in milliseconds (--lease): a node whose heartbeat is older is dead.
  std::int64_t lease_ms = 5000;
};

/// A table write refused by the fencing check (postgres_store::write_tables): this node
/// does not own the table at the epoch it claimed, or its own lease expired.
class fenced_write : public storage_error {
 public:
  using storage_error::storage_error;
};

/// A new table's first write found it claimed by another live node (two of its players
/// reached two nodes at once): refused like a stale write, but no stale node wrote it.
class claim_lost : public fenced_write {
 public:
  using fenced_write::fenced_write;
};

/// A PostgreSQL database reached by a libpq URL (`postgresql://user@host:port/db`).
/// Thread-safe: one connection behind a mutex, opened again when it breaks.
///
/// Schema (in the connection's current schema, normally `public`; versions in
/// `schema_version(version, applied_at)`, migrations applied at open in one
/// transaction under an advisory lock, so several gammond processes may open a new
/// database at once):
/// - `tables(name text PRIMARY KEY, snapshot json, updated_at timestamptz)`
/// - `table_records(id bigint identity PRIMARY KEY, table_name text, entry json)`: the
///   record journal of each table's match in progress, in id order
/// - `matches(id bigint PRIMARY KEY, table_name, red, black text, options json,
///   record json (record_json.hpp), started_at, ended_at text (ISO 8601, as in the
///   record), score_red, score_black, games integer, saved_at timestamptz)`
/// - the sequence `match_ids`, from which reserve_match_id() takes blocks.
/// - `analyses(match_id bigint PRIMARY KEY REFERENCES matches, status text, level text,
///   result json, reason text, queued_at, finished_at timestamptz)`: each finished
///   match's analysis by GNU Backgammon (version 2); times read back as ISO 8601 UTC
///   text with milliseconds, as SQLite writes them.
/// - `accounts(id bigint identity PRIMARY KEY, name_key text UNIQUE, name, kind
///   ('player'|'bot'), password_hash (NULL for a bot), created_at, last_seen
///   timestamptz)`, `ratings(account_id, variant, rating double precision, experience,
///   played, won integer)` and `account_matches(account_id, match_id, side, opponent,
///   won boolean, rating_before, rating_after double precision, experience_before,
///   experience_after integer)` (RULES.md S1; version 3). A match's ratings are read
///   with FOR UPDATE in the transaction that archives it, so two gammond rating the
///   same account at once do not lose a change.
/// - `moderation(id identity, at timestamptz, action, actor, target, table_name, detail)`:
///   every moderation action; `bans(name_key, address ('' for the name itself), name,
///   banned_by, created_at, until_ms bigint (ms since the Unix epoch; NULL: until
///   /unban))`; `ignores(account_id, ignored_key, ignored_name, created_at)`;
///   `matches.unfinished boolean` (a match an administrator closed) (issue 13; version 4,
///   SQLite's version 5).
/// - The cluster (issue 16; version 5): `cluster_nodes(id text PRIMARY KEY, path text,
///   heartbeat_at, started_at timestamptz)` (by the database's clock),
///   `table_owners(table_name text PRIMARY KEY, node text, epoch bigint)`,
///   `table_seats(table_name, name_key)` (who holds a seat where, rewritten with each
///   snapshot) and `table_records.node`, `table_records.epoch` (who wrote each entry).
/// - `analyses.red_equity_lost`, `black_equity_lost` double precision, `red_decisions`,
///   `black_decisions` integer: each side's PR sums (RULES.md S7) of a done analysis,
///   NULL otherwise; the analyses done before were filled in from their results by the
///   migration (version 8, SQLite's version 7).
/// `json` (not `jsonb`) keeps every text exactly as written. Names sort bytewise
/// (COLLATE "C"), as in SQLite. Every failure throws storage_error carrying
/// PostgreSQL's message (never the URL's password).
///
/// A lost connection: the call that finds it fails with storage_error (a batch of
/// writes then fails as a whole: nothing of it is half-applied, since PostgreSQL rolls
/// back a transaction whose connection is gone) and the next call connects again. A
/// read, or a batch whose BEGIN found the connection broken, is retried once at once
/// on a new connection (nothing of it had reached the server).
class postgres_store final : public store {
 public:
  /// The schema version this build writes (the highest in `schema_version`).
  static constexpr int schema_version = 9;

  /// Connects to `url` and creates or upgrades the schema. Throws storage_error when
  /// PostgreSQL cannot be reached in `options.connect_timeout_s`, refuses the login,
  /// or the database has a newer schema version.
  postgres_store(std::string url, const postgres_options& options = {});
  ~postgres_store() override;
  postgres_store(const postgres_store&) = delete;
  postgres_store& operator=(const postgres_store&) = delete;

  /// Writes every change in `writes` (in order) in one transaction: a group commit.
  /// With a node id (postgres_options::node): each write first checks, in the same
  /// transaction, that this node's heartbeat is within the lease and that it owns the
  /// table at the write's epoch (its `table_owners` row locked FOR SHARE, so a claim by
  /// another node waits for this commit, or this check sees the claim); epoch 0 claims
  /// the table when it has no owner or its owner is dead. A write failing the check is
  /// refused with write_outcome::fenced. Journal rows carry the node and epoch. In a
  /// cluster the writes run in table-name order (each table's own in theirs), so that
  /// nodes lock ownership rows in one order; a batch PostgreSQL gives up for a deadlock
  /// or a serialization failure is run again whole, up to 3 times, then each write's
  /// outcome carries that error.
  /// Each write has a savepoint (a batch of one needs none): a failing write is undone
  /// alone, all of it (snapshot, journal, match, analysis, history, ratings), and its
  /// outcome says why; the others are committed. Throws storage_error when the
  /// transaction itself fails (the connection is lost, COMMIT fails): then nothing was
  /// written. The one place that writes tables (delete_table() is a drop here too), so
  /// that a cluster's ownership check can go in it.
  std::vector<write_outcome> write_tables(const std::vector<table_write>& writes) override;
  /// write_tables() of one drop.
  void delete_table(std::string_view name) override;
  [[nodiscard]] std::vector<saved_table> load_tables() override;
  [[nodiscard]] std::optional<saved_table> load_table(std::string_view name) override;

  /// An id from memory: ids come in blocks of `id_block` from the `match_ids`
  /// sequence, taken on the storage thread (in write_tables() and the other calls that
  /// reach the database) whenever fewer than half a block are left, so a table's strand
  /// never waits for the database. Ids are never reused and are unique among every
  /// gammond sharing the database; gaps are allowed. Only when a whole block was handed
  /// out between two storage calls is one taken here (logged as a warning).
  [[nodiscard]] std::int64_t reserve_match_id() override;
  std::int64_t save_match(const match_record& record) override;
  [[nodiscard]] std::optional<match_record> load_match(std::int64_t id) override;
  [[nodiscard]] std::int64_t match_count() override;

  [[nodiscard]] std::optional<analysis_record> load_analysis(std::int64_t match_id) override;
  void save_analysis(const analysis_record& a) override;
  [[nodiscard]] std::vector<std::int64_t> pending_analyses(std::size_t limit) override;

  std::optional<account> create_account(const std::string& key, const std::string& name,
                                        account::kind what,
                                        const std::string& password_hash) override;
  [[nodiscard]] std::optional<account> find_account(std::string_view key) override;
  bool set_password_hash(std::string_view key, const std::string& password_hash) override;
  void set_last_seen(std::string_view key) override;
  void set_account_lang(std::string_view key, const std::string& lang) override;
  [[nodiscard]] std::vector<std::string> account_keys() override;
  bool move_name_key(std::string_view from, std::string_view to) override;
  [[nodiscard]] std::vector<account_match> account_matches(std::string_view key,
                                                           std::int64_t before_id,
                                                           std::size_t limit) override;
  [[nodiscard]] std::vector<leaderboard_entry> leaderboard(
      engine::variant v, std::size_t limit,
      leaderboard_order order = leaderboard_order::rating) override;
  [[nodiscard]] performance_sums account_performance(std::string_view key,
                                                     std::string_view since) override;

  void record_moderation(const moderation_action& a) override;
  void save_bans(const std::vector<ban>& bans, const moderation_action& a) override;
  std::size_t lift_bans(std::string_view name_key, const moderation_action& a) override;
  [[nodiscard]] std::vector<ban> active_bans(std::int64_t now_ms) override;
  [[nodiscard]] std::vector<std::string> ignored_by(std::string_view key) override;
  /// Idempotent, so retried once on a new connection when the old one was lost.
  void set_ignored(std::string_view key, const std::string& ignored_key,
                   const std::string& ignored_name, bool on) override;
  std::int64_t create_session(std::string_view key, const std::string& token_hash,
                              const std::string& label, std::int64_t now_ms,
                              std::int64_t expires_ms, std::size_t keep) override;
  std::optional<login_session> use_session(const std::string& token_hash, std::int64_t now_ms,
                                           std::int64_t expires_ms) override;
  [[nodiscard]] std::vector<login_session> sessions_of(std::string_view key,
                                                       std::int64_t now_ms) override;
  std::size_t end_sessions(std::string_view key, std::int64_t id) override;

  /// The session's synchronous_commit as the server reports it ("on" or "off").
  [[nodiscard]] std::string synchronous_commit();
  /// The server's version as it reports it (`server_version`, e.g. "15.18 (Debian ...)").
  [[nodiscard]] std::string server_version();
  /// How many times the connection was opened again after it broke.
  [[nodiscard]] std::uint64_t reconnections();

 private:
  void migrate();
  void refill_ids();  ///< mutex_ held; a block when fewer than half left
  void take_block();  ///< mutex_ held; one block from the sequence
  class writer;       ///< one table write's statements (store/postgres/postgres_store.cpp)
  /// Inside a transaction, mutex_ held: one write (after the fencing check in a cluster,
  /// which sets `epoch`); a rated match's ratings.
  std::optional<std::array<rating_change, 2>> write_one(const table_write& w, std::int64_t& epoch);
  /// Inside a transaction, mutex_ held: a batch's only write, with no savepoint. False
  /// when it failed: `outcome` says why and the transaction is rolled back. Throws
  /// pg::connection_lost and pg::conflict (the batch's business).
  bool write_alone(const table_write& w, write_outcome& outcome);
  /// Inside a transaction, mutex_ held: the writes of a batch in `order`, each with a
  /// savepoint: a failing one is undone alone and its outcome says why. Throws
  /// pg::connection_lost and pg::conflict (the batch's business).
  void write_each(const std::vector<table_write>& writes, const std::vector<std::size_t>& order,
                  std::vector<write_outcome>& outcomes);
  std::optional<account> find_account_locked(std::string_view key);  ///< mutex_ held
  void insert_match(std::int64_t id, const match_record& record);    ///< mutex_ held
  void insert_moderation(const moderation_action& a);                ///< mutex_ held
  void begin();  ///< mutex_ held; BEGIN, retried once
  template <typename F>
  auto read(F&& f);  ///< mutex_ held; f(), retried once

  std::mutex mutex_;  ///< guards db_
  std::unique_ptr<pg::connection> db_;
  std::size_t id_block_;
  std::string node_;       ///< postgres_options::node
  std::int64_t lease_ms_;  ///< postgres_options::lease_ms
  /// Inside a transaction, mutex_ held: the fencing check of one cluster write; returns
  /// the epoch owned. Throws fenced_write.
  std::int64_t check_owner(const table_write& w);
  std::mutex ids_mutex_;  ///< guards ids_ (never held during I/O)
  std::deque<std::int64_t> ids_;
};

}  // namespace bg::server
