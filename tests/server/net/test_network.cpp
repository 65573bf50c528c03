// The network layer in process: a real listener on 127.0.0.1 and an ephemeral port,
// an io_context on two threads, and a small echo service in place of the game.

#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "bg/server/log_safe.hpp"
#include "bg/server/metrics.hpp"
#include "bg/server/net/command_budget.hpp"
#include "bg/server/net/network_server.hpp"
#include "bg/server/net/service.hpp"
#include "bg/server/server_config.hpp"
#include "eventually.hpp"
#include "http_get.hpp"
#include "parse_flags.hpp"
#include "ws_client.hpp"

namespace {

using namespace std::chrono_literals;
using nlohmann::json;
namespace net = boost::asio;
namespace fs = std::filesystem;

const std::string host = "127.0.0.1";

using bg::test::eventually;  // polls a condition under one generous deadline (30 s)

/// The test's game service. Text commands:
/// - "whoami": answers {"id":N,"address":"..."}
/// - "flood": sends the client 400 frames of 64 KiB (one shared string)
/// - "burst": sends the client burst_frames() in one client::send of a batch
/// - "close:REASON": closes the client with REASON
/// - "hello": calls identified() (as gammond does on welcome) and answers "welcome"
/// - "strike:WHY": counts a strike for WHY
/// - "throw": throws from on_text
/// - anything else is sent back as it came.
/// It records every call so tests can check on_open/on_close/on_text.
class echo_service final : public bg::server::service {
 public:
  /// The frames of "burst": 50 JSON texts {"i":N,"pad":"..."} of 30 B to 70 KiB (over
  /// the 4 KiB Beast would fragment at and the 64 KiB the session gathers at most), 118
  /// KiB in all.
  static std::vector<std::string> burst_frames() {
    std::vector<std::string> frames;
    for (int i = 0; i < 50; ++i) {
      const std::size_t pad = i == 25 ? 70'000 : i % 7 == 3 ? 6'000 : 20;
      frames.push_back(
          json{{"i", i}, {"pad", std::string(pad, static_cast<char>('a' + i % 26))}}.dump());
    }
    return frames;
  }

  void on_open(const std::shared_ptr<bg::server::client>& c) override {
    const std::lock_guard lock{mutex_};
    ++opened_[c->id()];
    sessions_[c->id()] = c;
  }
  void on_text(const std::shared_ptr<bg::server::client>& c, std::string text) override {
    {
      const std::lock_guard lock{mutex_};
      ++texts_;
    }
    if (text == "whoami") {
      c->send(std::make_shared<const std::string>(
          json{{"id", c->id()}, {"address", c->address()}}.dump()));
    } else if (text == "flood") {
      for (int i = 0; i < 400; ++i) c->send(flood_frame_);
    } else if (text == "burst") {
      std::vector<std::shared_ptr<const std::string>> frames;
      for (const auto& f : burst_frames()) frames.push_back(std::make_shared<const std::string>(f));
      c->send(std::move(frames));
    } else if (text.rfind("close:", 0) == 0) {
      c->close(text.substr(6));
    } else if (text == "hello") {
      c->identified();
      c->send(std::make_shared<const std::string>("welcome"));
    } else if (text.rfind("strike:", 0) == 0) {
      c->strike(text.substr(7));
    } else if (text == "throw") {
      throw std::runtime_error("the test service throws");
    } else {
      c->send(std::make_shared<const std::string>(std::move(text)));
    }
  }
  void on_close(const std::shared_ptr<bg::server::client>& c) override {
    const std::lock_guard lock{mutex_};
    ++closed_[c->id()];
  }
  std::optional<bg::server::http_reply> on_http_get(std::string_view target) override {
    if (target == "/svc/hello?x=1") return bg::server::http_reply{200, "text/plain", "hello"};
    return std::nullopt;
  }
  void shutdown(std::function<void()> saved) override {
    ++shutdowns_;
    saved();
  }

  int opened(std::uint64_t id) {
    const std::lock_guard lock{mutex_};
    return opened_[id];
  }
  int closed(std::uint64_t id) {
    const std::lock_guard lock{mutex_};
    return closed_[id];
  }
  int texts() {
    const std::lock_guard lock{mutex_};
    return texts_;
  }
  /// True once the session of client `id` no longer exists: nothing can call the
  /// service for it any more (a marker that needs no fixed wait).
  bool gone(std::uint64_t id) {
    const std::lock_guard lock{mutex_};
    const auto it = sessions_.find(id);
    return it != sessions_.end() && it->second.expired();
  }
  int shutdowns() const { return shutdowns_; }

 private:
  std::mutex mutex_;
  std::map<std::uint64_t, int> opened_;
  std::map<std::uint64_t, int> closed_;
  std::map<std::uint64_t, std::weak_ptr<bg::server::client>> sessions_;
  int texts_ = 0;
  std::atomic<int> shutdowns_{0};
  std::shared_ptr<const std::string> flood_frame_ =
      std::make_shared<const std::string>(64 * 1024, 'x');
};

/// A directory of web client files, and a secret file next to it (outside it) with a
/// symlink pointing at the secret from inside.
class static_files {
 public:
  static_files() {
    std::string pattern = (fs::temp_directory_path() / "gammond-net-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    root_ = pattern;
    fs::create_directory(www());
    write(www() / "index.html", "<!doctype html><title>gammond</title>");
    write(www() / "app.js", "export const x = 1;");
    write(www() / "style.css", "body{}");
    write(www() / "board.svg", "<svg/>");
    write(root_ / "secret.txt", "SECRET");
    fs::create_symlink(root_ / "secret.txt", www() / "leak.txt");
  }
  ~static_files() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  static_files(const static_files&) = delete;
  static_files& operator=(const static_files&) = delete;
  [[nodiscard]] fs::path www() const { return root_ / "www"; }

 private:
  static void write(const fs::path& file, const std::string& text) { std::ofstream{file} << text; }
  fs::path root_;
};

/// Short limits so every timeout in this file is a second or two.
bg::server::server_config test_config(const static_files& files) {
  bg::server::server_config config;
  config.bind = host;
  config.port = 0;
  config.static_dir = files.www().string();
  config.threads = 2;
  config.http_timeout = 1s;
  config.idle_timeout = 10s;
  config.max_message_bytes = 1024;
  config.commands_per_second = 1000;
  config.command_burst = 1000;
  config.rate_limit_strikes = 3;
  config.write_queue_bytes = 256 * 1024;
  config.hello_timeout = 60s;  // the echo service identifies only on "hello"
  return config;
}

/// network_server + echo_service on an io_context run by two threads.
class test_server {
 public:
  explicit test_server(const bg::server::server_config& config)
      : game_{std::make_shared<echo_service>()}, server_{io_, config, game_, counters_} {
    server_.start();
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
  }
  ~test_server() {
    io_.stop();
    for (auto& t : threads_) t.join();
  }
  test_server(const test_server&) = delete;
  test_server& operator=(const test_server&) = delete;

  [[nodiscard]] std::uint16_t port() const { return server_.port(); }
  echo_service& game() { return *game_; }
  bg::server::network_server& server() { return server_; }
  bg::server::metrics& counters() { return counters_; }

  /// A connected WebSocket client.
  bg::test::ws_client connect() {
    bg::test::ws_client c;
    c.connect(host, port());
    return c;
  }

 private:
  bg::server::metrics counters_;
  net::io_context io_{2};
  std::shared_ptr<echo_service> game_;
  bg::server::network_server server_;
  std::vector<std::thread> threads_;
};

/// A blocking socket connected to the test server whose reads give up after 30 s (a
/// generous deadline for a loaded machine), so a server that never answers fails the
/// test instead of hanging it.
net::ip::tcp::socket raw_connect(net::io_context& io, std::uint16_t port) {
  net::ip::tcp::socket socket{io};
  socket.connect({net::ip::make_address(host), port});
  const timeval limit{30, 0};
  REQUIRE(::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit) == 0);
  return socket;
}

/// Everything the server sends on `socket` until it closes it (true) or 30 s pass
/// without a byte (false). Plain recv(2): it honours SO_RCVTIMEO, asio's sync read
/// would wait forever.
std::pair<std::string, bool> read_until_closed(net::ip::tcp::socket& socket) {
  std::string received;
  std::array<char, 4096> chunk{};
  for (;;) {
    const auto n = ::recv(socket.native_handle(), chunk.data(), chunk.size(), 0);
    if (n == 0) return {received, true};
    if (n < 0) return {received, false};
    received.append(chunk.data(), static_cast<std::size_t>(n));
  }
}

/// The id the server gave `c` (asks "whoami").
std::uint64_t id_of(bg::test::ws_client& c) {
  c.send_text("whoami");
  const auto me = c.receive_json();
  REQUIRE(me);
  return (*me)["id"].get<std::uint64_t>();
}

}  // namespace

// ---------------------------------------------------------------------------------
// HTTP

