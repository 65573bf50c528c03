#include "sqlite_schema.hpp"

namespace bg::server::sqlite {

namespace {

/// Migration i brings the schema from version i to i + 1. Append only; never edit a
/// migration that has shipped.
constexpr std::array<const char*, sqlite_store::schema_version> all{
    // 0 -> 1: table snapshots and finished matches.
    R"sql(
CREATE TABLE tables(
  name       TEXT PRIMARY KEY NOT NULL,
  snapshot   TEXT NOT NULL CHECK (json_valid(snapshot)),
  updated_at TEXT NOT NULL
);
CREATE TABLE matches(
  id          INTEGER PRIMARY KEY,
  table_name  TEXT NOT NULL,
  red         TEXT NOT NULL,
  black       TEXT NOT NULL,
  options     TEXT NOT NULL CHECK (json_valid(options)),
  record      TEXT NOT NULL CHECK (json_valid(record)),
  started_at  TEXT NOT NULL,
  ended_at    TEXT NOT NULL,
  score_red   INTEGER NOT NULL,
  score_black INTEGER NOT NULL,
  games       INTEGER NOT NULL,
  saved_at    TEXT NOT NULL
);
CREATE INDEX matches_by_red ON matches(red);
CREATE INDEX matches_by_black ON matches(black);
)sql",
    // 1 -> 2: each table's match record as a journal of changes (table snapshots
    // version 2 no longer carry the whole record).
    R"sql(
CREATE TABLE table_records(
  id         INTEGER PRIMARY KEY,
  table_name TEXT NOT NULL,
  entry      TEXT NOT NULL
);
CREATE INDEX table_records_by_table ON table_records(table_name, id);
)sql",
    // 2 -> 3: each finished match's analysis by GNU Backgammon (issue 14). A row is
    // written pending with the match; the analysis queue marks it done or failed.
    R"sql(
CREATE TABLE analyses(
  match_id    INTEGER PRIMARY KEY NOT NULL REFERENCES matches(id),
  status      TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
  level       TEXT NOT NULL DEFAULT '',
  result      TEXT CHECK (result IS NULL OR json_valid(result)),
  reason      TEXT NOT NULL DEFAULT '',
  queued_at   TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX analyses_pending ON analyses(match_id) WHERE status = 'pending';
)sql",
    // 3 -> 4: accounts, their ratings per variant (RULES.md S1), and each account's
    // matches with its rating changes. A bot account has no password (cannot log in).
    R"sql(
CREATE TABLE accounts(
  id            INTEGER PRIMARY KEY,
  name_key      TEXT NOT NULL UNIQUE,
  name          TEXT NOT NULL,
  kind          TEXT NOT NULL DEFAULT 'player' CHECK (kind IN ('player', 'bot')),
  password_hash TEXT CHECK ((kind = 'player') = (password_hash IS NOT NULL)),
  created_at    TEXT NOT NULL,
  last_seen     TEXT
);
CREATE TABLE ratings(
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  variant    TEXT NOT NULL CHECK (variant IN ('standard', 'long')),
  rating     REAL NOT NULL DEFAULT 1500.0,
  experience INTEGER NOT NULL DEFAULT 0,
  played     INTEGER NOT NULL DEFAULT 0,
  won        INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, variant)
) WITHOUT ROWID;
CREATE INDEX ratings_by_rating ON ratings(variant, rating DESC);
CREATE TABLE account_matches(
  account_id        INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  match_id          INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
  side              TEXT NOT NULL CHECK (side IN ('red', 'black')),
  opponent          TEXT NOT NULL,
  won               INTEGER CHECK (won IN (0, 1)),
  rating_before     REAL,
  rating_after      REAL,
  experience_before INTEGER,
  experience_after  INTEGER,
  PRIMARY KEY (account_id, match_id)
) WITHOUT ROWID;
)sql",
    // 4 -> 5: moderation (issue 13): the log of every moderation action, the bans of
    // names and of the addresses they used, the names each account ignores, and the
    // matches an administrator closed before they finished.
    R"sql(
