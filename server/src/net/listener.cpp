// Accepting connections (listener.hpp).

#include "bg/server/net/listener.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>

#include <array>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include "bg/server/net/fibs_session.hpp"
#include "bg/server/net/http_session.hpp"
#include "bg/server/net/session_registry.hpp"

namespace bg::server {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

/// Marks `fd` close-on-exec: Asio opens and accepts sockets without SOCK_CLOEXEC, and a
/// child process (GNU Backgammon) must not hold gammond's sockets (issue 25).
void close_on_exec(int fd) noexcept {
  const int flags = ::fcntl(fd, F_GETFD);
  if (flags >= 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

/// The peer's address as text, an IPv4-mapped IPv6 address as plain IPv4.
std::string address_text(const tcp::endpoint& endpoint) {
  auto address = endpoint.address();
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    address = net::ip::make_address_v4(net::ip::v4_mapped, address.to_v6());
  }
  return address.to_string();
}

/// Answers a connection over a limit: a fixed 503, then a lingering close (shut the
/// sending side, read and discard for up to a second) so the client reads the answer
/// instead of a reset.
class refusal : public std::enable_shared_from_this<refusal> {
 public:
  refusal(tcp::socket&& socket, bool fibs) : stream_{std::move(socket)}, fibs_{fibs} {}

  void run() {
    static constexpr std::string_view fibs_answer =
        "** Too many connections. Please try again later.\r\n";
    static constexpr std::string_view http_answer =
        "HTTP/1.1 503 Service Unavailable\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "Content-Length: 21\r\n"
        "Retry-After: 5\r\n"
        "X-Content-Type-Options: nosniff\r\n"
        "Content-Security-Policy: default-src 'none'; frame-ancestors 'none'\r\n"
        "Referrer-Policy: no-referrer\r\n"
        "Connection: close\r\n"
        "\r\n"
        "too many connections\n";
    const std::string_view answer = fibs_ ? fibs_answer : http_answer;
    stream_.expires_after(1s);
    net::async_write(stream_, net::buffer(answer.data(), answer.size()),
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (ec) return;
                       self->stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
                       self->drain();
                     });
  }

 private:
  void drain() {
    stream_.async_read_some(net::buffer(discard_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (!ec) self->drain();
                            });
  }

  beast::tcp_stream stream_;
  bool fibs_;
  std::array<char, 1024> discard_{};
};

void write_port_file(const std::string& path, std::uint16_t port) {
  const std::filesystem::path target{path};
  const std::filesystem::path temporary{path + ".tmp"};
  {
    std::ofstream out{temporary, std::ios::trunc};
    out << port << '\n';
    out.close();
    if (!out) throw std::runtime_error("cannot write the port file " + temporary.string());
  }
  std::error_code ec;
  std::filesystem::rename(temporary, target, ec);
  if (ec) {
    throw std::runtime_error("cannot rename " + temporary.string() + " to " + target.string() +
                             ": " + ec.message());
  }
}

}  // namespace

listener::listener(net::io_context& io, std::shared_ptr<const server_context> context, bool fibs)
    : io_{io},
      context_{std::move(context)},
      fibs_{fibs},
      strand_{net::make_strand(io)},
      acceptor_{strand_},
      retry_timer_{strand_} {}

void listener::open() {
  const auto& config = context_->config;
  const auto port = fibs_ ? static_cast<std::uint16_t>(config.fibs_port) : config.port;
  const tcp::endpoint endpoint{net::ip::make_address(config.bind), port};
  acceptor_.open(endpoint.protocol());
  close_on_exec(acceptor_.native_handle());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(net::socket_base::max_listen_connections);
  port_ = acceptor_.local_endpoint().port();
  const std::string& port_file = fibs_ ? config.fibs_port_file : config.port_file;
  if (!port_file.empty()) write_port_file(port_file, port_);
  const auto address = endpoint.address();
  const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  if (fibs_)
    spdlog::info("listening for FIBS clients on {}:{}", host, port_);
  else
    spdlog::info("listening on http://{}:{}/", host, port_);
}

void listener::run() {
  net::dispatch(strand_, beast::bind_front_handler(&listener::do_accept, shared_from_this()));
}

void listener::stop() {
  net::post(strand_, [self = shared_from_this()] {
    beast::error_code ec;
    self->retry_timer_.cancel();
    self->acceptor_.close(ec);
    spdlog::info("stopped accepting connections");
  });
}

void listener::do_accept() {
  if (!acceptor_.is_open()) return;
  acceptor_.async_accept(net::make_strand(io_),
                         beast::bind_front_handler(&listener::on_accept, shared_from_this()));
}

void listener::on_accept(beast::error_code ec, tcp::socket socket) {
  if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
  if (ec) {
    // Out of file descriptors and the like: pause instead of spinning.
    spdlog::warn("accept failed: {}", ec.message());
    retry_timer_.expires_after(100ms);
    retry_timer_.async_wait([self = shared_from_this()](beast::error_code wait_ec) {
      if (!wait_ec) self->do_accept();
    });
    return;
  }
  try {
    close_on_exec(socket.native_handle());
    socket.set_option(tcp::no_delay(true), ec);
    const auto peer = socket.remote_endpoint(ec);
    if (!ec) {
      std::string address = address_text(peer);
      const auto& config = context_->config;
      const bool via_proxy =
          !fibs_ && !config.trusted_proxy.empty() && address == config.trusted_proxy;
      if (auto ticket = context_->registry->admit(address, !via_proxy)) {
        if (fibs_) {
          std::make_shared<fibs_session>(std::move(socket), context_, std::move(*ticket),
                                         std::move(address))
              ->run();
        } else {
          std::make_shared<http_session>(std::move(socket), context_, std::move(*ticket),
                                         std::move(address))
              ->run();
        }
      } else {
        spdlog::warn("refused a connection from {}: too many connections", address);
        std::make_shared<refusal>(std::move(socket), fibs_)->run();
      }
    }
  } catch (const std::exception& e) {
    spdlog::error("accepting a connection failed: {}", e.what());
  }
  do_accept();
}

}  // namespace bg::server