TEST_CASE("GET and HEAD /healthz answer 200 with status ok", "[network][http]") {
  static_files files;
  test_server server{test_config(files)};

  const auto get = bg::test::http_get(host, server.port(), "/healthz");
  CHECK(get.status == 200);
  CHECK(json::parse(get.body) == json{{"status", "ok"}});
  CHECK(get.content_type() == "application/json");

  const auto head = bg::test::http_request(host, server.port(), "/healthz", "HEAD");
  CHECK(head.status == 200);
  CHECK(head.body.empty());
  CHECK(head.fields.at("content-length") == std::to_string(get.body.size()));
}

TEST_CASE("GET /metrics serves Prometheus text format 0.0.4 that counts connections",
          "[network][http][metrics]") {
  static_files files;
  test_server server{test_config(files)};
  auto c = server.connect();
  REQUIRE(eventually([&] { return server.server().registry().open_sessions() == 1; }));

  const auto res = bg::test::http_get(host, server.port(), "/metrics");
  CHECK(res.status == 200);
  CHECK(res.content_type().rfind("text/plain; version=0.0.4", 0) == 0);
  CHECK_THAT(res.body,
             Catch::Contains("# TYPE gammond_connections gauge\ngammond_connections 1\n"));
  CHECK_THAT(res.body, Catch::Contains("# TYPE gammond_connections_total counter\n"
                                       "gammond_connections_total 1\n"));
  CHECK_THAT(res.body, Catch::Contains("# TYPE gammond_command_seconds histogram\n"));
}

TEST_CASE(
    "a connection's command budget: a full bucket of burst tokens refilled at the rate, "
    "and one strike forgiven per decay period with the remainder kept",
    "[network][limits]") {
  using bg::server::command_budget;
  const auto t0 = command_budget::clock::time_point{} + 1000s;
  command_budget b{2.0, 3, 10s, t0};
  CHECK(b.take(t0));
  CHECK(b.take(t0));
  CHECK(b.take(t0));
  CHECK_FALSE(b.take(t0));          // the burst is spent
  CHECK_FALSE(b.take(t0 + 400ms));  // 0.8 of a token came back
  CHECK(b.take(t0 + 500ms));        // 1.0 (0.8 + 0.2)
  CHECK(b.take(t0 + 60s));          // refilled, but never above the burst:
  CHECK(b.take(t0 + 60s));
  CHECK(b.take(t0 + 60s));
  CHECK_FALSE(b.take(t0 + 60s));
  CHECK(b.strike(t0) == 1);
  CHECK(b.strike(t0 + 5s) == 2);
  CHECK(b.strike(t0 + 9s) == 3);
  CHECK(b.strike(t0 + 15s) == 3);    // one forgiven (10 s), 5 s of the next kept
  CHECK(b.strike(t0 + 25s) == 3);    // another at 20 s
  CHECK(b.strike(t0 + 1000s) == 1);  // all forgiven: the count starts again
}

TEST_CASE(
    "metrics counted on many threads at once, each in a shard of its own, add up in "
    "/metrics, and two metrics objects on one thread keep their counts apart",
    "[network][metrics]") {
  bg::server::metrics m;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&m] {
      for (int i = 0; i < 1000; ++i) {
        m.command(i % 2 == 0 ? "roll" : "move", 50us);
        if (i % 10 == 0) m.error("illegal_play");
      }
    });
  }
  for (auto& t : threads) t.join();
  m.command("roll", 2ms);  // this thread's shard too
  const std::string text = m.render();
  CHECK_THAT(text, Catch::Contains("gammond_commands_total{command=\"move\"} 2000\n"
                                   "gammond_commands_total{command=\"roll\"} 2001\n"));
  CHECK_THAT(text, Catch::Contains("gammond_errors_total{code=\"illegal_play\"} 400\n"));
  CHECK_THAT(text, Catch::Contains("\ngammond_command_seconds_count 4001\n"));
  CHECK(m.commands_handled() == 4001);
  bg::server::metrics other;
  other.command("double", 1ms);
  CHECK(other.commands_handled() == 1);
  CHECK(m.commands_handled() == 4001);
  CHECK_THAT(other.render(), !Catch::Contains("command=\"roll\""));
}

