#include "database_query.hpp"

#include <sqlite3.h>

#include <memory>
#include <stdexcept>

#include "postgres_server.hpp"

namespace bg::test {

std::string database_query(const gammond_process& server, const std::string& sql) {
  if (server.uses_postgres()) return postgres_server::query(server.db(), sql);
  sqlite3* raw = nullptr;
  const int opened =
      sqlite3_open_v2(server.database().c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
  const std::unique_ptr<sqlite3, decltype(&sqlite3_close)> db(raw, &sqlite3_close);
  if (opened != SQLITE_OK)
    throw std::runtime_error("cannot open " + server.database().string() + ": " +
                             sqlite3_errstr(opened));
  sqlite3_busy_timeout(db.get(), 5000);
  sqlite3_stmt* raw_stmt = nullptr;
  if (sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &raw_stmt, nullptr) != SQLITE_OK)
    throw std::runtime_error(std::string("SQLite refused \"") + sql +
                             "\": " + sqlite3_errmsg(db.get()));
  const std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> stmt(raw_stmt,
                                                                        &sqlite3_finalize);
  const int rc = sqlite3_step(stmt.get());
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    throw std::runtime_error(std::string("\"") + sql + "\" failed: " + sqlite3_errmsg(db.get()));
  std::string out;
  if (rc == SQLITE_ROW && sqlite3_column_text(stmt.get(), 0))
    out = reinterpret_cast<const char*>(sqlite3_column_text(stmt.get(), 0));
  return out;
}

}  // namespace bg::test
