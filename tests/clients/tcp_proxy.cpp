// A TCP forwarder that can cut every connection (tcp_proxy.hpp).

#include "tcp_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace bg::test {
namespace {

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

/// Writes all of `data`; false when the socket is gone.
bool send_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

tcp_proxy::tcp_proxy(std::uint16_t upstream) : upstream_{upstream} {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener_ < 0) throw std::runtime_error("tcp_proxy: socket failed");
  auto a = loopback(0);
  socklen_t size = sizeof a;
  // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(listener_, 16) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &size) != 0) {
    ::close(listener_);
    throw std::runtime_error("tcp_proxy: cannot listen");
  }
  // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
  port_ = ntohs(a.sin_port);
  acceptor_ = std::thread{[this] { accept_loop(); }};
}

tcp_proxy::~tcp_proxy() {
  stopping_ = true;
  ::shutdown(listener_, SHUT_RDWR);
  acceptor_.join();
  ::close(listener_);
  drop_all();
  for (auto& t : threads_) t.join();
}

void tcp_proxy::drop_all() {
  const std::lock_guard lock{mutex_};
  for (const int fd : sockets_) ::shutdown(fd, SHUT_RDWR);
}

void tcp_proxy::accept_loop() {
  while (!stopping_) {
    pollfd p{listener_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0 || stopping_) continue;
    const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const auto a = loopback(upstream_);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    if (server < 0 || ::connect(server, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
      ::close(client);
      if (server >= 0) ::close(server);
      continue;
    }
    const std::lock_guard lock{mutex_};
    sockets_.push_back(client);
    sockets_.push_back(server);
    threads_.emplace_back([this, client, server] { pump(client, server); });
  }
}

void tcp_proxy::pump(int client, int server) {
  char buffer[16384];
  for (bool open = true; open;) {
    pollfd p[2]{{client, POLLIN, 0}, {server, POLLIN, 0}};
    if (::poll(p, 2, 100) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2 && open; ++i) {
      if (p[i].revents == 0) continue;
      const int from = i == 0 ? client : server;
      const int to = i == 0 ? server : client;
      const ssize_t n = ::recv(from, buffer, sizeof buffer, 0);
      open = n > 0 && send_all(to, buffer, static_cast<std::size_t>(n));
    }
  }
  const std::lock_guard lock{mutex_};
  for (const int fd : {client, server}) {
    ::shutdown(fd, SHUT_RDWR);
    ::close(fd);
    sockets_.erase(std::remove(sockets_.begin(), sockets_.end(), fd), sockets_.end());
  }
}

}  // namespace bg::test