TEST_CASE("metrics render counters with labels and a cumulative histogram", "[network][metrics]") {
  bg::server::metrics m;
  m.command("roll", 50us);  // le 0.0001
  m.command("roll", 2ms);   // le 0.0025
  m.command("move", 2s);    // only +Inf
  m.error("illegal_play");
  m.error("say \"hi\"\\");  // escaped in the label
  m.set_tables(3);
  m.game_started();
  m.connection_opened();
  m.connection_opened();
  m.connection_closed();

  const std::string text = m.render();
  CHECK_THAT(text, Catch::Contains("# HELP gammond_commands_total "));
  CHECK_THAT(text, Catch::Contains("gammond_commands_total{command=\"move\"} 1\n"
                                   "gammond_commands_total{command=\"roll\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("gammond_errors_total{code=\"illegal_play\"} 1\n"));
  CHECK_THAT(text, Catch::Contains(R"(gammond_errors_total{code="say \"hi\"\\"} 1)"));
  CHECK_THAT(text, Catch::Contains("gammond_tables 3\n"));
  CHECK_THAT(text, Catch::Contains("gammond_games_started_total 1\n"));
  CHECK_THAT(text, Catch::Contains("gammond_connections 1\n"));
  CHECK_THAT(text, Catch::Contains("gammond_connections_total 2\n"));
  CHECK_THAT(text, Catch::Contains("gammond_command_seconds_bucket{le=\"0.0001\"} 1\n"
                                   "gammond_command_seconds_bucket{le=\"0.00025\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("gammond_command_seconds_bucket{le=\"0.0025\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("gammond_command_seconds_bucket{le=\"1\"} 2\n"
                                   "gammond_command_seconds_bucket{le=\"+Inf\"} 3\n"
                                   "gammond_command_seconds_sum "));
  CHECK_THAT(text, Catch::Contains("\ngammond_command_seconds_count 3\n"));
  const auto sum_at = text.find("gammond_command_seconds_sum ");
  REQUIRE(sum_at != std::string::npos);
  CHECK(std::stod(text.substr(sum_at + 28)) == Approx(2.00205));
}

TEST_CASE("static files are served with their MIME types and / is index.html",
          "[network][http][static]") {
  static_files files;
  test_server server{test_config(files)};
  const auto port = server.port();

  const auto index = bg::test::http_get(host, port, "/");
  CHECK(index.status == 200);
  CHECK(index.body == "<!doctype html><title>gammond</title>");
  CHECK(index.content_type() == "text/html; charset=utf-8");
  CHECK(bg::test::http_get(host, port, "/app.js").content_type() ==
        "text/javascript; charset=utf-8");
  CHECK(bg::test::http_get(host, port, "/style.css").content_type() == "text/css; charset=utf-8");
  CHECK(bg::test::http_get(host, port, "/board.svg?v=2").content_type() == "image/svg+xml");

  const auto head = bg::test::http_request(host, port, "/app.js", "HEAD");
  CHECK(head.status == 200);
  CHECK(head.body.empty());
  CHECK(head.fields.at("content-length") == "19");
}

TEST_CASE("the web client's page addresses are answered with index.html, other paths are not",
          "[network][http][static]") {
  static_files files;
  test_server server{test_config(files)};
  const auto port = server.port();
  // The pages the client routes itself (router.js): a reload or a shared link opens them.
  for (const std::string target :
       {"/table/t1", "/table/%D0%B6%D0%B0%D0%BD", "/player/alice", "/ratings", "/ratings/long",
        "/analysis/12", "/match/12", "/match/12?x=1", "/table/a/../../secret.txt", "/tournaments",
        "/tournament/spring"}) {
    CAPTURE(target);
    const auto page = bg::test::http_get(host, port, target);
    CHECK(page.status == 200);
    CHECK(page.body == "<!doctype html><title>gammond</title>");
    CHECK(page.content_type() == "text/html; charset=utf-8");
  }
  // Not pages: a match's .mat, the API, a bare prefix, anything else.
  for (const std::string target :
       {"/matches/12.mat", "/table/", "/match", "/tables/t1", "/tournament/"}) {
    CAPTURE(target);
    CHECK(bg::test::http_get(host, port, target).body != "<!doctype html><title>gammond</title>");
  }
}

TEST_CASE("a path that leaves the static directory is refused", "[network][http][static]") {
  static_files files;
  test_server server{test_config(files)};
  const auto target = GENERATE(as<std::string>{}, "/../secret.txt", "/%2e%2e/secret.txt",
                               "/a/../../secret.txt", "/leak.txt", "/..%2fsecret.txt",
                               "/.%2e/secret.txt", "/%5c..%5csecret.txt", "/./index.html");
  CAPTURE(target);
  const auto res = bg::test::http_get(host, server.port(), target);
  CHECK(res.status == 400);
  CHECK(res.body.find("SECRET") == std::string::npos);
}

TEST_CASE("an unknown GET goes to the service, 404 when it has nothing, other methods get 405",
          "[network][http]") {
  static_files files;
  test_server server{test_config(files)};
  const auto port = server.port();

  CHECK(bg::test::http_get(host, port, "/nothing-here").status == 404);
  const auto from_service = bg::test::http_get(host, port, "/svc/hello?x=1");
  CHECK(from_service.status == 200);
  CHECK(from_service.body == "hello");

  const auto post = bg::test::http_request(host, port, "/healthz", "POST");
  CHECK(post.status == 405);
  CHECK(post.fields.at("allow") == "GET, HEAD");
  CHECK(bg::test::http_request(host, port, "/", "DELETE").status == 405);
  CHECK(bg::test::http_get(host, port, "/ws").status == 426);
}

TEST_CASE("a client that never finishes its request is dropped after http_timeout",
          "[network][http][timeout]") {
  static_files files;
  test_server server{test_config(files)};  // http_timeout = 1 s

  net::io_context io;
  // Timed from before the connection exists, so the server's timer (started when it
  // accepts) cannot have started earlier: at least http_timeout is a sound lower bound.
  // A loaded machine only makes the wait longer: the upper bound is just "it happens".
  const auto start = std::chrono::steady_clock::now();
  auto socket = raw_connect(io, server.port());
  net::write(socket, net::buffer(std::string_view{"GET /healthz HTTP/1.1\r\nHost: x\r\n"}));
  const auto [received, closed] = read_until_closed(socket);
  const auto waited = std::chrono::steady_clock::now() - start;

  CHECK(received.empty());
  CHECK(closed);
  CHECK(waited >= 1s);
  CHECK(waited < bg::test::generous_deadline);
  CHECK(eventually([&] { return server.server().registry().connections() == 0; }));
}

TEST_CASE("keep-alive serves several requests on one connection", "[network][http]") {
  static_files files;
  test_server server{test_config(files)};
  net::io_context io;
  auto socket = raw_connect(io, server.port());
  net::write(socket, net::buffer(std::string_view{"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                                                  "GET /healthz HTTP/1.1\r\nHost: x\r\n"
                                                  "Connection: close\r\n\r\n"}));
  const auto [answer, closed] = read_until_closed(socket);
  CHECK(closed);
  std::size_t oks = 0;
  for (auto at = answer.find("HTTP/1.1 200 OK"); at != std::string::npos;
       at = answer.find("HTTP/1.1 200 OK", at + 1)) {
    ++oks;
  }
  CHECK(oks == 2);
}

// ---------------------------------------------------------------------------------
// Connection limits

TEST_CASE("connections over max_connections_per_address are refused with 503",
          "[network][limits]") {
  static_files files;
  auto config = test_config(files);
  config.max_connections_per_address = 2;
  test_server server{config};

  auto first = server.connect();
  auto second = server.connect();
  REQUIRE(eventually([&] { return server.server().registry().connections_from(host) == 2; }));

  const auto refused = bg::test::http_get(host, server.port(), "/healthz");
  CHECK(refused.status == 503);
  CHECK(refused.body == "too many connections\n");
  bg::test::ws_client third;
  CHECK_THROWS(third.connect(host, server.port()));

  first.close();
  CHECK(eventually([&] {
    return server.server().registry().connections_from(host) < 2 &&
           bg::test::http_get(host, server.port(), "/healthz").status == 200;
  }));
}

TEST_CASE("connections over max_connections are refused with 503", "[network][limits]") {
  static_files files;
  auto config = test_config(files);
  config.max_connections = 1;
  test_server server{config};

  auto only = server.connect();
  CHECK(bg::test::http_get(host, server.port(), "/healthz").status == 503);
  only.send_text("still served");
  CHECK(only.receive_text() == "still served");
}

TEST_CASE("X-Forwarded-For names the client only when the peer is the trusted proxy",
          "[network][proxy]") {
  static_files files;
  auto config = test_config(files);
  const bool trusted = GENERATE(true, false);
  if (trusted) config.trusted_proxy = host;
  test_server server{config};

  bg::test::ws_client c;
  c.set_header("X-Forwarded-For", "10.1.1.1, 203.0.113.7");
  c.connect(host, server.port());
  c.send_text("whoami");
  const auto me = c.receive_json();
  REQUIRE(me);
  CHECK((*me)["address"] == (trusted ? "203.0.113.7" : host));
}

// ---------------------------------------------------------------------------------
// WebSocket

TEST_CASE("text frames reach the service in order and on_open/on_close run once each",
          "[network][ws]") {
  static_files files;
  test_server server{test_config(files)};
  std::uint64_t id = 0;
  {
    auto c = server.connect();
    id = id_of(c);
    CHECK(server.game().opened(id) == 1);
    for (int i = 0; i < 100; ++i) c.send_json({{"n", i}});
    for (int i = 0; i < 100; ++i) {
      const auto echoed = c.receive_json();
      REQUIRE(echoed);
      CHECK((*echoed)["n"] == i);
    }
    c.close();
  }
  CHECK(eventually([&] { return server.game().closed(id) == 1; }));
  // No second on_close can come once the session object is destroyed (no fixed wait:
  // its end is the marker).
  CHECK(eventually([&] { return server.game().gone(id); }));
  CHECK(server.game().opened(id) == 1);
  CHECK(server.game().closed(id) == 1);
  CHECK(server.server().registry().open_sessions() == 0);
}

TEST_CASE("a binary frame is answered with a binary_frame error and not passed on",
          "[network][ws]") {
  static_files files;
  test_server server{test_config(files)};
  auto c = server.connect();

  c.send_binary(R"({"type":"hello"})");
  const auto answer = c.receive_json();
  REQUIRE(answer);
  CHECK(*answer == json{{"type", "error"},
                        {"code", "binary_frame"},
                        {"message", "send text frames with one JSON object each"},
                        {"say", {{"key", "service.binary_frame"}, {"args", json::object()}}}});
  CHECK(server.game().texts() == 0);
  c.send_text("after");
  CHECK(c.receive_text() == "after");
}

TEST_CASE("a message over max_message_bytes closes the connection with 1009",
          "[network][ws][limits]") {
  static_files files;
  test_server server{test_config(files)};  // max_message_bytes = 1024
  auto c = server.connect();
  const auto id = id_of(c);

  const std::string at_limit(1024, 'a');
  c.send_text(at_limit);
  CHECK(c.receive_text() == at_limit);

  c.send_text(std::string(1025, 'b'));
  CHECK(c.wait_closed());
  CHECK(c.close_code() == 1009);
  CHECK(c.close_reason() == "message too big");
  CHECK(server.game().texts() == 2);  // whoami and the one at the limit
  CHECK(eventually([&] { return server.game().closed(id) == 1; }));
  CHECK(server.game().opened(id) == 1);
}

TEST_CASE("a message far over the limit is not buffered and still closes with 1009",
          "[network][ws][limits]") {
  static_files files;
  test_server server{test_config(files)};
  auto c = server.connect();
  try {
    c.send_text(std::string(512 * 1024, 'c'));
  } catch (const std::runtime_error&) {
    // The server may close before the whole message is written: that is the point.
  }
  CHECK(c.wait_closed());
  CHECK(c.close_code() == 1009);
}

TEST_CASE(
    "over the command rate a client is answered rate_limited, then closed after the "
    "strikes",
    "[network][ws][limits]") {
  static_files files;
  auto config = test_config(files);
  // A token every 1,000 s: no refill during the test, however slow the machine (this
  // test is about the burst and the strikes; the refill has its own test).
  config.commands_per_second = 0.001;
  config.command_burst = 3;
  config.rate_limit_strikes = 2;
  test_server server{config};
  auto c = server.connect();

  for (int i = 0; i < 5; ++i) c.send_text("m" + std::to_string(i));
  const json rate_limited{{"type", "error"},
                          {"code", "rate_limited"},
                          {"message", "too many commands: slow down"},
                          {"say", {{"key", "service.rate_limited"}, {"args", json::object()}}}};
  CHECK(c.receive_text() == "m0");
  CHECK(c.receive_text() == "m1");
  CHECK(c.receive_text() == "m2");
  CHECK(c.receive_json() == rate_limited);
  CHECK(c.receive_json() == rate_limited);
  CHECK(c.wait_closed());
  CHECK(c.close_code() == 1008);
  CHECK(c.close_reason() == "rate limit");
  CHECK(server.game().texts() == 3);
}

TEST_CASE("the token bucket refills at commands_per_second", "[network][ws][limits]") {
  // Every timing check here is a bound the server's own clock must respect whatever the
  // load (a slower machine only gives more time, never a wrong verdict).
  static_files files;
  auto config = test_config(files);
  config.commands_per_second = 4;  // a token every 250 ms
  config.command_burst = 1;
  config.rate_limit_strikes = 1'000'000;  // refused frames are sent on purpose
  test_server server{config};
  auto c = server.connect();
  using clock = std::chrono::steady_clock;
  const auto refused = [](const std::optional<std::string>& reply) {
    if (!reply) return false;
    const auto j = json::parse(*reply, nullptr, false);
    return j.is_object() && j.value("code", "") == "rate_limited";
  };

  // Refill: "a" takes the only token; "b", sent again and again, gets through only once
  // a token's worth of time has passed since "a" reached the server (after sent_a).
  const auto sent_a = clock::now();
  c.send_text("a");
  REQUIRE(c.receive_text() == "a");
  for (;;) {
    c.send_text("b");
    const auto reply = c.receive_text();
    if (reply == "b") break;
    INFO("reply: " << reply.value_or("(none)"));
    REQUIRE(refused(reply));
    REQUIRE(clock::now() - sent_a < bg::test::generous_deadline);
  }
  const auto got_b = clock::now();
  CHECK(got_b - sent_a >= 249ms);

  // Cap: after idling 3 tokens' worth, the bucket holds command_burst (1) token, not 3.
  // Two frames sent together: the second is refused whenever both reached the server
  // within 250 ms, which holds when the whole round took less; a slower round (a loaded
  // machine) proves nothing and is repeated.
  bool conclusive = false;
  for (int round = 0; round < 20 && !conclusive; ++round) {
    // The one deliberate wait: idle time is this check's input, not a synchronisation,
    // and a longer one (load) changes nothing since the bucket is capped.
    std::this_thread::sleep_until(clock::now() + 750ms);
    const auto start = clock::now();
    c.send_text("c");
    c.send_text("d");
    const auto first = c.receive_text();
    const auto second = c.receive_text();
    const auto took = clock::now() - start;
    CHECK(first == "c");
    REQUIRE(second);
    if (took < 250ms) {
      conclusive = true;
      CHECK(refused(second));
    }
  }
  CHECK(conclusive);
}

TEST_CASE("a client that never reads is dropped at its write queue bound while others are served",
          "[network][ws][limits]") {
  static_files files;
  auto config = test_config(files);  // write_queue_bytes = 256 KiB
  config.commands_per_second = 1e6;  // the fast client must never be rate limited here
  config.command_burst = 1'000'000;
  test_server server{config};
  auto slow = server.connect();
  auto fast = server.connect();
  const auto slow_id = id_of(slow);

  slow.send_text("flood");  // 400 x 64 KiB; the test never reads them
  int echoes = 0;
  const auto deadline = std::chrono::steady_clock::now() + bg::test::generous_deadline;
  // The fast client keeps talking (each round trip paces the loop) until the slow one
  // is dropped.
  while (server.game().closed(slow_id) == 0 && std::chrono::steady_clock::now() < deadline) {
    fast.send_text("ping " + std::to_string(echoes));
    REQUIRE(fast.receive_text() == "ping " + std::to_string(echoes));
    ++echoes;
  }
  CHECK(server.game().closed(slow_id) == 1);
  CHECK(echoes > 0);
  fast.send_text("still here");
  CHECK(fast.receive_text() == "still here");
  CHECK(slow.wait_closed());  // what was in the kernel's buffers, then the end
}

TEST_CASE("a silent client is dropped after idle_timeout but one that answers pings stays",
          "[network][ws][timeout]") {
  static_files files;
  auto config = test_config(files);
  config.idle_timeout = 1s;
  test_server server{config};
  auto silent = server.connect();
  auto alive = server.connect();
  const auto silent_id = id_of(silent);

  // Only `alive` runs its io_context (and so answers the server's pings): it does so
  // until the silent one is dropped and at least 2.2 idle timeouts have passed since
  // it connected (lower bounds: a loaded machine only makes them longer), under the
  // generous deadline. It receives nothing but pings meanwhile.
  const auto connected = std::chrono::steady_clock::now();
  const auto deadline = connected + bg::test::generous_deadline;
  while ((server.game().closed(silent_id) == 0 ||
          std::chrono::steady_clock::now() - connected < 2200ms) &&
         std::chrono::steady_clock::now() < deadline) {
    CHECK_FALSE(alive.receive_text(100ms));
  }
  CHECK(server.game().closed(silent_id) == 1);
  CHECK(alive.is_open());
  alive.send_text("awake");
  CHECK(alive.receive_text() == "awake");
}

TEST_CASE("the service closing a client sends a close frame after the queued frames",
          "[network][ws]") {
  static_files files;
  test_server server{test_config(files)};
  auto c = server.connect();
  c.send_text("before");
  c.send_text("close:bye now");
  try {
    c.send_text("after");  // not passed on: the session is closing
  } catch (const std::runtime_error&) {
    // The close frame may have arrived first: the client then refuses to send.
  }
  CHECK(c.receive_text() == "before");
  CHECK(c.wait_closed());
  CHECK(c.close_code() == 1000);
  CHECK(c.close_reason() == "bye now");
  CHECK(c.receive_text(100ms) == std::nullopt);
  CHECK(server.game().texts() == 2);
}

TEST_CASE("an exception from the service is caught and the connection goes on", "[network][ws]") {
  static_files files;
  test_server server{test_config(files)};
  auto c = server.connect();
  c.send_text("throw");
  c.send_text("fine");
  CHECK(c.receive_text() == "fine");
}

namespace {

/// One WebSocket frame as it crossed the wire.
struct wire_frame {
  bool fin = false;
  int opcode = 0;
  std::string payload;
};

/// A WebSocket client on a raw socket that sees every frame as the server wrote it
/// (fragments, control frames and all), which a WebSocket library would hide.
class raw_ws {
 public:
  raw_ws(net::io_context& io, std::uint16_t port) : socket_{raw_connect(io, port)} {
    write(
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: "
        "Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: "
        "13\r\n\r\n");
    while (buffer_.find("\r\n\r\n") == std::string::npos) REQUIRE(fill());
    REQUIRE(buffer_.rfind("HTTP/1.1 101", 0) == 0);
    buffer_.erase(0, buffer_.find("\r\n\r\n") + 4);
  }
  /// Sends one frame, masked as a client must (RFC 6455 5.3); payload under 126 bytes.
  void send(int opcode, const std::string& payload) {
    REQUIRE(payload.size() < 126);
    const std::array<unsigned char, 4> mask{0x12, 0x34, 0x56, 0x78};
    std::string frame;
    frame += static_cast<char>(0x80 | opcode);
    frame += static_cast<char>(0x80 | payload.size());
    for (const auto m : mask) frame += static_cast<char>(m);
    for (std::size_t i = 0; i < payload.size(); ++i)
      frame += static_cast<char>(static_cast<unsigned char>(payload[i]) ^ mask[i % 4]);
    write(frame);
  }
  /// The next frame from the server; nullopt when the connection ends or stays silent
  /// for 30 s.
  std::optional<wire_frame> next() {
    for (;;) {
      if (buffer_.size() >= 2) {
        const auto b = [&](std::size_t i) { return static_cast<unsigned char>(buffer_[i]); };
        if ((b(1) & 0x80) != 0) return std::nullopt;  // a server never masks
        std::size_t header = 2;
        std::uint64_t size = b(1) & 0x7F;
        if (size == 126 || size == 127) {
          const std::size_t bytes = size == 126 ? 2 : 8;
          if (buffer_.size() < 2 + bytes) {
            if (!fill()) return std::nullopt;
            continue;
          }
          size = 0;
          for (std::size_t i = 0; i < bytes; ++i) size = size << 8 | b(2 + i);
          header += bytes;
        }
        if (buffer_.size() >= header + size) {
          wire_frame f{(b(0) & 0x80) != 0, b(0) & 0x0F, buffer_.substr(header, size)};
          buffer_.erase(0, header + size);
          return f;
        }
      }
      if (!fill()) return std::nullopt;
    }
  }

 private:
  void write(const std::string& bytes) { net::write(socket_, net::buffer(bytes)); }
  bool fill() {
    std::array<char, 65536> chunk{};
    const auto n = ::recv(socket_.native_handle(), chunk.data(), chunk.size(), 0);
    if (n <= 0) return false;
    buffer_.append(chunk.data(), static_cast<std::size_t>(n));
    return true;
  }
  net::ip::tcp::socket socket_;
  std::string buffer_;
};

}  // namespace

TEST_CASE(
    "frames queued together leave as whole, unfragmented messages in order, with pongs only "
    "between them",
    "[network][ws][issue15]") {
  static_files files;
  test_server server{test_config(files)};
  net::io_context io;
  raw_ws c{io, server.port()};
  // The batch and, meanwhile, pings whose pongs Beast writes among the held frames.
  c.send(0x1, "burst");
  for (int i = 0; i < 5; ++i) c.send(0x9, "p" + std::to_string(i));
  const auto expected = echo_service::burst_frames();
  std::size_t texts = 0;
  int pongs = 0;
  while (texts < expected.size() || pongs < 5) {
    const auto f = c.next();
    REQUIRE(f);
    INFO("text frames so far " << texts << ", pongs " << pongs);
    REQUIRE(f->fin);  // never a fragment: one frame per message, control frames whole
    if (f->opcode == 0xA) {
      CHECK(f->payload == "p" + std::to_string(pongs));
      ++pongs;
      continue;
    }
    REQUIRE(f->opcode == 0x1);
    REQUIRE(texts < expected.size());
    CHECK(f->payload == expected[texts]);
    ++texts;
  }
  CHECK(texts == expected.size());
  CHECK(pongs == 5);
}

TEST_CASE("shutdown closes every WebSocket with 1001 and calls service shutdown once",
          "[network][shutdown]") {
  static_files files;
  test_server server{test_config(files)};
  auto a = server.connect();
  auto b = server.connect();
  REQUIRE(eventually([&] { return server.server().registry().open_sessions() == 2; }));

  std::atomic<bool> done{false};
  CHECK(server.server().shutdown(2s, [&] { done = true; }));
  CHECK_FALSE(server.server().shutdown(2s, [] {}));
  for (auto* c : {&a, &b}) {
    CHECK(c->wait_closed());
    CHECK(c->close_code() == 1001);
    CHECK(c->close_reason() == "server shutting down");
  }
  CHECK(eventually([&] { return done.load(); }));
  CHECK(server.game().shutdowns() == 1);
  bg::test::ws_client late;
  CHECK_THROWS(late.connect(host, server.port()));
}

// ---------------------------------------------------------------------------------
// Configuration

namespace {

using parsed = bg::test::parsed_flags;

parsed parse(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
  return bg::test::parse_flags(std::move(args), std::move(env));
}

/// Runs `command` in a shell; returns its exit code and stdout.
std::pair<int, std::string> run(const std::string& command) {
  std::FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  std::array<char, 512> chunk{};
  while (const auto n = std::fread(chunk.data(), 1, chunk.size(), pipe))
    output.append(chunk.data(), n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace

TEST_CASE("every setting has a flag and a GAMMOND_ variable, and flags win", "[network][config]") {
  const auto p = parse({"--bind",      "0.0.0.0",
                        "--port=9000", "--port-file",
                        "/tmp/p",      "--db",
                        "x.db",        "--static-dir",
                        "/srv/web",    "--log-level",
                        "debug",       "--threads",
                        "4",           "--max-message-bytes",
                        "4096",        "--commands-per-second",
                        "2.5",         "--command-burst",
                        "7",           "--rate-limit-strikes",
                        "9",           "--idle-timeout",
                        "30",          "--http-timeout",
                        "5",           "--max-connections",
                        "100",         "--max-connections-per-address",
                        "10",          "--write-queue-bytes",
                        "65536",       "--grace-period",
                        "60",          "--max-tables",
                        "50",          "--max-tables-per-client",
                        "3",           "--max-chat-bytes",
                        "200",         "--max-name-bytes",
                        "16",          "--trusted-proxy",
                        "10.0.0.1"},
                       {{"GAMMOND_PORT", "7000"}});
  REQUIRE_FALSE(p.exit);
  CHECK(p.err.empty());
  const auto& c = p.config;
  CHECK(c.bind == "0.0.0.0");
  CHECK(c.port == 9000);
  CHECK(c.port_file == "/tmp/p");
  CHECK(c.db == "x.db");
  CHECK(c.static_dir == "/srv/web");
  CHECK(c.log_level == "debug");
  CHECK(c.threads == 4);
  CHECK(c.max_message_bytes == 4096);
  CHECK(c.commands_per_second == Approx(2.5));
  CHECK(c.command_burst == 7);
  CHECK(c.rate_limit_strikes == 9);
  CHECK(c.idle_timeout == 30s);
  CHECK(c.http_timeout == 5s);
  CHECK(c.max_connections == 100);
  CHECK(c.max_connections_per_address == 10);
  CHECK(c.write_queue_bytes == 65536);
  CHECK(c.grace_period == 60s);
  CHECK(c.max_tables == 50);
  CHECK(c.max_tables_per_client == 3);
  CHECK(c.max_chat_bytes == 200);
  CHECK(c.max_name_bytes == 16);
  CHECK(c.trusted_proxy == "10.0.0.1");
}

TEST_CASE("the analysis settings have flags and GAMMOND_ variables, with bounds",
          "[network][config][analysis]") {
  const bg::server::server_config defaults;
  CHECK(defaults.gnubg == "/usr/games/gnubg");
  CHECK(defaults.analysis_workers == 1);
  CHECK(defaults.analysis_queue == 100);
  CHECK(defaults.analysis_level == "worldclass");
  CHECK(defaults.analysis_timeout == 900s);
  CHECK(defaults.analysis_nice == 19);
  const auto p = parse({"--gnubg", "/opt/gnubg", "--analysis-workers", "0", "--analysis-queue", "5",
                        "--analysis-level", "expert", "--analysis-nice", "0"},
                       {{"GAMMOND_ANALYSIS_TIMEOUT", "30"}, {"GAMMOND_ANALYSIS_QUEUE", "9"}});
  REQUIRE_FALSE(p.exit);
  CHECK(p.config.gnubg == "/opt/gnubg");
  CHECK(p.config.analysis_workers == 0);
  CHECK(p.config.analysis_queue == 5);
  CHECK(p.config.analysis_level == "expert");
  CHECK(p.config.analysis_timeout == 30s);
  CHECK(p.config.analysis_nice == 0);
  const auto env = parse({}, {{"GAMMOND_GNUBG", "/usr/local/bin/gnubg"},
                              {"GAMMOND_ANALYSIS_WORKERS", "2"},
                              {"GAMMOND_ANALYSIS_LEVEL", "grandmaster"}});
  REQUIRE_FALSE(env.exit);
  CHECK(env.config.gnubg == "/usr/local/bin/gnubg");
  CHECK(env.config.analysis_workers == 2);
  CHECK(env.config.analysis_level == "grandmaster");
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--analysis-workers", "65"},
                                                               {"--analysis-queue", "0"},
                                                               {"--analysis-level", "supremo"},
                                                               {"--analysis-timeout", "0"},
                                                               {"--analysis-nice", "20"},
                                                               {"--analysis-nice", "-1"},
                                                               {"--gnubg", ""}}) {
    CAPTURE(bad);
    const auto refused = parse(bad);
    CHECK(refused.exit == 2);
    CHECK_THAT(refused.err, Catch::Contains(bad[0]));
  }
}

TEST_CASE("the replay's step bound has a flag and a GAMMOND_ variable, with bounds",
          "[network][config]") {
  CHECK(bg::server::server_config{}.replay_max_steps == 20'000);
  const auto flag = parse({"--replay-max-steps", "500"});
  REQUIRE_FALSE(flag.exit);
  CHECK(flag.config.replay_max_steps == 500);
  const auto env = parse({}, {{"GAMMOND_REPLAY_MAX_STEPS", "7"}});
  REQUIRE_FALSE(env.exit);
  CHECK(env.config.replay_max_steps == 7);
  for (const char* bad : {"0", "1000001", "many"}) {
    CAPTURE(bad);
    const auto refused = parse({"--replay-max-steps", bad});
    CHECK(refused.exit == 2);
    CHECK_THAT(refused.err, Catch::Contains("--replay-max-steps"));
  }
}

TEST_CASE("settings come from GAMMOND_ variables when no flag is given", "[network][config]") {
  const auto p = parse({"--threads", "3"}, {{"GAMMOND_PORT", "7000"},
                                            {"GAMMOND_DB", "/var/lib/gammond/g.db"},
                                            {"GAMMOND_IDLE_TIMEOUT", "45"},
                                            {"GAMMOND_MAX_CONNECTIONS_PER_ADDRESS", "8"},
                                            {"GAMMOND_TRUSTED_PROXY", "::1"},
                                            {"GAMMOND_THREADS", "not used: the flag wins"}});
  REQUIRE_FALSE(p.exit);
  CHECK(p.config.port == 7000);
  CHECK(p.config.db == "/var/lib/gammond/g.db");
  CHECK(p.config.idle_timeout == 45s);
  CHECK(p.config.max_connections_per_address == 8);
  CHECK(p.config.trusted_proxy == "::1");
  CHECK(p.config.threads == 3);
  CHECK(p.config.write_queue_bytes == bg::server::server_config{}.write_queue_bytes);
}

TEST_CASE("a bad flag or variable is named in one line and exits 2", "[network][config]") {
  struct bad_case {
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    std::string names;
  };
  const auto c = GENERATE(
      bad_case{{"--port", "70000"}, {}, "--port: \"70000\" is not a whole number from 0 to 65535"},
      bad_case{{"--port", "-1"}, {}, "--port"},
      bad_case{{}, {{"GAMMOND_THREADS", "abc"}}, "GAMMOND_THREADS: \"abc\""},
      bad_case{{"--threads", "0"}, {}, "--threads"},
      bad_case{{"--commands-per-second", "-2"}, {}, "--commands-per-second"},
      bad_case{{"--commands-per-second", "nan"}, {}, "--commands-per-second"},
      bad_case{{"--idle-timeout", "1.5"}, {}, "--idle-timeout: \"1.5\" is not a whole number"},
      bad_case{{"--log-level", "loud"}, {}, "is not a log level"},
      bad_case{{"--trusted-proxy", "proxy.example"}, {}, "is not an IP address"},
      bad_case{{"--bind", "localhost"}, {}, "--bind"},
      bad_case{{"--max-connections", "99999999999999999999"}, {}, "--max-connections"},
      bad_case{{"--no-such-flag"}, {}, "no-such-flag"}, bad_case{{"--port"}, {}, "port"},
      bad_case{{"stray"}, {}, "gammond: "});
  CAPTURE(c.args, c.env);
  const auto p = parse(c.args, c.env);
  CHECK(p.exit == 2);
  CHECK_THAT(p.err, Catch::Contains(c.names));
  CHECK(std::count(p.err.begin(), p.err.end(), '\n') == 1);
  CHECK(p.out.empty());
}

TEST_CASE(
    "the settings --idle-limit (S3), --clock-minute-seconds (S2) and --max-seed-bytes (S4) have "
    "flags and variables, with their bounds",
    "[network][config]") {
  const auto defaults = parse({});
  REQUIRE_FALSE(defaults.exit);
  CHECK(defaults.config.idle_limit == 600s);
  CHECK(defaults.config.clock_minute_seconds == 60);
  CHECK(defaults.config.max_seed_bytes == 64);
  const auto flags =
      parse({"--idle-limit", "30", "--clock-minute-seconds", "1", "--max-seed-bytes", "16"},
            {{"GAMMOND_IDLE_LIMIT", "99"}});
  REQUIRE_FALSE(flags.exit);
  CHECK(flags.config.idle_limit == 30s);  // the flag wins over its variable
  CHECK(flags.config.clock_minute_seconds == 1);
  CHECK(flags.config.max_seed_bytes == 16);
  const auto env = parse({}, {{"GAMMOND_IDLE_LIMIT", "45"},
                              {"GAMMOND_CLOCK_MINUTE_SECONDS", "2"},
                              {"GAMMOND_MAX_SEED_BYTES", "100"}});
  REQUIRE_FALSE(env.exit);
  CHECK(env.config.idle_limit == 45s);
  CHECK(env.config.clock_minute_seconds == 2);
  CHECK(env.config.max_seed_bytes == 100);
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--idle-limit", "0"},
                                                               {"--clock-minute-seconds", "61"},
                                                               {"--clock-minute-seconds", "0"},
                                                               {"--max-seed-bytes", "0"},
                                                               {"--max-seed-bytes", "1025"}}) {
    CAPTURE(bad);
    const auto p = parse(bad);
    CHECK(p.exit == 2);
    CHECK_THAT(p.err, Catch::Contains(bad[0]));
  }
  const auto help = parse({"--help"});
  CHECK_THAT(help.out, Catch::Contains("GAMMOND_CLOCK_MINUTE_SECONDS"));
  CHECK_THAT(help.out, Catch::Contains("tests only"));
}

TEST_CASE(
    "the flag --db takes a PostgreSQL URL, and --db-connect-timeout, --db-statement-timeout and "
    "--db-id-block are flags and variables with their bounds",
    "[network][config]") {
  const auto defaults = parse({});
  REQUIRE_FALSE(defaults.exit);
  CHECK(defaults.config.db == "gammond.db");
  CHECK(defaults.config.db_connect_timeout == 10s);
  CHECK(defaults.config.db_statement_timeout == 30s);
  CHECK(defaults.config.db_id_block == 1000);
  const auto flags =
      parse({"--db", "postgresql://gammond@db.example.org/gammond", "--db-connect-timeout", "3",
             "--db-statement-timeout", "0", "--db-id-block", "50"},
            {{"GAMMOND_DB_ID_BLOCK", "99"}});
  REQUIRE_FALSE(flags.exit);
  CHECK(flags.config.db == "postgresql://gammond@db.example.org/gammond");
  CHECK(flags.config.db_connect_timeout == 3s);
  CHECK(flags.config.db_statement_timeout == 0s);  // no limit
  CHECK(flags.config.db_id_block == 50);           // the flag wins over its variable
  const auto env = parse({}, {{"GAMMOND_DB", "postgres://u@/g?host=/run/postgresql"},
                              {"GAMMOND_DB_CONNECT_TIMEOUT", "20"},
                              {"GAMMOND_DB_STATEMENT_TIMEOUT", "5"},
                              {"GAMMOND_DB_ID_BLOCK", "2"}});
  REQUIRE_FALSE(env.exit);
  CHECK(env.config.db == "postgres://u@/g?host=/run/postgresql");
  CHECK(env.config.db_connect_timeout == 20s);
  CHECK(env.config.db_statement_timeout == 5s);
  CHECK(env.config.db_id_block == 2);
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--db-connect-timeout", "0"},
                                                               {"--db-connect-timeout", "3601"},
                                                               {"--db-statement-timeout", "-1"},
                                                               {"--db-statement-timeout", "86401"},
                                                               {"--db-id-block", "1"},
                                                               {"--db-id-block", "1000001"}}) {
    CAPTURE(bad);
    const auto p = parse(bad);
    CHECK(p.exit == 2);
    CHECK_THAT(p.err, Catch::Contains(bad[0]));
  }
  const auto help = parse({"--help"});
  for (const char* name :
       {"GAMMOND_DB_CONNECT_TIMEOUT", "GAMMOND_DB_STATEMENT_TIMEOUT", "GAMMOND_DB_ID_BLOCK",
        "postgresql://", "gammond migrate --from FILE --to URL"})
    CHECK_THAT(help.out, Catch::Contains(name));
}

TEST_CASE(
    "the settings --node-id, --heartbeat, --lease and --node-path are flags and variables, a node "
    "id needs PostgreSQL and the lease must exceed two heartbeats",
    "[network][config]") {
  using namespace std::chrono_literals;
  const std::string pg = "postgresql://gammond@db.example.org/gammond";
  const auto defaults = parse({});
  REQUIRE_FALSE(defaults.exit);
  CHECK_FALSE(defaults.config.cluster());
  CHECK(defaults.config.node_id.empty());
  CHECK(defaults.config.heartbeat == 1000ms);
  CHECK(defaults.config.lease == 5000ms);
  const auto flags = parse({"--db", pg, "--node-id", "node-2", "--heartbeat", "0.2", "--lease",
                            "1.5", "--node-path", "/cluster/b/"},
                           {{"GAMMOND_NODE_ID", "other"}});
  REQUIRE_FALSE(flags.exit);
  CHECK(flags.config.cluster());
  CHECK(flags.config.node_id == "node-2");  // the flag wins over its variable
  CHECK(flags.config.heartbeat == 200ms);
  CHECK(flags.config.lease == 1500ms);
  CHECK(flags.config.node_path == "/cluster/b");  // no trailing slash
  const auto env = parse({}, {{"GAMMOND_DB", pg},
                              {"GAMMOND_NODE_ID", "a"},
                              {"GAMMOND_HEARTBEAT", "2"},
                              {"GAMMOND_LEASE", "10"}});
  REQUIRE_FALSE(env.exit);
  CHECK(env.config.node_id == "a");
  CHECK(env.config.node_path == "/n/a");  // the default path names the node
  CHECK(env.config.heartbeat == 2000ms);
  CHECK(env.config.lease == 10000ms);
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--node-id", "Upper"},
                                                               {"--node-id", "seventeen-chars-x"},
                                                               {"--node-id", "a b"},
                                                               {"--heartbeat", "0"},
                                                               {"--heartbeat", "x"},
                                                               {"--lease", "-1"},
                                                               {"--node-path", "n/a"}}) {
    CAPTURE(bad);
    const auto p = parse(bad);
    CHECK(p.exit == 2);
    CHECK_THAT(p.err, Catch::Contains(bad[0]));
  }
  const auto sqlite = parse({"--node-id", "a", "--db", "x.db"});
  CHECK(sqlite.exit == 2);
  CHECK_THAT(sqlite.err, Catch::Contains("PostgreSQL"));
  const auto short_lease =
      parse({"--db", pg, "--node-id", "a", "--heartbeat", "1", "--lease", "2"});
  CHECK(short_lease.exit == 2);
  CHECK_THAT(short_lease.err, Catch::Contains("twice --heartbeat"));
  const auto help = parse({"--help"});
  for (const char* name :
       {"GAMMOND_NODE_ID", "GAMMOND_HEARTBEAT", "GAMMOND_LEASE", "GAMMOND_NODE_PATH"})
    CHECK_THAT(help.out, Catch::Contains(name));
}

