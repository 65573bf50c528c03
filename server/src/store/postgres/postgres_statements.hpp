#pragma once
/// @file postgres_statements.hpp
/// postgres_store's SQL (private to the store library): the names of its prepared
/// statements, the statements themselves by topic (prepared on every connection,
/// pg::connection), and a result row for the shared core's mappers (store_core::row).
/// Values are always bound ($1, $2, ...), never pasted into SQL.

#include <cstdint>
#include <string>
#include <vector>

#include "pg_connection.hpp"
#include "store/store_core.hpp"

namespace bg::server::pg {

/// The names of postgres_store's prepared statements (`using namespace pg::names` in
/// its code).
namespace names {

// Tables and their journals, and the cluster's fencing:
inline constexpr const char* save_table_sql = "save_table";
inline constexpr const char* own_lease_sql = "own_lease";
inline constexpr const char* check_owner_sql = "check_owner";
inline constexpr const char* claim_new_sql = "claim_new";
inline constexpr const char* save_seats_sql = "save_seats";
inline constexpr const char* drop_owner_sql = "drop_owner";
inline constexpr const char* drop_table_sql = "drop_table";
inline constexpr const char* load_tables_sql = "load_tables";
inline constexpr const char* load_records_sql = "load_records";
inline constexpr const char* load_table_sql = "load_table";
inline constexpr const char* load_table_records_sql = "load_table_records";
// Matches and their analyses:
inline constexpr const char* insert_match_sql = "insert_match";
inline constexpr const char* load_match_sql = "load_match";
inline constexpr const char* match_count_sql = "match_count";
inline constexpr const char* take_ids_sql = "take_ids";
inline constexpr const char* queue_analysis_sql = "queue_analysis";
inline constexpr const char* save_analysis_sql = "save_analysis";
inline constexpr const char* load_analysis_sql = "load_analysis";
inline constexpr const char* pending_analyses_sql = "pending_analyses";
// Accounts, ratings and histories:
inline constexpr const char* insert_account_sql = "insert_account";
inline constexpr const char* insert_rating_sql = "insert_rating";
inline constexpr const char* find_account_sql = "find_account";
inline constexpr const char* account_ratings_sql = "account_ratings";
inline constexpr const char* set_password_sql = "set_password";
inline constexpr const char* set_last_seen_sql = "set_last_seen";
inline constexpr const char* set_account_lang_sql = "set_account_lang";
inline constexpr const char* account_keys_sql = "account_keys";
inline constexpr const char* rating_of_sql = "rating_of";
inline constexpr const char* update_rating_sql = "update_rating";
inline constexpr const char* insert_account_match_sql = "insert_account_match";
inline constexpr const char* account_matches_sql = "account_matches";
inline constexpr const char* leaderboard_sql = "leaderboard";
inline constexpr const char* leaderboard_by_pr_sql = "leaderboard_by_pr";
inline constexpr const char* account_performance_sql = "account_performance";
// Moderation:
inline constexpr const char* record_moderation_sql = "record_moderation";
inline constexpr const char* delete_bans_sql = "delete_bans";
inline constexpr const char* insert_ban_sql = "insert_ban";
inline constexpr const char* active_bans_sql = "active_bans";
inline constexpr const char* ignored_by_sql = "ignored_by";
inline constexpr const char* add_ignored_sql = "add_ignored";
inline constexpr const char* remove_ignored_sql = "remove_ignored";
// Sessions:
inline constexpr const char* insert_session_sql = "insert_session";
inline constexpr const char* use_session_sql = "use_session";
inline constexpr const char* account_sessions_sql = "account_sessions";
inline constexpr const char* end_session_sql = "end_session";

}  // namespace names

/// Every statement postgres_store prepares (the names above with their SQL), for
/// pg::connection's constructor. The SQL lives as long as the program.
[[nodiscard]] std::vector<statement> store_statements();

/// One row of a result, for the shared core's mappers: libpq's text read as
/// pg::result reads it (a truth value is PostgreSQL's boolean "t").
class result_row final : public store_core::row {
 public:
  /// Row `index` (from 0) of `r`, which must outlive this.
  result_row(const result& r, int index) noexcept : r_(r), row_(index) {}
  [[nodiscard]] std::string text(int column) const override { return r_.text(row_, column); }
  [[nodiscard]] std::int64_t integer(int column) const override { return r_.integer(row_, column); }
  [[nodiscard]] double real(int column) const override { return r_.real(row_, column); }
  [[nodiscard]] bool boolean(int column) const override { return r_.text(row_, column) == "t"; }
  [[nodiscard]] bool is_null(int column) const override { return r_.is_null(row_, column); }

 private:
  const result& r_;
  int row_;
};

}  // namespace bg::server::pg
