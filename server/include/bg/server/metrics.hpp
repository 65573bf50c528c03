#pragma once
/// @file metrics.hpp
/// Process-wide counters served at GET /metrics in Prometheus text format.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace bg::server {

/// Thread-safe counters and one latency histogram. Every member may be called from
/// any thread. The counts of every command and error (command(), error()) go to a
/// shard of the calling thread's own, so that the tables' threads share no lock on
/// the path of a command (issue 33); render() adds the shards up.
class metrics {
 public:
  metrics();
  ~metrics();
  metrics(const metrics&) = delete;
  metrics& operator=(const metrics&) = delete;

  /// A WebSocket connection opened / closed (gauge gammond_connections, counter
  /// gammond_connections_total).
  void connection_opened() noexcept;
  void connection_closed() noexcept;
  /// The number of tables now (gauge gammond_tables).
  void set_tables(std::size_t n) noexcept;
  /// A game started / finished (counters gammond_games_started_total,
  /// gammond_games_finished_total).
  void game_started() noexcept;
  void game_finished() noexcept;
  /// A command handled: counter gammond_commands_total{command="roll"} and histogram
  /// gammond_command_seconds (from the frame's arrival to its answer being queued).
  void command(std::string_view name, std::chrono::nanoseconds latency);
  /// Commands handled so far (gammond_command_seconds_count).
  [[nodiscard]] std::uint64_t commands_handled() const;
  /// An error answered: counter gammond_errors_total{code="illegal_play"}.
  void error(std::string_view code);
  /// The network layer refused a connection or a WebSocket upgrade: counter
  /// gammond_connections_refused_total{reason="origin"} (a foreign Origin, 403).
  void connection_refused(std::string_view reason);
  /// The network layer closed a WebSocket by policy: counter
  /// gammond_connections_dropped_total{reason="hello_timeout"|"strikes"}.
  void connection_dropped(std::string_view reason);
  /// Match analysis (issue 14): the queue now (gauges gammond_analyses_waiting and
  /// gammond_analyses_running).
  void set_analysis_queue(std::size_t waiting, std::size_t running) noexcept;
  /// An analysis finished: counter gammond_analyses_done_total or
  /// gammond_analyses_failed_total; `crashes` gnubg runs that crashed on the way
  /// (gammond_analysis_crashes_total); `seconds` spent in gnubg
  /// (gammond_analysis_seconds_total).
  void analysis_finished(bool done, int crashes, double seconds) noexcept;
  /// A finished match was not analysed because the queue was full
  /// (gammond_analyses_refused_total).
  void analysis_refused() noexcept;
  /// Adds a section that render() appends: `section` returns complete Prometheus text
  /// lines (with their # HELP and # TYPE), is called from any thread, and must stay
  /// callable for the metrics' life (e.g. hold a weak_ptr to its owner).
  void add_section(std::function<std::string()> section);
  /// Everything in Prometheus text exposition format 0.0.4.
  [[nodiscard]] std::string render() const;

 private:
  /// One thread's counts of commands and errors (metrics.cpp).
  struct shard;

  /// The connections, tables and games (gauges and counters) of render().
  void render_play(std::string& out) const;
  /// The match analysis queue's gauges and counters of render().
  void render_analysis(std::string& out) const;
  /// gammond_command_seconds, the histogram of command latencies, from the shards' sum.
  void render_latency(std::string& out, const shard& sum) const;
  /// Every shard added up.
  [[nodiscard]] shard sum() const;

  static constexpr std::array<double, 12> buckets_{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                   0.01,   0.025,   0.05,   0.1,   0.25,   1.0};
  std::atomic<std::int64_t> connections_{0};
  std::atomic<std::uint64_t> connections_total_{0};
  std::atomic<std::int64_t> tables_{0};
  std::atomic<std::uint64_t> games_started_{0};
  std::atomic<std::uint64_t> games_finished_{0};
  std::atomic<std::int64_t> analyses_waiting_{0};
  std::atomic<std::int64_t> analyses_running_{0};
  std::atomic<std::uint64_t> analyses_done_{0};
  std::atomic<std::uint64_t> analyses_failed_{0};
  std::atomic<std::uint64_t> analyses_refused_{0};
  std::atomic<std::uint64_t> analysis_crashes_{0};
  std::atomic<std::uint64_t> analysis_millis_{0};
  /// The calling thread's shard of this object, made and registered on its first count.
  shard& local();

  const std::uint64_t id_;  ///< process-unique: which object a thread's shard is for
  mutable std::mutex shards_mutex_;
  std::vector<std::shared_ptr<shard>> shards_;  ///< under shards_mutex_
  mutable std::mutex mutex_;
  std::map<std::string, std::uint64_t, std::less<>> refused_;
  std::map<std::string, std::uint64_t, std::less<>> dropped_;
  std::vector<std::function<std::string()>> sections_;
};

}  // namespace bg::server
