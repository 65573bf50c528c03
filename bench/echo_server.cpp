// echo_server: the raw stack gammond is built on, and nothing else.
//
// A minimal WebSocket echo server from the same libraries (Boost.Asio, Boost.Beast)
// with the same socket options and WebSocket settings as gammond's listener,
// http_session and websocket_session: TCP_NODELAY, a strand per connection, the HTTP
// upgrade read into a flat_buffer, Beast's suggested server timeouts with gammond's
// idle timeout and keep-alive pings, text frames, a 16 KiB message limit, one write
// in flight. Every text message is sent back as it came. bench/run-load measures
// gammond against it so each figure is also a ratio to the raw stack.
//
// --broadcast makes it the yardstick of a table's fan-out (issue 15): a message with
// "type":"enter" and "table":"X" puts its connection in group X (and is echoed back as
// the acknowledgement); any other message naming a "table" is forwarded to every
// member of that group, sender included, as one frame per --sizes entry: padded
// `{"type":"event",...}` frames for all but the last size, then the message itself
// (with its "id") padded to the last size, as gammond sends a change's event and then
// its state. A group runs on its own strand and hands each member its frames in one
// post, as a gammond table does; each member writes them one message at a time.
//
//   echo_server [--port N] [--bind ADDRESS] [--threads N] [--port-file PATH]
//               [--broadcast [--sizes B1,B2,...]]

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

constexpr std::size_t max_message_bytes = 16 * 1024;  // gammond's --max-message-bytes default
constexpr auto idle_timeout = 120s;                   // gammond's --idle-timeout default
constexpr auto http_timeout = 15s;                    // gammond's --http-timeout default

using frame_ptr = std::shared_ptr<const std::string>;

class ws_session;

/// The broadcast mode's settings (--broadcast, --sizes).
struct broadcast_options {
  bool enabled = false;
  std::vector<std::size_t> sizes{120, 1600};
};

/// A group of connections (a "table"): its members, on its own strand.
class group : public std::enable_shared_from_this<group> {
 public:
  group(net::io_context& io, const broadcast_options& options)
      : strand_{net::make_strand(io)}, options_{options} {}

  void add(std::shared_ptr<ws_session> member);
  void forward(std::string text);

 private:
  net::strand<net::io_context::executor_type> strand_;
  const broadcast_options& options_;
  std::vector<std::weak_ptr<ws_session>> members_;
};

/// Every group by name (created on the first enter).
class groups {
 public:
  groups(net::io_context& io, const broadcast_options& options) : io_{io}, options_{options} {}
  std::shared_ptr<group> find(const std::string& name, bool create) {
    std::lock_guard lock{mutex_};
    const auto it = map_.find(name);
    if (it != map_.end()) return it->second;
    if (!create) return nullptr;
    auto g = std::make_shared<group>(io_, options_);
    map_.emplace(name, g);
    return g;
  }

 private:
  net::io_context& io_;
  const broadcast_options& options_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<group>> map_;
};

/// The value of "key":"value" in a JSON text (no escapes: the bench's own frames).
std::string string_field(std::string_view text, std::string_view key) {
  const auto at = text.find(key);
  if (at == std::string_view::npos) return {};
  const auto begin = at + key.size();
  const auto end = text.find('"', begin);
  if (end == std::string_view::npos) return {};
  return std::string{text.substr(begin, end - begin)};
}

class ws_session : public std::enable_shared_from_this<ws_session> {
 public:
  ws_session(tcp::socket&& socket, groups* all) : ws_{std::move(socket)}, groups_{all} {}

  void run(http::request<http::string_body> request) {
    auto timeouts = websocket::stream_base::timeout::suggested(beast::role_type::server);
    timeouts.handshake_timeout = http_timeout;
    timeouts.idle_timeout = idle_timeout;
    timeouts.keep_alive_pings = true;
    ws_.set_option(timeouts);
    ws_.read_message_max(max_message_bytes);
    ws_.async_accept(request,
                     beast::bind_front_handler(&ws_session::on_accept, shared_from_this()));
  }