TEST_CASE("the settings --cluster-queue and --who-limit are flags and variables with their bounds",
          "[network][config]") {
  const auto defaults = parse({});
  REQUIRE_FALSE(defaults.exit);
  CHECK(defaults.config.cluster_queue == 10000);
  CHECK(defaults.config.who_limit == 200);
  const auto flags =
      parse({"--cluster-queue", "50", "--who-limit", "3"}, {{"GAMMOND_CLUSTER_QUEUE", "99"}});
  REQUIRE_FALSE(flags.exit);
  CHECK(flags.config.cluster_queue == 50);  // the flag wins over its variable
  CHECK(flags.config.who_limit == 3);
  const auto env = parse({}, {{"GAMMOND_CLUSTER_QUEUE", "7"}, {"GAMMOND_WHO_LIMIT", "9"}});
  REQUIRE_FALSE(env.exit);
  CHECK(env.config.cluster_queue == 7);
  CHECK(env.config.who_limit == 9);
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--cluster-queue", "0"},
                                                               {"--cluster-queue", "10000001"},
                                                               {"--who-limit", "0"},
                                                               {"--who-limit", "x"}}) {
    CAPTURE(bad);
    const auto p = parse(bad);
    CHECK(p.exit == 2);
    CHECK_THAT(p.err, Catch::Contains(bad[0]));
  }
  const auto help = parse({"--help"});
  for (const char* name : {"GAMMOND_CLUSTER_QUEUE", "GAMMOND_WHO_LIMIT"})
    CHECK_THAT(help.out, Catch::Contains(name));
}

