// One WebSocket connection (websocket_session.hpp).

#include "bg/server/net/websocket_session.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/websocket/error.hpp>

#include "bg/i18n/catalogue.hpp"
#include "bg/server/metrics.hpp"
#include "bg/server/net/service.hpp"

namespace bg::server {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

std::atomic<std::uint64_t> next_id{1};

/// The largest close reason a close frame can carry (RFC 6455 5.5: 125 - 2 bytes).
constexpr std::size_t max_reason_bytes = 123;

std::shared_ptr<const std::string> error_frame(std::string_view json) {
  return std::make_shared<const std::string>(json);
}

const std::shared_ptr<const std::string>& binary_frame_error() {
  static const auto frame = error_frame(
      R"({"type":"error","code":"binary_frame","message":"send text frames with one JSON object each",)"
      R"("say":{"key":"service.binary_frame","args":{}}})");
  return frame;
}

const std::shared_ptr<const std::string>& rate_limited_error() {
  static const auto frame = error_frame(
      R"({"type":"error","code":"rate_limited","message":"too many commands: slow down",)"
      R"("say":{"key":"service.rate_limited","args":{}}})");
  return frame;
}

/// Errors that are part of a connection ending normally: not worth a log line.
bool quiet(beast::error_code ec) {
  return ec == net::error::operation_aborted || ec == websocket::error::closed ||
         ec == net::error::eof || ec == net::error::connection_reset ||
         ec == beast::error::timeout || ec == net::error::broken_pipe;
}

}  // namespace

websocket_session::websocket_session(net::ip::tcp::socket&& socket,
                                     std::shared_ptr<const server_context> context,
                                     session_registry::ticket ticket, std::string address)
    : ws_{std::move(socket)},
      close_timer_{ws_.get_executor()},
      hello_timer_{ws_.get_executor()},
      context_{std::move(context)},
      ticket_{std::move(ticket)},
      id_{next_id.fetch_add(1, std::memory_order_relaxed)},
      address_{std::move(address)},
      budget_{context_->config.commands_per_second, context_->config.command_burst,
              context_->config.strike_decay} {}

websocket_session::~websocket_session() = default;

void websocket_session::run(beast::http::request<beast::http::string_body> request) {
  if (const auto it = request.find(beast::http::field::accept_language); it != request.end())
    accept_language_ = std::string(it->value().substr(0, 256));
  const auto& config = context_->config;
  auto timeouts = websocket::stream_base::timeout::suggested(beast::role_type::server);
  timeouts.handshake_timeout = config.http_timeout;
  timeouts.idle_timeout = config.idle_timeout;
  timeouts.keep_alive_pings = true;
  ws_.set_option(timeouts);
  // One frame per message, whatever its size: a fragmented message would be written
  // one frame (one system call) at a time.
  ws_.auto_fragment(false);
  ws_.set_option(websocket::stream_base::decorator([](websocket::response_type& res) {
    res.set(beast::http::field::server, "gammond/" GAMMOND_VERSION);
  }));
  // The size limit is enforced in on_read so the close frame can say why; Beast's own
  // limit would close with 1009 and no reason.
  ws_.read_message_max(0);
  ws_.async_accept(request,
                   beast::bind_front_handler(&websocket_session::on_accept, shared_from_this()));
}

void websocket_session::on_accept(beast::error_code ec) {
  if (ec) {
    finished_ = true;
    if (!quiet(ec)) spdlog::debug("ws {}: handshake failed: {}", address_, ec.message());
    return;
  }
  ws_.text(true);
  opened_ = true;
  context_->counters.connection_opened();
  context_->registry->add(id_, weak_from_this());
  spdlog::info("client {} connected from {}", id_, address_);
  start_hello_timer();
  // Pings and pongs cost a token like a message (Beast answers each ping with a pong):
  // a flood of control frames earns strikes and is cut off like a flood of commands.
  // The callback runs inside a read: the strike (which may start the close) is posted.
  ws_.control_callback([this](websocket::frame_type kind, beast::string_view /*payload*/) {
    if (kind == websocket::frame_type::close || take_token()) return;
    net::post(ws_.get_executor(),
              [self = shared_from_this()] { self->add_strike("ping rate limit", true); });
  });
  try {
    context_->game.on_open(shared_from_this());
  } catch (const std::exception& e) {
    spdlog::error("client {}: service on_open failed: {}", id_, e.what());
  }
  do_read();
}

