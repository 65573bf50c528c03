#pragma once
// SQL on a SQLite file on a connection of the test's own, beside the store under test
// (to look at or edit what it wrote): the store unit tests' helpers.

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <string>

namespace bg::test {

/// Runs one SQL statement on `path` on its own connection and returns the first column
/// of the first row as text ("" when there is no row or it is NULL). A statement that
/// SQLite refuses or that fails fails the test (REQUIRE), with SQLite's message.
inline std::string raw_query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  const int prepared = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
  INFO(sql << ": " << sqlite3_errmsg(db));
  REQUIRE(prepared == SQLITE_OK);
  std::string out;
  const int rc = sqlite3_step(stmt);
  REQUIRE((rc == SQLITE_ROW || rc == SQLITE_DONE));
  if (rc == SQLITE_ROW && sqlite3_column_text(stmt, 0))
    out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

/// Runs `sql` (several statements) on `path` on its own connection, creating the file
/// if it is missing; returns SQLite's result code (SQLITE_OK, SQLITE_CONSTRAINT, ...).
inline int raw_exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) ==
          SQLITE_OK);
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
  return rc;
}

}  // namespace bg::test