TEST_CASE("gammond --help lists every flag with its variable and --version prints the version",
          "[network][config]") {
  const auto help = parse({"--help"});
  CHECK(help.exit == 0);
  for (const char* flag : {"--bind",
                           "--port",
                           "--port-file",
                           "--db",
                           "--static-dir",
                           "--log-level",
                           "--threads",
                           "--max-message-bytes",
                           "--commands-per-second",
                           "--command-burst",
                           "--rate-limit-strikes",
                           "--idle-timeout",
                           "--http-timeout",
                           "--max-connections",
                           "--max-connections-per-address",
                           "--write-queue-bytes",
                           "--grace-period",
                           "--max-tables",
                           "--max-tables-per-client",
                           "--max-chat-bytes",
                           "--max-name-bytes",
                           "--trusted-proxy",
                           "--gnubg",
                           "--analysis-workers",
                           "--analysis-queue",
                           "--analysis-level",
                           "--analysis-timeout",
                           "--analysis-nice"}) {
    CAPTURE(flag);
    CHECK_THAT(help.out, Catch::Contains(std::string{flag} + " "));
  }
  CHECK_THAT(help.out, Catch::Contains("GAMMOND_MAX_CONNECTIONS_PER_ADDRESS"));

  const auto version = parse({"--version"});
  CHECK(version.exit == 0);
  CHECK(version.out == "gammond " GAMMOND_VERSION "\n");
}

