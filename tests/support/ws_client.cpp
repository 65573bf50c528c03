// A synchronous WebSocket client for tests (ws_client.hpp). Every wait runs the
// client's own io_context until the awaited thing happens or a deadline passes; a
// read is kept pending in the background so messages are collected in order.

#include "ws_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <deque>
#include <stdexcept>

namespace bg::test {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;
using clock_type = std::chrono::steady_clock;

namespace {

/// The state of one awaited operation. Handlers hold it by shared_ptr, so a wait that
/// gives up (and throws) never leaves a handler pointing into a dead stack frame.
struct op_state {
  bool done = false;
  beast::error_code ec;
  std::string data;                   // what a write sends
  websocket::response_type response;  // what a handshake receives
};

}  // namespace

struct ws_client::impl {
  explicit impl(std::chrono::milliseconds t) : timeout{t} {}

  net::io_context io;
  websocket::stream<beast::tcp_stream> ws{io};
  beast::flat_buffer buffer;
  std::deque<std::string> inbox;
  std::vector<nlohmann::json> skipped;
  std::chrono::milliseconds timeout;
  std::map<std::string, std::string> headers;
  bool open = false;
  bool reading = false;
  bool ended = false;
  beast::error_code end_ec;

  /// Runs the io_context until `done()` or `deadline`; returns done().
  template <typename Done>
  bool run_until(Done done, clock_type::time_point deadline) {
    while (!done()) {
      const auto now = clock_type::now();
      if (now >= deadline) return false;
      if (io.stopped()) io.restart();
      if (io.run_one_for(deadline - now) == 0 && io.stopped()) {
        // Nothing left to wait for: whatever was awaited will not happen.
        io.restart();
        return done();
      }
    }
    return true;
  }

  void start_read() {
    if (reading || ended || !open) return;
    reading = true;
    ws.async_read(buffer, [this](beast::error_code ec, std::size_t) {
      reading = false;
      if (ec) {
        ended = true;
        open = false;
        end_ec = ec;
        return;
      }
      inbox.push_back(beast::buffers_to_string(buffer.data()));
      buffer.consume(buffer.size());
      start_read();
    });
  }

  /// Waits for `op` until `deadline`; after that closes the socket, lets the
  /// operation finish (it does at once) and returns false.
  bool await(const std::shared_ptr<op_state>& op, clock_type::time_point deadline) {
    if (run_until([&] { return op->done; }, deadline)) return true;
    beast::get_lowest_layer(ws).close();
    run_until([&] { return op->done; }, clock_type::now() + timeout);
    return false;
  }

  void write(const std::string& data, bool text) {
    if (!open) throw std::runtime_error("ws_client: send on a closed connection");
    start_read();
    auto op = std::make_shared<op_state>();
    op->data = data;
    ws.text(text);
    ws.async_write(net::buffer(op->data), [op](beast::error_code ec, std::size_t) {
      op->done = true;
      op->ec = ec;
    });
    if (!await(op, clock_type::now() + timeout)) {
      throw std::runtime_error("ws_client: send did not finish in time");
    }
    if (op->ec) throw std::runtime_error("ws_client: send failed: " + op->ec.message());
  }

  void ping() {
    if (!open) throw std::runtime_error("ws_client: ping on a closed connection");
    start_read();
    auto op = std::make_shared<op_state>();
    ws.async_ping({}, [op](beast::error_code ec) {
      op->done = true;
      op->ec = ec;
    });
    if (!await(op, clock_type::now() + timeout)) {
      throw std::runtime_error("ws_client: ping did not finish in time");
    }
    if (op->ec) throw std::runtime_error("ws_client: ping failed: " + op->ec.message());
  }

  std::optional<std::string> next(clock_type::time_point deadline) {
    start_read();
    run_until([&] { return !inbox.empty() || ended; }, deadline);
    if (inbox.empty()) return std::nullopt;
    std::string message = std::move(inbox.front());
    inbox.pop_front();
    return message;
  }
};

namespace {

nlohmann::json parse(const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("ws_client: not JSON (" + std::string{e.what()} + "): " + text);
  }
}

}  // namespace

ws_client::ws_client(std::chrono::milliseconds timeout) : impl_{std::make_unique<impl>(timeout)} {}
ws_client::~ws_client() = default;
ws_client::ws_client(ws_client&&) noexcept = default;
ws_client& ws_client::operator=(ws_client&&) noexcept = default;

void ws_client::set_header(std::string name, std::string value) {
  impl_->headers[std::move(name)] = std::move(value);
}

