#pragma once
/// @file service.hpp
/// The seam between the network layer (listener, sessions) and the game service
/// (lobby, tables, storage). The network layer knows only this interface.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bg/server/net/client.hpp"

namespace boost::asio {
class io_context;
}

namespace bg::server {

struct server_config;
class metrics;

/// An HTTP answer produced by the service (e.g. GET /matches/<id>.mat).
struct http_reply {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

/// The game service. Calls for one client arrive in order on that client's strand;
/// calls for different clients may run concurrently on different threads, so the
/// service synchronises its own state (one strand per table, DESIGN.md).
class service {
 public:
  virtual ~service() = default;
  /// A WebSocket client connected (before any message).
  virtual void on_open(const std::shared_ptr<client>& c) = 0;
  /// One complete text frame from `c` (already checked against the size limit and
  /// the rate limit by the session).
  virtual void on_text(const std::shared_ptr<client>& c, std::string text) = 0;
  /// The connection of `c` ended, for any reason. No call for `c` follows.
  virtual void on_close(const std::shared_ptr<client>& c) = 0;
  /// A GET that is not a static file, /healthz, /metrics or /ws; nullopt = 404.
  /// Answered at once, on the I/O thread: only for answers that need no I/O.
  virtual std::optional<http_reply> on_http_get(std::string_view /*target*/) {
    return std::nullopt;
  }
  /// Receives the answer to a GET, on any thread, exactly once (nullopt = 404).
  using http_callback = std::function<void(std::optional<http_reply>)>;
  /// The same GET answered later: the session calls this, and the service calls `reply`
  /// when its answer is ready, from any thread (the session goes back to its strand),
  /// so that an answer read from storage never blocks an I/O thread. The default
  /// answers at once with on_http_get(target).
  virtual void on_http_request(std::string_view target, http_callback reply) {
    reply(on_http_get(target));
  }
  /// SIGINT/SIGTERM: persist every table now, without blocking the calling (I/O)
  /// thread, which the tables may need. Called once, before sessions close; calls
  /// `saved` once, on any thread, when every table is saved or the service's own
  /// deadline passed.
  virtual void shutdown(std::function<void()> saved) = 0;
  /// The `rate_limited` error frame for the refused message `text`, or nullptr for the
  /// session's own (which has no `re`). gammond's echoes the message's `id` as `re`,
  /// like every other error (PROTOCOL.md).
  virtual std::shared_ptr<const std::string> rate_limited_reply(std::string_view /*text*/) {
    return nullptr;
  }
};

/// Builds gammond's game service (lobby, tables, SQLite storage at config.db) on `io`.
/// Restores every saved table. Throws storage_error when the database cannot be opened.
/// Implemented in service/server_parts.cpp, the composition root.
std::shared_ptr<service> make_game_service(const server_config& config, metrics& counters,
                                           boost::asio::io_context& io);

}  // namespace bg::server
