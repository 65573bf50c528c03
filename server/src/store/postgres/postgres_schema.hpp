#pragma once
/// @file postgres_schema.hpp
/// postgres_store's schema (private to the store library): the migrations that make it,
/// applied at open in one transaction under an advisory lock (postgres_store::migrate());
/// the versions applied are in `schema_version`.

#include <array>

#include "bg/server/store/postgres_store.hpp"

namespace bg::server::pg {

/// The advisory lock that serialises schema migrations ("gammond" in ASCII), as a query.
inline constexpr const char* migration_lock =
    "SELECT pg_advisory_xact_lock(x'67616d6d6f6e64'::bigint)";

/// Migration i brings the schema from version i to i + 1 (SQL text, several
/// statements). Append only; never edit a migration that has shipped: existing
/// databases were made by them.
[[nodiscard]] const std::array<const char*, postgres_store::schema_version>& migrations() noexcept;

}  // namespace bg::server::pg
