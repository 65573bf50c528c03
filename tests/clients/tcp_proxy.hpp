#pragma once
/// @file tcp_proxy.hpp
/// A TCP forwarder on 127.0.0.1 for tests that cut connections: clients connect to
/// port(), every byte goes to and from the upstream port, and drop_all() resets every
/// forwarded connection at once (a network failure, while the server lives on).
///
/// Usage:
/// @code
///   bg::test::tcp_proxy proxy{server.port()};
///   // clients use proxy.port()
///   proxy.drop_all();
/// @endcode

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace bg::test {

/// Forwards 127.0.0.1:port() to 127.0.0.1:upstream, one thread per connection.
class tcp_proxy {
 public:
  /// Listens on an ephemeral port. Throws std::runtime_error when it cannot.
  explicit tcp_proxy(std::uint16_t upstream);
  /// Stops listening, drops every connection and joins the threads.
  ~tcp_proxy();
  tcp_proxy(const tcp_proxy&) = delete;
  tcp_proxy& operator=(const tcp_proxy&) = delete;

  /// The port clients connect to.
  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
  /// Shuts down every forwarded connection (both sides see the connection end).
  void drop_all();

 private:
  void accept_loop();
  void pump(int client, int server);

  std::uint16_t upstream_;
  std::uint16_t port_ = 0;
  int listener_ = -1;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::vector<int> sockets_;  ///< every forwarded socket still open
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace bg::test
