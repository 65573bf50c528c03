#include "bg/bots/analysis_queue.hpp"

#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "bg/bots/bot_names.hpp"
#include "bg/bots/child_process.hpp"
#include "bg/bots/gnubg_analysis.hpp"

namespace bg::bots {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// A fresh scratch directory under `parent`, removed with its contents on scope exit.
class scratch_dir {
 public:
  explicit scratch_dir(const fs::path& parent) {
    std::string pattern = (parent / "gammond-analysis-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::system_error(errno, std::generic_category(), "cannot create " + pattern);
    path_ = pattern;
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  [[nodiscard]] const fs::path& path() const noexcept { return path_; }

 private:
  fs::path path_;
};

void write_file(const fs::path& p, std::string_view text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The last lines of gnubg's log, on one line, printable ASCII only (for our log).
std::string log_tail(const fs::path& p) {
  std::string text = read_file(p);
  if (text.size() > 600) text = text.substr(text.size() - 600);
  for (char& c : text)
    if (c == '\n' || c == '\r') {
      c = '|';
    } else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) {
      c = '?';
    }
  return text;
}

}  // namespace

const char* to_string(analysis_queue::submitted s) noexcept {
  switch (s) {
    case analysis_queue::submitted::queued:
      return "queued";
    case analysis_queue::submitted::full:
      return "full";
    case analysis_queue::submitted::owner_full:
      return "owner_full";
    case analysis_queue::submitted::duplicate:
      return "duplicate";
    case analysis_queue::submitted::stopped:
      return "stopped";
  }
  return "stopped";
}

analysis_queue::analysis_queue(options opts, done_handler on_done)
    : options_(std::move(opts)), on_done_(std::move(on_done)) {
  if (options_.workers < 1) throw std::invalid_argument("analysis_queue: no worker");
  if (options_.capacity < 1) throw std::invalid_argument("analysis_queue: no room");
  if (options_.per_owner < 1) throw std::invalid_argument("analysis_queue: no room per owner");
  if (options_.scratch.empty()) options_.scratch = fs::temp_directory_path();
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  workers_.reserve(static_cast<std::size_t>(options_.workers));
  for (int i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { work(); });
}

analysis_queue::~analysis_queue() {
  stop();
  ::close(stop_fd_);
}

analysis_queue::submitted analysis_queue::submit(job j) {
  std::lock_guard lock(mutex_);
  if (stopping_) return submitted::stopped;
  if (known_.count(j.match_id) != 0) return submitted::duplicate;
  if (waiting_.size() >= options_.capacity) return submitted::full;
  if (j.owners.empty()) {
    for (const auto& p : j.players)
      if (!p.empty() && !is_bot_name(p) &&
          std::find(j.owners.begin(), j.owners.end(), p) == j.owners.end())
        j.owners.push_back(p);
    if (j.owners.empty()) j.owners.emplace_back();
  }
  for (const auto& o : j.owners) {
    const auto it = owners_.find(o);
    if (it != owners_.end() && it->second.waiting >= options_.per_owner)
      return submitted::owner_full;
  }
  for (const auto& o : j.owners) ++owners_[o].waiting;
  known_.insert(j.match_id);
  waiting_.push_back(std::move(j));
  changed();
  wake_.notify_one();
  return submitted::queued;
}

analysis_queue::job analysis_queue::take_next() {
  // The match whose owners were served least recently (the most recent of its owners
  // counts); the first in the queue among equals.
  auto best = waiting_.begin();
  std::uint64_t best_served = std::numeric_limits<std::uint64_t>::max();
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    std::uint64_t served = 0;
    for (const auto& o : it->owners) served = std::max(served, owners_[o].served);
    if (served < best_served) {
      best_served = served;
      best = it;
      if (served == 0) break;
    }
  }
  job j = std::move(*best);
  waiting_.erase(best);
  ++serial_;
  for (const auto& o : j.owners) {
    auto& share = owners_[o];
    --share.waiting;
    ++share.running;
    share.served = serial_;
  }
  return j;
}

void analysis_queue::changed() {
  if (options_.on_change) options_.on_change(waiting_.size(), running_);
}

void analysis_queue::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
    waiting_.clear();
    for (auto it = owners_.begin(); it != owners_.end();) {
      it->second.waiting = 0;
      it = it->second.running == 0 ? owners_.erase(it) : std::next(it);
    }
    changed();
    wake_.notify_all();
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(stop_fd_, &one, sizeof one);
  for (auto& t : workers_)
    if (t.joinable()) t.join();
  std::lock_guard lock(mutex_);
  workers_.clear();
}

bool analysis_queue::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

std::size_t analysis_queue::waiting() const {
  std::lock_guard lock(mutex_);
  return waiting_.size();
}

std::size_t analysis_queue::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

