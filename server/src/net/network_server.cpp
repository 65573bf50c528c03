// The network layer as one object and its shutdown sequence (network_server.hpp).

#include "bg/server/net/network_server.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <memory>
#include <stdexcept>

#include "bg/server/net/listener.hpp"
#include "bg/server/net/read_throttle.hpp"
#include "bg/server/net/server_context.hpp"
#include "bg/server/net/service.hpp"
#include "bg/server/net/websocket_session.hpp"

namespace bg::server {

namespace net = boost::asio;
using namespace std::chrono_literals;

namespace {
/// How long clients get to answer the close frames once all are sent.
constexpr auto settle_time = 100ms;
}  // namespace

network_server::network_server(net::io_context& io, server_config config,
                               std::shared_ptr<service> game, metrics& counters,
                               std::shared_ptr<service> fibs)
    : registry_{std::make_shared<session_registry>(config.max_connections,
                                                   config.max_connections_per_address)},
      game_{game ? std::move(game)
                 : throw std::invalid_argument("network_server: no game service")},
      fibs_{std::move(fibs)},
      context_{std::make_shared<const server_context>([&config, this, &counters] {
        auto reads = std::make_shared<read_throttle>(
            static_cast<double>(config.api_reads_per_second),
            static_cast<double>(config.api_read_burst), config.api_clients);
        server_context context{std::move(config), *game_, counters, registry_, std::move(reads)};
        context.fibs = fibs_.get();
        return context;
      }())},
      listener_{std::make_shared<listener>(io, context_)},
      fibs_listener_{fibs_ ? std::make_shared<listener>(io, context_, true) : nullptr},
      flush_timer_{io} {}

network_server::~network_server() = default;

void network_server::start() {
  // The FIBS port first: --port-file, which tests and scripts wait for, is written
  // once both listen.
  if (fibs_listener_) fibs_listener_->open();
  listener_->open();
  if (fibs_listener_) fibs_listener_->run();
  listener_->run();
}

std::uint16_t network_server::fibs_port() const noexcept {
  return fibs_listener_ ? fibs_listener_->port() : 0;
}

std::uint16_t network_server::port() const noexcept {
  return listener_->port();
}

bool network_server::shutdown(std::chrono::milliseconds flush, std::function<void()> done) {
  if (shutting_down_.exchange(true)) return false;
  net::post(flush_timer_.get_executor(), [this, flush, done = std::move(done)]() mutable {
    spdlog::info("shutting down: {} WebSocket connection(s) open", registry_->open_sessions());
    listener_->stop();
    if (fibs_listener_) fibs_listener_->stop();
    // FIBS connections are told first (the gateway closes each after its goodbye).
    if (fibs_) {
      try {
        fibs_->shutdown([] {});
      } catch (const std::exception& e) {
        spdlog::error("the FIBS gateway failed to shut down cleanly: {}", e.what());
      }
    }
    // The tables save themselves on the I/O threads, so this one must not wait for them:
    // the sessions close once the service says every table is saved (exactly once, even
    // if the service fails after saying so).
    auto once = std::make_shared<std::atomic<bool>>(false);
    auto close_sessions = [this, flush, once, done = std::move(done)]() mutable {
      if (once->exchange(true)) return;
      net::post(flush_timer_.get_executor(), [this, flush, done = std::move(done)]() mutable {
        for (const auto& session : registry_->sessions()) {
          session->close(boost::beast::websocket::close_code::going_away, "server shutting down");
        }
        wait_for_sessions(std::chrono::steady_clock::now() + flush, false, std::move(done));
      });
    };
    auto shared_close = std::make_shared<decltype(close_sessions)>(std::move(close_sessions));
    try {
      game_->shutdown([shared_close] { (*shared_close)(); });
    } catch (const std::exception& e) {
      spdlog::error("the game service failed to shut down cleanly: {}", e.what());
      (*shared_close)();
    }
  });
  return true;
}

void network_server::wait_for_sessions(std::chrono::steady_clock::time_point deadline,
                                       bool settling, std::function<void()> done) {
  const auto now = std::chrono::steady_clock::now();
  const auto open = registry_->sessions();
  if (open.empty() || now >= deadline) {
    if (!open.empty()) {
      spdlog::warn("shutting down with {} WebSocket connection(s) still open", open.size());
    }
    if (done) done();
    return;
  }
  // Once every close frame is out, a client that answers does so at once: give the
  // handshakes a moment to finish, not the whole flush time.
  if (!settling && std::all_of(open.begin(), open.end(),
                               [](const auto& session) { return session->close_started(); })) {
    settling = true;
    deadline = std::min(deadline, now + settle_time);
  }
  flush_timer_.expires_after(10ms);
  flush_timer_.async_wait(
      [this, deadline, settling, done = std::move(done)](boost::system::error_code) mutable {
        wait_for_sessions(deadline, settling, std::move(done));
      });
}

}  // namespace bg::server
