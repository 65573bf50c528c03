#include "bg/server/store/postgres_store.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <utility>

#include "postgres_schema.hpp"
#include "postgres_statements.hpp"
#include "store/store_core.hpp"

namespace bg::server {

namespace {

using namespace pg::names;

pg::connect_settings settings_of(const postgres_options& options) {
  return {options.connect_timeout_s, options.statement_timeout_ms,
          options.sync == sync_mode::full ? "on" : "off"};
}

/// ROLLBACK after a failure, when the connection still stands (a lost connection has
/// no transaction left to roll back).
void roll_back(pg::connection& db) noexcept {
  if (!db.connected()) return;
  try {
    db.command("rolling back", "ROLLBACK");
  } catch (const storage_error&) {
    db.drop();  // in an unknown state: start afresh
  }
}

/// The outcome of a write refused with `e`: its message, and whether the fencing check
/// refused it (fenced_write) because another live node claimed the table first
/// (claim_lost).
write_outcome refused(const storage_error& e) {
  const bool fenced = dynamic_cast<const fenced_write*>(&e) != nullptr;
  const bool lost = dynamic_cast<const claim_lost*>(&e) != nullptr;
  return write_outcome{e.what(), std::nullopt, fenced, lost, 0};
}

/// The order in which a batch's writes run: as given, or, in a cluster (`by_name`), in
/// table-name order (a table's own writes keep theirs), so that every node's
/// transactions lock the rows of table_owners and table_seats in one order.
std::vector<std::size_t> write_order(const std::vector<table_write>& writes, bool by_name) {
  std::vector<std::size_t> order(writes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (by_name)
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return writes[x].name < writes[y].name; });
  return order;
}

}  // namespace

/// The statements of one table write (store_core::write_table) on a postgres_store, its
/// mutex held and its transaction open, at the epoch its fencing check found (0 without
/// a cluster).
class postgres_store::writer final : public store_core::table_writer {
 public:
  writer(postgres_store& store, std::int64_t epoch) noexcept
      : store_(store), db_(*store.db_), epoch_(epoch) {}

  // FOR UPDATE (in the statement): another gammond rating the same account waits for
  // this archive.
  std::optional<store_core::match_player> rating_of(const std::string& key,
                                                    std::string_view variant) override {
    const auto r = db_.run("reading a rating", rating_of_sql, {key, std::string(variant)});
    if (r.rows() == 0) return std::nullopt;  // no such account: a guest
    return store_core::match_player{
        r.integer(0, 0), r.text(0, 1),
        rating_standing{r.real(0, 2), static_cast<int>(r.integer(0, 3))}};
  }
  void insert_match(const match_record& record) override { store_.insert_match(record.id, record); }
  void update_standing(const store_core::standing_update& update) override {
    db_.run(
        "updating a rating", update_rating_sql,
        {std::to_string(update.account_id), std::string(update.variant),
         pg::real_text(update.rating), std::to_string(update.experience), update.won ? "1" : "0"});
  }
  void insert_history(const store_core::history_entry& entry) override {
    std::array<pg::param, 4> change;  // NULL unless rated
    if (const auto& r = entry.rating)
      change = {pg::real_text(r->before), pg::real_text(r->after),
                std::to_string(r->experience_before), std::to_string(r->experience_after)};
    db_.run("recording a match in an account's history", insert_account_match_sql,
            {std::to_string(entry.account_id), std::to_string(entry.match_id),
             std::string(engine::to_string(entry.side)), entry.opponent,
             entry.won ? pg::param{*entry.won ? "true" : "false"} : pg::param{}, change[0],
             change[1], change[2], change[3]});
  }
  void queue_analysis(std::int64_t match_id) override {
    db_.run("queueing the analysis of match " + std::to_string(match_id), queue_analysis_sql,
            {std::to_string(match_id)});
  }
  void save_table(const table_write& w) override {
    const bool cluster = !store_.node_.empty();
    db_.run("saving table " + w.name, save_table_sql,
            {w.name, w.snapshot, w.reset_record ? "true" : "false",
             pg::text_array(w.record_entries), cluster ? pg::param{store_.node_} : pg::param{},
             cluster ? pg::param{std::to_string(epoch_)} : pg::param{}});
    if (cluster)
      db_.run("saving the seats of table " + w.name, save_seats_sql,
              {w.name, pg::text_array(w.seat_keys)});
  }
  void drop_table(const table_write& w) override {
    db_.run("deleting table " + w.name, drop_table_sql, {w.name});
    if (!store_.node_.empty())
      db_.run("releasing table " + w.name, drop_owner_sql, {w.name, store_.node_});
  }
  void insert_moderation(const moderation_action& a) override { store_.insert_moderation(a); }

