#pragma once
/// @file clip_client.hpp
/// A scripted FIBS (CLIP) client for tests: plain TCP to gammond's --fibs-port, lines
/// out with CR LF, lines in kept in order, every wait bounded.
///
/// Usage:
/// @code
///   bg::test::clip_client fibs{port};
///   fibs.wait_text("login: ");
///   fibs.send("login test 1008 alice secret-pw");
///   const auto own = fibs.wait_line([](const std::string& l) { return l.rfind("2 ", 0) == 0; });
/// @endcode

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bg::test {

/// One FIBS connection. Not thread-safe; not copyable.
class clip_client {
 public:
  /// Connects to 127.0.0.1:`port`; throws std::runtime_error when it cannot.
  explicit clip_client(std::uint16_t port);
  ~clip_client();
  clip_client(const clip_client&) = delete;
  clip_client& operator=(const clip_client&) = delete;

  /// Sends `line` and CR LF.
  void send(const std::string& line);
  /// Sends `bytes` as they are (telnet bytes, a line without its end, ...).
  void send_raw(const std::string& bytes);

  /// The next complete line (its CR LF taken off) for which `wanted` holds, waiting up
  /// to `timeout`; the lines before it are consumed. Throws std::runtime_error, with
  /// the lines read lately, when none comes in time or the connection ends first.
  std::string wait_line(const std::function<bool(const std::string&)>& wanted,
                        std::chrono::milliseconds timeout = std::chrono::seconds{20});
  /// wait_line() for a line that starts with `prefix`.
  std::string wait_prefix(const std::string& prefix,
                          std::chrono::milliseconds timeout = std::chrono::seconds{20});
  /// Waits until the text not yet consumed contains `text` (a prompt such as "login: ",
  /// which ends no line) and consumes everything up to its end.
  void wait_text(const std::string& text,
                 std::chrono::milliseconds timeout = std::chrono::seconds{20});
  /// True when the server closed the connection within `timeout` (what was sent before
  /// stays readable in lines()).
  bool wait_closed(std::chrono::milliseconds timeout = std::chrono::seconds{20});
  /// Every complete line read so far, consumed or not, in order.
  [[nodiscard]] const std::vector<std::string>& lines() const noexcept { return all_; }
  /// The lines read lately (for failure messages).
  [[nodiscard]] std::string recent() const;

 private:
  /// Reads what arrives within `timeout` into buffer_; false when the peer closed.
  bool fill(std::chrono::milliseconds timeout);

  int fd_ = -1;
  bool closed_ = false;
  std::string buffer_;            // text not yet consumed
  std::vector<std::string> all_;  // every complete line seen
  std::size_t seen_ = 0;          // bytes of buffer_ already split into all_
};

}  // namespace bg::test
