// gammond's composition root (server_parts.hpp): every part the game service is built
// from is made here from server_config, and make_game_service() hands them to it.

#include "bg/server/service/server_parts.hpp"

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <system_error>
#include <utility>

#include "bg/bots/analysis_level.hpp"
#include "bg/bots/gnubg_level.hpp"
#include "bg/server/net/service.hpp"
#include "bg/server/service/game_service.hpp"
#include "bg/server/store/open_store.hpp"
#include "bg/server/store/sqlite_store.hpp"

namespace bg::server {

namespace {

/// The options of both backends from gammond's flags (--sync, --db-max-pages,
/// --db-checkpoint-pages, the PostgreSQL timeouts, --db-id-block, and in a cluster the
/// node and its lease, for fencing).
store_options store_options_of(const server_config& config) {
  const sync_mode sync = config.sync == "normal" ? sync_mode::normal : sync_mode::full;
  store_options o;
  o.sqlite = sqlite_options{5000, sync, static_cast<std::int64_t>(config.db_max_pages),
                            static_cast<std::int64_t>(config.db_checkpoint_pages)};
  o.postgres.connect_timeout_s = static_cast<int>(config.db_connect_timeout.count());
  o.postgres.statement_timeout_ms = static_cast<int>(config.db_statement_timeout.count() * 1000);
  o.postgres.sync = sync;
  o.postgres.id_block = config.db_id_block;
  o.postgres.node = config.node_id;  // issue 16: fencing when a node of a cluster
  o.postgres.lease_ms = config.lease.count();
  return o;
}

/// The HTTP reads' own connection and thread (issue 25): a flood of them never waits in
/// line with the table writes. It writes nothing, so it checkpoints nothing: the
/// writer's checkpoint thread is the only one. Null (logged, warn) when the second
/// connection cannot be opened: the reads then run on the writer's thread.
std::unique_ptr<storage_reader> open_reader(const server_config& config) {
  try {
    store_options reading = store_options_of(config);
    reading.sqlite.checkpoint_pages = 0;
    return std::make_unique<storage_reader>(open_store(config.db, reading), config.read_queue);
  } catch (const std::exception& e) {
    spdlog::warn(
        "a second database connection for the HTTP reads could not be opened ({}): "
        "they run on the writer's thread",
        e.what());
  }
  return nullptr;
}

/// The computer players (issue 14): GNU Backgammon's pool (--gnubg, --bot-processes,
/// --bot-timeout, --bot-retries, --bot-queue, --bot-starts-per-minute; its processes
/// start when a bot is first asked something) when the program is there, and the long
/// nardy bots, which need no program: they think on a thread of their own, their
/// questions bounded by --bot-queue as gnubg's are. Logs nothing (the service does).
bot_parts start_computer_players(const server_config& config) {
  bot_parts out;
  out.gnubg_problem = bots::gnubg_pool::problem_with(config.gnubg);
  if (out.gnubg_problem.empty()) {
    bots::gnubg_pool_options options;
    options.program = config.gnubg;
    options.max_processes = config.bot_processes;
    options.timeout = config.bot_timeout;
    options.retries = config.bot_retries;
    options.max_waiting = config.bot_queue;
    options.max_starts = config.bot_starts_per_minute;
    out.gnubg = std::make_unique<bots::gnubg_pool>(options);
    for (const auto level : bots::all_gnubg_levels)
      out.gnubg_players.emplace(std::string(bots::to_string(level)),
                                std::make_unique<bots::gnubg_player>(*out.gnubg, level));
  }
  out.long_bots =
      std::make_unique<bots::long_bot_pool>(bots::long_bot_pool_options{1, config.bot_queue});
  for (const auto level : bots::all_gnubg_levels)
    out.long_players.emplace(std::string(bots::to_string(level)),
                             std::make_unique<bots::long_bot_player>(*out.long_bots, level));
  return out;
}

/// How the match analysis queue (issue 14) runs gnubg: --gnubg, --analysis-workers,
/// --analysis-queue, --analysis-per-player, --analysis-level, --analysis-timeout,
/// --analysis-nice, and --analysis-busy-rate (commands a second, read from `counters`);
/// its gauges go to `counters`. Nullopt when --analysis-workers is 0 or --gnubg is not
/// an executable file (the service says which in the log).
std::optional<bots::analysis_queue::options> analysis_options_of(const server_config& config,
                                                                 metrics& counters) {
  if (config.analysis_workers == 0) return std::nullopt;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(config.gnubg, ec) ||
      ::access(config.gnubg.c_str(), X_OK) != 0)
    return std::nullopt;
  bots::analysis_queue::options o;
  o.gnubg = config.gnubg;
  o.workers = config.analysis_workers;
  o.capacity = config.analysis_queue;
  o.per_owner = config.analysis_per_player;
  o.level = bots::analysis_level_from_string(config.analysis_level)
                .value_or(bots::analysis_level::worldclass);
  o.timeout = config.analysis_timeout;
  o.niceness = config.analysis_nice;
  if (config.analysis_busy_rate > 0) {
    // Commands handled per second since the queue last asked (over a second at least;
    // it asks every second while it waits).
    o.busy = [&counters, limit = static_cast<double>(config.analysis_busy_rate),
              since = std::chrono::steady_clock::now(), count = counters.commands_handled(),
              busy = false]() mutable {
      const auto now = std::chrono::steady_clock::now();
      const std::chrono::duration<double> elapsed = now - since;
      if (elapsed.count() >= 1.0) {
        const auto handled = counters.commands_handled();
        busy = static_cast<double>(handled - count) / elapsed.count() > limit;
        since = now;
        count = handled;
      }
      return busy;
    };
  }
  o.on_change = [&counters](std::size_t waiting, std::size_t running) {
    counters.set_analysis_queue(waiting, running);
  };
  return o;
}

/// The cluster node's options from gammond's flags (--db, --node-id, --node-path,
/// --heartbeat, --lease, --db-connect-timeout, --max-tables, --cluster-queue).
cluster_options cluster_options_of(const server_config& config) {
  cluster_options o;
  o.url = config.db;
  o.node = config.node_id;
  o.path = config.node_path;
  o.heartbeat = config.heartbeat;
  o.lease = config.lease;
  o.connect_timeout_s = static_cast<int>(config.db_connect_timeout.count());
  o.max_claims = config.max_tables;
  o.queue = config.cluster_queue;
  return o;
}

}  // namespace

server_parts open_server_parts(const server_config& config, metrics& counters) {
  server_parts parts;
  parts.storage = open_store(config.db, store_options_of(config));
  parts.writer = std::make_unique<storage_writer>(*parts.storage);
  parts.reader = open_reader(config);
  parts.computer_players = start_computer_players(config);
  parts.analysis = analysis_options_of(config, counters);
  return parts;
}

std::shared_ptr<service> make_game_service(const server_config& config, metrics& counters,
                                           boost::asio::io_context& io) {
  auto svc =
      std::make_shared<game_service>(config, counters, io, open_server_parts(config, counters));
  // In a cluster (--node-id, issue 16): this node's heartbeats and claims, which call
  // the service back (so it is made once the service is owned by a shared_ptr).
  std::unique_ptr<cluster_node> node;
  if (config.cluster())
    node = std::make_unique<cluster_node>(cluster_options_of(config), svc->cluster_callbacks());
  svc->start(std::move(node));
  return svc;
}

}  // namespace bg::server
