#pragma once
/// @file fibs_session.hpp
/// One FIBS connection: plain TCP, telnet-style lines in, CLIP text out (issue 32,
/// protocol/FIBS.md). Implements client toward the FIBS gateway, which it knows only
/// as a service (server_context::fibs).

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "bg/server/net/client.hpp"
#include "bg/server/net/command_budget.hpp"
#include "bg/server/net/server_context.hpp"
#include "bg/server/net/session_registry.hpp"

namespace bg::server {

/// A FIBS connection on its own strand.
///
/// Incoming bytes: telnet commands (IAC ...: options, subnegotiations) are taken out
/// unanswered; a line ends at LF, CR LF, CR NUL or a lone CR; other control bytes are
/// dropped. A line longer than config.fibs_max_line_bytes is refused whole ("** Your
/// line was too long ...", a strike) and the rest of it discarded. Each line passes a
/// token bucket (config.commands_per_second, config.command_burst): over it the line is
/// refused ("** Too many commands ...") and a strike counted; at
/// config.rate_limit_strikes strikes (one forgiven per config.strike_decay) the
/// connection is closed. Every other line goes to the gateway's on_text, in order.
///
/// Timeouts: a connection not identified() within config.fibs_login_timeout of its
/// start (whatever it sends) is told so and closed; afterwards one that sends nothing
/// for config.fibs_idle_timeout is logged out the same way (FIBS's idle logout). A
/// closing connection whose peer does not read the rest within config.http_timeout is
/// dropped.
///
/// Outgoing: send() queues CLIP text as it is; one write in flight; more than
/// config.write_queue_bytes unsent closes the connection. close() sends what is queued,
/// then shuts the socket down. on_open and exactly one on_close reach the gateway.
class fibs_session final : public client, public std::enable_shared_from_this<fibs_session> {
 public:
  fibs_session(boost::asio::ip::tcp::socket&& socket, std::shared_ptr<const server_context> context,
               session_registry::ticket ticket, std::string address);
  ~fibs_session() override;
  fibs_session(const fibs_session&) = delete;
  fibs_session& operator=(const fibs_session&) = delete;

  /// Tells the gateway (on_open) and starts reading. Returns at once.
  void run();

  void send(std::shared_ptr<const std::string> text) override;
  void send(std::vector<std::shared_ptr<const std::string>> texts) override;
  void close(std::string reason) override;
  void close_for_policy(std::string reason) override;
  void close_with_code(std::uint16_t code, std::string reason) override;
  void identified() override;
  void strike(std::string_view why) override;
  [[nodiscard]] std::uint64_t id() const noexcept override { return id_; }
  [[nodiscard]] const std::string& address() const noexcept override { return address_; }

 private:
  using clock = std::chrono::steady_clock;

  void do_read();
  void on_read(boost::system::error_code ec, std::size_t bytes);
  void take_bytes(const char* data, std::size_t size);
  void end_line();
  void on_line(std::string line);
  [[nodiscard]] bool take_token();
  void add_strike(std::string_view why);
  void arm_deadline();
  void queue(std::shared_ptr<const std::string> text);
  void do_write();
  void begin_close(std::string line);
  void finish();

  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer deadline_;
  std::shared_ptr<const server_context> context_;
  session_registry::ticket ticket_;
  const std::uint64_t id_;
  const std::string address_;
  command_budget budget_;  // the command rate's tokens and the strikes

  std::array<char, 4096> read_buffer_{};
  std::string line_;       // the line being read
  bool overlong_ = false;  // the line being read is past the bound: discarded
  int telnet_ = 0;         // telnet command state (0: text)
  bool after_cr_ = false;  // the last byte ended a line with CR (skip a LF or NUL)

  std::deque<std::shared_ptr<const std::string>> queue_;
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;

  bool identified_ = false;
  bool opened_ = false;
  bool closing_ = false;   // close asked: no more lines in; shut down after the queue
  bool finished_ = false;  // on_close called
};

}  // namespace bg::server
