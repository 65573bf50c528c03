#pragma once
/// @file postgres_server.hpp
/// A throwaway PostgreSQL server for tests: `initdb` into a temporary directory (copied
/// from a template made once per build directory), `postgres` listening only on a Unix
/// socket in that directory (no TCP port to collide on), trust authentication, fsync
/// off (what is tested is gammond, not PostgreSQL's durability; GAMMOND_TEST_PG_FSYNC=on
/// turns it on, for benchmarks). Run as a non-root
/// user: as the `postgres` system user (Debian's package creates it) when the tests run
/// as root, as oneself otherwise. A database per test; everything is stopped and removed
/// at the end. Failing to start is an exception with a sentence (never a skip).
///
/// Usage:
/// @code
///   auto& server = bg::test::postgres_server::shared();
///   const std::string url = server.create_database();  // postgresql://...
///   bg::server::postgres_store db(url);
///   CHECK(server.query(url, "SELECT count(*) FROM tables") == "0");
/// @endcode

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace bg::test {

/// One PostgreSQL server: started by this object, or (attach()) one that a test stage
/// started and named in GAMMOND_TEST_POSTGRES. Not thread-safe.
class postgres_server {
 public:
  /// Makes the data directory (from the template under GAMMOND_TEST_PG_TEMPLATE, made
  /// with initdb on first use) and starts the server; waits up to 60 s for it to accept
  /// connections. Throws std::runtime_error, with the server's log, when it cannot.
  postgres_server();
  /// Stops a server this object started (and its postmaster's children) and removes its
  /// directory. An attached server is left running.
  ~postgres_server();
  postgres_server(const postgres_server&) = delete;
  postgres_server& operator=(const postgres_server&) = delete;

  /// The server of this test process: the one named by GAMMOND_TEST_POSTGRES (a
  /// superuser URL of its maintenance database, set by `scripts/test`'s pg stage and by
  /// gammond-test-postgres), else one started on first use and stopped at exit. Start it
  /// from the main thread: the server's parent-death signal follows the starting thread.
  static postgres_server& shared();

  /// Creates a new empty database (UTF8, C collation) and returns its URL
  /// ("postgresql://USER@/NAME?host=DIR"). Throws std::runtime_error.
  std::string create_database();
  /// Drops the database at `url` (created by create_database), disconnecting its
  /// sessions. Never throws (a test's cleanup).
  void drop_database(const std::string& url) noexcept;

  /// Runs `sql` on the database at `url` and returns the first column of its first row
  /// as text ("" when there is no row or it is NULL). Throws std::runtime_error with
  /// PostgreSQL's message when it fails.
  static std::string query(const std::string& url, const std::string& sql);

  /// Every row of the database at `url` as pg_dump --data-only writes it (to look for
  /// what must not be stored, such as a resume token). Throws std::runtime_error.
  static std::string dump(const std::string& url);

  /// Stops the server (fast shutdown: sessions are disconnected) and waits for it.
  /// Only for a server this object started.
  void stop();
  /// Starts it again on the same directory after stop().
  void start();

  /// A superuser URL of the maintenance database `postgres`.
  [[nodiscard]] const std::string& admin_url() const noexcept { return admin_url_; }
  /// The directory (socket, data, log); empty for an attached server.
  [[nodiscard]] const std::filesystem::path& directory() const noexcept { return dir_; }
  /// The server's log so far ("" for an attached server).
  [[nodiscard]] std::string log() const;

 private:
  struct attached {};
  explicit postgres_server(attached, std::string admin_url);

  std::filesystem::path dir_;
  std::string admin_url_;
  pid_t pid_ = 0;
  bool owned_ = true;
};

/// A database of its own on the shared server (postgres_server::shared()), dropped at
/// the end of its scope: what a test that runs gammond on PostgreSQL starts with.
struct postgres_database {
  std::string url = postgres_server::shared().create_database();
  postgres_database() = default;
  ~postgres_database() { postgres_server::shared().drop_database(url); }
  postgres_database(const postgres_database&) = delete;
  postgres_database& operator=(const postgres_database&) = delete;
  /// postgres_server::query() on this database: the first column of the first row.
  [[nodiscard]] std::string sql(const std::string& query) const {
    return postgres_server::query(url, query);
  }
};

}  // namespace bg::test
