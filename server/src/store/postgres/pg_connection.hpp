#pragma once
/// @file pg_connection.hpp
/// A thin RAII layer over libpq (private to the store library): one connection that
/// reconnects on demand, results freed with their scope, text parameters always bound
/// (PQexecParams / PQexecPrepared), never pasted into SQL. Used by postgres_store and
/// `gammond migrate`.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bg/server/store/store.hpp"

struct pg_conn;
struct pg_result;

namespace bg::server::pg {

/// The connection broke while (or before) a statement ran: the server did not answer,
/// so whether a COMMIT in flight took effect is unknown. The caller may reconnect and
/// redo what is safe to redo (a read, a BEGIN).
class connection_lost : public storage_error {
 public:
  using storage_error::storage_error;
};

/// PostgreSQL gave up a statement to break a deadlock (SQLSTATE 40P01) or a
/// serialization failure (40001): nothing of it took effect, and the same statement
/// run again (after ROLLBACK TO SAVEPOINT, or in a new transaction) may well succeed.
class conflict : public storage_error {
 public:
  using storage_error::storage_error;
};

/// How to open a connection (postgres_options holds the user's settings).
struct connect_settings {
  /// libpq's connect_timeout, in seconds (0: wait for ever).
  int connect_timeout_s = 10;
  /// The session's statement_timeout, in milliseconds (0: none).
  int statement_timeout_ms = 30000;
  /// The session's synchronous_commit ("on" or "off").
  std::string synchronous_commit = "on";
};

/// One statement to prepare on every (re)connection: its name and its SQL.
struct statement {
  const char* name;
  const char* sql;
};

/// A query's result: rows of text columns (libpq's text format). Freed with its scope.
class result {
 public:
  result() = default;
  explicit result(pg_result* r) noexcept : r_(r) {}

  /// How many rows.
  [[nodiscard]] int rows() const noexcept;
  /// Row `row`, column `column` as text ("" for NULL).
  [[nodiscard]] std::string text(int row, int column) const;
  /// Row `row`, column `column` as a whole number. Throws storage_error when it is not.
  [[nodiscard]] std::int64_t integer(int row, int column) const;
  /// Row `row`, column `column` as a double (PostgreSQL's float8 text, which reads back
  /// exactly). Throws storage_error when it is not a number.
  [[nodiscard]] double real(int row, int column) const;
  /// True when row `row`, column `column` is NULL.
  [[nodiscard]] bool is_null(int row, int column) const noexcept;

 private:
  struct deleter {
    void operator()(pg_result* r) const noexcept;
  };
  std::unique_ptr<pg_result, deleter> r_;
};

/// A bound parameter: text, or NULL (nullopt).
using param = std::optional<std::string>;

/// One libpq connection to the database at a URL. Not thread-safe: its owner holds a
/// lock. Every failure throws storage_error (connection_lost when the connection
/// broke), with libpq's message and never the URL's password.
class connection {
 public:
  /// Remembers where to connect; connects on the first use (or ensure()).
  connection(std::string url, connect_settings settings, std::vector<statement> prepared = {});
  ~connection();
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  /// Connects when not connected (or when the connection broke): sets the session's
  /// client_encoding (UTF8), statement_timeout and synchronous_commit (the statements
  /// are prepared on their first run()). Throws storage_error when it cannot.
  void ensure();
  /// Drops the connection; the next ensure() opens a new one.
  void drop() noexcept;
  /// True while connected (as far as libpq knows: a connection the server closed while
  /// it was idle is found broken by the next statement).
  [[nodiscard]] bool connected() const noexcept;
  /// How many times a connection was opened after the first.
  [[nodiscard]] std::uint64_t reconnections() const noexcept { return reconnections_; }

  /// Runs `sql` (one statement, no parameters placeholders) with `params` bound as
  /// text ($1, $2, ...). `what` names the operation in the error ("saving table t").
  result exec(std::string_view what, const char* sql, const std::vector<param>& params = {});
  /// Runs the prepared statement `name` (one of those given to the constructor),
  /// preparing it first when this connection has not yet.
  result run(std::string_view what, const char* name, const std::vector<param>& params = {});
  /// Runs `sql` without parameters and without expecting rows (BEGIN, SAVEPOINT ...).
  void command(std::string_view what, const char* sql);

  // LISTEN/NOTIFY (cluster_bus): the connection's socket is polled by its owner.
  /// One notification received: its channel and payload.
  struct notification {
    std::string channel;
    std::string payload;
  };
  /// The connection's socket (to poll for reading), or -1 when not connected.
  [[nodiscard]] int socket() const noexcept;
  /// Reads what the server sent (PQconsumeInput) and returns the notifications
  /// received since the last call, oldest first. Throws connection_lost when the
  /// connection broke.
  std::vector<notification> notifications();

  /// The URL with its password masked (for messages).
  [[nodiscard]] const std::string& masked_url() const noexcept { return masked_; }

 private:
  result check(pg_result* r, std::string_view what);
  [[noreturn]] void fail(std::string_view what, std::string message,
                         std::string_view sqlstate = {});

  std::string url_;
  std::string masked_;
  connect_settings settings_;
  std::vector<statement> prepared_;
  std::vector<bool> ready_;  ///< prepared_[i] is prepared on this connection
  pg_conn* conn_ = nullptr;
  bool ever_connected_ = false;
  std::uint64_t reconnections_ = 0;
};

/// `value` as text that reads back as exactly the same double (the shortest such).
[[nodiscard]] std::string real_text(double value);

/// `items` as a PostgreSQL array literal of text ({"a","b\"c"}), to bind as one
/// `text[]` parameter. Throws storage_error when an item holds a NUL byte.
[[nodiscard]] std::string text_array(const std::vector<std::string>& items);

}  // namespace bg::server::pg
