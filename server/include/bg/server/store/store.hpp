#pragma once
/// @file store.hpp
/// The storage interface the game service uses: table snapshots with their record
/// journals (so a restart restores every table), finished matches (for the record and
/// the .mat export) and their analyses by GNU Backgammon, accounts with their ratings
/// and histories (RULES.md S1), and moderation (issue 13): the log of every moderation
/// action, bans, and the names each account ignores. sqlite_store implements it (DESIGN.md
/// "server/"); a PostgreSQL store will too.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bg/engine/side.hpp"
#include "bg/engine/variant.hpp"
#include "bg/server/records/match_record.hpp"
#include "bg/server/store/account.hpp"
#include "bg/server/store/account_match.hpp"
#include "bg/server/store/analysis_record.hpp"
#include "bg/server/store/ban.hpp"
#include "bg/server/store/leaderboard_entry.hpp"
#include "bg/server/store/leaderboard_order.hpp"
#include "bg/server/store/moderation_action.hpp"
#include "bg/server/store/performance_sums.hpp"

namespace bg::server {

/// A storage failure (cannot open, disk full, corrupt file). Thrown by a store; the
/// server answers the client whose change it was with the error `storage_error`.
class storage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The database file is damaged (`PRAGMA quick_check` failed, or SQLite reports
/// corruption when opening it). gammond refuses to start on it (exit code 2).
class storage_corrupt : public storage_error {
 public:
  using storage_error::storage_error;
};

/// One table's change, written by store::save_tables (see table_outcome). Either a
/// snapshot with its record journal entries (and the match it finished, if any), or,
/// with `drop`, the table's removal.
struct table_write {
  std::string name;      ///< the table's name
  std::string snapshot;  ///< table::snapshot() as JSON text (ignored with `drop`)
  /// `snapshot` is table::snapshot_text(), JSON by construction (protocol::json_writer):
  /// a store need not check it again (issue 33: SQLite's json_valid() was a third of a
  /// change's write). Otherwise a snapshot that is not JSON is refused.
  bool snapshot_is_json = false;
  /// The record journal saved so far is void (a match began or was archived): it is
  /// deleted before `record_entries` are appended.
  bool reset_record = false;
  /// table_outcome::record_log entries as JSON text, appended in order.
  std::vector<std::string> record_entries;
  /// The match this change finished, stored with its `id` (reserved earlier with
  /// store::reserve_match_id()) in the same transaction as the snapshot: the archived
  /// match and the snapshot that announces it are written together or not at all.
  std::optional<match_record> finished_match;
  /// With `finished_match`: its analysis is queued, i.e. a pending analysis_record is
  /// written in the same transaction (so a restart finds every archived match whose
  /// analysis is not finished, store::pending_analyses()).
  bool analyse_match = false;
  /// With `finished_match`: who won it (nullopt: a basis session that ended level).
  std::optional<engine::side> winner;
  /// With `finished_match`: the name keys (names.hpp) of its players who are registered
  /// accounts, [red, black] ("" for a guest). The store adds the match to each account's
  /// history and counts (played, won) in the same transaction.
  std::array<std::string, 2> account_keys;
  /// With `finished_match`: rate it (RULES.md S1): both players are accounts, the match
  /// was to n >= 1 points and has a winner. The store reads both current ratings, applies
  /// rate_match() (rating.hpp), writes the new ratings and experiences, keeps them in the
  /// stored record (match_record::ratings) and returns them (write_outcome::ratings), all
  /// in the transaction that archives the match.
  bool rated = false;
  /// The table is forgotten: its snapshot and record journal are deleted.
  bool drop = false;
  /// Moderation actions this change carries out (a kick, a table made private, an
  /// invitation, a table closed), logged in the same transaction (issue 13).
  std::vector<moderation_action> moderation;
  /// Cluster (issue 16): the fencing epoch at which this node claimed the table; 0: not
  /// claimed yet, so this write claims it (when it has no owner, or its owner's lease
  /// expired). Ignored by a store without a node id (SQLite, a single node).
  std::int64_t epoch = 0;
  /// Cluster: the name keys of the players holding a seat (table::held_seats()), kept
  /// in `table_seats` so that another node can send a resuming player here.
  std::vector<std::string> seat_keys;
};

/// What store::write_tables() did with one table_write.
struct write_outcome {
  /// Empty when written, else why not (then nothing of that write was written).
  std::string error;
  /// A rated match's ratings before and after, [red, black] (table_write::rated).
  std::optional<std::array<rating_change, 2>> ratings;
  /// Cluster (issue 16): the write was refused because this node no longer owns the
  /// table at the epoch it claimed (or its own heartbeat lease expired): a stale write.
  bool fenced = false;
  /// Cluster: with `fenced`, the write was a new table's first, and another live node
  /// had claimed it already (a creation race, not a stale node).
  bool claim_lost = false;
  /// Cluster: the epoch this node owns the table at after the write (the new one when
  /// the write claimed it); 0 without a cluster.
  std::int64_t epoch = 0;
};

/// A saved table: its snapshot and its record journal (entries in the order written).
struct saved_table {
  std::string name;
  std::string snapshot;
  std::vector<std::string> record_journal;
};

/// A remembered sign-in of an account (issue 27): the server-issued session credential
/// a client sends in `hello` instead of the password. Only the credential's SHA-256 is
/// stored. Times are ms since the Unix epoch.
struct login_session {
  std::int64_t id = 0;      ///< the session's number (what `/signout ID` names)
  std::string account_key;  ///< the account's name key (names.hpp)
  std::string label;        ///< what the client said it is ("browser", "gammon-term")
  std::int64_t created_ms = 0;
  std::int64_t used_ms = 0;     ///< the last login with it
  std::int64_t expires_ms = 0;  ///< it stops working then (each use moves it on)
};

/// How hard a commit waits for the disk (`--sync`).
enum class sync_mode : unsigned char {
  /// Every commit is on stable storage before it returns: survives kill -9, an OS
  /// crash and a power cut (SQLite `synchronous=FULL` in WAL mode).
  full,
  /// Commits reach the OS but not necessarily the disk: survives kill -9 of gammond;
  /// an OS crash or a power cut may lose the last commits (never corrupts the file).
  normal,
};

/// Where gammond keeps its tables and matches. Implementations are thread-safe.
/// Every failure throws storage_error with a sentence saying what failed.
class store {
 public:
  virtual ~store() = default;

  /// Writes every change in `writes` (in order) in one transaction: a group commit, so
  /// the cost of a commit is paid once for all of them. Returns one outcome per write:
  /// its error is empty when written, else why not (that write alone is left out, all
  /// of it: its snapshot, journal entries, finished match, history and ratings; the
  /// others are committed). Throws storage_error when the transaction itself fails
  /// (then nothing was written).
  virtual std::vector<write_outcome> write_tables(const std::vector<table_write>& writes) = 0;
  /// write_tables() with only the errors: one entry per write, empty when written.
  std::vector<std::string> save_tables(const std::vector<table_write>& writes) {
    std::vector<std::string> errors;
    for (auto& outcome : write_tables(writes)) errors.push_back(std::move(outcome.error));
    return errors;
  }
  /// Forgets table `name` and its record journal.
  virtual void delete_table(std::string_view name) = 0;
  /// Every saved table with its record journal, in name order.
  [[nodiscard]] virtual std::vector<saved_table> load_tables() = 0;
  /// Table `name` as last written (nullopt when it is not saved).
  [[nodiscard]] virtual std::optional<saved_table> load_table(std::string_view name) = 0;

  /// A new match id (> 0), never handed out before by this store: a table names its
  /// finished match in `match_over` before the write that stores it. No I/O. An id
  /// whose write failed is never used (ids may have gaps).
  [[nodiscard]] virtual std::int64_t reserve_match_id() = 0;
  /// Stores a finished (or abandoned) match under a new id and returns it (> 0). The
  /// record's own `id` is ignored.
  virtual std::int64_t save_match(const match_record& record) = 0;
  /// The match with `id` (its `id` member set), or nullopt. Throws storage_error when
  /// the stored record cannot be read back.
  [[nodiscard]] virtual std::optional<match_record> load_match(std::int64_t id) = 0;
  /// How many matches are stored.
  [[nodiscard]] virtual std::int64_t match_count() = 0;

  /// The analysis of match `match_id`, or nullopt when none was ever queued for it (a
  /// long nardy match, a match finished while analysis was off, an unknown id).
  [[nodiscard]] virtual std::optional<analysis_record> load_analysis(std::int64_t match_id) = 0;
  /// Writes `a` (status, result, reason, level) for its match, inserting the row when
  /// there is none; the store sets finished_at (now, unless pending) and keeps
  /// queued_at (now for a new row). A done analysis also stores each side's PR sums
  /// (RULES.md S7, pr_sums_of() of `players.red` and `players.black` of `result`), which
  /// the histories, account_performance() and leaderboard() read. Throws storage_error
  /// (also when the match does not exist, or `result` is not JSON).
  virtual void save_analysis(const analysis_record& a) = 0;
  /// The ids of the matches whose analysis is pending, smallest (oldest) first, at most
  /// `limit` of them.
  [[nodiscard]] virtual std::vector<std::int64_t> pending_analyses(std::size_t limit) = 0;
  // Accounts (RULES.md S1). Keys are names.hpp name_key()s, computed by the caller.

  /// Registers `name` (key `key`) of kind `what` with `password_hash` (crypto_pwhash_str
  /// text; must be empty for a bot and not for a player), rating 1500 and experience 0
  /// in every variant. Returns the new account, or nullopt when `key` is registered
  /// already. Throws storage_error.
  virtual std::optional<account> create_account(const std::string& key, const std::string& name,
                                                account::kind what,
                                                const std::string& password_hash) = 0;
  /// The account registered under `key` with its standings, or nullopt.
  [[nodiscard]] virtual std::optional<account> find_account(std::string_view key) = 0;
  /// Replaces the password hash of the player account `key`; false when there is no
  /// such player account (a bot has no password).
  virtual bool set_password_hash(std::string_view key, const std::string& password_hash) = 0;
  /// Records now as the last time `key` was seen (a login or a logout); no-op for an
  /// unknown key.
  virtual void set_last_seen(std::string_view key) = 0;
  /// Records `lang` (a catalogue tag, "fr"; "" = none) as the language of account `key`
  /// (/lang); no-op for an unknown key.
  virtual void set_account_lang(std::string_view key, const std::string& lang) = 0;
  /// The key of every account (gammond keeps them in memory to refuse guests a
  /// registered name without a read per hello).
  [[nodiscard]] virtual std::vector<std::string> account_keys() = 0;
  /// Moves what is stored under the name key `from` to the key `to`: the account of
  /// `from` (if any), the bans of `from`, and the ignore lists' entries of `from`. For
  /// keys an older name_key() made (names.hpp: Unicode's full case folding now), at
  /// start. False, and nothing changed, when another account has the key `to`.
  virtual bool move_name_key(std::string_view from, std::string_view to) = 0;
  /// The matches of account `key`, newest (highest match id) first: at most `limit`,
  /// with ids below `before_id` (0: from the newest). Empty for an unknown key.
  [[nodiscard]] virtual std::vector<account_match> account_matches(std::string_view key,
                                                                   std::int64_t before_id,
                                                                   std::size_t limit) = 0;
  /// The first `limit` accounts in `order` among those that played a rated match in
  /// variant `v` (experience > 0): the highest ratings first, ties by name
  /// (leaderboard_order::rating), or the best all-time PRs first (leaderboard_order::pr,
  /// RULES.md S7); ranks from 1 in that order. Each entry carries its standing in `v` and
  /// its all-time PR sums.
  [[nodiscard]] virtual std::vector<leaderboard_entry> leaderboard(
      engine::variant v, std::size_t limit,
      leaderboard_order order = leaderboard_order::rating) = 0;
  /// The PR sums (RULES.md S7) of account `key`'s analysed matches that ended at or
  /// after `since` (ISO 8601 UTC as matches are stamped, "2026-11-23T10:00:00Z"; "" for
  /// all time). Zero sums and 0 matches for an unknown key or none analysed.
  [[nodiscard]] virtual performance_sums account_performance(std::string_view key,
                                                             std::string_view since) = 0;

  // Moderation (issue 13).

  /// Adds `a` to the moderation log, stamped with the time it is written.
  virtual void record_moderation(const moderation_action& a) = 0;
  /// Bans a name: every ban of `bans` (all of one name key: the name itself and the
  /// addresses it used) replaces whatever bans that name had, and `a` is logged, in one
  /// transaction. Throws storage_error (nothing written) when `bans` is empty or mixes
  /// name keys.
  virtual void save_bans(const std::vector<ban>& bans, const moderation_action& a) = 0;
  /// Lifts every ban of name key `name_key` (the name and its addresses) and logs `a`,
  /// in one transaction; returns how many were lifted (0: none, and nothing is logged).
  virtual std::size_t lift_bans(std::string_view name_key, const moderation_action& a) = 0;
  /// Every ban still holding at `now_ms` (ms since the Unix epoch), oldest first.
  [[nodiscard]] virtual std::vector<ban> active_bans(std::int64_t now_ms) = 0;
  /// The names the account `key` ignores, as typed, in the order they were ignored
  /// (names ignored within one millisecond: by name key; empty for an unknown key).
  [[nodiscard]] virtual std::vector<std::string> ignored_by(std::string_view key) = 0;
  /// Account `key` ignores the name `ignored_name` (key `ignored_key`) from now on
  /// (`on`), or no longer (`!on`). No-op for an unknown account, for a name ignored
  /// already (on) or not ignored (off).
  virtual void set_ignored(std::string_view key, const std::string& ignored_key,
                           const std::string& ignored_name, bool on) = 0;

  // Sessions (issue 27): remembered sign-ins.

  /// Stores a new session of account `key` under `token_hash` (the credential's SHA-256
  /// as 64 hex digits), used now (`now_ms`) and ending at `expires_ms`; then forgets the
  /// account's expired sessions and all but its `keep` most recently used. Returns the
  /// new session's id, 0 for an unknown account. Throws storage_error.
  virtual std::int64_t create_session(std::string_view key, const std::string& token_hash,
                                      const std::string& label, std::int64_t now_ms,
                                      std::int64_t expires_ms, std::size_t keep) = 0;
  /// The session stored under `token_hash` when it has not expired at `now_ms`, marked
  /// used now and ending at `expires_ms` from now on; nullopt for an unknown or expired
  /// one (an expired one is forgotten).
  virtual std::optional<login_session> use_session(const std::string& token_hash,
                                                   std::int64_t now_ms,
                                                   std::int64_t expires_ms) = 0;
  /// The sessions of account `key` not expired at `now_ms`, most recently used first.
  [[nodiscard]] virtual std::vector<login_session> sessions_of(std::string_view key,
                                                               std::int64_t now_ms) = 0;
  /// Ends session `id` of account `key` (0: every session of it); returns how many ended.
  virtual std::size_t end_sessions(std::string_view key, std::int64_t id) = 0;
};

}  // namespace bg::server
