#pragma once
/// @file network_server.hpp
/// gammond's network layer as one object: the listener, the registry of connections
/// and the shutdown sequence. main() and the in-process tests build one of these.

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "bg/server/net/session_registry.hpp"
#include "bg/server/server_config.hpp"

namespace bg::server {

class listener;
class metrics;
class service;
struct server_context;

/// Owns the game service (shared), the listener and the session registry for one
/// `io_context`. Sessions use the service, so this object must outlive every run of
/// `io`: stop `io` and join its threads before destroying it. Destroying `io` later
/// is fine (pending sessions then release their counts into the shared registry).
class network_server {
 public:
  /// Nothing listens yet; see start(). `game` must not be null; `counters` must
  /// outlive this object. With `fibs` (the FIBS gateway, issue 32) a second listener
  /// on config.fibs_port hands its connections to it.
  network_server(boost::asio::io_context& io, server_config config, std::shared_ptr<service> game,
                 metrics& counters, std::shared_ptr<service> fibs = nullptr);
  ~network_server();
  network_server(const network_server&) = delete;
  network_server& operator=(const network_server&) = delete;

  /// Binds, writes the port file, logs "listening on ..." and starts accepting.
  /// Throws boost::system::system_error (cannot bind) or std::runtime_error (port file).
  void start();
  /// The bound port, after start().
  [[nodiscard]] std::uint16_t port() const noexcept;
  /// The bound FIBS port, after start(); 0 without the FIBS listener.
  [[nodiscard]] std::uint16_t fibs_port() const noexcept;
  /// The connections and open WebSocket sessions.
  [[nodiscard]] session_registry& registry() noexcept { return *registry_; }

  /// The graceful stop (SIGINT/SIGTERM): stops accepting, calls service::shutdown()
  /// once, sends every open WebSocket a close frame (1001 going away, "server shutting
  /// down") after its queued frames, then waits until every WebSocket has ended, or
  /// has sent its close frame and had 100 ms more to answer it, or `flush` has
  /// passed, and calls `done` (on one of `io`'s threads). Safe from any thread; only
  /// the first call has an effect (later calls return false).
  bool shutdown(std::chrono::milliseconds flush, std::function<void()> done);

 private:
  void wait_for_sessions(std::chrono::steady_clock::time_point deadline, bool settling,
                         std::function<void()> done);

  std::shared_ptr<session_registry> registry_;
  std::shared_ptr<service> game_;
  std::shared_ptr<service> fibs_;  // null without --fibs-port
  std::shared_ptr<const server_context> context_;
  std::shared_ptr<listener> listener_;
  std::shared_ptr<listener> fibs_listener_;  // null without --fibs-port
  boost::asio::steady_timer flush_timer_;
  std::atomic<bool> shutting_down_{false};
};

}  // namespace bg::server
