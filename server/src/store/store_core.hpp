#pragma once
/// @file store_core.hpp
/// What sqlite_store and postgres_store share, private to the store library: the checks
/// of a call's arguments (with the same errors in both), the mapping of result rows to
/// the store's types (through a small row interface each backend implements over its
/// own result), and the flow of one table write, a finished match's rating (RULES.md S1)
/// included, over the few statements each backend runs in its own SQL (table_writer).
/// Each backend keeps its SQL, its transactions and its connection.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bg/engine/side.hpp"
#include "bg/server/records/match_record.hpp"
#include "bg/server/records/performance_rating.hpp"
#include "bg/server/records/rating.hpp"
#include "bg/server/store/store.hpp"

namespace bg::server::store_core {

// --- SQL both backends write the same way --------------------------------------------

/// S7: the SQL of the PR sum `what` ("equity_lost" or "decisions") of the side of a
/// history row `am` in its analysis `an` (NULL unless the analysis is done).
std::string pr_side_sum(const char* what);
/// S7: the SQL sum of pr_side_sum(`what`) over the history rows `am` joined with their
/// analyses `an` (NULL when none is analysed).
std::string pr_sum(const char* what);
/// S7: the SQL of two scalar subqueries, (equity lost, decisions) all time, of the
/// account `l.id` of a ratings list.
std::string line_pr_sums();

// --- the checks of a call's arguments ------------------------------------------------

/// store::create_account's check: a player needs a password hash, a bot has none.
/// Throws storage_error ("a player account needs a password hash", "a bot account has
/// no password").
void check_new_account(account::kind what, const std::string& password_hash);
/// store::set_password_hash's check: the hash is not empty. Throws storage_error ("a
/// player account needs a password hash").
void check_password_hash(const std::string& password_hash);
/// store::save_bans's check: at least one ban, all of one name key. Throws
/// storage_error ("a ban needs a name", "the bans of one /ban are all of one name").
void check_bans(const std::vector<ban>& bans);
/// A list's `limit` as a bound parameter: at most INT32_MAX rows (account_matches,
/// leaderboard).
[[nodiscard]] std::int64_t row_limit(std::size_t limit) noexcept;
/// pending_analyses' `limit` as a bound parameter: at most INT64_MAX rows.
[[nodiscard]] std::int64_t analysis_limit(std::size_t limit) noexcept;
/// account_matches' `before_id` as the bound of `match_id < ?`: INT64_MAX for 0 (from
/// the newest).
[[nodiscard]] std::int64_t history_bound(std::int64_t before_id) noexcept;

// --- result rows -------------------------------------------------------------------

/// One row of a query's result, as the mappers below read it; each backend implements
/// it over its own result (SQLite's statement, libpq's result and a row number).
/// Columns count from 0. Each accessor reads the column as its backend always did.
class row {
 public:
  virtual ~row() = default;
  /// The column as text ("" for NULL).
  [[nodiscard]] virtual std::string text(int column) const = 0;
  /// The column as a whole number.
  [[nodiscard]] virtual std::int64_t integer(int column) const = 0;
  /// The column as a double.
  [[nodiscard]] virtual double real(int column) const = 0;
  /// The column as a truth value (SQLite: an integer not 0; PostgreSQL: boolean true).
  [[nodiscard]] virtual bool boolean(int column) const = 0;
  /// True when the column is NULL.
  [[nodiscard]] virtual bool is_null(int column) const = 0;
};

/// An account (no standings yet) from a row of (id, name_key, name, kind,
/// password_hash or "", created_at, last_seen or "", lang or "").
[[nodiscard]] account account_of(const row& r);
/// Sets `a`'s standing in the variant of a row of (variant, rating, experience, played,
/// won); a row of an unknown variant is ignored.
void add_standing(account& a, const row& r);
/// A history entry from a row of (match_id, ended_at, options JSON, side, opponent,
/// score_red, score_black, won or NULL, rating_before or NULL, rating_after,
/// experience_before, experience_after, the account's name, the account's side's
/// equity lost or NULL, its decisions or NULL (S7: NULL unless the analysis is done)).
/// Throws storage_error ("match N has unreadable options: ...") when the options are not
/// match options.
[[nodiscard]] account_match account_match_of(const row& r);
/// A ratings list line ranked `rank` (from 1) from a row of (name, rating, experience,
/// played, won, kind, all-time equity lost or NULL, all-time decisions or NULL (S7:
/// NULL when no match of the account is analysed)).
[[nodiscard]] leaderboard_entry leaderboard_entry_of(const row& r, int rank);
/// A period's PR sums (S7) from a row of (sum of equity lost or NULL, sum of decisions or
/// NULL, count of analysed matches).
[[nodiscard]] performance_sums performance_sums_of(const row& r);
/// The PR sums (S7) of each side, [red, black], that save_analysis stores with `a`:
/// pr_sums_of() of `players.red` and `players.black` of its result when `a` is done and
/// its result a JSON object; nullopt otherwise (the columns are NULL, and a result that
/// is not JSON is refused by the database as before).
[[nodiscard]] std::optional<std::array<pr_sums, 2>> analysis_pr_sums(const analysis_record& a);
/// A ban from a row of (name_key, address, name, banned_by, created_at, until_ms or 0).
[[nodiscard]] ban ban_of(const row& r);
/// A session from a row of (id, name_key, label, created_ms, used_ms, expires_ms).
[[nodiscard]] login_session login_session_of(const row& r);
/// The analysis of match `match_id` from a row of (status, level, result or "",
/// reason, queued_at, finished_at or ""). Throws storage_error ("the analysis of match
/// N has an unknown status") for a status it does not know.
[[nodiscard]] analysis_record analysis_of(std::int64_t match_id, const row& r);
/// The match `id` from its stored record (JSON text), its `id` set. Throws
/// storage_error ("match N has an unreadable record: ...") when the text does not read.
[[nodiscard]] match_record match_of(std::int64_t id, const std::string& record_json);

/// The columns of a `matches` row, as plain values for a backend to bind.
struct match_row {
  std::int64_t id = 0;     ///< the match id (> 0)
  std::string table;       ///< table_name
  std::string red;         ///< the red player's name
  std::string black;       ///< the black player's name
  std::string options;     ///< the match options as JSON text
  std::string record;      ///< the record as JSON text, without its id (the row's id is it)
  std::string started_at;  ///< ISO 8601, as in the record
  std::string ended_at;    ///< ISO 8601, as in the record
  std::int64_t score_red = 0;
  std::int64_t score_black = 0;
  std::int64_t games = 0;   ///< how many games the record holds
  bool unfinished = false;  ///< closed by an administrator before it finished
};
/// The `matches` row of `record` stored under `id`. Throws storage_error ("a finished
/// match has no id") when `id` is not positive.
[[nodiscard]] match_row match_row_of(std::int64_t id, const match_record& record);

/// Attaches record journal entries, read in bytewise table-name order, to `tables`
/// (sorted the same way) in one merge pass; entries of a table not listed are dropped
/// (journals of tables without a snapshot). Holds a reference to `tables`.
class journal_merge {
 public:
  /// Merges into `tables`, which must outlive this.
  explicit journal_merge(std::vector<saved_table>& tables) noexcept : tables_(tables) {}
  /// The next journal entry read: `entry` of table `table_name`.
  void add(const std::string& table_name, std::string entry);

