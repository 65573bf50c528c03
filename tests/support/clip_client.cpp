// A scripted FIBS (CLIP) client for tests (clip_client.hpp).

#include "clip_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace bg::test {

clip_client::clip_client(std::uint16_t port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) throw std::runtime_error("clip_client: socket() failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("clip_client: cannot connect to port " + std::to_string(port));
  }
}

clip_client::~clip_client() {
  if (fd_ >= 0) ::close(fd_);
}

void clip_client::send(const std::string& line) {
  send_raw(line + "\r\n");
}

void clip_client::send_raw(const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("clip_client: the connection is closed");
    sent += static_cast<std::size_t>(n);
  }
}

bool clip_client::fill(std::chrono::milliseconds timeout) {
  if (closed_) return false;
  pollfd p{fd_, POLLIN, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(0, timeout.count())));
  if (ready <= 0) return true;
  char chunk[8192];
  const auto n = ::recv(fd_, chunk, sizeof chunk, 0);
  if (n <= 0) {
    closed_ = true;
    return false;
  }
  buffer_.append(chunk, static_cast<std::size_t>(n));
  // Split what is new into complete lines (kept in all_ as well).
  for (;;) {
    const auto end = buffer_.find('\n', seen_);
    if (end == std::string::npos) break;
    std::string line = buffer_.substr(seen_, end - seen_);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    all_.push_back(std::move(line));
    seen_ = end + 1;
  }
  return true;
}

std::string clip_client::recent() const {
  std::string out;
  const std::size_t from = all_.size() > 40 ? all_.size() - 40 : 0;
  for (std::size_t i = from; i < all_.size(); ++i) out += "  | " + all_[i] + "\n";
  out += "  (not a whole line yet: '" + buffer_.substr(seen_) + "')";
  return out;
}

std::string clip_client::wait_line(const std::function<bool(const std::string&)>& wanted,
                                   std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    // Consume complete lines from the front of buffer_.
    while (true) {
      const auto end = buffer_.find('\n');
      if (end == std::string::npos || end >= seen_) break;
      std::string line = buffer_.substr(0, end);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      buffer_.erase(0, end + 1);
      seen_ -= end + 1;
      if (wanted(line)) return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || closed_)
      throw std::runtime_error(std::string("clip_client: ") +
                               (closed_ ? "the connection closed" : "timed out") +
                               " waiting for a line; lately:\n" + recent());
    fill(std::min(left, std::chrono::milliseconds{200}));
  }
}

std::string clip_client::wait_prefix(const std::string& prefix, std::chrono::milliseconds timeout) {
  return wait_line([&](const std::string& l) { return l.rfind(prefix, 0) == 0; }, timeout);
}

void clip_client::wait_text(const std::string& text, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (const auto at = buffer_.find(text); at != std::string::npos) {
      const std::size_t cut = at + text.size();
      buffer_.erase(0, cut);
      seen_ = seen_ > cut ? seen_ - cut : 0;
      return;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || closed_)
      throw std::runtime_error("clip_client: no '" + text + "' came; lately:\n" + recent());
    fill(std::min(left, std::chrono::milliseconds{200}));
  }
}

bool clip_client::wait_closed(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!closed_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    fill(std::min(left, std::chrono::milliseconds{200}));
  }
  return true;
}

}  // namespace bg::test