void analysis_queue::work() {
  for (;;) {
    job j;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !waiting_.empty(); });
      if (stopping_) return;
      if (options_.busy && options_.busy()) {  // live play first: ask again in a while
        wake_.wait_for(lock, options_.busy_poll, [this] { return stopping_; });
        continue;
      }
      j = take_next();
      ++running_;
      changed();
    }
    outcome o;
    bool report = true;
    try {
      o = analyse(j);
    } catch (const std::exception& e) {
      spdlog::error("analysis of match {}: {}", j.match_id, e.what());
      o = outcome{};
      o.reason = "the server could not run GNU Backgammon";
    }
    {
      std::lock_guard lock(mutex_);
      --running_;
      known_.erase(j.match_id);
      for (const auto& owner : j.owners) {
        const auto it = owners_.find(owner);
        if (it == owners_.end()) continue;
        --it->second.running;
        if (it->second.running == 0 && it->second.waiting == 0) owners_.erase(it);
      }
      changed();
      report = !stopping_;  // a run cut short by stop() stays pending
    }
    if (!report) continue;
    try {
      on_done_(j, o);
    } catch (const std::exception& e) {
      spdlog::error("analysis of match {}: after the analysis: {}", j.match_id, e.what());
    }
  }
}

analysis_queue::outcome analysis_queue::analyse(const job& j) {
  outcome o;
  const scratch_dir dir(options_.scratch);
  const auto mat = dir.path() / "match.mat";
  const auto script = dir.path() / "analyse_match.py";
  const auto result = dir.path() / "result.json";
  const auto log = dir.path() / "gnubg.log";
  write_file(mat, j.mat);
  write_file(script, gnubg_analysis_script());
  const std::vector<std::string> argv{options_.gnubg, "-t", "-q", "-r", "-p", script.string()};
  // gnubg creates ~/.gnubg: HOME is the scratch directory. The C locale keeps gnubg's
  // messages in English (the script reads them for problems).
  const std::vector<std::string> env{
      "HOME=" + dir.path().string(),
      "PATH=/usr/local/bin:/usr/bin:/bin:/usr/games",
      "LC_ALL=C",
      "LANG=C",
      "GAMMOND_ANALYSIS_MAT=" + mat.string(),
      "GAMMOND_ANALYSIS_OUT=" + result.string(),
      "GAMMOND_ANALYSIS_PLIES=" + std::to_string(plies_of(options_.level))};
  for (int attempt = 1; attempt <= 2; ++attempt) {
    std::error_code ec;
    fs::remove(result, ec);
    const auto t0 = std::chrono::steady_clock::now();
    child_process gnubg(argv, env, dir.path(), log, options_.niceness);
    const auto status = gnubg.wait_for(options_.timeout, stop_fd_);
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!status) {
      gnubg.kill();
      if (stopping()) {
        o.reason = "the server is stopping";
        return o;
      }
      const auto limit = std::chrono::duration_cast<std::chrono::seconds>(options_.timeout);
      spdlog::warn("analysis of match {}: gnubg (pid {}) killed after {:.1f} s (time limit {} s)",
                   j.match_id, gnubg.pid(), o.seconds, limit.count());
      o.reason = "GNU Backgammon took longer than the time limit (" +
                 std::to_string(limit.count()) + " s) to analyse the match";
      return o;
    }
    json answer;
    if (fs::exists(result, ec)) answer = json::parse(read_file(result), nullptr, false);
    if (status->exited && status->code == 0 && answer.is_object() && !answer.contains("error")) {
      try {
        o.result = to_gammond_analysis(answer, j.players);
        o.done = true;
        spdlog::info("analysis of match {}: done in {:.1f} s at level {}", j.match_id, o.seconds,
                     to_string(options_.level));
      } catch (const std::exception& e) {
        spdlog::error("analysis of match {}: gnubg's answer cannot be read: {}", j.match_id,
                      e.what());
        o.reason = "GNU Backgammon's answer could not be read";
      }
      return o;
    }
    if (answer.is_object() && answer.contains("error")) {
      // The script ran and said why not (e.g. the .mat was refused): running it again
      // would say the same.
      const std::string why = answer["error"].is_string() ? answer["error"].get<std::string>()
                                                          : std::string("no reason given");
      spdlog::error("analysis of match {}: gnubg: {} ({})", j.match_id, why, status->describe());
      o.reason = "GNU Backgammon could not analyse the match";
      return o;
    }
    ++o.crashes;
    spdlog::warn("analysis of match {}: gnubg crashed ({}, attempt {}); its log: {}", j.match_id,
                 status->describe(), attempt, log_tail(log));
    if (attempt == 2)
      o.reason = "GNU Backgammon crashed twice on this match (" + status->describe() + ")";
  }
  return o;
}

}  // namespace bg::bots
