#pragma once
/// @file store_backends.hpp
/// The two store backends as test fixtures, so that one suite (test_store_conformance)
/// runs every behaviour of store.hpp against both: each gives a fresh empty database,
/// opens stores on it, and runs raw SQL on it behind the store's back (to tamper with a
/// row, or to look at what was stored).

#include <sqlite3.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "bg/server/store/postgres_store.hpp"
#include "bg/server/store/sqlite_store.hpp"
#include "postgres_server.hpp"
#include "record_builder.hpp"

namespace bg::test {

/// A SQLite file in a scratch directory.
struct sqlite_backend {
  static constexpr const char* name = "SQLite";
  temp_dir dir;
  std::string path = dir.file("gammond.db");

  /// A new store on this database.
  [[nodiscard]] std::unique_ptr<server::store> open() const {
    return std::make_unique<server::sqlite_store>(path);
  }
  /// Runs `query` on a connection of its own; the first column of the first row as text
  /// ("" when none). Throws std::runtime_error with SQLite's message.
  [[nodiscard]] std::string sql(const std::string& query) const {
    sqlite3* db = nullptr;
    std::unique_ptr<sqlite3, int (*)(sqlite3*)> guard(nullptr, sqlite3_close_v2);
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
      throw std::runtime_error("cannot open " + path);
    guard.reset(db);
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, query.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
      throw std::runtime_error(query + ": " + sqlite3_errmsg(db));
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> s(stmt, sqlite3_finalize);
    const int rc = sqlite3_step(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
      throw std::runtime_error(query + ": " + sqlite3_errmsg(db));
    if (rc == SQLITE_ROW && sqlite3_column_text(stmt, 0))
      return reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    return {};
  }
  /// Marks the schema as written by a future gammond.
  void set_future_schema() const { (void)sql("PRAGMA user_version = 99"); }
};

/// A database of its own on the test process's PostgreSQL server (dropped at the end).
struct postgres_backend {
  static constexpr const char* name = "PostgreSQL";
  std::string url = postgres_server::shared().create_database();

  postgres_backend() = default;
  ~postgres_backend() { postgres_server::shared().drop_database(url); }
  postgres_backend(const postgres_backend&) = delete;
  postgres_backend& operator=(const postgres_backend&) = delete;

  [[nodiscard]] std::unique_ptr<server::store> open() const {
    return std::make_unique<server::postgres_store>(url);
  }
  [[nodiscard]] std::string sql(const std::string& query) const {
    return postgres_server::query(url, query);
  }
  void set_future_schema() const { (void)sql("INSERT INTO schema_version(version) VALUES (99)"); }
};

}  // namespace bg::test