void ws_client::connect(const std::string& host, std::uint16_t port, const std::string& target) {
  auto& s = *impl_;
  if (s.open || s.ended) throw std::runtime_error("ws_client: connect called twice");
  const auto deadline = clock_type::now() + s.timeout;
  tcp::resolver resolver{s.io};
  beast::error_code ec;
  const auto endpoints = resolver.resolve(host, std::to_string(port), ec);
  if (ec) throw std::runtime_error("ws_client: cannot resolve " + host + ": " + ec.message());

  auto connecting = std::make_shared<op_state>();
  // The first address only (tests use numeric hosts). Asio's range connect trips a
  // UBSan report (GCC 12, -O2) inside Asio when this is linked into network_tests.
  if (endpoints.empty()) throw std::runtime_error("ws_client: no address for " + host);
  beast::get_lowest_layer(s.ws).async_connect(endpoints.begin()->endpoint(),
                                              [connecting](beast::error_code connect_ec) {
                                                connecting->done = true;
                                                connecting->ec = connect_ec;
                                              });
  if (!s.await(connecting, deadline)) {
    throw std::runtime_error("ws_client: connect to " + host + ":" + std::to_string(port) +
                             " timed out");
  }
  if (connecting->ec) {
    throw std::runtime_error("ws_client: cannot connect to " + host + ":" + std::to_string(port) +
                             ": " + connecting->ec.message());
  }
  beast::get_lowest_layer(s.ws).socket().set_option(tcp::no_delay(true), ec);

  s.ws.set_option(
      websocket::stream_base::decorator([headers = s.headers](websocket::request_type& req) {
        req.set(beast::http::field::user_agent, "gammond-test-ws-client");
        for (const auto& [name, value] : headers) req.set(name, value);
      }));
  auto handshake = std::make_shared<op_state>();
  s.ws.async_handshake(handshake->response, host + ":" + std::to_string(port), target,
                       [handshake](beast::error_code handshake_ec) {
                         handshake->done = true;
                         handshake->ec = handshake_ec;
                       });
  if (!s.await(handshake, deadline)) {
    throw std::runtime_error("ws_client: WebSocket handshake timed out");
  }
  if (handshake->ec) {
    std::string what = "ws_client: WebSocket handshake failed: " + handshake->ec.message();
    if (const auto status = handshake->response.result_int(); status != 0) {
      what += " (HTTP " + std::to_string(status) + " " + handshake->response.body() + ")";
    }
    throw std::runtime_error(what);
  }
  s.open = true;
  s.start_read();
}

void ws_client::send_text(const std::string& text) {
  impl_->write(text, true);
}
void ws_client::send_binary(const std::string& bytes) {
  impl_->write(bytes, false);
}
void ws_client::send_ping() {
  impl_->ping();
}
void ws_client::send_json(const nlohmann::json& message) {
  impl_->write(message.dump(), true);
}

std::optional<std::string> ws_client::receive_text(std::chrono::milliseconds timeout) {
  return impl_->next(clock_type::now() + timeout);
}

std::optional<nlohmann::json> ws_client::receive_json(std::chrono::milliseconds timeout) {
  auto text = receive_text(timeout);
  if (!text) return std::nullopt;
  return parse(*text);
}

std::optional<nlohmann::json> ws_client::receive_until(
    const std::function<bool(const nlohmann::json&)>& matches, std::chrono::milliseconds timeout) {
  impl_->skipped.clear();
  const auto deadline = clock_type::now() + timeout;
  while (auto text = impl_->next(deadline)) {
    auto message = parse(*text);
    if (matches(message)) return message;
    impl_->skipped.push_back(std::move(message));
  }
  return std::nullopt;
}

const std::vector<nlohmann::json>& ws_client::skipped() const noexcept {
  return impl_->skipped;
}

std::size_t ws_client::pending() const noexcept {
  return impl_->inbox.size();
}

bool ws_client::wait_closed(std::chrono::milliseconds timeout) {
  auto& s = *impl_;
  s.start_read();
  return s.run_until([&] { return s.ended; }, clock_type::now() + timeout);
}

bool ws_client::is_open() const noexcept {
  return impl_->open;
}

std::uint16_t ws_client::close_code() const noexcept {
  return impl_->ws.reason().code;
}

std::string ws_client::close_reason() const {
  return std::string{impl_->ws.reason().reason.c_str()};
}

std::string ws_client::end_reason() const {
  return impl_->ended ? impl_->end_ec.message() : std::string{};
}

void ws_client::close() noexcept {
  auto& s = *impl_;
  if (!s.open) return;
  try {
    auto closing = std::make_shared<op_state>();
    s.start_read();  // the read ends with the server's close frame
    s.ws.async_close(websocket::close_code::normal,
                     [closing](beast::error_code) { closing->done = true; });
    s.await(closing, clock_type::now() + s.timeout);
    s.run_until([&] { return !s.reading; }, clock_type::now() + s.timeout);
    beast::get_lowest_layer(s.ws).close();
    s.run_until([&] { return !s.reading; }, clock_type::now() + s.timeout);
    s.open = false;
  } catch (...) {
    s.open = false;
  }
}

}  // namespace bg::test