 private:
  postgres_store& store_;
  pg::connection& db_;
  std::int64_t epoch_;
};

postgres_store::postgres_store(std::string url, const postgres_options& options)
    : db_(std::make_unique<pg::connection>(std::move(url), settings_of(options),
                                           pg::store_statements())),
      id_block_(options.id_block < 2 ? 2 : options.id_block),
      node_(options.node),
      lease_ms_(options.lease_ms) {
  db_->ensure();
  migrate();
  const std::lock_guard lock(mutex_);
  take_block();
}

postgres_store::~postgres_store() = default;

void postgres_store::migrate() {
  const std::lock_guard lock(mutex_);
  db_->command("beginning the schema migration", "BEGIN");
  try {
    // The lock first: a second gammond opening the same new database waits here and
    // then finds the schema made.
    db_->exec("waiting for the schema lock", pg::migration_lock);
    db_->command("creating schema_version",
                 "CREATE TABLE IF NOT EXISTS schema_version(version integer PRIMARY KEY, "
                 "applied_at timestamptz NOT NULL DEFAULT now())");
    const auto version = db_->exec("reading the schema version",
                                   "SELECT coalesce(max(version), 0) FROM schema_version")
                             .integer(0, 0);
    if (version > schema_version)
      throw storage_error("the database " + db_->masked_url() + " has schema version " +
                          std::to_string(version) + ", newer than this gammond's " +
                          std::to_string(schema_version));
    for (auto v = version; v < schema_version; ++v) {
      db_->command("migrating the schema", pg::migrations()[static_cast<std::size_t>(v)]);
      db_->exec("recording the schema version",
                "INSERT INTO schema_version(version) VALUES ($1::integer)",
                {std::to_string(v + 1)});
    }
    db_->command("committing the schema migration", "COMMIT");
  } catch (...) {
    roll_back(*db_);
    throw;
  }
}

template <typename F>
auto postgres_store::read(F&& f) {
  try {
    db_->ensure();
    return f();
  } catch (const pg::connection_lost& e) {
    spdlog::warn("{}; connecting again", e.what());
    return f();  // ensure() inside reconnects
  }
}

void postgres_store::begin() {
  try {
    db_->command("beginning a transaction", "BEGIN");
  } catch (const pg::connection_lost& e) {
    // Nothing of the batch reached the server: safe to start it on a new connection.
    spdlog::warn("{}; connecting again", e.what());
    db_->command("beginning a transaction", "BEGIN");
  }
}

void postgres_store::take_block() {
  auto r = read(
      [&] { return db_->run("reserving match ids", take_ids_sql, {std::to_string(id_block_)}); });
  std::vector<std::int64_t> block;
  block.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) block.push_back(r.integer(i, 0));
  const std::lock_guard ids(ids_mutex_);
  ids_.insert(ids_.end(), block.begin(), block.end());
}

void postgres_store::refill_ids() {
  {
    const std::lock_guard ids(ids_mutex_);
    if (ids_.size() >= id_block_ / 2) return;
  }
  take_block();
}

std::int64_t postgres_store::reserve_match_id() {
  {
    const std::lock_guard ids(ids_mutex_);
    if (!ids_.empty()) {
      const auto id = ids_.front();
      ids_.pop_front();
      return id;
    }
  }
  // A whole block went between two storage calls: take one here (rare; see --db-id-block).
  spdlog::warn(
      "match ids ran out between two writes: taking a block of {} on a table's thread "
      "(raise --db-id-block)",
      id_block_);
  const std::lock_guard lock(mutex_);
  take_block();
  const std::lock_guard ids(ids_mutex_);
  const auto id = ids_.front();
  ids_.pop_front();
  return id;
}

