// Prometheus counters (metrics.hpp), rendered in text exposition format 0.0.4:
// https://prometheus.io/docs/instrumenting/exposition_formats/

#include "bg/server/metrics.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace bg::server {
namespace {

/// A label value with backslash, double quote and newline escaped.
std::string escape_label(std::string_view value) {
  std::string escaped;
  escaped.reserve(value.size());
  for (const char c : value) {
    switch (c) {
      case '\\':
        escaped += "\\\\";
        break;
      case '"':
        escaped += "\\\"";
        break;
      case '\n':
        escaped += "\\n";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

/// The shortest plain decimal that reads back as `value` ("0.0001", "0.00025", "1").
std::string number(double value) {
  std::array<char, 400> text{};
  const auto [end, ec] =
      std::to_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  return ec == std::errc{} ? std::string(text.data(), end) : std::string{"NaN"};
}

/// The # HELP and # TYPE lines of metric `name`.
void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

/// One sample line: `name` and `value`, without labels.
template <typename T>
void sample(std::string& out, std::string_view name, T value) {
  out.append(name).append(" ").append(std::to_string(value)).append("\n");
}

/// A counter `name` with one sample per entry of `counts`, labelled `label`="key"
/// (escaped), in the map's order; the # HELP and # TYPE lines even when it is empty.
void labelled_counts(std::string& out, std::string_view name, std::string_view help,
                     std::string_view label,
                     const std::map<std::string, std::uint64_t, std::less<>>& counts) {
  header(out, name, "counter", help);
  for (const auto& [key, count] : counts) {
    out.append(name)
        .append("{")
        .append(label)
        .append("=\"")
        .append(escape_label(key))
        .append("\"} ")
        .append(std::to_string(count))
        .append("\n");
  }
}

/// Ids of metrics objects, never reused (a thread's shard names the object it is for).
std::atomic<std::uint64_t> next_metrics_id{1};

}  // namespace

/// One thread's counts. Its mutex is taken by that thread on every count, which never
/// waits (nobody else holds it but render(), for the time of one copy).
struct metrics::shard {
  std::mutex mutex;
  std::map<std::string, std::uint64_t, std::less<>> commands;
  std::map<std::string, std::uint64_t, std::less<>> errors;
  std::array<std::uint64_t, 13> latency_counts{};  // one per bucket plus +Inf
  double latency_sum = 0;
  std::uint64_t latency_count = 0;

  shard() = default;
  shard(const shard& other)
      : commands{other.commands},
        errors{other.errors},
        latency_counts{other.latency_counts},
        latency_sum{other.latency_sum},
        latency_count{other.latency_count} {}
  shard& operator=(const shard&) = delete;
};

metrics::metrics() : id_{next_metrics_id.fetch_add(1, std::memory_order_relaxed)} {}

metrics::~metrics() = default;

metrics::shard& metrics::local() {
  // (object id, its shard) for each metrics object this thread counted for; the
  // shared_ptr keeps a shard valid for its thread even after its object is gone.
  thread_local std::vector<std::pair<std::uint64_t, std::shared_ptr<shard>>> mine;
  for (const auto& [id, s] : mine)
    if (id == id_) return *s;
  auto made = std::make_shared<shard>();
  {
    const std::lock_guard lock{shards_mutex_};
    shards_.push_back(made);
  }
  mine.emplace_back(id_, made);
  return *made;
}

metrics::shard metrics::sum() const {
  std::vector<std::shared_ptr<shard>> all;
  {
    const std::lock_guard lock{shards_mutex_};
    all = shards_;
  }
  shard total;
  for (const auto& s : all) {
    const std::lock_guard lock{s->mutex};
    for (const auto& [name, n] : s->commands) total.commands[name] += n;
    for (const auto& [code, n] : s->errors) total.errors[code] += n;
    for (std::size_t i = 0; i < total.latency_counts.size(); ++i)
      total.latency_counts[i] += s->latency_counts[i];
    total.latency_sum += s->latency_sum;
    total.latency_count += s->latency_count;
  }
  return total;
}

void metrics::connection_opened() noexcept {
  connections_.fetch_add(1, std::memory_order_relaxed);
  connections_total_.fetch_add(1, std::memory_order_relaxed);
}

void metrics::connection_closed() noexcept {
  connections_.fetch_sub(1, std::memory_order_relaxed);
}

void metrics::set_tables(std::size_t n) noexcept {
  tables_.store(static_cast<std::int64_t>(n), std::memory_order_relaxed);
}

void metrics::game_started() noexcept {
  games_started_.fetch_add(1, std::memory_order_relaxed);
}

void metrics::game_finished() noexcept {
  games_finished_.fetch_add(1, std::memory_order_relaxed);
}

void metrics::set_analysis_queue(std::size_t waiting, std::size_t running) noexcept {
  analyses_waiting_.store(static_cast<std::int64_t>(waiting), std::memory_order_relaxed);
  analyses_running_.store(static_cast<std::int64_t>(running), std::memory_order_relaxed);
}

void metrics::analysis_finished(bool done, int crashes, double seconds) noexcept {
  (done ? analyses_done_ : analyses_failed_).fetch_add(1, std::memory_order_relaxed);
  analysis_crashes_.fetch_add(static_cast<std::uint64_t>(std::max(crashes, 0)),
                              std::memory_order_relaxed);
  analysis_millis_.fetch_add(static_cast<std::uint64_t>(std::max(seconds, 0.0) * 1000.0),
                             std::memory_order_relaxed);
}

void metrics::analysis_refused() noexcept {
  analyses_refused_.fetch_add(1, std::memory_order_relaxed);
}

void metrics::command(std::string_view name, std::chrono::nanoseconds latency) {
  const double seconds = std::chrono::duration<double>(latency).count();
  std::size_t bucket = 0;
  while (bucket < buckets_.size() && seconds > buckets_[bucket]) ++bucket;
  auto& s = local();
  const std::lock_guard lock{s.mutex};
  auto it = s.commands.find(name);
  if (it == s.commands.end()) it = s.commands.emplace(std::string{name}, 0).first;
  ++it->second;
  ++s.latency_counts[bucket];
  s.latency_sum += seconds;
  ++s.latency_count;
}

std::uint64_t metrics::commands_handled() const {
  return sum().latency_count;
}

void metrics::error(std::string_view code) {
  auto& s = local();
  const std::lock_guard lock{s.mutex};
  auto it = s.errors.find(code);
  if (it == s.errors.end()) it = s.errors.emplace(std::string{code}, 0).first;
  ++it->second;
}

void metrics::connection_refused(std::string_view reason) {
  const std::lock_guard lock{mutex_};
  auto it = refused_.find(reason);
  if (it == refused_.end()) it = refused_.emplace(std::string{reason}, 0).first;
  ++it->second;
}

void metrics::connection_dropped(std::string_view reason) {
  const std::lock_guard lock{mutex_};
  auto it = dropped_.find(reason);
  if (it == dropped_.end()) it = dropped_.emplace(std::string{reason}, 0).first;
  ++it->second;
}

void metrics::add_section(std::function<std::string()> section) {
  const std::lock_guard lock{mutex_};
  sections_.push_back(std::move(section));
}

std::string metrics::render() const {
  std::string out;
  out.reserve(2048);
  render_play(out);
  render_analysis(out);
  const shard total = sum();
  labelled_counts(out, "gammond_commands_total", "Commands handled, by command.", "command",
                  total.commands);
  labelled_counts(out, "gammond_errors_total", "Errors answered, by code.", "code", total.errors);
  render_latency(out, total);
  const std::lock_guard lock{mutex_};
  // The network layer's refusals and policy closes (issue 11).
  labelled_counts(out, "gammond_connections_refused_total",
                  "Connections or upgrades refused, by reason.", "reason", refused_);
  labelled_counts(out, "gammond_connections_dropped_total",
                  "WebSockets closed by policy (hello timeout, strikes), by reason.", "reason",
                  dropped_);
  for (const auto& section : sections_) out += section();
  return out;
}

void metrics::render_play(std::string& out) const {
  header(out, "gammond_connections", "gauge", "Open WebSocket connections.");
  sample(out, "gammond_connections", connections_.load(std::memory_order_relaxed));
  header(out, "gammond_connections_total", "counter", "WebSocket connections opened.");
  sample(out, "gammond_connections_total", connections_total_.load(std::memory_order_relaxed));
  header(out, "gammond_tables", "gauge", "Tables now.");
  sample(out, "gammond_tables", tables_.load(std::memory_order_relaxed));
  header(out, "gammond_games_started_total", "counter", "Games started.");
  sample(out, "gammond_games_started_total", games_started_.load(std::memory_order_relaxed));
  header(out, "gammond_games_finished_total", "counter", "Games finished.");
  sample(out, "gammond_games_finished_total", games_finished_.load(std::memory_order_relaxed));
}

void metrics::render_analysis(std::string& out) const {
  header(out, "gammond_analyses_waiting", "gauge", "Finished matches waiting for analysis.");
  sample(out, "gammond_analyses_waiting", analyses_waiting_.load(std::memory_order_relaxed));
  header(out, "gammond_analyses_running", "gauge", "Matches being analysed by gnubg now.");
  sample(out, "gammond_analyses_running", analyses_running_.load(std::memory_order_relaxed));
  header(out, "gammond_analyses_done_total", "counter", "Match analyses done.");
  sample(out, "gammond_analyses_done_total", analyses_done_.load(std::memory_order_relaxed));
  header(out, "gammond_analyses_failed_total", "counter",
         "Match analyses failed (gnubg crashed twice, time limit, unreadable answer).");
  sample(out, "gammond_analyses_failed_total", analyses_failed_.load(std::memory_order_relaxed));
  header(out, "gammond_analyses_refused_total", "counter",
         "Finished matches not analysed because the analysis queue was full.");
  sample(out, "gammond_analyses_refused_total", analyses_refused_.load(std::memory_order_relaxed));
  header(out, "gammond_analysis_crashes_total", "counter", "gnubg runs that crashed.");
  sample(out, "gammond_analysis_crashes_total", analysis_crashes_.load(std::memory_order_relaxed));
  header(out, "gammond_analysis_seconds_total", "counter", "Time spent in gnubg analysing.");
  out.append("gammond_analysis_seconds_total ")
      .append(
          number(static_cast<double>(analysis_millis_.load(std::memory_order_relaxed)) / 1000.0))
      .append("\n");
}

void metrics::render_latency(std::string& out, const shard& total) const {
  header(out, "gammond_command_seconds", "histogram",
         "Time from a command's arrival to its answer being queued.");
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    cumulative += total.latency_counts[i];
    out.append("gammond_command_seconds_bucket{le=\"")
        .append(number(buckets_[i]))
        .append("\"} ")
        .append(std::to_string(cumulative))
        .append("\n");
  }
  cumulative += total.latency_counts[buckets_.size()];
  out.append("gammond_command_seconds_bucket{le=\"+Inf\"} ")
      .append(std::to_string(cumulative))
      .append("\n");
  out.append("gammond_command_seconds_sum ").append(number(total.latency_sum)).append("\n");
  sample(out, "gammond_command_seconds_count", total.latency_count);
}

}  // namespace bg::server