 private:
  std::vector<saved_table>& tables_;
  std::size_t next_ = 0;  ///< the first table whose name is not below the last read
};

// --- one table write ------------------------------------------------------------------

/// An account that played a finished match, as the store read it before rating it.
struct match_player {
  std::int64_t account_id = 0;  ///< accounts.id
  std::string name;             ///< the account's name as registered
  rating_standing standing;     ///< its rating and experience in the match's variant
};

/// An account's standing after a finished match, to write in its `ratings` row.
struct standing_update {
  std::int64_t account_id = 0;  ///< accounts.id
  std::string_view variant;     ///< "standard" or "long" (engine::to_string)
  double rating = 1500.0;       ///< the new rating (unchanged when unrated)
  int experience = 0;           ///< the new experience (unchanged when unrated)
  bool won = false;             ///< it won the match: `won` grows by one (`played` always)
};

/// One row of an account's history (`account_matches`).
struct history_entry {
  std::int64_t account_id = 0;            ///< accounts.id
  std::int64_t match_id = 0;              ///< the stored match
  engine::side side = engine::side::red;  ///< the account's seat
  std::string opponent;                   ///< the other player's name as recorded
  std::optional<bool> won;                ///< nullopt: a basis session that ended level
  std::optional<rating_change> rating;    ///< the rating change when rated
};

/// The statements a backend runs for one table_write, inside its transaction (each
/// throws storage_error, with its backend's message, when it fails). write_table()
/// calls them in the order of the write.
class table_writer {
 public:
  virtual ~table_writer() = default;
  /// The account under name key `key` with its standing in `variant` (PostgreSQL locks
  /// the row), or nullopt when there is none (a guest).
  virtual std::optional<match_player> rating_of(const std::string& key,
                                                std::string_view variant) = 0;
  /// Stores the finished match `record` under its `id`.
  virtual void insert_match(const match_record& record) = 0;
  /// Writes an account's standing after a finished match.
  virtual void update_standing(const standing_update& update) = 0;
  /// Adds a finished match to an account's history.
  virtual void insert_history(const history_entry& entry) = 0;
  /// Queues the analysis of the stored match `match_id` (a pending analyses row).
  virtual void queue_analysis(std::int64_t match_id) = 0;
  /// Saves the write's snapshot, resets its journal when asked and appends its entries.
  virtual void save_table(const table_write& w) = 0;
  /// Forgets the write's table: its snapshot and its journal.
  virtual void drop_table(const table_write& w) = 0;
  /// Logs a moderation action.
  virtual void insert_moderation(const moderation_action& a) = 0;
};

/// One table_write through `backend`, inside the caller's transaction: a drop, or the
/// finished match (its players' standings read, rate_finished_match(), the match stored
/// with the ratings in its record, each account's standing and history written), its
/// analysis queued, then the snapshot and journal; then the moderation actions. Returns
/// a rated match's ratings, [red, black]. Throws what `backend` throws (the caller
/// undoes the write).
std::optional<std::array<rating_change, 2>> write_table(const table_write& w,
                                                        table_writer& backend);

}  // namespace bg::server::store_core