TEST_CASE("the gammond binary answers --help, --version and a bad flag", "[network][config]") {
  const std::string binary = GAMMOND_BINARY;
  const auto [help_code, help] = run(binary + " --help");
  CHECK(help_code == 0);
  CHECK_THAT(help, Catch::Contains("--max-connections-per-address"));
  const auto [version_code, version] = run(binary + " --version");
  CHECK(version_code == 0);
  CHECK(version == "gammond " GAMMOND_VERSION "\n");
  const auto [bad_code, bad] = run(binary + " --port nope 2>/dev/null");
  CHECK(bad_code == 2);
  CHECK(bad.empty());
}

// ---------------------------------------------------------------------------------
// Issue 11: origins, security headers and network limits

namespace {

/// The Content-Security-Policy of `res`, checked to be one the web client runs under.
void check_security_fields(const bg::test::http_result& res, std::uint16_t port) {
  INFO("status " << res.status);
  REQUIRE(res.fields.count("content-security-policy") == 1);
  const auto& csp = res.fields.at("content-security-policy");
  CHECK_THAT(csp, Catch::Contains("default-src 'self'"));
  CHECK_THAT(csp, Catch::Contains("script-src 'self';"));
  CHECK_THAT(csp, Catch::Contains("frame-ancestors 'none'"));
  CHECK_THAT(csp, Catch::Contains("connect-src 'self' ws://127.0.0.1:" + std::to_string(port) +
                                  " wss://127.0.0.1:" + std::to_string(port)));
  CHECK_THAT(csp, !Catch::Contains("unsafe-inline") && !Catch::Contains("unsafe-eval"));
  CHECK(res.fields.count("x-content-type-options") == 1);
  if (res.fields.count("x-content-type-options") == 1) {
    CHECK(res.fields.at("x-content-type-options") == "nosniff");
  }
  CHECK(res.fields.count("referrer-policy") == 1);
  if (res.fields.count("referrer-policy") == 1) {
    CHECK(res.fields.at("referrer-policy") == "no-referrer");
  }
}

/// connect() with `origin` as the Origin field ("" for none): "" when it succeeded,
/// else the error's text (which holds the HTTP status and body).
std::string connect_with_origin(std::uint16_t port, const std::string& origin,
                                std::vector<bg::test::ws_client>& keep) {
  bg::test::ws_client c;
  if (!origin.empty()) c.set_header("Origin", origin);
  try {
    c.connect(host, port);
  } catch (const std::exception& e) {
    return e.what();
  }
  keep.push_back(std::move(c));
  return {};
}

}  // namespace

