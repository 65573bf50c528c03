#include "postgres_statements.hpp"

#include <string>

#include "store/store_core.hpp"

namespace bg::server::pg {

using namespace names;

namespace {

/// `column` (a timestamptz) as ISO 8601 UTC text with milliseconds, as SQLite's
/// strftime('%Y-%m-%dT%H:%M:%fZ') writes it ("" for NULL).
std::string iso_text(const std::string& column) {
  return "coalesce(to_char(" + column +
         " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), '')";
}

/// Table snapshots and their record journals.
std::vector<statement> table_statements() {
  return {
      // One statement per table write: the snapshot, the journal reset and the new
      // entries (data-modifying CTEs all run, on the same snapshot: the DELETE never
      // sees the rows this INSERT adds). Entries keep their order through the identity.
      {save_table_sql,
       "WITH saved AS (INSERT INTO tables(name, snapshot, updated_at) VALUES ($1, $2::json, now()) "
       "ON CONFLICT (name) DO UPDATE SET snapshot = excluded.snapshot, "
       "updated_at = excluded.updated_at RETURNING 1), "
       "reset AS (DELETE FROM table_records WHERE $3::boolean AND table_name = $1 RETURNING 1) "
       "INSERT INTO table_records(table_name, entry, node, epoch) "
       "SELECT $1, e.entry::json, $5, $6::bigint FROM unnest($4::text[]) WITH ORDINALITY AS "
       "e(entry, n) ORDER BY e.n"},
      {drop_table_sql,
       "WITH records AS (DELETE FROM table_records WHERE table_name = $1 RETURNING 1) "
       "DELETE FROM tables WHERE name = $1"},
      {load_tables_sql, "SELECT name, snapshot FROM tables ORDER BY name COLLATE \"C\""},
      {load_records_sql,
       "SELECT table_name, entry FROM table_records ORDER BY table_name COLLATE \"C\", id"},
      {load_table_sql, "SELECT snapshot FROM tables WHERE name = $1"},
      {load_table_records_sql, "SELECT entry FROM table_records WHERE table_name = $1 ORDER BY id"},
  };
}

/// The cluster's fencing and ownership of tables (issue 16).
std::vector<statement> cluster_statements() {
  return {
      // The cluster's fencing (issue 16): this node's own lease, then its ownership of
      // the table at its epoch (locked: a claim by another node waits for this commit).
      {own_lease_sql,
       "SELECT 1 FROM cluster_nodes WHERE id = $1 AND heartbeat_at > now() - $2::bigint * "
       "interval '1 millisecond'"},
      {check_owner_sql,
       "SELECT epoch FROM table_owners WHERE table_name = $1 AND node = $2 AND epoch = "
       "$3::bigint FOR SHARE"},
      // A table's first write claims it: when it has no owner, or its owner is dead.
      {claim_new_sql,
       "INSERT INTO table_owners AS o (table_name, node, epoch) VALUES ($1, $2, 1) "
       "ON CONFLICT (table_name) DO UPDATE SET node = excluded.node, epoch = o.epoch + 1 "
       "WHERE NOT EXISTS (SELECT 1 FROM cluster_nodes n WHERE n.id = o.node AND n.id <> $2 "
       "AND n.heartbeat_at > now() - $3::bigint * interval '1 millisecond') RETURNING epoch"},
      {save_seats_sql,
       // (The DELETE and the INSERT see the same snapshot: names kept are not deleted,
       // and those already there are not inserted again.)
       "WITH gone AS (DELETE FROM table_seats WHERE table_name = $1 AND name_key <> ALL "
       "($2::text[]) RETURNING 1) INSERT INTO table_seats(table_name, name_key) SELECT "
       "DISTINCT $1::text, k FROM unnest($2::text[]) AS k ON CONFLICT DO NOTHING"},
      {drop_owner_sql,
       "WITH seats AS (DELETE FROM table_seats WHERE table_name = $1 RETURNING 1) "
       "DELETE FROM table_owners WHERE table_name = $1 AND node = $2"},
  };
}

/// Finished matches and their ids.
std::vector<statement> match_statements() {
  return {
      {insert_match_sql,
       "INSERT INTO matches(id, table_name, red, black, options, record, started_at, ended_at, "
       "score_red, score_black, games, saved_at, unfinished) "
       "VALUES ($1, $2, $3, $4, $5::json, $6::json, $7, $8, $9, $10, $11, now(), $12)"},
      {load_match_sql, "SELECT record FROM matches WHERE id = $1"},
      {match_count_sql, "SELECT count(*) FROM matches"},
      {take_ids_sql, "SELECT nextval('match_ids') FROM generate_series(1, $1::integer)"},
  };
}

/// Analyses by GNU Backgammon (issue 14).
std::vector<statement> analysis_statements() {
  static const std::string load_analysis_text =
      "SELECT status, level, coalesce(result::text, ''), reason, " + iso_text("queued_at") + ", " +
      iso_text("finished_at") + " FROM analyses WHERE match_id = $1";
  return {
      {queue_analysis_sql,
       "INSERT INTO analyses(match_id, status, queued_at) VALUES ($1, 'pending', now())"},
      {save_analysis_sql,
       "INSERT INTO analyses(match_id, status, level, result, reason, queued_at, finished_at, "
       "red_equity_lost, red_decisions, black_equity_lost, black_decisions) VALUES ($1, $2, $3, "
       "$4::json, $5, now(), CASE WHEN $2 = 'pending' THEN NULL ELSE now() END, $6, $7, $8, $9) "
       "ON CONFLICT (match_id) DO UPDATE SET status = excluded.status, level = excluded.level, "
       "result = excluded.result, reason = excluded.reason, finished_at = excluded.finished_at, "
       "red_equity_lost = excluded.red_equity_lost, red_decisions = excluded.red_decisions, "
       "black_equity_lost = excluded.black_equity_lost, black_decisions = "
       "excluded.black_decisions"},
      {load_analysis_sql, load_analysis_text.c_str()},
      {pending_analyses_sql,
       "SELECT match_id FROM analyses WHERE status = 'pending' ORDER BY match_id LIMIT $1"},
  };
}

/// Accounts, their ratings and histories (RULES.md S1).
std::vector<statement> account_statements() {
  static const std::string account_matches_text =
      "SELECT am.match_id, m.ended_at, m.options, am.side, am.opponent, m.score_red, "
      "m.score_black, am.won, am.rating_before, am.rating_after, am.experience_before, "
      "am.experience_after, a.name, " +
      store_core::pr_side_sum("equity_lost") + ", " + store_core::pr_side_sum("decisions") +
      " FROM account_matches am JOIN accounts a ON a.id = am.account_id JOIN matches m ON m.id = "
      "am.match_id LEFT JOIN analyses an ON an.match_id = am.match_id AND an.status = 'done' "
      "WHERE a.name_key = $1 AND am.match_id < $2 ORDER BY am.match_id DESC LIMIT $3";
  // The page of the list first, then the PR sums of its lines only.
  static const std::string leaderboard_text =
      "SELECT l.name, l.rating, l.experience, l.played, l.won, l.kind, " +
      store_core::line_pr_sums() +
      " FROM (SELECT a.id, a.name, a.name_key, r.rating, r.experience, r.played, r.won, a.kind "
      "FROM ratings r JOIN accounts a ON a.id = r.account_id WHERE r.variant = $1 AND "
      "r.experience > 0 ORDER BY r.rating DESC, a.name_key COLLATE \"C\" LIMIT $2) l ORDER BY "
      "l.rating DESC, l.name_key COLLATE \"C\"";
  static const std::string leaderboard_by_pr_text =
      "WITH p AS (SELECT am.account_id, " + store_core::pr_sum("equity_lost") + " AS lost, " +
      store_core::pr_sum("decisions") +
      " AS decisions FROM account_matches am JOIN analyses an ON an.match_id = am.match_id AND "
      "an.status = 'done' GROUP BY am.account_id) SELECT a.name, r.rating, r.experience, "
      "r.played, r.won, a.kind, p.lost, p.decisions FROM ratings r JOIN accounts a ON a.id = "
      "r.account_id LEFT JOIN p ON p.account_id = a.id WHERE r.variant = $1 AND r.experience > 0 "
      "ORDER BY CASE WHEN p.decisions > 0 THEN 0 ELSE 1 END, p.lost / nullif(p.decisions, 0), "
      "r.rating DESC, a.name_key COLLATE \"C\" LIMIT $2";
  static const std::string account_performance_text =
      "SELECT " + store_core::pr_sum("equity_lost") + ", " + store_core::pr_sum("decisions") +
      ", count(" + store_core::pr_side_sum("decisions") +
      ") FROM account_matches am JOIN accounts a ON a.id = am.account_id JOIN matches m ON m.id = "
      "am.match_id JOIN analyses an ON an.match_id = am.match_id AND an.status = 'done' WHERE "
      "a.name_key = $1 AND m.ended_at COLLATE \"C\" >= $2";
  static const std::string find_account_text =
      "SELECT id, name_key, name, kind, coalesce(password_hash, ''), " + iso_text("created_at") +
      ", " + iso_text("last_seen") + ", coalesce(lang, '') FROM accounts WHERE name_key = $1";
  return {
      {insert_account_sql,
       "INSERT INTO accounts(name_key, name, kind, password_hash, created_at) VALUES ($1, $2, "
       "$3, $4, now()) ON CONFLICT (name_key) DO NOTHING RETURNING id"},
      {insert_rating_sql,
       "INSERT INTO ratings(account_id, variant) VALUES ($1, 'standard'), ($1, 'long')"},
      {find_account_sql, find_account_text.c_str()},
      {account_ratings_sql,
       "SELECT variant, rating, experience, played, won FROM ratings WHERE account_id = $1"},
      {set_password_sql,
       "UPDATE accounts SET password_hash = $2 WHERE name_key = $1 AND kind = 'player' "
       "RETURNING id"},
      {set_last_seen_sql, "UPDATE accounts SET last_seen = now() WHERE name_key = $1"},
      {set_account_lang_sql, "UPDATE accounts SET lang = nullif($2, '') WHERE name_key = $1"},
      {account_keys_sql, "SELECT name_key FROM accounts ORDER BY id"},
      // FOR UPDATE: another gammond rating the same account waits for this archive.
      {rating_of_sql,
       "SELECT a.id, a.name, r.rating, r.experience FROM accounts a JOIN ratings r ON "
       "r.account_id = a.id AND r.variant = $2 WHERE a.name_key = $1 FOR UPDATE OF r"},
      {update_rating_sql,
       "UPDATE ratings SET rating = $3, experience = $4, played = played + 1, won = won + $5 "
       "WHERE account_id = $1 AND variant = $2"},
      {insert_account_match_sql,
       "INSERT INTO account_matches(account_id, match_id, side, opponent, won, rating_before, "
       "rating_after, experience_before, experience_after) VALUES ($1, $2, $3, $4, $5, $6, $7, "
       "$8, $9)"},
      {account_matches_sql, account_matches_text.c_str()},
      {leaderboard_sql, leaderboard_text.c_str()},
      {leaderboard_by_pr_sql, leaderboard_by_pr_text.c_str()},
      {account_performance_sql, account_performance_text.c_str()},
  };
}

/// The moderation log, bans and ignore lists (issue 13).
std::vector<statement> moderation_statements() {
  static const std::string active_bans_text =
      "SELECT name_key, address, name, banned_by, " + iso_text("created_at") +
      ", coalesce(until_ms, 0) FROM bans WHERE until_ms IS NULL OR until_ms > $1 ORDER BY "
      "created_at, name_key COLLATE \"C\", address COLLATE \"C\"";
  return {
      {record_moderation_sql,
       "INSERT INTO moderation(at, action, actor, target, table_name, detail) VALUES (now(), $1, "
       "$2, $3, $4, $5)"},
      {delete_bans_sql, "DELETE FROM bans WHERE name_key = $1 RETURNING 1"},
      {insert_ban_sql,
       "INSERT INTO bans(name_key, address, name, banned_by, created_at, until_ms) VALUES ($1, "
       "$2, $3, $4, now(), $5)"},
      {active_bans_sql, active_bans_text.c_str()},
      {ignored_by_sql,
       "SELECT i.ignored_name FROM ignores i JOIN accounts a ON a.id = i.account_id WHERE "
       "a.name_key = $1 ORDER BY i.created_at, i.ignored_key COLLATE \"C\""},
      {add_ignored_sql,
       "INSERT INTO ignores(account_id, ignored_key, ignored_name, created_at) SELECT id, $2, "
       "$3, now() FROM accounts WHERE name_key = $1 ON CONFLICT DO NOTHING"},
      {remove_ignored_sql,
       "DELETE FROM ignores WHERE ignored_key = $2 AND account_id = (SELECT id FROM accounts "
       "WHERE name_key = $1)"},
  };
}

/// Remembered sign-ins (issue 27).
std::vector<statement> session_statements() {
  return {
      // A new session, then the account's expired ones and all but the `keep` most
      // recently used go (the new one is the most recent). Idempotent: a retry on a new
      // connection finds the credential stored and adds nothing.
      {insert_session_sql,
       "WITH acc AS (SELECT id FROM accounts WHERE name_key = $1 AND kind = 'player'), "
       "made AS (INSERT INTO sessions(account_id, token_hash, label, created_ms, used_ms, "
       "expires_ms) SELECT id, $2, $3, $4, $4, $5 FROM acc ON CONFLICT (token_hash) DO NOTHING "
       "RETURNING id), "
       "kept AS (SELECT s.id FROM sessions s, acc WHERE s.account_id = acc.id AND s.expires_ms "
       "> $4 ORDER BY s.used_ms DESC, s.id DESC LIMIT greatest($6::bigint - 1, 0)), "
       "gone AS (DELETE FROM sessions s USING acc WHERE s.account_id = acc.id AND s.id NOT IN "
       "(SELECT id FROM kept) AND s.id NOT IN (SELECT id FROM made)) "
       "SELECT coalesce((SELECT id FROM made), (SELECT id FROM sessions WHERE token_hash = $2), "
       "0)"},
      // The session under $1 marked used when not expired at $2; an expired one deleted.
      {use_session_sql,
       "WITH found AS (SELECT s.id, s.expires_ms FROM sessions s WHERE s.token_hash = $1), "
       "gone AS (DELETE FROM sessions WHERE id IN (SELECT id FROM found WHERE expires_ms <= $2)), "
       "used AS (UPDATE sessions SET used_ms = $2, expires_ms = $3 WHERE id IN (SELECT id FROM "
       "found WHERE expires_ms > $2) RETURNING id, account_id, label, created_ms, used_ms, "
       "expires_ms) "
       "SELECT u.id, a.name_key, u.label, u.created_ms, u.used_ms, u.expires_ms FROM used u "
       "JOIN accounts a ON a.id = u.account_id"},
      {account_sessions_sql,
       "SELECT s.id, a.name_key, s.label, s.created_ms, s.used_ms, s.expires_ms FROM sessions s "
       "JOIN accounts a ON a.id = s.account_id WHERE a.name_key = $1 AND s.expires_ms > $2 "
       "ORDER BY s.used_ms DESC, s.id DESC"},
      {end_session_sql,
       "WITH d AS (DELETE FROM sessions WHERE account_id = (SELECT id FROM accounts WHERE "
       "name_key = $1) AND ($2::bigint = 0 OR id = $2::bigint) RETURNING 1) SELECT count(*) "
       "FROM d"},
  };
}

}  // namespace

std::vector<statement> store_statements() {
  std::vector<statement> all;
  for (auto topic : {table_statements, cluster_statements, match_statements, analysis_statements,
                     account_statements, moderation_statements, session_statements}) {
    auto more = topic();
    all.insert(all.end(), more.begin(), more.end());
  }
  return all;
}

}  // namespace bg::server::pg
