#pragma once
/// @file gammond_process.hpp
/// Runs the real gammond binary (GAMMOND_BINARY, or the environment's GAMMOND_TEST_BINARY
/// when set) for integration tests: ephemeral port, a temporary database, its log kept
/// for failure messages.
///
/// Usage:
/// @code
///   bg::test::gammond_process server{{"--max-tables", "3"}};
///   REQUIRE(server.get("/healthz").status == 200);
///   bg::test::ws_client c;
///   c.connect("127.0.0.1", server.port());
///   ...
///   server.restart();            // SIGTERM, wait, start again on the same database
///   CHECK(server.stop() == 0);   // the exit code after a graceful stop
/// @endcode
/// The destructor kills a still running process (SIGKILL) and removes the temporary
/// directory (database, port file, log).
///
/// With GAMMOND_TEST_STORE=postgres in the environment (scripts/test's pg stage) the
/// database is a new PostgreSQL database on postgres_server::shared() instead of the
/// file, dropped by the destructor: the same tests then run on the second store.

#include <sys/types.h>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "http_get.hpp"

namespace bg::test {

/// One gammond process started with `--port 0 --port-file <dir>/port --db
/// <dir>/test.db --log-level debug --analysis-workers 0 --api-reads-per-second 100000
/// --api-read-burst 100000` (or `--db postgresql://...`,
/// see above) plus the extra flags (which may give --log-level, --db and
/// --analysis-workers: a test about match analysis turns it on), and `--register-per-hour
/// 0` unless given (tests register many accounts from 127.0.0.1; the tests of that limit
/// give it). Not thread-safe.
/// What a run of the gammond binary (a subcommand) did: its exit code (128 + the signal
/// when one ended it) and its stdout and stderr together.
struct gammond_run {
  int exit_code = -1;
  std::string output;
};

/// Runs the gammond binary with `args` (after the program name), `input` on its standard
/// input (a pipe, so not a terminal), and waits up to 60 s for it (then SIGKILL). Throws
/// std::runtime_error when it cannot be started.
gammond_run run_gammond(const std::vector<std::string>& args, const std::string& input = {});

class gammond_process {
 public:
  /// Creates a temporary directory and starts gammond with `extra_flags` (which may
  /// override --log-level and --db, and may set any other flag). Waits up to `startup_timeout`
  /// for the port file. Throws std::runtime_error (with the process's log) when
  /// gammond exits or does not write its port in time.
  explicit gammond_process(std::vector<std::string> extra_flags = {},
                           std::chrono::milliseconds startup_timeout = std::chrono::seconds{30});
  /// Kills (SIGKILL) a still running gammond, waits for it and removes the directory.
  ~gammond_process();
  gammond_process(const gammond_process&) = delete;
  gammond_process& operator=(const gammond_process&) = delete;

  /// The port gammond listens on (127.0.0.1), valid while running.
  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
  /// The FIBS port (issue 32) when the flags have --fibs-port (gammond_process adds
  /// --fibs-port-file itself), else 0; valid while running.
  [[nodiscard]] std::uint16_t fibs_port() const noexcept { return fibs_port_; }
  /// "127.0.0.1".
  [[nodiscard]] static std::string host() { return "127.0.0.1"; }
  /// True until stop() (or the process ending on its own, as seen by waitpid).
  [[nodiscard]] bool running();
  /// The process id (0 when not running).
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }

  /// Sends `signal` (SIGTERM: graceful; SIGKILL: a crash) and waits up to `timeout`
  /// for the process to end; after the timeout it is killed with SIGKILL. Returns the
  /// exit code, or 128 + the signal number when a signal ended it (so a graceful stop
  /// returns 0 and SIGKILL returns 137). Returns -1 when it was not running.
  int stop(int signal = SIGTERM, std::chrono::milliseconds timeout = std::chrono::seconds{30});
  /// stop(signal), then starts gammond again with the same flags and the same
  /// database (a new port: read port() again). Throws as the constructor does.
  void restart(int signal = SIGTERM);

  /// Makes the account `name` with `password` by `gammond admin create NAME --db db()`
  /// (the only way to make an --admins account): stops gammond, runs the subcommand, and
  /// starts gammond again on the same database (a new port: read port() again). Throws
  /// std::runtime_error with the subcommand's output when it does not exit 0.
  void create_admin(const std::string& name, const std::string& password);

  /// GET `target` from this gammond (http_get(host(), port(), target)).
  [[nodiscard]] http_result get(const std::string& target,
                                std::chrono::milliseconds timeout = std::chrono::seconds{30}) const;

  /// The value of the sample `name` (a line "name value", no labels) in GET /metrics;
  /// throws std::runtime_error when /metrics does not answer 200 or has no such line.
  [[nodiscard]] double metric(const std::string& name) const;

  /// The temporary directory, the database file and gammond's stdout+stderr log.
  [[nodiscard]] const std::filesystem::path& directory() const noexcept { return dir_; }
  [[nodiscard]] std::filesystem::path database() const { return dir_ / "test.db"; }
  /// True when gammond runs on PostgreSQL (GAMMOND_TEST_STORE=postgres), not on database().
  [[nodiscard]] bool uses_postgres() const noexcept { return !postgres_url_.empty(); }
  /// What --db says: the flag when one was given, else database() or the PostgreSQL URL.
  [[nodiscard]] std::string db() const;
  /// Everything stored, as bytes to search: the SQLite file with its WAL, or PostgreSQL's
  /// pg_dump --data-only of the database.
  [[nodiscard]] std::string database_contents() const;
  [[nodiscard]] std::filesystem::path log_file() const { return dir_ / "gammond.log"; }
  /// Everything gammond has logged so far (all runs), for failure messages.
  [[nodiscard]] std::string log() const;

 private:
  void start();

  std::filesystem::path dir_;
  std::string postgres_url_;  ///< the database on PostgreSQL, or empty for SQLite
  std::vector<std::string> flags_;
  std::chrono::milliseconds startup_timeout_;
  pid_t pid_ = 0;
  std::uint16_t port_ = 0;
  std::uint16_t fibs_port_ = 0;
};

}  // namespace bg::test
