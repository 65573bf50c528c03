#pragma once

#include <string>

#include "gammond_process.hpp"

namespace bg::test {

/// Runs `sql` on the database the gammond of `server` runs on: its SQLite file
/// (server.database()), or its PostgreSQL database when the test stage runs gammond on
/// PostgreSQL (GAMMOND_TEST_STORE=postgres, scripts/test's pg stage). Write SQL both
/// understand. Returns the first column of the first row as text: "" when there is no
/// row or it is NULL (ask for coalesce(column, 'NULL') to tell a NULL apart); a
/// statement without rows (UPDATE) returns "". Waits up to 5 s for SQLite's write lock.
/// Throws std::runtime_error with the database's message when the statement fails.
std::string database_query(const gammond_process& server, const std::string& sql);

}  // namespace bg::test