  /// Queues `frames` (from any thread): one post, then one message per write.
  void send(std::vector<frame_ptr> frames) {
    net::post(ws_.get_executor(), [self = shared_from_this(), frames = std::move(frames)] {
      for (const auto& f : frames) self->queue_.push_back(f);
      if (!self->writing_) self->do_write();
    });
  }

 private:
  void on_accept(beast::error_code ec) {
    if (ec) return;
    ws_.text(true);
    do_read();
  }

  void do_read() {
    ws_.async_read(buffer_, beast::bind_front_handler(&ws_session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t /*bytes*/) {
    if (ec) return;
    if (groups_ == nullptr) {  // echo
      ws_.text(ws_.got_text());
      ws_.async_write(buffer_.data(),
                      beast::bind_front_handler(&ws_session::on_echoed, shared_from_this()));
      return;
    }
    std::string text = beast::buffers_to_string(buffer_.data());
    buffer_.consume(buffer_.size());
    const std::string table = string_field(text, R"("table":")");
    const bool enter = text.find(R"("type":"enter")") != std::string::npos;
    if (auto g = table.empty() ? nullptr : groups_->find(table, enter)) {
      if (enter) {
        g->add(shared_from_this());
        send({std::make_shared<const std::string>(std::move(text))});
      } else {
        g->forward(std::move(text));
      }
    } else {
      send({std::make_shared<const std::string>(std::move(text))});  // no group: echo
    }
    do_read();
  }

  void on_echoed(beast::error_code ec, std::size_t /*bytes*/) {
    if (ec) return;
    buffer_.consume(buffer_.size());
    do_read();
  }

  void do_write() {
    writing_ = true;
    const auto frame = queue_.front();
    ws_.async_write(net::buffer(*frame),
                    [self = shared_from_this(), frame](beast::error_code ec, std::size_t) {
                      self->writing_ = false;
                      if (ec) {
                        self->queue_.clear();
                        return;
                      }
                      self->queue_.pop_front();
                      if (!self->queue_.empty()) self->do_write();
                    });
  }

  websocket::stream<beast::tcp_stream> ws_;
  beast::flat_buffer buffer_;
  groups* groups_;  // nullptr: echo mode
  std::deque<frame_ptr> queue_;
  bool writing_ = false;
};

void group::add(std::shared_ptr<ws_session> member) {
  net::post(strand_, [self = shared_from_this(), member = std::move(member)] {
    self->members_.push_back(member);
  });
}

/// `text` padded with a "pad" member to `size` bytes (when shorter).
std::string padded(std::string text, std::size_t size) {
  constexpr std::string_view pad = R"(,"pad":"")";
  if (text.empty() || text.back() != '}' || text.size() + pad.size() >= size) return text;
  text.pop_back();
  text += R"(,"pad":")";
  text.append(size - text.size() - 2, 'x');
  text += "\"}";
  return text;
}

void group::forward(std::string text) {
  net::post(strand_, [self = shared_from_this(), text = std::move(text)]() mutable {
    // Serialised once, shared by every member (as gammond does).
    std::vector<frame_ptr> frames;
    const auto& sizes = self->options_.sizes;
    for (std::size_t i = 0; i + 1 < sizes.size(); ++i)
      frames.push_back(std::make_shared<const std::string>(
          padded(R"({"type":"event","event":"moved"})", sizes[i])));
    frames.push_back(std::make_shared<const std::string>(padded(std::move(text), sizes.back())));
    for (const auto& m : self->members_)
      if (auto s = m.lock()) s->send(frames);
  });
}

class http_session : public std::enable_shared_from_this<http_session> {
 public:
  http_session(tcp::socket&& socket, groups* all) : stream_{std::move(socket)}, groups_{all} {}

