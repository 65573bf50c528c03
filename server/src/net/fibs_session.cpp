// One FIBS connection: telnet-style lines in, CLIP text out (fibs_session.hpp).

#include "bg/server/net/fibs_session.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include "bg/server/net/service.hpp"

namespace bg::server {
namespace {

namespace net = boost::asio;

/// Ids of FIBS sessions: counted down from the top, so they never meet the WebSocket
/// sessions' (counted up from 1) in the game service's maps.
std::atomic<std::uint64_t> next_fibs_id{~std::uint64_t{0}};

constexpr unsigned char iac = 255;
constexpr unsigned char sb = 250;
constexpr unsigned char se = 240;
constexpr unsigned char will = 251;
constexpr unsigned char dont = 254;

bool quiet_end(boost::system::error_code ec) {
  return ec == net::error::operation_aborted || ec == net::error::eof ||
         ec == net::error::connection_reset || ec == net::error::broken_pipe;
}

}  // namespace

fibs_session::fibs_session(net::ip::tcp::socket&& socket,
                           std::shared_ptr<const server_context> context,
                           session_registry::ticket ticket, std::string address)
    : socket_{std::move(socket)},
      deadline_{socket_.get_executor()},
      context_{std::move(context)},
      ticket_{std::move(ticket)},
      id_{next_fibs_id.fetch_sub(1)},
      address_{std::move(address)},
      budget_{context_->config.commands_per_second, context_->config.command_burst,
              context_->config.strike_decay} {}

fibs_session::~fibs_session() = default;

void fibs_session::run() {
  net::dispatch(socket_.get_executor(), [self = shared_from_this()] {
    self->opened_ = true;
    self->arm_deadline();
    try {
      self->context_->fibs->on_open(self);
    } catch (const std::exception& e) {
      spdlog::error("fibs client {}: gateway on_open failed: {}", self->id_, e.what());
    }
    self->do_read();
  });
}

void fibs_session::do_read() {
  socket_.async_read_some(net::buffer(read_buffer_),
                          [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
                            self->on_read(ec, n);
                          });
}

void fibs_session::on_read(boost::system::error_code ec, std::size_t bytes) {
  if (ec) {
    if (!quiet_end(ec)) spdlog::debug("fibs client {}: read failed: {}", id_, ec.message());
    return finish();
  }
  if (!closing_) {
    // The login timeout counts from the connection; the idle one from the last line.
    if (identified_) arm_deadline();
    take_bytes(read_buffer_.data(), bytes);
  }
  if (!finished_) do_read();
}

void fibs_session::take_bytes(const char* data, std::size_t size) {
  const std::size_t bound = context_->config.fibs_max_line_bytes;
  for (std::size_t i = 0; i < size && !closing_; ++i) {
    const auto ch = static_cast<unsigned char>(data[i]);
    // Telnet commands (RFC 854): IAC IAC is a data byte 255, IAC WILL/WONT/DO/DONT
    // take one option byte, IAC SB ... IAC SE a subnegotiation; none is answered.
    if (telnet_ == 1) {  // after IAC
      if (ch == iac)
        telnet_ = 0;  // an escaped 255: not text a player types
      else if (ch >= will && ch <= dont)
        telnet_ = 2;
      else if (ch == sb)
        telnet_ = 3;
      else
        telnet_ = 0;
      continue;
    }
    if (telnet_ == 2) {  // the option byte
      telnet_ = 0;
      continue;
    }
    if (telnet_ == 3 || telnet_ == 4) {  // inside a subnegotiation
      if (telnet_ == 4 && ch == se)
        telnet_ = 0;
      else
        telnet_ = ch == iac ? 4 : 3;
      continue;
    }
    if (ch == iac) {
      telnet_ = 1;
      continue;
    }
    if (after_cr_) {
      after_cr_ = false;
      if (ch == '\n' || ch == '\0') continue;
    }
    if (ch == '\n' || ch == '\r') {
      after_cr_ = ch == '\r';
      end_line();
      continue;
    }
    if (ch < 0x20 || ch == 0x7f) continue;  // other control bytes: dropped
    if (overlong_) continue;
    if (line_.size() >= bound) {
      overlong_ = true;
      line_.clear();
      continue;
    }
    line_.push_back(static_cast<char>(ch));
  }
}

void fibs_session::end_line() {
  if (overlong_) {
    overlong_ = false;
    queue(std::make_shared<const std::string>("** Your line was too long: at most " +
                                              std::to_string(context_->config.fibs_max_line_bytes) +
                                              " bytes.\r\n"));
    add_strike("line too long");
    return;
  }
  std::string line = std::move(line_);
  line_.clear();
  on_line(std::move(line));
}

void fibs_session::on_line(std::string line) {
  if (!take_token()) {
    queue(std::make_shared<const std::string>("** Too many commands: please slow down.\r\n"));
    add_strike("rate limit");
    return;
  }
  try {
    context_->fibs->on_text(shared_from_this(), std::move(line));
  } catch (const std::exception& e) {
    spdlog::error("fibs client {}: gateway on_text failed: {}", id_, e.what());
  }
}

bool fibs_session::take_token() {
  return budget_.take();
}

void fibs_session::add_strike(std::string_view why) {
  if (closing_ || finished_) return;
  const auto& config = context_->config;
  if (const int strikes = budget_.strike(); strikes >= config.rate_limit_strikes) {
    spdlog::info("fibs client {} ({}): closed after {} strikes ({})", id_, address_, strikes, why);
    begin_close("** Too many refused lines (" + std::string(why) + "). Goodbye.");
  }
}

void fibs_session::arm_deadline() {
  const auto& config = context_->config;
  deadline_.expires_after(identified_ ? config.fibs_idle_timeout : config.fibs_login_timeout);
  deadline_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec) return;
    const auto self = weak.lock();
    if (!self || self->closing_) return;
    // Before the login a prompt ("login: ") may wait on the line: a line end first.
    self->begin_close(self->identified_ ? "** You have been idle for too long. Goodbye."
                                        : "\r\n** You did not log in in time. Goodbye.");
  });
}

