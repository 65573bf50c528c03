#pragma once
/// @file ws_client.hpp
/// A synchronous WebSocket client for tests, with a timeout on every wait.
///
/// Usage:
/// @code
///   bg::test::ws_client c;
///   c.connect("127.0.0.1", port);              // throws on failure
///   c.send_json({{"type", "command"}, {"line", "/join t1"}});
///   auto joined = c.receive_until(
///       [](const nlohmann::json& m) { return m.value("type", "") == "joined"; });
///   REQUIRE(joined);
///   c.close();
/// @endcode
///
/// Messages are read in the background whenever the client waits (connect, send,
/// receive), so a server that sends first is never blocked by the test, and kept in an
/// inbox in arrival order. A client that never calls receive_* stops reading once its
/// waits end, which is how a test plays a slow client. One ws_client belongs to one
/// thread.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace bg::test {

/// A WebSocket client connection. Not thread-safe; movable, not copyable.
class ws_client {
 public:
  /// `timeout` bounds connect(), every send and close() (default 30 s: generous, for a
  /// loaded CI machine; a passing test never waits that long).
  explicit ws_client(std::chrono::milliseconds timeout = std::chrono::seconds{30});
  ~ws_client();
  ws_client(ws_client&&) noexcept;
  ws_client& operator=(ws_client&&) noexcept;
  ws_client(const ws_client&) = delete;
  ws_client& operator=(const ws_client&) = delete;

  /// Adds a header field to the upgrade request of the next connect()
  /// (e.g. "X-Forwarded-For").
  void set_header(std::string name, std::string value);

  /// Connects to ws://host:port/target (TCP, then the WebSocket handshake). Throws
  /// std::runtime_error with the reason on failure or after the timeout (also when the
  /// server answers the upgrade with an HTTP error such as 503).
  void connect(const std::string& host, std::uint16_t port, const std::string& target = "/ws");

  /// Sends one text frame. Throws std::runtime_error when the connection is closed,
  /// the write fails or does not finish within the timeout.
  void send_text(const std::string& text);
  /// Sends one binary frame (same errors as send_text).
  void send_binary(const std::string& bytes);
  /// Sends one ping control frame with an empty payload (same errors as send_text).
  void send_ping();
  /// Sends `message` serialised as one text frame (same errors as send_text).
  void send_json(const nlohmann::json& message);

  /// The next message as text (text or binary frame), waiting up to `timeout`;
  /// nullopt on timeout or when the connection has ended and the inbox is empty.
  [[nodiscard]] std::optional<std::string> receive_text(
      std::chrono::milliseconds timeout = std::chrono::seconds{30});
  /// The next message parsed as JSON; nullopt as for receive_text. Throws
  /// std::runtime_error (with the text) when the message is not valid JSON.
  [[nodiscard]] std::optional<nlohmann::json> receive_json(
      std::chrono::milliseconds timeout = std::chrono::seconds{30});
  /// The first message for which `matches` is true, waiting up to `timeout` in all.
  /// Messages before it are taken off the inbox and kept in skipped() (until the next
  /// receive_until). nullopt on timeout or when the connection ended first.
  [[nodiscard]] std::optional<nlohmann::json> receive_until(
      const std::function<bool(const nlohmann::json&)>& matches,
      std::chrono::milliseconds timeout = std::chrono::seconds{30});
  /// The messages the last receive_until passed over, in order.
  [[nodiscard]] const std::vector<nlohmann::json>& skipped() const noexcept;
  /// Messages received and not yet taken, without waiting.
  [[nodiscard]] std::size_t pending() const noexcept;

  /// Waits up to `timeout` for the server to end the connection (close frame, EOF or
  /// reset), reading (and keeping in the inbox) any message before that. Returns true
  /// when it has ended.
  [[nodiscard]] bool wait_closed(std::chrono::milliseconds timeout = std::chrono::seconds{30});
  /// True while connected: connect() succeeded and the connection has not ended.
  [[nodiscard]] bool is_open() const noexcept;
  /// The close code the server sent (1000 normal, 1001 going away, 1008 policy, 1009
  /// too big), or 0 when it sent none (yet).
  [[nodiscard]] std::uint16_t close_code() const noexcept;
  /// The reason in the server's close frame ("" when none).
  [[nodiscard]] std::string close_reason() const;
  /// Why the connection ended as text ("" while open): the read error's message.
  [[nodiscard]] std::string end_reason() const;

  /// Sends a close frame (1000) and waits up to the timeout for the server's, then
  /// drops the connection. Never throws; does nothing when not open.
  void close() noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace bg::test