void websocket_session::do_read() {
  // Read at most one byte past the limit, so an oversized message is noticed
  // without ever buffering more than max_message_bytes + 1.
  const std::size_t room = context_->config.max_message_bytes + 1 - buffer_.size();
  ws_.async_read_some(buffer_, room,
                      beast::bind_front_handler(&websocket_session::on_read, shared_from_this()));
}

void websocket_session::on_read(beast::error_code ec, std::size_t /*bytes*/) {
  if (ec) return finish(ec);
  if (closing_) {
    // Discard whatever arrives until the close handshake ends.
    buffer_.clear();
    return do_read();
  }
  if (buffer_.size() > context_->config.max_message_bytes) {
    buffer_.clear();
    begin_close(websocket::close_code::too_big, "message too big");
    return do_read();
  }
  if (!ws_.is_message_done()) return do_read();
  const bool text = ws_.got_text();
  std::string message = beast::buffers_to_string(buffer_.data());
  buffer_.clear();
  try {
    on_message(text, std::move(message));
  } catch (const std::exception& e) {
    spdlog::error("client {}: handling a message failed: {}", id_, e.what());
  }
  do_read();
}

void websocket_session::on_message(bool text, std::string message) {
  if (!take_token()) {
    std::shared_ptr<const std::string> reply;
    try {
      reply = context_->game.rate_limited_reply(message);
    } catch (const std::exception& e) {
      spdlog::error("client {}: rate_limited_reply failed: {}", id_, e.what());
    }
    // In the player's language, as every frame send() queues (in_lang).
    queue(in_lang(reply ? std::move(reply) : rate_limited_error()));
    add_strike("rate limit", true);
    return;
  }
  if (!text) return queue(in_lang(binary_frame_error()));
  try {
    context_->game.on_text(shared_from_this(), std::move(message));
  } catch (const std::exception& e) {
    spdlog::error("client {}: service on_text failed: {}", id_, e.what());
  }
}

bool websocket_session::take_token() {
  return budget_.take();
}

void websocket_session::add_strike(std::string why, bool rate_limit) {
  if (!opened_ || closing_ || finished_) return;
  const auto& config = context_->config;
  strikes_ = budget_.strike();
  spdlog::debug("client {}: strike {} of {} ({})", id_, strikes_, config.rate_limit_strikes, why);
  if (strikes_ < config.rate_limit_strikes) return;
  spdlog::warn("client {} from {}: closed after {} strikes, the last for {}", id_, address_,
               strikes_, why);
  context_->counters.connection_dropped("strikes");
  begin_close(websocket::close_code::policy_error, rate_limit ? "rate limit" : std::move(why));
}

void websocket_session::strike(std::string_view why) {
  net::post(ws_.get_executor(), [self = shared_from_this(), why = std::string{why}]() mutable {
    self->add_strike(std::move(why), false);
  });
}

void websocket_session::start_hello_timer() {
  hello_timer_.expires_after(context_->config.hello_timeout);
  hello_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
    if (ec || self->identified_ || self->closing_ || self->finished_) return;
    spdlog::info("client {} from {}: no hello within {} s, closing", self->id_, self->address_,
                 self->context_->config.hello_timeout.count());
    self->context_->counters.connection_dropped("hello_timeout");
    self->begin_close(websocket::close_code::policy_error, "no hello in time");
  });
}

