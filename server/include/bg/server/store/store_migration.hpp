#pragma once
/// @file store_migration.hpp
/// `gammond migrate`: a SQLite database copied into an empty PostgreSQL one.

#include <cstdint>
#include <string>

#include "bg/server/store/postgres_store.hpp"

namespace bg::server {

/// What migrate_to_postgres() copied, and what it read back to check the copy.
struct migration_report {
  std::int64_t tables = 0;            ///< tables in progress (snapshots)
  std::int64_t record_entries = 0;    ///< their record journal entries
  std::int64_t matches = 0;           ///< finished matches
  std::int64_t analyses = 0;          ///< their analyses (pending, done or failed)
  std::int64_t accounts = 0;          ///< registered accounts (with their ratings)
  std::int64_t account_matches = 0;   ///< rows of the accounts' histories
  std::int64_t moderation = 0;        ///< moderation records (the log)
  std::int64_t bans = 0;              ///< bans of names and of their addresses
  std::int64_t ignores = 0;           ///< names ignored by accounts
  std::int64_t sessions = 0;          ///< remembered sign-ins (issue 27; not expired ones too)
  std::int64_t tables_checked = 0;    ///< tables read back equal, with their journals
  std::int64_t matches_checked = 0;   ///< matches read back equal (a sample)
  std::int64_t accounts_checked = 0;  ///< accounts read back equal, with their ratings
  /// Moderation records read back equal (all of them; bans and ignores too).
  std::int64_t moderation_checked = 0;
  /// Remembered sign-ins read back equal (all of them).
  std::int64_t sessions_checked = 0;
};

/// Copies the SQLite database at `sqlite_path` into the PostgreSQL database at `url`,
/// which must hold no table, journal entry, match, account, moderation record or ban (its
/// schema is created or upgraded first, as gammond does at start): every table in progress
/// with its record journal (in order), every finished (or unfinished) match under its own
/// id (the `match_ids` sequence is moved past the largest) with its analysis, every
/// account under its own id with its ratings (exactly), history and ignored names, the
/// moderation log under its own ids and the bans, with their times. The source is opened as gammond
/// opens it (PRAGMA quick_check, its schema brought up to date) and read in one read transaction;
/// the copy is one PostgreSQL transaction, committed only after the counts agree, every account,
/// moderation record, ban and ignored name read back equal, and every table with its journal and a
/// sample of up to 100 matches (the first, the last and evenly spaced ones) with their analyses
/// read back byte for byte equal. Throws storage_corrupt for a damaged source, storage_error for
/// anything else (a target that is not empty, a connection that fails, a difference): then nothing
/// is written to the target (bar its empty schema).
migration_report migrate_to_postgres(const std::string& sqlite_path, const std::string& url,
                                     const postgres_options& options = {});

}  // namespace bg::server