void postgres_store::insert_match(std::int64_t id, const match_record& record) {
  const auto row = store_core::match_row_of(id, record);
  db_->run(
      "saving match " + std::to_string(id), insert_match_sql,
      {std::to_string(row.id), row.table, row.red, row.black, row.options, row.record,
       row.started_at, row.ended_at, std::to_string(row.score_red), std::to_string(row.score_black),
       std::to_string(row.games), row.unfinished ? "true" : "false"});
}

void postgres_store::insert_moderation(const moderation_action& a) {
  db_->run("logging a moderation action", record_moderation_sql,
           {a.action, a.actor, a.target, a.table, a.detail});
}

std::int64_t postgres_store::check_owner(const table_write& w) {
  const std::string lease = std::to_string(lease_ms_);
  if (db_->run("checking this node's lease", own_lease_sql, {node_, lease}).rows() == 0)
    throw fenced_write("node " + node_ + ": its heartbeat lease expired: table " + w.name +
                       " not written");
  if (w.epoch == 0) {
    const auto r = db_->run("claiming table " + w.name, claim_new_sql, {w.name, node_, lease});
    if (r.rows() == 0)
      throw claim_lost("table " + w.name + " is owned by another live node: not written");
    return r.integer(0, 0);
  }
  const auto r = db_->run("checking the owner of table " + w.name, check_owner_sql,
                          {w.name, node_, std::to_string(w.epoch)});
  if (r.rows() == 0)
    throw fenced_write("table " + w.name + " was taken over from node " + node_ + " (epoch " +
                       std::to_string(w.epoch) + "): a stale write, not written");
  return w.epoch;
}

std::optional<std::array<rating_change, 2>> postgres_store::write_one(const table_write& w,
                                                                      std::int64_t& epoch) {
  if (!node_.empty()) epoch = check_owner(w);
  writer write(*this, epoch);
  return store_core::write_table(w, write);
}

bool postgres_store::write_alone(const table_write& w, write_outcome& outcome) {
  try {
    outcome.ratings = write_one(w, outcome.epoch);
    return true;
  } catch (const pg::connection_lost&) {
    throw;
  } catch (const pg::conflict&) {
    throw;
  } catch (const storage_error& e) {
    outcome = refused(e);
    roll_back(*db_);
    return false;
  }
}

void postgres_store::write_each(const std::vector<table_write>& writes,
                                const std::vector<std::size_t>& order,
                                std::vector<write_outcome>& outcomes) {
  for (const auto i : order) {
    db_->command("setting a savepoint", "SAVEPOINT one_table");
    try {
      outcomes[i].ratings = write_one(writes[i], outcomes[i].epoch);
      db_->command("releasing a savepoint", "RELEASE SAVEPOINT one_table");
    } catch (const pg::connection_lost&) {
      throw;
    } catch (const pg::conflict&) {
      throw;  // the transaction's locks are the deadlock's: start it again
    } catch (const storage_error& e) {
      outcomes[i] = refused(e);
      db_->command("undoing a failed write", "ROLLBACK TO SAVEPOINT one_table");
    }
  }
}

std::vector<write_outcome> postgres_store::write_tables(const std::vector<table_write>& writes) {
  std::vector<write_outcome> outcomes(writes.size());
  if (writes.empty()) return outcomes;
  const std::lock_guard lock(mutex_);
  try {
    refill_ids();
  } catch (const storage_error& e) {
    // Not this batch's business: the pool still has ids, the next call tries again.
    spdlog::warn("cannot reserve match ids now: {}", e.what());
  }
  // Issue 16: in a cluster every node's group commit claims and locks rows of
  // table_owners and table_seats. Written in table-name order (a table's own writes keep
  // theirs), all transactions take those locks in one order, so two nodes' batches do
  // not deadlock over them (they did, at set-up, and the loser's new table was left
  // unwritten). What PostgreSQL still gives up (pg::conflict: a deadlock with other rows,
  // a serialization failure) took no effect: the whole batch runs again.
  const auto order = write_order(writes, !node_.empty());
  constexpr int attempts = 3;
  for (int attempt = 1;; ++attempt) {
    std::fill(outcomes.begin(), outcomes.end(), write_outcome{});
    begin();
    try {
      if (writes.size() == 1) {
        // A batch of one needs no savepoint: its failure is the transaction's.
        if (!write_alone(writes.front(), outcomes.front())) return outcomes;
      } else {
        write_each(writes, order, outcomes);
      }
      db_->command("committing", "COMMIT");
      return outcomes;
    } catch (const pg::conflict& e) {
      roll_back(*db_);
      if (attempt < attempts) {
        spdlog::warn("{}: writing the batch of {} again (attempt {} of {})", e.what(),
                     writes.size(), attempt + 1, attempts);
        continue;
      }
      // Nothing of the batch was written: each table goes back to its last written state.
      for (auto& o : outcomes) o = write_outcome{e.what(), std::nullopt};
      return outcomes;
    } catch (...) {
      roll_back(*db_);
      throw;
    }
  }
}

