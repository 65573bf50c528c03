#include "bg/server/store/postgres_store.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "bg/server/store/database_url.hpp"
#include "bg/server/store/record_json.hpp"
#include "pg_connection.hpp"

namespace bg::server {

namespace {

/// Migration i brings the schema from version i to i + 1. Append only; never edit a
/// migration that has shipped.
constexpr std::array<const char*, postgres_store::schema_version> migrations{
    // 0 -> 1: table snapshots with their record journals, finished matches, match ids.
    R"sql(
CREATE TABLE tables(
  name       text PRIMARY KEY,
  snapshot   json NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE table_records(
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  table_name text NOT NULL,
  entry      json NOT NULL
);
CREATE INDEX table_records_by_table ON table_records(table_name, id);
CREATE SEQUENCE match_ids AS bigint MINVALUE 1 START 1;
CREATE TABLE matches(
  id          bigint PRIMARY KEY,
  table_name  text NOT NULL,
  red         text NOT NULL,
  black       text NOT NULL,
  options     json NOT NULL,
  record      json NOT NULL,
  started_at  text NOT NULL,
  ended_at    text NOT NULL,
  score_red   integer NOT NULL,
  score_black integer NOT NULL,
  games       integer NOT NULL,
  saved_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX matches_by_red ON matches(red);
CREATE INDEX matches_by_black ON matches(black);
)sql",
    // 1 -> 2: each finished match's analysis by GNU Backgammon (issue 14). A row is
    // written pending with the match; the analysis queue marks it done or failed.
    R"sql(
CREATE TABLE analyses(
  match_id    bigint PRIMARY KEY REFERENCES matches(id),
  status      text NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
  level       text NOT NULL DEFAULT '',
  result      json,
  reason      text NOT NULL DEFAULT '',
  queued_at   timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX analyses_pending ON analyses(match_id) WHERE status = 'pending';
)sql",
};

/// `column` (a timestamptz) as ISO 8601 UTC text with milliseconds, as SQLite's
/// strftime('%Y-%m-%dT%H:%M:%fZ') writes it ("" for NULL).
std::string iso_text(const std::string& column) {
  return "coalesce(to_char(" + column +
         " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), '')";
}

/// The advisory lock key that serialises schema migrations ("gammond" in ASCII).
constexpr const char* migration_lock = "SELECT pg_advisory_xact_lock(x'67616d6d6f6e64'::bigint)";

// Prepared statements, by name.
constexpr const char* save_table_sql = "save_table";
constexpr const char* drop_table_sql = "drop_table";
constexpr const char* insert_match_sql = "insert_match";
constexpr const char* load_tables_sql = "load_tables";
constexpr const char* load_records_sql = "load_records";
constexpr const char* load_table_sql = "load_table";
constexpr const char* load_table_records_sql = "load_table_records";
constexpr const char* load_match_sql = "load_match";
constexpr const char* match_count_sql = "match_count";
constexpr const char* take_ids_sql = "take_ids";
constexpr const char* queue_analysis_sql = "queue_analysis";
constexpr const char* save_analysis_sql = "save_analysis";
constexpr const char* load_analysis_sql = "load_analysis";
constexpr const char* pending_analyses_sql = "pending_analyses";

std::vector<pg::statement> statements() {
  static const std::string load_analysis_text =
      "SELECT status, level, coalesce(result::text, ''), reason, " + iso_text("queued_at") + ", " +
      iso_text("finished_at") + " FROM analyses WHERE match_id = $1";
  return {
      // One statement per table write: the snapshot, the journal reset and the new
      // entries (data-modifying CTEs all run, on the same snapshot: the DELETE never
      // sees the rows this INSERT adds). Entries keep their order through the identity.
      {save_table_sql,
       "WITH saved AS (INSERT INTO tables(name, snapshot, updated_at) VALUES ($1, $2::json, now()) "
       "ON CONFLICT (name) DO UPDATE SET snapshot = excluded.snapshot, "
       "updated_at = excluded.updated_at RETURNING 1), "
       "reset AS (DELETE FROM table_records WHERE $3::boolean AND table_name = $1 RETURNING 1) "
       "INSERT INTO table_records(table_name, entry) "
       "SELECT $1, e.entry::json FROM unnest($4::text[]) WITH ORDINALITY AS e(entry, n) "
       "ORDER BY e.n"},
      {drop_table_sql,
       "WITH records AS (DELETE FROM table_records WHERE table_name = $1 RETURNING 1) "
       "DELETE FROM tables WHERE name = $1"},
      {insert_match_sql,
       "INSERT INTO matches(id, table_name, red, black, options, record, started_at, ended_at, "
       "score_red, score_black, games, saved_at) "
       "VALUES ($1, $2, $3, $4, $5::json, $6::json, $7, $8, $9, $10, $11, now())"},
      {load_tables_sql, "SELECT name, snapshot FROM tables ORDER BY name COLLATE \"C\""},
      {load_records_sql,
       "SELECT table_name, entry FROM table_records ORDER BY table_name COLLATE \"C\", id"},
      {load_table_sql, "SELECT snapshot FROM tables WHERE name = $1"},
      {load_table_records_sql, "SELECT entry FROM table_records WHERE table_name = $1 ORDER BY id"},
      {load_match_sql, "SELECT record FROM matches WHERE id = $1"},
      {match_count_sql, "SELECT count(*) FROM matches"},
      {take_ids_sql, "SELECT nextval('match_ids') FROM generate_series(1, $1::integer)"},
      {queue_analysis_sql,
       "INSERT INTO analyses(match_id, status, queued_at) VALUES ($1, 'pending', now())"},
      {save_analysis_sql,
       "INSERT INTO analyses(match_id, status, level, result, reason, queued_at, finished_at) "
       "VALUES ($1, $2, $3, $4::json, $5, now(), CASE WHEN $2 = 'pending' THEN NULL ELSE now() "
       "END) ON CONFLICT (match_id) DO UPDATE SET status = excluded.status, level = "
       "excluded.level, result = excluded.result, reason = excluded.reason, finished_at = "
       "excluded.finished_at"},
      {load_analysis_sql, load_analysis_text.c_str()},
      {pending_analyses_sql,
       "SELECT match_id FROM analyses WHERE status = 'pending' ORDER BY match_id LIMIT $1"},
  };
}

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

}  // namespace

postgres_store::postgres_store(std::string url, const postgres_options& options)
    : db_(std::make_unique<pg::connection>(std::move(url), settings_of(options), statements())),
      id_block_(options.id_block < 2 ? 2 : options.id_block) {
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
    db_->exec("waiting for the schema lock", migration_lock);
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
      db_->command("migrating the schema", migrations[static_cast<std::size_t>(v)]);
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
  if (id <= 0) throw storage_error("a finished match has no id");
  const nlohmann::json options = record.options;
  match_record stored = record;
  stored.id = 0;  // the row's id is the id; load_match() sets it
  db_->run("saving match " + std::to_string(id), insert_match_sql,
           {std::to_string(id), record.table, record.players[0], record.players[1], options.dump(),
            to_json_text(stored), record.started_at, record.ended_at,
            std::to_string(record.final_score[0]), std::to_string(record.final_score[1]),
            std::to_string(record.games.size())});
}

void postgres_store::write_one(const table_write& w) {
  if (w.drop) {
    db_->run("deleting table " + w.name, drop_table_sql, {w.name});
    return;
  }
  if (w.finished_match) {
    insert_match(w.finished_match->id, *w.finished_match);
    if (w.analyse_match)
      db_->run("queueing the analysis of match " + std::to_string(w.finished_match->id),
               queue_analysis_sql, {std::to_string(w.finished_match->id)});
  }
  db_->run(
      "saving table " + w.name, save_table_sql,
      {w.name, w.snapshot, w.reset_record ? "true" : "false", pg::text_array(w.record_entries)});
}

std::vector<std::string> postgres_store::save_tables(const std::vector<table_write>& writes) {
  std::vector<std::string> errors(writes.size());
  if (writes.empty()) return errors;
  const std::lock_guard lock(mutex_);
  try {
    refill_ids();
  } catch (const storage_error& e) {
    // Not this batch's business: the pool still has ids, the next call tries again.
    spdlog::warn("cannot reserve match ids now: {}", e.what());
  }
  begin();
  try {
    if (writes.size() == 1) {
      // A batch of one needs no savepoint: its failure is the transaction's.
      try {
        write_one(writes.front());
      } catch (const pg::connection_lost&) {
        throw;
      } catch (const storage_error& e) {
        errors.front() = e.what();
        roll_back(*db_);
        return errors;
      }
    } else {
      for (std::size_t i = 0; i < writes.size(); ++i) {
        db_->command("setting a savepoint", "SAVEPOINT one_table");
        try {
          write_one(writes[i]);
          db_->command("releasing a savepoint", "RELEASE SAVEPOINT one_table");
        } catch (const pg::connection_lost&) {
          throw;
        } catch (const storage_error& e) {
          errors[i] = e.what();
          db_->command("undoing a failed write", "ROLLBACK TO SAVEPOINT one_table");
        }
      }
    }
    db_->command("committing", "COMMIT");
  } catch (...) {
    roll_back(*db_);
    throw;
  }
  return errors;
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
  std::size_t t = 0;
  for (int i = 0; i < records.rows(); ++i) {
    const std::string name = records.text(i, 0);
    while (t < out.size() && out[t].name < name) ++t;
    if (t < out.size() && out[t].name == name) out[t].record_journal.push_back(records.text(i, 1));
  }
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
  try {
    match_record record = match_record_from_json_text(text);
    record.id = id;
    return record;
  } catch (const nlohmann::json::exception& e) {
    throw storage_error("match " + std::to_string(id) + " has an unreadable record: " + e.what());
  }
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
  analysis_record a;
  a.match_id = match_id;
  const auto status = analysis_status_from_string(r.text(0, 0));
  if (!status)
    throw storage_error("the analysis of match " + std::to_string(match_id) +
                        " has an unknown status");
  a.status = *status;
  a.level = r.text(0, 1);
  a.result = r.text(0, 2);
  a.reason = r.text(0, 3);
  a.queued_at = r.text(0, 4);
  a.finished_at = r.text(0, 5);
  return a;
}

void postgres_store::save_analysis(const analysis_record& a) {
  const std::lock_guard lock(mutex_);
  // One statement: its own transaction (not retried: it may have run).
  db_->run("saving the analysis of match " + std::to_string(a.match_id), save_analysis_sql,
           {std::to_string(a.match_id), std::string(to_string(a.status)), a.level,
            a.result.empty() ? pg::param{} : pg::param{a.result}, a.reason});
}

std::vector<std::int64_t> postgres_store::pending_analyses(std::size_t limit) {
  const std::lock_guard lock(mutex_);
  const auto most = std::min<std::size_t>(limit, std::numeric_limits<std::int64_t>::max());
  const auto r = read([&] {
    return db_->run("listing the pending analyses", pending_analyses_sql, {std::to_string(most)});
  });
  std::vector<std::int64_t> ids;
  ids.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) ids.push_back(r.integer(i, 0));
  return ids;
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

}  // namespace bg::server