void websocket_session::identified() {
  net::post(ws_.get_executor(), [self = shared_from_this()] {
    self->identified_ = true;
    self->hello_timer_.cancel();
  });
}

std::string websocket_session::lang() const {
  std::lock_guard lock(lang_mutex_);
  return lang_set_;
}

void websocket_session::set_lang(std::string tag) {
  {
    std::lock_guard lock(lang_mutex_);
    lang_set_ = tag;
  }
  net::post(ws_.get_executor(), [self = shared_from_this(), tag = std::move(tag)]() mutable {
    self->lang_ = std::move(tag);
  });
}

std::shared_ptr<const std::string> websocket_session::in_lang(
    std::shared_ptr<const std::string> frame) const {
  if (lang_.empty() || lang_ == i18n::source_language) return frame;
  if (frame->find("\"say\":{") == std::string::npos) return frame;
  auto j = nlohmann::json::parse(*frame, nullptr, false);
  if (j.is_discarded() || !i18n::say_in(j, lang_)) return frame;
  return std::make_shared<const std::string>(
      j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void websocket_session::send(std::shared_ptr<const std::string> frame) {
  if (!frame) return;
  net::post(ws_.get_executor(), [self = shared_from_this(), frame = std::move(frame)]() mutable {
    self->queue(self->in_lang(std::move(frame)));
  });
}

void websocket_session::send(std::vector<std::shared_ptr<const std::string>> frames) {
  if (frames.empty()) return;
  net::post(ws_.get_executor(), [self = shared_from_this(), frames = std::move(frames)]() mutable {
    // All queued before the first write starts, so that they leave together.
    for (auto& frame : frames)
      if (frame && !self->enqueue(self->in_lang(std::move(frame)))) return;
    if (!self->writing_ && !self->queue_.empty()) self->do_write();
  });
}

void websocket_session::close(std::string reason) {
  close(websocket::close_code::normal, std::move(reason));
}

void websocket_session::close_for_policy(std::string reason) {
  close(websocket::close_code::policy_error, std::move(reason));
}

void websocket_session::close_with_code(std::uint16_t code, std::string reason) {
  close(static_cast<websocket::close_code>(code), std::move(reason));
}

void websocket_session::close(websocket::close_code code, std::string reason) {
  net::post(ws_.get_executor(),
            [self = shared_from_this(), code, reason = std::move(reason)]() mutable {
              self->begin_close(code, std::move(reason));
            });
}

bool websocket_session::enqueue(std::shared_ptr<const std::string> frame) {
  if (!opened_ || closing_ || finished_) return false;
  if ((!queue_.empty() || held_bytes_ > 0) &&
      queued_bytes_ + frame->size() > context_->config.write_queue_bytes) {
    spdlog::warn("client {} from {}: write queue over {} bytes, closing: client too slow", id_,
                 address_, context_->config.write_queue_bytes);
    // Keep only the frame in flight (Beast is still writing from it) and the held
    // bytes before it (they leave with the close frame).
    if (writing_) {
      while (queue_.size() > 1) queue_.pop_back();
      queued_bytes_ = held_bytes_ + queue_.front()->size();
    } else {
      queue_.clear();
      queued_bytes_ = held_bytes_;
    }
    begin_close(websocket::close_code::policy_error, "client too slow");
    return false;
  }
  queued_bytes_ += frame->size();
  queue_.push_back(std::move(frame));
  return true;
}

void websocket_session::queue(std::shared_ptr<const std::string> frame) {
  if (enqueue(std::move(frame)) && !writing_) do_write();
}

void websocket_session::do_write() {
  writing_ = true;
  const auto& frame = queue_.front();
  // Hold this frame for the next one when another waits: they leave in one write.
  const bool hold =
      queue_.size() > 1 &&
      ws_.next_layer().pending_bytes() + frame->size() + queue_[1]->size() <= max_coalesced_bytes;
  ws_.next_layer().hold(hold);
  // The handler holds the frame too, so dropping the queue never frees a buffer
  // Beast is still writing from.
  ws_.async_write(net::buffer(*frame),
                  [self = shared_from_this(), frame, hold](beast::error_code ec, std::size_t) {
                    self->on_write(ec, hold);
                  });
}

void websocket_session::on_write(beast::error_code ec, bool held) {
  writing_ = false;
  if (ec) {
    if (!quiet(ec)) spdlog::debug("client {}: write failed: {}", id_, ec.message());
    queue_.clear();
    queued_bytes_ = 0;
    held_bytes_ = 0;
    return drop_socket();
  }
  if (queue_.empty()) return;  // finish() let go of everything meanwhile
  const std::size_t size = queue_.front()->size();
  queue_.pop_front();
  if (held) {
    held_bytes_ += size;  // copied below, not sent yet: still counts against the bound
  } else {
    queued_bytes_ -= size + held_bytes_;
    held_bytes_ = 0;
  }
  if (!queue_.empty()) return do_write();
  // Nothing left to take the held bytes along (the queue was dropped for a close):
  // the close frame sends them.
  ws_.next_layer().hold(false);
  if (closing_ && !finished_) do_close();
}

void websocket_session::begin_close(websocket::close_code code, std::string reason) {
  if (!opened_ || closing_ || finished_) return;
  closing_ = true;
  if (reason.size() > max_reason_bytes) {
    // Cut at a UTF-8 character boundary: a close reason must be valid UTF-8.
    std::size_t size = max_reason_bytes;
    while (size > 0 && (static_cast<unsigned char>(reason[size]) & 0xC0U) == 0x80U) --size;
    reason.resize(size);
  }
  close_reason_ = websocket::close_reason{code, reason};
  spdlog::debug("client {}: closing ({})", id_, reason);
  // A peer that reads nothing would hold the close forever: drop it after the limit.
  close_timer_.expires_after(context_->config.http_timeout);
  close_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
    if (ec || !beast::get_lowest_layer(self->ws_).socket().is_open()) return;
    spdlog::debug("client {}: close did not finish in time, dropping the connection", self->id_);
    self->drop_socket();
  });
  if (!writing_) do_close();
}

