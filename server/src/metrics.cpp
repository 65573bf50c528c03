// Prometheus counters (metrics.hpp), rendered in text exposition format 0.0.4:
// https://prometheus.io/docs/instrumenting/exposition_formats/

#include "bg/server/metrics.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

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

}  // namespace

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
  const std::lock_guard lock{mutex_};
  auto it = commands_.find(name);
  if (it == commands_.end()) it = commands_.emplace(std::string{name}, 0).first;
  ++it->second;
  ++latency_counts_[bucket];
  latency_sum_ += seconds;
  ++latency_count_;
}

std::uint64_t metrics::commands_handled() const {
  const std::lock_guard lock{mutex_};
  return latency_count_;
}

void metrics::error(std::string_view code) {
  const std::lock_guard lock{mutex_};
  auto it = errors_.find(code);
  if (it == errors_.end()) it = errors_.emplace(std::string{code}, 0).first;
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
  const std::lock_guard lock{mutex_};
  labelled_counts(out, "gammond_commands_total", "Commands handled, by command.", "command",
                  commands_);
  labelled_counts(out, "gammond_errors_total", "Errors answered, by code.", "code", errors_);
  render_latency(out);
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

void metrics::render_latency(std::string& out) const {
  header(out, "gammond_command_seconds", "histogram",
         "Time from a command's arrival to its answer being queued.");
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    cumulative += latency_counts_[i];
    out.append("gammond_command_seconds_bucket{le=\"")
        .append(number(buckets_[i]))
        .append("\"} ")
        .append(std::to_string(cumulative))
        .append("\n");
  }
  cumulative += latency_counts_[buckets_.size()];
  out.append("gammond_command_seconds_bucket{le=\"+Inf\"} ")
      .append(std::to_string(cumulative))
      .append("\n");
  out.append("gammond_command_seconds_sum ").append(number(latency_sum_)).append("\n");
  sample(out, "gammond_command_seconds_count", latency_count_);
}

}  // namespace bg::server
