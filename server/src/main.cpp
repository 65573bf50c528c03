// gammond: the backgammon server process. Reads the configuration, builds the game
// service and the network layer, runs the io_context on config.threads threads and
// stops gracefully on SIGINT/SIGTERM.

#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include "bg/server/metrics.hpp"
#include "bg/server/net/file_limit.hpp"
#include "bg/server/net/network_server.hpp"
#include "bg/server/net/service.hpp"
#include "bg/server/server_config.hpp"
#include "bg/server/store/storage.hpp"

namespace {

namespace net = boost::asio;
using namespace std::chrono_literals;

/// How long queued frames and close frames get to reach clients on shutdown.
constexpr auto shutdown_flush = 2s;

/// Runs `io` until it is stopped; an exception escaping a handler is a bug: it is
/// logged and the thread goes back to work instead of taking the server down.
void run_io(net::io_context& io) {
  for (;;) {
    try {
      io.run();
      return;
    } catch (const std::exception& e) {
      spdlog::critical("uncaught exception in a handler: {}", e.what());
    } catch (...) {
      spdlog::critical("uncaught non-standard exception in a handler");
    }
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  bg::server::server_config config;
  if (const auto exit_code = bg::server::parse_config(
          std::span<const char* const>(argv, static_cast<std::size_t>(argc)),
          bg::server::process_environment(), config, std::cout, std::cerr)) {
    return *exit_code;
  }
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%-5l%$ [%t] %v");
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  spdlog::flush_on(spdlog::level::info);
  // Every connection is an open file: a limit below max-connections would fail
  // accepts at random later (EMFILE) instead of refusing cleanly with 503.
  const auto limit = bg::server::ensure_file_limit(config.max_connections);
  if (!limit.enough) {
    std::cerr << "gammond: " << bg::server::file_limit_message(limit, config.max_connections)
              << '\n';
    return 2;
  }
  if (limit.soft != limit.before) {
    spdlog::info("raised the open file limit from {} to {} for --max-connections {}", limit.before,
                 limit.soft, config.max_connections);
  }
  if (config.static_dir.empty()) config.static_dir = GAMMOND_DEFAULT_STATIC_DIR;
  if (std::error_code ec; !std::filesystem::is_directory(config.static_dir, ec)) {
    spdlog::warn("static directory {} does not exist: only the API is served", config.static_dir);
  }
  spdlog::info("gammond {} starting ({} threads, database {})", GAMMOND_VERSION, config.threads,
               config.db);

  try {
    bg::server::metrics counters;  // outlives the io_context and every session
    net::io_context io{config.threads};
    std::shared_ptr<bg::server::service> game;
    try {
      game = bg::server::make_game_service(config, counters, io);
    } catch (const bg::server::storage_error& e) {
      spdlog::critical("cannot open the database {}: {}", config.db, e.what());
      return 1;
    }
    if (!game) {
      spdlog::critical("no game service was built");
      return 1;
    }
    bg::server::network_server server{io, config, game, counters};
    server.start();

    net::signal_set signals{io, SIGINT, SIGTERM};
    std::function<void(const boost::system::error_code&, int)> on_signal;
    on_signal = [&](const boost::system::error_code& ec, int signal) {
      if (ec) return;
      if (!server.shutdown(shutdown_flush, [&io] { io.stop(); })) {
        spdlog::warn("second signal ({}): stopping now", signal);
        io.stop();
        return;
      }
      spdlog::info("signal {}: shutting down", signal);
      signals.async_wait(on_signal);
    };
    signals.async_wait(on_signal);

    std::vector<std::jthread> threads;
    threads.reserve(static_cast<std::size_t>(config.threads - 1));
    for (int i = 1; i < config.threads; ++i) threads.emplace_back([&io] { run_io(io); });
    run_io(io);
    for (auto& t : threads) t.join();
    spdlog::info("gammond stopped");
  } catch (const std::exception& e) {
    spdlog::critical("{}", e.what());
    return 1;
  }
  return 0;
}
