#pragma once
/// @file client.hpp
/// What the game service sees of one connected WebSocket client.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace bg::server {

/// A connected client (implemented by websocket_session). Every member is safe to
/// call from any thread: send(), close(), identified() and strike() post to the
/// connection's own strand.
class client {
 public:
  virtual ~client() = default;
  /// Queues one text frame. The frame is shared, never copied, so a broadcast costs
  /// one string. When the connection's write queue would exceed its bound the
  /// connection is closed instead (a client that does not read is never buffered
  /// without bound).
  virtual void send(std::shared_ptr<const std::string> frame) = 0;
  /// Queues several text frames, in order, with one hand-over to the connection's
  /// strand (a table's event and state reach each member in one go). Same bound as
  /// send().
  virtual void send(std::vector<std::shared_ptr<const std::string>> frames) = 0;
  /// Sends a WebSocket close frame with `reason` (policy violation, going away, ...)
  /// after the frames already queued, then shuts the connection down.
  virtual void close(std::string reason) = 0;
  /// close() with the code 1008 (policy violation) instead of 1000: the server sends
  /// the client away on purpose (a ban, issue 13) and a client should not reconnect.
  virtual void close_for_policy(std::string reason) = 0;
  /// close() with the application close code `code` (4000-4999, PROTOCOL.md): 4000
  /// "moved" (the table lives on another node: reconnect there), 4001 "node fenced"
  /// (this node lost its tables: reconnect to /ws with the resume token). Issue 16.
  virtual void close_with_code(std::uint16_t code, std::string reason) = 0;
  /// The game service accepted this client's hello (it sent `welcome`): the network
  /// layer stops the --hello-timeout clock, which otherwise closes a connection that
  /// is not identified in time with 1008 "no hello in time". Calls after the first
  /// have no effect.
  virtual void identified() = 0;
  /// Counts one strike against this connection for `why` (a short phrase such as "bad
  /// resume token", logged, never sent): the same count as rate-limited messages,
  /// where one strike is forgiven per --strike-decay seconds. At --rate-limit-strikes
  /// the connection is closed with 1008 and `why` as the reason. The answer the client
  /// gets for the refused request is the caller's to send, before this call.
  virtual void strike(std::string_view why) = 0;
  /// A process-unique id, never reused.
  [[nodiscard]] virtual std::uint64_t id() const noexcept = 0;
  /// Sets the player's language (a catalogue tag, "fr"): every message sent after this
  /// call that carries `say` has its sentence rendered in it (i18n::say_in). Safe from
  /// any thread; messages already queued keep their language. The default ignores it.
  virtual void set_lang(std::string tag) { (void)tag; }
  /// The language set last by set_lang() ("en" before). Safe from any thread.
  [[nodiscard]] virtual std::string lang() const { return "en"; }
  /// The WebSocket upgrade request's Accept-Language ("" when it had none), read once
  /// when the connection opened.
  [[nodiscard]] virtual const std::string& accept_language() const noexcept {
    static const std::string none;
    return none;
  }
  /// The peer's address as text ("127.0.0.1"; the X-Forwarded-For client when the
  /// peer is the configured trusted proxy).
  [[nodiscard]] virtual const std::string& address() const noexcept = 0;
};

}  // namespace bg::server