void websocket_session::do_close() {
  ws_.next_layer().hold(false);  // the close frame takes any held bytes along
  close_started_.store(true, std::memory_order_release);
  ws_.async_close(close_reason_, [self = shared_from_this()](beast::error_code ec) {
    self->close_timer_.cancel();
    if (ec && !quiet(ec)) spdlog::debug("client {}: close failed: {}", self->id_, ec.message());
    if (ec) self->drop_socket();
  });
}

void websocket_session::drop_socket() {
  beast::get_lowest_layer(ws_).close();
}

void websocket_session::finish(beast::error_code ec) {
  if (finished_) return;
  finished_ = true;
  hello_timer_.cancel();
  queue_.clear();
  queued_bytes_ = 0;
  held_bytes_ = 0;
  if (!quiet(ec)) spdlog::debug("client {}: read failed: {}", id_, ec.message());
  // While closing, the close handshake (or the close timer) ends the connection, and
  // after a close from the peer Beast tears it down itself. Otherwise nothing else
  // will read or write: let go of the socket now.
  if (!closing_ && ec != websocket::error::closed) drop_socket();
  std::string why;
  if (closing_) {
    why = "closed by the server: " + std::string{close_reason_.reason.c_str()};
  } else if (ec == websocket::error::closed) {
    why = "closed by the client, code " + std::to_string(ws_.reason().code);
  } else {
    why = ec.message();
  }
  spdlog::info("client {} from {} disconnected ({})", id_, address_, why);
  context_->registry->remove(id_);
  context_->counters.connection_closed();
  try {
    context_->game.on_close(shared_from_this());
  } catch (const std::exception& e) {
    spdlog::error("client {}: service on_close failed: {}", id_, e.what());
  }
}

}  // namespace bg::server
