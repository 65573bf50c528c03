#pragma once
/// @file database_url.hpp
/// What `--db` names: a SQLite file (a path, the default) or a PostgreSQL database (a
/// `postgresql://` or `postgres://` URL, libpq's connection URI), and how such a URL is
/// shown in logs and messages: never with its password.

#include <string>
#include <string_view>

namespace bg::server {

/// True when `db` is a PostgreSQL connection URL: it starts with "postgresql://" or
/// "postgres://" (the two prefixes libpq accepts). Anything else is a SQLite path.
[[nodiscard]] bool is_postgres_url(std::string_view db) noexcept;

/// `db` fit for a log line: a PostgreSQL URL with the password of its user info
/// ("postgresql://gammond:***@db.example.org/gammond") and the value of a `password`
/// query parameter replaced by "***"; a SQLite path unchanged.
[[nodiscard]] std::string masked_database(std::string_view db);

/// `message` with every occurrence of the password in `db` (as written, and
/// percent-decoded) replaced by "***": for messages of libpq that may quote a part of
/// the URL. `message` unchanged when `db` has no password.
[[nodiscard]] std::string scrub_password(std::string message, std::string_view db);

}  // namespace bg::server
