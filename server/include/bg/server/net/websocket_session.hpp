#pragma once
/// @file websocket_session.hpp
/// One WebSocket connection: frames in to the game service, frames out from a
/// bounded queue. Implements client, the service's view of a connection.

#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <boost/container/devector.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "bg/server/net/client.hpp"
#include "bg/server/net/coalescing_stream.hpp"
#include "bg/server/net/command_budget.hpp"
#include "bg/server/net/server_context.hpp"
#include "bg/server/net/session_registry.hpp"

namespace bg::server {

/// A WebSocket connection on its own strand. All its work runs on that strand;
/// send() and close() may be called from any thread and post there.
///
/// Incoming: each message of at most config.max_message_bytes (over: close 1009
/// "message too big") is checked against a token bucket (config.commands_per_second
/// sustained, config.command_burst capacity). Over the rate the session answers
/// `{"type":"error","code":"rate_limited",...}` without passing the message on, and
/// counts a strike. The game service counts strikes too (strike(): a refused hello).
/// One strike is forgiven per config.strike_decay; at config.rate_limit_strikes the
/// session closes with 1008 and the last strike's reason ("rate limit", "bad resume
/// token", ...). A binary
/// message is answered `{"type":"error","code":"binary_frame",...}`. A text message
/// goes to service::on_text, in order.
///
/// Outgoing: one write in flight; queued frames are shared, never copied. When several
/// frames wait, they leave together in one system call (up to max_coalesced_bytes at
/// a time; coalescing_stream), each still its own WebSocket message, in order. When a
/// frame would take the queued bytes (those being written included) above
/// config.write_queue_bytes, the queue is dropped and the connection closed
/// (1008 "client too slow"); a single frame larger than the bound is still sent when
/// the queue is empty. Messages are never fragmented (one frame each).
///
/// Identification: a session the service has not called identified() on within
/// config.hello_timeout of its handshake is closed with 1008 "no hello in time".
///
/// Timeouts: Beast's suggested server timeouts with idle_timeout = config.idle_timeout
/// (keep-alive pings at half of it, so a half-open connection is dropped) and the
/// handshake and close handshake limited to config.http_timeout; a close that does not
/// finish in config.http_timeout (a peer that does not read) drops the socket.
///
/// service::on_open is called once after the handshake succeeds and service::on_close
/// exactly once after that when the connection ends, whatever the reason; neither is
/// called when the handshake fails. Exceptions thrown by the service are caught and
/// logged. Lives as long as an operation is pending or the service holds it.
class websocket_session final : public client,
                                public std::enable_shared_from_this<websocket_session> {
 public:
  /// The most bytes of queued frames gathered into one write.
  static constexpr std::size_t max_coalesced_bytes = 64 * 1024;

  /// Takes the socket of an http_session that received an upgrade request, the
  /// connection's registry ticket and the client's address (after X-Forwarded-For).
  websocket_session(boost::asio::ip::tcp::socket&& socket,
                    std::shared_ptr<const server_context> context, session_registry::ticket ticket,
                    std::string address);
  ~websocket_session() override;
  websocket_session(const websocket_session&) = delete;
  websocket_session& operator=(const websocket_session&) = delete;

  /// Answers the upgrade `request` (WebSocket handshake) and starts reading.
  /// Returns at once.
  void run(boost::beast::http::request<boost::beast::http::string_body> request);

  /// client: queues `frame` as one text message (dropped once the session is
  /// closing). Thread-safe.
  void send(std::shared_ptr<const std::string> frame) override;
  /// client: queues `frames` in order with one post. Thread-safe.
  void send(std::vector<std::shared_ptr<const std::string>> frames) override;
  /// client: closes with code 1000 (normal) and `reason` after the queued frames.
  /// Thread-safe; only the first close of a session has an effect.
  void close(std::string reason) override;
  /// client: closes with code 1008 (policy violation) and `reason`. Thread-safe.
  void close_for_policy(std::string reason) override;
  /// client: closes with the application code `code` (4000 moved, 4001 node fenced).
  void close_with_code(std::uint16_t code, std::string reason) override;
  /// Closes with `code` and `reason` (at most 123 bytes are sent) after the queued
  /// frames. Thread-safe; only the first close has an effect.
  void close(boost::beast::websocket::close_code code, std::string reason);
  /// True once the close frame has been handed to the socket (the close handshake
  /// has started; nothing queued is left to write). Safe from any thread.
  [[nodiscard]] bool close_started() const noexcept {
    return close_started_.load(std::memory_order_acquire);
  }
  /// client: stops the hello timeout. Thread-safe.
  void identified() override;
  /// client: counts a strike for `why` (see the class comment). Thread-safe.
  void strike(std::string_view why) override;
  /// client: a process-unique id (1, 2, ...), never reused.
  [[nodiscard]] std::uint64_t id() const noexcept override { return id_; }
  /// client: the language of `say` sentences sent from now on (on the strand).
  void set_lang(std::string tag) override;
  /// client: the language set last (thread-safe).
  [[nodiscard]] std::string lang() const override;
  /// client: the upgrade request's Accept-Language.
  [[nodiscard]] const std::string& accept_language() const noexcept override {
    return accept_language_;
  }
  /// client: the client's address as text.
  [[nodiscard]] const std::string& address() const noexcept override { return address_; }

 private:
  using clock = std::chrono::steady_clock;

  void on_accept(boost::beast::error_code ec);
  void do_read();
  void on_read(boost::beast::error_code ec, std::size_t bytes);
  void on_message(bool text, std::string message);
  [[nodiscard]] bool take_token();
  void add_strike(std::string why, bool rate_limit);
  void start_hello_timer();
  /// `frame` in the player's language: the same frame when it carries no `say` or the
  /// language is English, else a copy with its sentence rendered in lang_.
  [[nodiscard]] std::shared_ptr<const std::string> in_lang(
      std::shared_ptr<const std::string> frame) const;
  /// Adds `frame` to the queue (false, and the connection closing, when over the bound).
  bool enqueue(std::shared_ptr<const std::string> frame);
  /// enqueue(), then starts writing when idle.
  void queue(std::shared_ptr<const std::string> frame);
  void do_write();
  void on_write(boost::beast::error_code ec, bool held);
  void begin_close(boost::beast::websocket::close_code code, std::string reason);
  void do_close();
  void drop_socket();
  void finish(boost::beast::error_code ec);

  boost::beast::websocket::stream<coalescing_stream> ws_;
  boost::asio::steady_timer close_timer_;
  boost::asio::steady_timer hello_timer_;
  boost::beast::flat_buffer buffer_;
  std::shared_ptr<const server_context> context_;
  session_registry::ticket ticket_;
  const std::uint64_t id_;
  const std::string address_;
  std::string accept_language_;  // set in run(), before the session is shared
  std::string lang_;             // on the strand: "" or "en" = as written
  mutable std::mutex lang_mutex_;
  std::string lang_set_ = "en";  // under lang_mutex_: what lang() answers

  // front() is in flight. A devector, not a std::deque: libstdc++'s deque allocates a
  // 512-byte node and its map even when empty, about 0.6 KiB on every idle connection
  // (issue 15's idle memory target); a devector holds nothing until a frame waits.
  boost::container::devector<std::shared_ptr<const std::string>> queue_;
  std::size_t queued_bytes_ = 0;  // queue_'s frames and the held ones not yet sent
  std::size_t held_bytes_ = 0;    // frames written into ws_.next_layer() while held
  bool writing_ = false;

  command_budget budget_;    // the command rate's tokens and the strikes
  int strikes_ = 0;          // budget_'s count after the last strike
  bool identified_ = false;  // the service called identified()

  bool opened_ = false;    // handshake done, on_open called
  bool closing_ = false;   // a close was asked for: no more frames in or out
  bool finished_ = false;  // on_close called (or never opened and ended)
  boost::beast::websocket::close_reason close_reason_;
  std::atomic<bool> close_started_{false};
};

}  // namespace bg::server
