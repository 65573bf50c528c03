#pragma once
/// @file sqlite_schema.hpp
/// sqlite_store's schema (private to the store library): the migrations that make it,
/// applied at open (sqlite_store::migrate()); the version is `PRAGMA user_version`.

#include <array>

#include "bg/server/store/sqlite_store.hpp"

namespace bg::server::sqlite {

/// Migration i brings the schema from version i to i + 1 (SQL text, several
/// statements). Append only; never edit a migration that has shipped: existing files
/// were made by them.
[[nodiscard]] const std::array<const char*, sqlite_store::schema_version>& migrations() noexcept;

}  // namespace bg::server::sqlite
