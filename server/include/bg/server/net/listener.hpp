#pragma once
/// @file listener.hpp
/// Accepts TCP connections and hands each one, on its own strand, to an http_session.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <memory>

#include "bg/server/net/server_context.hpp"

namespace bg::server {

/// The accepting socket. Every accepted socket gets TCP_NODELAY and its own strand
/// (make_strand); a connection over max_connections or max_connections_per_address
/// is answered "HTTP 503 too many connections" and closed. Lives as long as an
/// accept is pending (shared_from_this).
class listener : public std::enable_shared_from_this<listener> {
 public:
  /// Nothing is opened yet; see open(). `context` must not be null. With `fibs` it is
  /// the FIBS listener (issue 32): it binds config.fibs_port, writes
  /// config.fibs_port_file and hands each connection to a fibs_session (context->fibs
  /// must then not be null); both listeners count toward the same connection limits.
  listener(boost::asio::io_context& io, std::shared_ptr<const server_context> context,
           bool fibs = false);

  /// Opens, binds to config.bind:config.port and listens; writes the bound port to
  /// config.port_file (if set) atomically (a temporary file, then rename) and logs
  /// "listening on http://ADDR:PORT/". Throws boost::system::system_error when the
  /// address cannot be bound, std::runtime_error when the port file cannot be written.
  void open();
  /// Starts accepting (after open()). Returns at once; accepting runs on `io`.
  void run();
  /// The bound port (after open()); 0 before.
  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
  /// Stops accepting and closes the listening socket; connections already accepted
  /// are not touched. Safe from any thread (posts to the listener's strand).
  void stop();

 private:
  void do_accept();
  void on_accept(boost::system::error_code ec, boost::asio::ip::tcp::socket socket);

  boost::asio::io_context& io_;
  std::shared_ptr<const server_context> context_;
  bool fibs_ = false;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_timer_;  // pause after EMFILE and the like
  std::uint16_t port_ = 0;
};

}  // namespace bg::server