TEST_CASE(
    "every response, HEAD on a static file included, carries CSP, nosniff and Referrer-Policy",
    "[network][http][issue11]") {
  static_files files;
  test_server server{test_config(files)};
  const auto port = server.port();
  for (const auto& [method, target] :
       std::vector<std::pair<std::string, std::string>>{{"GET", "/"},
                                                        {"HEAD", "/"},
                                                        {"GET", "/app.js"},
                                                        {"HEAD", "/app.js"},
                                                        {"HEAD", "/style.css"},
                                                        {"GET", "/healthz"},
                                                        {"GET", "/no-such-file"},
                                                        {"GET", "/../secret.txt"},
                                                        {"GET", "/ws"},
                                                        {"POST", "/"},
                                                        {"GET", "/svc/hello?x=1"}}) {
    CAPTURE(method, target);
    check_security_fields(bg::test::http_request(host, port, target, method), port);
  }
}

TEST_CASE(
    "a foreign Origin is refused with 403, logged and counted, while the page's own origin and no "
    "Origin are accepted",
    "[network][ws][issue11]") {
  static_files files;
  test_server server{test_config(files)};
  const auto port = server.port();
  const std::string own = "http://127.0.0.1:" + std::to_string(port);
  std::vector<bg::test::ws_client> open;

  CHECK(connect_with_origin(port, "", open).empty());  // gammon-term sends none
  CHECK(connect_with_origin(port, own, open).empty());
  CHECK(connect_with_origin(port, "HTTP://127.0.0.1:" + std::to_string(port) + "/", open).empty());
  // The scheme is not compared: behind a TLS proxy the page is https, gammond plain http.
  CHECK(connect_with_origin(port, "https://127.0.0.1:" + std::to_string(port), open).empty());
  for (const std::string& foreign :
       {std::string{"https://evil.example"}, std::string{"http://127.0.0.1"},
        std::string{"http://127.0.0.1:1"}, std::string{"null"},
        std::string{"http://127.0.0.1:" + std::to_string(port) + ".evil"},
        std::string{"file://"}}) {
    CAPTURE(foreign);
    const auto refused = connect_with_origin(port, foreign, open);
    CHECK_THAT(refused, Catch::Contains("HTTP 403"));
    CHECK_THAT(refused, Catch::Contains("accepts WebSockets only from its own pages"));
  }
  CHECK(open.size() == 4);
  REQUIRE(eventually([&] { return server.server().registry().open_sessions() == 4; }));
  const auto metrics = bg::test::http_get(host, port, "/metrics").body;
  CHECK_THAT(metrics, Catch::Contains("gammond_connections_refused_total{reason=\"origin\"} 6\n"));
  // The refused upgrades left nothing behind: only the four open ones count.
  CHECK(eventually([&] { return server.server().registry().connections() == 4; }));
}

TEST_CASE("the flag --allowed-origins lets in exactly the listed origins, * lets in any",
          "[network][ws][issue11]") {
  static_files files;
  auto config = test_config(files);
  const bool any = GENERATE(false, true);
  config.allowed_origins =
      any ? std::vector<std::string>{"*"}
          : std::vector<std::string>{"https://bg.example.org", "http://other.example:8080"};
  test_server server{config};
  const auto port = server.port();
  std::vector<bg::test::ws_client> open;
  CHECK(connect_with_origin(port, "https://bg.example.org", open).empty());
  CHECK(connect_with_origin(port, "https://BG.example.org:443", open).empty());
  CHECK(connect_with_origin(port, "http://other.example:8080", open).empty());
  CHECK(connect_with_origin(port, "", open).empty());
  // With a list, the page's own host is not implied: the list is the whole rule.
  const auto own = connect_with_origin(port, "http://127.0.0.1:" + std::to_string(port), open);
  const auto foreign = connect_with_origin(port, "https://evil.example", open);
  if (any) {
    CHECK(own.empty());
    CHECK(foreign.empty());
  } else {
    CHECK_THAT(own, Catch::Contains("HTTP 403"));
    CHECK_THAT(foreign, Catch::Contains("HTTP 403"));
  }
}

TEST_CASE(
    "a WebSocket not identified within hello_timeout is closed with 1008, an identified one stays",
    "[network][ws][limits][issue11]") {
  static_files files;
  auto config = test_config(files);
  config.hello_timeout = 1s;
  test_server server{config};

  auto identified = server.connect();  // connected first: its timer would fire first
  identified.send_text("hello");
  CHECK(identified.receive_text() == "welcome");
  auto silent = server.connect();
  CHECK(silent.wait_closed(10s));
  CHECK(silent.close_code() == 1008);
  CHECK(silent.close_reason() == "no hello in time");
  identified.send_text("still here");
  CHECK(identified.receive_text() == "still here");
  CHECK_THAT(bg::test::http_get(host, server.port(), "/metrics").body,
             Catch::Contains("gammond_connections_dropped_total{reason=\"hello_timeout\"} 1\n"));
}