void fibs_session::send(std::shared_ptr<const std::string> text) {
  if (!text) return;
  net::post(socket_.get_executor(), [self = shared_from_this(), text = std::move(text)]() mutable {
    if (!self->closing_) self->queue(std::move(text));
  });
}

void fibs_session::send(std::vector<std::shared_ptr<const std::string>> texts) {
  for (auto& t : texts) send(std::move(t));
}

void fibs_session::close(std::string reason) {
  net::post(socket_.get_executor(), [self = shared_from_this(), reason = std::move(reason)] {
    self->begin_close(reason == "goodbye" ? std::string{} : "** " + reason);
  });
}

void fibs_session::close_for_policy(std::string reason) {
  close(std::move(reason));
}

void fibs_session::close_with_code(std::uint16_t /*code*/, std::string reason) {
  close(std::move(reason));
}

void fibs_session::identified() {
  net::post(socket_.get_executor(), [self = shared_from_this()] {
    if (self->identified_) return;
    self->identified_ = true;
    self->arm_deadline();
  });
}

void fibs_session::strike(std::string_view why) {
  net::post(socket_.get_executor(),
            [self = shared_from_this(), why = std::string(why)] { self->add_strike(why); });
}

void fibs_session::queue(std::shared_ptr<const std::string> text) {
  if (finished_) return;
  if (queued_bytes_ + text->size() > context_->config.write_queue_bytes && !queue_.empty()) {
    spdlog::info("fibs client {} ({}): too slow, {} bytes unsent; closed", id_, address_,
                 queued_bytes_);
    queue_.clear();
    queued_bytes_ = 0;
    closing_ = true;
    boost::system::error_code ignored;
    socket_.shutdown(net::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    return;
  }
  queued_bytes_ += text->size();
  queue_.push_back(std::move(text));
  if (!writing_) do_write();
}

void fibs_session::do_write() {
  if (queue_.empty()) {
    writing_ = false;
    if (closing_) {
      // A lingering close: the sending side is shut and what the peer still sends is
      // read and dropped (on_read) until it closes too or the deadline drops it, so that
      // the last lines are not lost to a reset.
      boost::system::error_code ignored;
      socket_.shutdown(net::ip::tcp::socket::shutdown_send, ignored);
    }
    return;
  }
  writing_ = true;
  net::async_write(socket_, net::buffer(*queue_.front()),
                   [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                     if (ec) {
                       self->queue_.clear();
                       self->queued_bytes_ = 0;
                       self->writing_ = false;
                       boost::system::error_code ignored;
                       self->socket_.close(ignored);
                       return;
                     }
                     self->queued_bytes_ -= self->queue_.front()->size();
                     self->queue_.pop_front();
                     self->do_write();
                   });
}

void fibs_session::begin_close(std::string line) {
  if (closing_) return;
  if (!line.empty()) queue(std::make_shared<const std::string>(line + "\r\n"));
  closing_ = true;
  // A peer that does not read what is left gets --http-timeout to, then is dropped.
  deadline_.expires_after(context_->config.http_timeout);
  deadline_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec) return;
    if (const auto self = weak.lock()) {
      boost::system::error_code ignored;
      self->socket_.close(ignored);
    }
  });
  if (!writing_) do_write();
}

void fibs_session::finish() {
  if (finished_) return;
  finished_ = true;
  closing_ = true;
  deadline_.cancel();
  boost::system::error_code ignored;
  socket_.close(ignored);
  if (!opened_) return;
  try {
    context_->fibs->on_close(shared_from_this());
  } catch (const std::exception& e) {
    spdlog::error("fibs client {}: gateway on_close failed: {}", id_, e.what());
  }
}

}  // namespace bg::server