void postgres_store::delete_table(std::string_view name) {
  table_write drop;
  drop.name = std::string(name);
  drop.drop = true;
  const auto errors = save_tables({std::move(drop)});
  if (!errors.front().empty()) throw storage_error(errors.front());
}

std::vector<saved_table> postgres_store::load_tables() {
  const std::lock_guard lock(mutex_);
  // Both reads see one committed state.
  auto [tables, records] = read([&] {
    db_->command("beginning a read", "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      auto t = db_->run("loading tables", load_tables_sql);
      auto r = db_->run("loading the record journals", load_records_sql);
      db_->command("ending a read", "COMMIT");
      return std::pair{std::move(t), std::move(r)};
    } catch (...) {
      roll_back(*db_);
      throw;
    }
  });
  std::vector<saved_table> out;
  out.reserve(static_cast<std::size_t>(tables.rows()));
  for (int i = 0; i < tables.rows(); ++i)
    out.push_back(saved_table{tables.text(i, 0), tables.text(i, 1), {}});
  // Both lists are in bytewise name order: one merge pass attaches each journal to its
  // table (journals of tables without a snapshot are ignored).
  store_core::journal_merge journals(out);
  for (int i = 0; i < records.rows(); ++i) journals.add(records.text(i, 0), records.text(i, 1));
  try {
    refill_ids();
  } catch (const storage_error& e) {
    spdlog::warn("cannot reserve match ids now: {}", e.what());
  }
  return out;
}

std::optional<saved_table> postgres_store::load_table(std::string_view name) {
  const std::lock_guard lock(mutex_);
  const std::string key(name);
  return read([&]() -> std::optional<saved_table> {
    db_->command("beginning a read", "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      const auto t = db_->run("loading table " + key, load_table_sql, {key});
      if (t.rows() == 0) {
        db_->command("ending a read", "COMMIT");
        return std::nullopt;
      }
      saved_table out{key, t.text(0, 0), {}};
      const auto r =
          db_->run("loading the record journal of table " + key, load_table_records_sql, {key});
      db_->command("ending a read", "COMMIT");
      out.record_journal.reserve(static_cast<std::size_t>(r.rows()));
      for (int i = 0; i < r.rows(); ++i) out.record_journal.push_back(r.text(i, 0));
      return out;
    } catch (...) {
      roll_back(*db_);
      throw;
    }
  });
}

std::int64_t postgres_store::save_match(const match_record& record) {
  const std::int64_t id = reserve_match_id();
  const std::lock_guard lock(mutex_);
  insert_match(id, record);  // one statement: its own transaction
  return id;
}

std::optional<match_record> postgres_store::load_match(std::int64_t id) {
  std::string text;
  {
    const std::lock_guard lock(mutex_);
    const auto r = read([&] {
      return db_->run("loading match " + std::to_string(id), load_match_sql, {std::to_string(id)});
    });
    if (r.rows() == 0) return std::nullopt;
    text = r.text(0, 0);
  }
  return store_core::match_of(id, text);
}

std::int64_t postgres_store::match_count() {
  const std::lock_guard lock(mutex_);
  return read([&] { return db_->run("counting matches", match_count_sql); }).integer(0, 0);
}

