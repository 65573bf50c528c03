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
//   echo_server [--port N] [--bind ADDRESS] [--threads N] [--port-file PATH]

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
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
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

class ws_session : public std::enable_shared_from_this<ws_session> {
 public:
  explicit ws_session(tcp::socket&& socket) : ws_{std::move(socket)} {}

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
    ws_.text(ws_.got_text());
    ws_.async_write(buffer_.data(),
                    beast::bind_front_handler(&ws_session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t /*bytes*/) {
    if (ec) return;
    buffer_.consume(buffer_.size());
    do_read();
  }

  websocket::stream<beast::tcp_stream> ws_;
  beast::flat_buffer buffer_;
};

class http_session : public std::enable_shared_from_this<http_session> {
 public:
  explicit http_session(tcp::socket&& socket) : stream_{std::move(socket)} {}

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
    std::make_shared<ws_session>(stream_.release_socket())->run(parser_->release());
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
};

class listener : public std::enable_shared_from_this<listener> {
 public:
  listener(net::io_context& io, const tcp::endpoint& endpoint)
      : io_{io}, acceptor_{net::make_strand(io)} {
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
      std::make_shared<http_session>(std::move(socket))->run();
    }
    do_accept();
  }

  net::io_context& io_;
  tcp::acceptor acceptor_;
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
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg{argv[i]};
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      std::cout << "echo_server [--port N] [--bind ADDRESS] [--threads N] [--port-file PATH]\n"
                   "A minimal Beast WebSocket echo server with gammond's socket options.\n";
      return 0;
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
    } else {
      std::cerr << "echo_server: unknown flag " << arg << '\n';
      return 2;
    }
  }
  if (threads < 1 || port < 0 || port > 65535) {
    std::cerr << "echo_server: --threads must be >= 1 and --port 0..65535\n";
    return 2;
  }

  net::io_context io{threads};
  auto server = std::make_shared<listener>(
      io, tcp::endpoint{net::ip::make_address(bind), static_cast<std::uint16_t>(port)});
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
