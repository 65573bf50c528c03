#pragma once
/// @file open_store.hpp
/// One factory for gammond's store: `--db` names a SQLite file or a PostgreSQL URL
/// (database_url.hpp), and the matching backend is opened with its options.

#include <memory>
#include <string>

#include "bg/server/store/postgres_store.hpp"
#include "bg/server/store/sqlite_store.hpp"
#include "bg/server/store/store.hpp"

namespace bg::server {

/// The settings of both backends; the one `db` names is used.
struct store_options {
  sqlite_options sqlite;      ///< for a path
  postgres_options postgres;  ///< for a postgresql:// or postgres:// URL
};

/// Opens the store `db` names: postgres_store for a PostgreSQL URL (is_postgres_url),
/// else sqlite_store for the file at that path. Throws what their constructors throw
/// (storage_error; storage_corrupt for a damaged SQLite file), with the URL's password
/// never in the message.
[[nodiscard]] std::unique_ptr<store> open_store(const std::string& db,
                                                const store_options& options);

}  // namespace bg::server