std::optional<analysis_record> postgres_store::load_analysis(std::int64_t match_id) {
  const std::lock_guard lock(mutex_);
  const auto r = read([&] {
    return db_->run("loading the analysis of match " + std::to_string(match_id), load_analysis_sql,
                    {std::to_string(match_id)});
  });
  if (r.rows() == 0) return std::nullopt;
  return store_core::analysis_of(match_id, pg::result_row(r, 0));
}

void postgres_store::save_analysis(const analysis_record& a) {
  const std::lock_guard lock(mutex_);
  // S7: each side's PR sums, NULL unless done.
  std::array<pg::param, 4> sums{};
  if (const auto s = store_core::analysis_pr_sums(a)) {
    sums = {pg::real_text((*s)[0].equity_lost), std::to_string((*s)[0].decisions),
            pg::real_text((*s)[1].equity_lost), std::to_string((*s)[1].decisions)};
  }
  // One statement: its own transaction (not retried: it may have run).
  db_->run("saving the analysis of match " + std::to_string(a.match_id), save_analysis_sql,
           {std::to_string(a.match_id), std::string(to_string(a.status)), a.level,
            a.result.empty() ? pg::param{} : pg::param{a.result}, a.reason, sums[0], sums[1],
            sums[2], sums[3]});
}

std::vector<std::int64_t> postgres_store::pending_analyses(std::size_t limit) {
  const std::lock_guard lock(mutex_);
  const auto most = store_core::analysis_limit(limit);
  const auto r = read([&] {
    return db_->run("listing the pending analyses", pending_analyses_sql, {std::to_string(most)});
  });
  std::vector<std::int64_t> ids;
  ids.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) ids.push_back(r.integer(i, 0));
  return ids;
}

std::optional<account> postgres_store::create_account(const std::string& key,
                                                      const std::string& name, account::kind what,
                                                      const std::string& password_hash) {
  store_core::check_new_account(what, password_hash);
  const std::lock_guard lock(mutex_);
  begin();
  try {
    const auto made =
        db_->run("registering " + name, insert_account_sql,
                 {key, name, std::string(to_string(what)),
                  what == account::kind::player ? pg::param{password_hash} : pg::param{}});
    if (made.rows() == 0) {  // the key is registered already
      roll_back(*db_);
      return std::nullopt;
    }
    db_->run("rating " + name, insert_rating_sql, {made.text(0, 0)});
    auto out = find_account_locked(key);
    db_->command("committing", "COMMIT");
    return out;
  } catch (...) {
    roll_back(*db_);
    throw;
  }
}

std::optional<account> postgres_store::find_account_locked(std::string_view key) {
  const std::string k(key);
  const auto r = db_->run("finding an account", find_account_sql, {k});
  if (r.rows() == 0) return std::nullopt;
  account a = store_core::account_of(pg::result_row(r, 0));
  const auto st = db_->run("reading ratings", account_ratings_sql, {std::to_string(a.id)});
  for (int i = 0; i < st.rows(); ++i) store_core::add_standing(a, pg::result_row(st, i));
  return a;
}

std::optional<account> postgres_store::find_account(std::string_view key) {
  const std::lock_guard lock(mutex_);
  return read([&] { return find_account_locked(key); });
}

bool postgres_store::set_password_hash(std::string_view key, const std::string& password_hash) {
  store_core::check_password_hash(password_hash);
  const std::lock_guard lock(mutex_);
  db_->ensure();
  return db_->run("changing a password", set_password_sql, {std::string(key), password_hash})
             .rows() > 0;
}

void postgres_store::set_last_seen(std::string_view key) {
  const std::lock_guard lock(mutex_);
  // Idempotent: safe to redo on a new connection.
  (void)read([&] {
    return db_->run("recording when a player was last seen", set_last_seen_sql, {std::string(key)});
  });
}

void postgres_store::set_account_lang(std::string_view key, const std::string& lang) {
  const std::lock_guard lock(mutex_);
  // Idempotent: safe to redo on a new connection.
  (void)read([&] {
    return db_->run("recording a player's language", set_account_lang_sql,
                    {std::string(key), lang});
  });
}