  void run() {
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&http_session::do_read, shared_from_this()));
  }

 private:
  void do_read() {
    parser_.emplace();
    parser_->header_limit(8 * 1024);
    parser_->body_limit(8 * 1024);
    stream_.expires_after(http_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&http_session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t /*bytes*/) {
    if (ec) return;
    if (!websocket::is_upgrade(parser_->get())) return;  // an echo server serves nothing else
    stream_.expires_never();
    std::make_shared<ws_session>(stream_.release_socket(), groups_)->run(parser_->release());
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  groups* groups_;
};

class listener : public std::enable_shared_from_this<listener> {
 public:
  listener(net::io_context& io, const tcp::endpoint& endpoint, groups* all)
      : io_{io}, acceptor_{net::make_strand(io)}, groups_{all} {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(net::socket_base::max_listen_connections);
  }

  [[nodiscard]] std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

  void run() { do_accept(); }

 private:
  void do_accept() {
    acceptor_.async_accept(net::make_strand(io_),
                           beast::bind_front_handler(&listener::on_accept, shared_from_this()));
  }

  void on_accept(beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (ec == net::error::operation_aborted) return;
      // Out of file descriptors: wait a little instead of spinning.
      std::this_thread::sleep_for(10ms);
    } else {
      socket.set_option(tcp::no_delay(true), ec);
      std::make_shared<http_session>(std::move(socket), groups_)->run();
    }
    do_accept();
  }

  net::io_context& io_;
  tcp::acceptor acceptor_;
  groups* groups_;
};

int to_int(const char* text, const char* flag) {
  int value = 0;
  const std::string_view s{text};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || end != s.data() + s.size()) {
    std::cerr << "echo_server: " << flag << " expects a number, not " << s << '\n';
    std::exit(2);
  }
  return value;
}

}  // namespace

int main(int argc, char* argv[]) {
  std::string bind = "127.0.0.1";
  int port = 0;
  int threads = 2;
  std::string port_file;
  broadcast_options broadcast;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg{argv[i]};
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      std::cout << "echo_server [--port N] [--bind ADDRESS] [--threads N] [--port-file PATH]\n"
                   "            [--broadcast [--sizes B1,B2,...]]\n"
                   "A minimal Beast WebSocket echo server with gammond's socket options;\n"
                   "--broadcast: a table's fan-out (see the header of echo_server.cpp).\n";
      return 0;
    }
    if (arg == "--broadcast") {
      broadcast.enabled = true;
      continue;
    }
    if (!has_value) {
      std::cerr << "echo_server: " << arg << " needs a value\n";
      return 2;
    }
    if (arg == "--port") {
      port = to_int(argv[++i], "--port");
    } else if (arg == "--bind") {
      bind = argv[++i];
    } else if (arg == "--threads") {
      threads = to_int(argv[++i], "--threads");
    } else if (arg == "--port-file") {
      port_file = argv[++i];
    } else if (arg == "--sizes") {
      broadcast.sizes.clear();
      std::string_view list{argv[++i]};
      while (!list.empty()) {
        const auto comma = list.find(',');
        const std::string item{list.substr(0, comma)};
        broadcast.sizes.push_back(static_cast<std::size_t>(to_int(item.c_str(), "--sizes")));
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
      }
    } else {
      std::cerr << "echo_server: unknown flag " << arg << '\n';
      return 2;
    }
  }
  if (threads < 1 || port < 0 || port > 65535 || broadcast.sizes.empty()) {
    std::cerr << "echo_server: --threads must be >= 1, --port 0..65535, --sizes not empty\n";
    return 2;
  }

  net::io_context io{threads};
  std::optional<groups> all;
  if (broadcast.enabled) all.emplace(io, broadcast);
  auto server = std::make_shared<listener>(
      io, tcp::endpoint{net::ip::make_address(bind), static_cast<std::uint16_t>(port)},
      all ? &*all : nullptr);
  if (!port_file.empty()) {
    std::ofstream{port_file + ".tmp"} << server->port() << '\n';
    std::rename((port_file + ".tmp").c_str(), port_file.c_str());
  }
  std::cout << "echo_server listening on " << bind << ':' << server->port() << std::endl;
  server->run();

  net::signal_set signals{io, SIGINT, SIGTERM};
  signals.async_wait([&io](beast::error_code, int) { io.stop(); });

  std::vector<std::jthread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back([&io] { io.run(); });
  io.run();
  return 0;
}