TEST_CASE("strikes from the service close the connection at rate_limit_strikes with their reason",
          "[network][ws][limits][issue11]") {
  static_files files;
  auto config = test_config(files);
  config.rate_limit_strikes = 3;
  test_server server{config};
  auto c = server.connect();
  c.send_text("strike:bad resume token");
  c.send_text("strike:bad resume token");
  c.send_text("two strikes");
  CHECK(c.receive_text() == "two strikes");
  c.send_text("strike:bad resume token");
  CHECK(c.wait_closed(10s));
  CHECK(c.close_code() == 1008);
  CHECK(c.close_reason() == "bad resume token");
  CHECK_THAT(bg::test::http_get(host, server.port(), "/metrics").body,
             Catch::Contains("gammond_connections_dropped_total{reason=\"strikes\"} 1\n"));
}

TEST_CASE("one strike is forgiven per strike_decay", "[network][ws][limits][issue11]") {
  static_files files;
  auto config = test_config(files);
  config.rate_limit_strikes = 3;
  config.strike_decay = 1s;
  test_server server{config};
  auto c = server.connect();
  c.send_text("strike:refused name");
  c.send_text("strike:refused name");
  c.send_text("two strikes");
  CHECK(c.receive_text() == "two strikes");
  const auto struck = std::chrono::steady_clock::now();
  // Both strikes decay after 2 periods; waiting is the point here, so more time (a
  // loaded machine) only forgives more, never less.
  std::this_thread::sleep_until(struck + 2500ms);
  c.send_text("strike:refused name");
  c.send_text("strike:refused name");
  c.send_text("forgiven");  // without decay this is strike 4 of 3: closed before it
  CHECK(c.receive_text(10s) == "forgiven");
  CHECK(c.is_open());
}

TEST_CASE("rate-limited messages are strikes that decay too", "[network][ws][limits][issue11]") {
  static_files files;
  auto config = test_config(files);
  config.commands_per_second = 1;
  config.command_burst = 1;
  config.rate_limit_strikes = 3;
  config.strike_decay = 1s;
  test_server server{config};
  auto c = server.connect();
  c.send_text("a");
  c.send_text("b");  // rate limited: strike 1
  c.send_text("c");  // strike 2
  CHECK(c.receive_text() == "a");
  CHECK(c.receive_json().value_or(json{})["code"] == "rate_limited");
  CHECK(c.receive_json().value_or(json{})["code"] == "rate_limited");
  const auto struck = std::chrono::steady_clock::now();
  std::this_thread::sleep_until(struck + 2500ms);  // a token back, both strikes forgiven
  c.send_text("d");
  c.send_text("e");  // strike 1 again (strike 3 of 3 without decay: closed)
  CHECK(c.receive_text() == "d");
  CHECK(c.receive_json().value_or(json{})["code"] == "rate_limited");
  std::this_thread::sleep_until(std::chrono::steady_clock::now() + 1500ms);  // a token back
  c.send_text("f");
  CHECK(c.receive_text(10s) == "f");
}

TEST_CASE(
    "through the trusted proxy without X-Forwarded-For, WebSockets count under the proxy's address",
    "[network][proxy][limits][issue11]") {
  static_files files;
  auto config = test_config(files);
  config.trusted_proxy = host;
  config.max_connections_per_address = 2;
  test_server server{config};
  auto a = server.connect();
  auto b = server.connect();
  bg::test::ws_client third;
  CHECK_THROWS_WITH(third.connect(host, server.port()), Catch::Contains("503"));
  CHECK(server.server().registry().connections_from(host) == 2);
  // Clients the proxy names are counted under their own addresses, not the proxy's.
  bg::test::ws_client named;
  named.set_header("X-Forwarded-For", "203.0.113.9");
  CHECK_NOTHROW(named.connect(host, server.port()));
}

TEST_CASE(
    "the settings --allowed-origins, --hello-timeout and --strike-decay have flags and GAMMOND_ "
    "variables, and a bad origin is named",
    "[network][config][issue11]") {
  const auto p = parse(
      {"--allowed-origins", "https://BG.example.org:443/, http://h:8080", "--hello-timeout", "7"},
      {{"GAMMOND_STRIKE_DECAY", "90"}, {"GAMMOND_HELLO_TIMEOUT", "3"}});
  REQUIRE_FALSE(p.exit);
  CHECK(p.config.allowed_origins ==
        std::vector<std::string>{"https://bg.example.org", "http://h:8080"});
  CHECK(p.config.hello_timeout == 7s);
  CHECK(p.config.strike_decay == 90s);
  CHECK(parse({}, {{"GAMMOND_ALLOWED_ORIGINS", "*"}}).config.allowed_origins ==
        std::vector<std::string>{"*"});
  const bg::server::server_config defaults;
  CHECK(defaults.allowed_origins.empty());
  CHECK(defaults.hello_timeout >= 10s);
  CHECK(defaults.hello_timeout <= 30s);
  for (const std::string& bad :
       {std::string{"bg.example.org"}, std::string{"https://bg.example.org/path"},
        std::string{"ftp://x"}, std::string{"null"}, std::string{"http://x:99999"}}) {
    CAPTURE(bad);
    const auto refused = parse({"--allowed-origins", bad});
    CHECK(refused.exit == 2);
    CHECK_THAT(refused.err, Catch::Contains("--allowed-origins") && Catch::Contains(bad));
  }
  const auto help = parse({"--help"});
  for (const char* name : {"--allowed-origins", "GAMMOND_ALLOWED_ORIGINS", "--hello-timeout",
                           "GAMMOND_HELLO_TIMEOUT", "--strike-decay", "GAMMOND_STRIKE_DECAY"}) {
    CHECK_THAT(help.out, Catch::Contains(name));
  }
}

TEST_CASE(
    "gammond raises its open file limit for --max-connections, or stops with exit 2 and says what "
    "to do",
    "[network][config][limits][issue11]") {
  const std::string binary = GAMMOND_BINARY;
  std::string dir_pattern = (fs::temp_directory_path() / "gammond-nofile-XXXXXX").string();
  REQUIRE(::mkdtemp(dir_pattern.data()) != nullptr);
  const fs::path dir = dir_pattern;
  const std::string common =
      " --port 0 --db " + (dir / "t.db").string() + " --port-file " + (dir / "port").string();

  // The hard limit too low: nothing to raise to. Exit 2 before opening anything.
  // (`timeout`: a gammond that starts anyway is stopped after 20 s and fails the test.)
  const auto [low_code, low] = run("timeout 20 bash -c 'ulimit -n 64 && exec " + binary +
                                   " --max-connections 1000" + common + " 2>&1'");
  CHECK(low_code == 2);
  CHECK_THAT(low, Catch::Contains("--max-connections 1000 needs 1064 open files"));
  CHECK_THAT(low, Catch::Contains("ulimit -n") && Catch::Contains("lower --max-connections"));
  CHECK(std::count(low.begin(), low.end(), '\n') == 1);
  CHECK_FALSE(fs::exists(dir / "port"));

  // Only the soft limit low: raised to cover the connections, and the server starts
  // (it writes its port file; its log and /proc/PID/limits show the new limit).
  const auto [soft_code, soft] =
      run("timeout 40 bash -c 'ulimit -Sn 64 && (" + binary + " --max-connections 1000" + common +
          " & pid=$!; for i in $(seq 1 400); do [ -s " + (dir / "port").string() +
          " ] && break; sleep 0.05; done; grep \"Max open files\" /proc/$pid/limits; kill $pid; "
          "wait $pid; exit 0)' 2>&1");
  CHECK(soft_code == 0);  // 124 when it had to be stopped by `timeout`
  CHECK_THAT(soft, Catch::Contains("raised the open file limit from 64 to 1064"));
  CHECK_THAT(soft, Catch::Matches("(.|\n)*Max open files +1064 (.|\n)*"));
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST_CASE("log_safe: what a client sent reaches a log line escaped and bounded", "[network][log]") {
  using bg::server::log_safe;
  CHECK(log_safe("alice") == "alice");
  // A forged second log line, quotes and backslashes, and UTF-8 all become \xNN.
  CHECK(log_safe("bob\nERROR fake") == "bob\\x0aERROR fake");
  CHECK(log_safe("a\"b\\c") == "a\\x22b\\x5cc");
  CHECK(log_safe("\xc3\xa9") == "\\xc3\\xa9");
  CHECK(log_safe(std::string_view("a\0b", 3)) == "a\\x00b");
  // Bounded: at most max_bytes of the input, then "...".
  CHECK(log_safe(std::string(300, 'x')) == std::string(200, 'x') + "...");
  CHECK(log_safe("abcdef", 3) == "abc...");
  CHECK(log_safe("abc", 3) == "abc");
}