bool postgres_store::move_name_key(std::string_view from, std::string_view to) {
  const std::lock_guard lock(mutex_);
  begin();
  try {
    const std::vector<pg::param> keys{std::string(from), std::string(to)};
    if (db_->exec("reading an account's key",
                  "SELECT 1 FROM accounts WHERE name_key = $1 FOR UPDATE", {std::string(to)})
            .rows() > 0) {
      db_->command("rolling back", "ROLLBACK");
      return false;
    }
    db_->exec("moving a name's key", "UPDATE accounts SET name_key = $2 WHERE name_key = $1", keys);
    // A ban or an ignore list's entry already under the new key wins over the old one.
    db_->exec("moving a name's key",
              "DELETE FROM bans b WHERE b.name_key = $1 AND EXISTS (SELECT 1 FROM bans n WHERE "
              "n.name_key = $2 AND n.address = b.address)",
              keys);
    db_->exec("moving a name's key", "UPDATE bans SET name_key = $2 WHERE name_key = $1", keys);
    db_->exec("moving a name's key",
              "DELETE FROM ignores i WHERE i.ignored_key = $1 AND EXISTS (SELECT 1 FROM ignores n "
              "WHERE n.account_id = i.account_id AND n.ignored_key = $2)",
              keys);
    db_->exec("moving a name's key", "UPDATE ignores SET ignored_key = $2 WHERE ignored_key = $1",
              keys);
    db_->command("committing", "COMMIT");
    return true;
  } catch (...) {
    roll_back(*db_);
    throw;
  }
}

std::vector<std::string> postgres_store::account_keys() {
  const std::lock_guard lock(mutex_);
  const auto r = read([&] { return db_->run("listing the accounts", account_keys_sql); });
  std::vector<std::string> keys;
  keys.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) keys.push_back(r.text(i, 0));
  return keys;
}

std::vector<account_match> postgres_store::account_matches(std::string_view key,
                                                           std::int64_t before_id,
                                                           std::size_t limit) {
  std::vector<account_match> out;
  if (limit == 0) return out;
  const std::lock_guard lock(mutex_);
  const auto r = read([&] {
    return db_->run("reading a player's matches", account_matches_sql,
                    {std::string(key), std::to_string(store_core::history_bound(before_id)),
                     std::to_string(store_core::row_limit(limit))});
  });
  out.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(store_core::account_match_of(pg::result_row(r, i)));
  return out;
}

std::vector<leaderboard_entry> postgres_store::leaderboard(engine::variant v, std::size_t limit,
                                                           leaderboard_order order) {
  std::vector<leaderboard_entry> out;
  if (limit == 0) return out;
  const std::lock_guard lock(mutex_);
  const auto r = read([&] {
    return db_->run(
        "reading the ratings list",
        order == leaderboard_order::pr ? leaderboard_by_pr_sql : leaderboard_sql,
        {std::string(engine::to_string(v)), std::to_string(store_core::row_limit(limit))});
  });
  out.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(store_core::leaderboard_entry_of(pg::result_row(r, i), i + 1));
  return out;
}

performance_sums postgres_store::account_performance(std::string_view key, std::string_view since) {
  const std::lock_guard lock(mutex_);
  const auto r = read([&] {
    return db_->run("reading a player's performance rating", account_performance_sql,
                    {std::string(key), std::string(since)});
  });
  if (r.rows() == 0) return {};
  return store_core::performance_sums_of(pg::result_row(r, 0));
}

// Moderation (issue 13)

void postgres_store::record_moderation(const moderation_action& a) {
  const std::lock_guard lock(mutex_);
  db_->ensure();  // not retried: a lost connection may have logged it already
  insert_moderation(a);
}

void postgres_store::save_bans(const std::vector<ban>& bans, const moderation_action& a) {
  store_core::check_bans(bans);
  const std::lock_guard lock(mutex_);
  begin();
  try {
    db_->run("replacing a ban", delete_bans_sql, {bans.front().name_key});
    for (const auto& b : bans)
      db_->run("saving a ban", insert_ban_sql,
               {b.name_key, b.address, b.name, b.by,
                b.until_ms > 0 ? pg::param{std::to_string(b.until_ms)} : pg::param{}});
    insert_moderation(a);
    db_->command("committing", "COMMIT");
  } catch (...) {
    roll_back(*db_);
    throw;
  }
}