CREATE TABLE moderation(
  id         INTEGER PRIMARY KEY,
  at         TEXT NOT NULL,
  action     TEXT NOT NULL CHECK (action IN ('kick', 'private', 'invite', 'uninvite', 'ban',
                                             'unban', 'broadcast', 'close')),
  actor      TEXT NOT NULL,
  target     TEXT NOT NULL DEFAULT '',
  table_name TEXT NOT NULL DEFAULT '',
  detail     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX moderation_by_target ON moderation(target);
CREATE TABLE bans(
  name_key   TEXT NOT NULL,
  address    TEXT NOT NULL DEFAULT '',
  name       TEXT NOT NULL,
  banned_by  TEXT NOT NULL,
  created_at TEXT NOT NULL,
  until_ms   INTEGER,
  PRIMARY KEY (name_key, address)
) WITHOUT ROWID;
CREATE TABLE ignores(
  account_id   INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  ignored_key  TEXT NOT NULL,
  ignored_name TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  PRIMARY KEY (account_id, ignored_key)
) WITHOUT ROWID;
ALTER TABLE matches ADD COLUMN unfinished INTEGER NOT NULL DEFAULT 0 CHECK (unfinished IN (0, 1));
)sql",
    // 5 -> 6: sessions (issue 27): an account's remembered sign-ins, each under its
    // credential's SHA-256 (64 hex digits), with its times in ms since the Unix epoch.
    R"sql(
CREATE TABLE sessions(
  id         INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  label      TEXT NOT NULL DEFAULT '',
  created_ms INTEGER NOT NULL,
  used_ms    INTEGER NOT NULL,
  expires_ms INTEGER NOT NULL
);
CREATE INDEX sessions_by_account ON sessions(account_id);
)sql",
    // 6 -> 7: each side's performance rating sums (RULES.md S7) of a done analysis: the
    // equity lost (EMG, checker play and cube) and the decisions gnubg counted (unforced
    // checker plays, close cube decisions), as pr_sums_of() reads them from `result`;
    // NULL unless done. The analyses done before are filled in here from their results.
    R"sql(
ALTER TABLE analyses ADD COLUMN red_equity_lost REAL;
ALTER TABLE analyses ADD COLUMN red_decisions INTEGER;
ALTER TABLE analyses ADD COLUMN black_equity_lost REAL;
ALTER TABLE analyses ADD COLUMN black_decisions INTEGER;
UPDATE analyses SET
  red_equity_lost = CASE WHEN json_type(result, '$.players.red.checker.error_total') IN ('integer', 'real') THEN json_extract(result, '$.players.red.checker.error_total') ELSE 0 END
    + CASE WHEN json_type(result, '$.players.red.cube.error_total') IN ('integer', 'real') THEN json_extract(result, '$.players.red.cube.error_total') ELSE 0 END,
  red_decisions = CAST(CASE WHEN json_type(result, '$.players.red.checker.unforced') IN ('integer', 'real') THEN json_extract(result, '$.players.red.checker.unforced') ELSE 0 END
    + CASE WHEN json_type(result, '$.players.red.cube.close') IN ('integer', 'real') THEN json_extract(result, '$.players.red.cube.close') ELSE 0 END AS INTEGER),
  black_equity_lost = CASE WHEN json_type(result, '$.players.black.checker.error_total') IN ('integer', 'real') THEN json_extract(result, '$.players.black.checker.error_total') ELSE 0 END
    + CASE WHEN json_type(result, '$.players.black.cube.error_total') IN ('integer', 'real') THEN json_extract(result, '$.players.black.cube.error_total') ELSE 0 END,
  black_decisions = CAST(CASE WHEN json_type(result, '$.players.black.checker.unforced') IN ('integer', 'real') THEN json_extract(result, '$.players.black.checker.unforced') ELSE 0 END
    + CASE WHEN json_type(result, '$.players.black.cube.close') IN ('integer', 'real') THEN json_extract(result, '$.players.black.cube.close') ELSE 0 END AS INTEGER)
WHERE status = 'done' AND json_type(result) = 'object';
)sql",
    // 7 -> 8: each account's language (issue 31: /lang), a catalogue tag; NULL until the
    // player chooses one.
    R"sql(
ALTER TABLE accounts ADD COLUMN lang TEXT;
)sql",
    // 8 -> 9: the tables' snapshots without CHECK (json_valid(snapshot)) (issue 33: SQLite
    // parsed every snapshot again at every change, about a third of the change's write).
    // A table's own snapshot is JSON by construction (json_writer); any other is checked
    // by the store before it is written (table_write::snapshot_is_json), and a damaged
    // one is skipped at restore. SQLite drops a CHECK only with its table: rebuilt, rows
    // kept.
    R"sql(
CREATE TABLE tables_unchecked(
  name       TEXT PRIMARY KEY NOT NULL,
  snapshot   TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
INSERT INTO tables_unchecked(name, snapshot, updated_at) SELECT name, snapshot, updated_at FROM tables;
DROP TABLE tables;
ALTER TABLE tables_unchecked RENAME TO tables;
)sql",
};

}  // namespace

const std::array<const char*, sqlite_store::schema_version>& migrations() noexcept {
  return all;
}

}  // namespace bg::server::sqlite