std::size_t postgres_store::lift_bans(std::string_view name_key, const moderation_action& a) {
  const std::lock_guard lock(mutex_);
  begin();
  try {
    const auto lifted = static_cast<std::size_t>(
        db_->run("lifting a ban", delete_bans_sql, {std::string(name_key)}).rows());
    if (lifted > 0) insert_moderation(a);
    db_->command("committing", "COMMIT");
    return lifted;
  } catch (...) {
    roll_back(*db_);
    throw;
  }
}

std::vector<ban> postgres_store::active_bans(std::int64_t now_ms) {
  const std::lock_guard lock(mutex_);
  const auto r =
      read([&] { return db_->run("reading the bans", active_bans_sql, {std::to_string(now_ms)}); });
  std::vector<ban> out;
  out.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) out.push_back(store_core::ban_of(pg::result_row(r, i)));
  return out;
}

std::vector<std::string> postgres_store::ignored_by(std::string_view key) {
  const std::lock_guard lock(mutex_);
  const auto r = read([&] {
    return db_->run("reading the names an account ignores", ignored_by_sql, {std::string(key)});
  });
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) out.push_back(r.text(i, 0));
  return out;
}

void postgres_store::set_ignored(std::string_view key, const std::string& ignored_key,
                                 const std::string& ignored_name, bool on) {
  const std::lock_guard lock(mutex_);
  // Idempotent either way: safe to redo on a new connection.
  (void)read([&] {
    return on ? db_->run("ignoring a name", add_ignored_sql,
                         {std::string(key), ignored_key, ignored_name})
              : db_->run("no longer ignoring a name", remove_ignored_sql,
                         {std::string(key), ignored_key});
  });
}

std::string postgres_store::synchronous_commit() {
  const std::lock_guard lock(mutex_);
  return read([&] { return db_->exec("reading synchronous_commit", "SHOW synchronous_commit"); })
      .text(0, 0);
}

std::string postgres_store::server_version() {
  const std::lock_guard lock(mutex_);
  return read([&] { return db_->exec("reading the server version", "SHOW server_version"); })
      .text(0, 0);
}

std::uint64_t postgres_store::reconnections() {
  const std::lock_guard lock(mutex_);
  return db_->reconnections();
}

std::int64_t postgres_store::create_session(std::string_view key, const std::string& token_hash,
                                            const std::string& label, std::int64_t now_ms,
                                            std::int64_t expires_ms, std::size_t keep) {
  const std::lock_guard lock(mutex_);
  const auto r = read([&] {
    return db_->run("storing a session", insert_session_sql,
                    {std::string(key), token_hash, label, std::to_string(now_ms),
                     std::to_string(expires_ms), std::to_string(keep)});
  });
  return r.rows() > 0 ? r.integer(0, 0) : 0;
}

std::optional<login_session> postgres_store::use_session(const std::string& token_hash,
                                                         std::int64_t now_ms,
                                                         std::int64_t expires_ms) {
  const std::lock_guard lock(mutex_);
  const auto r = read([&] {
    return db_->run("reading a session", use_session_sql,
                    {token_hash, std::to_string(now_ms), std::to_string(expires_ms)});
  });
  if (r.rows() == 0) return std::nullopt;
  return store_core::login_session_of(pg::result_row(r, 0));
}

std::vector<login_session> postgres_store::sessions_of(std::string_view key, std::int64_t now_ms) {
  const std::lock_guard lock(mutex_);
  const auto r = read([&] {
    return db_->run("reading an account's sessions", account_sessions_sql,
                    {std::string(key), std::to_string(now_ms)});
  });
  std::vector<login_session> out;
  out.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(store_core::login_session_of(pg::result_row(r, i)));
  return out;
}

std::size_t postgres_store::end_sessions(std::string_view key, std::int64_t id) {
  const std::lock_guard lock(mutex_);
  const auto r = read([&] {
    return db_->run("ending sessions", end_session_sql, {std::string(key), std::to_string(id)});
  });
  return r.rows() > 0 ? static_cast<std::size_t>(r.integer(0, 0)) : 0;
}

}  // namespace bg::server
