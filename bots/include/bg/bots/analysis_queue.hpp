#pragma once
/// @file analysis_queue.hpp
/// Match analysis by GNU Backgammon in the background: a bounded queue of finished
/// matches and worker threads that run gnubg on each match's .mat export (`gnubg -t -q
/// -r -p analyse_match.py`: `import mat`, `analyse match`, the statistics and every
/// decision read through gnubg's embedded Python). No table ever waits for it: submit()
/// only queues, and the results come back through a callback on a worker thread.

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bg/bots/analysis_level.hpp"

namespace bg::bots {

/// The analysis queue. Thread-safe; the destructor calls stop().
class analysis_queue {
 public:
  /// How the queue runs gnubg.
  struct options {
    /// The gnubg program (a path, e.g. /usr/games/gnubg; tests give a wrapper script).
    std::string gnubg = "/usr/games/gnubg";
    /// Worker threads, hence gnubg processes at most at once (>= 1).
    int workers = 1;
    /// Matches waiting (not counting those being analysed) at most; submit() refuses
    /// more (>= 1).
    std::size_t capacity = 100;
    /// Matches waiting at most per owner (job::owners): submit() refuses one more of
    /// an owner who has as many waiting already (>= 1). With the round-robin below, one
    /// player's many tiny matches cannot keep another's from being analysed.
    std::size_t per_owner = 5;
    analysis_level level = analysis_level::worldclass;
    /// Time limit of one gnubg run: past it the process group is killed and the
    /// analysis fails (no retry).
    std::chrono::milliseconds timeout{std::chrono::minutes{15}};
    /// The gnubg processes' niceness (0..19; child_process): at 19, the default, an
    /// analysis only gets CPU time that live tables, bots and the network do not want.
    int niceness = 19;
    /// Where each analysis gets a scratch directory (the .mat, the script, gnubg's HOME
    /// and log), removed afterwards. Empty: the system's temporary directory.
    std::filesystem::path scratch;
    /// Called with (waiting, running) whenever either changes (for gauges), with the
    /// queue's mutex held: it must be quick and must not call the queue.
    std::function<void(std::size_t waiting, std::size_t running)> on_change;
    /// Whether the server is too busy for another analysis to start now (issue 15: even
    /// at the lowest CPU priority a running gnubg cost the tables their p99 at 5,000
    /// commands/s on two cores). Asked before each match is taken, then every
    /// `busy_poll` while it answers true; an analysis already running goes on. Called
    /// with the queue's mutex held: it must be quick and must not call the queue.
    /// Unset: never busy.
    std::function<bool()> busy;
    std::chrono::milliseconds busy_poll{1000};
  };

  /// One match to analyse.
  struct job {
    std::int64_t match_id = 0;           ///< the stored match's id
    std::string table;                   ///< the table it was played at (for the ready event)
    std::string mat;                     ///< its .mat text (store/mat_export), red = left column
    std::array<std::string, 2> players;  ///< [red, black] names
    /// The names the match counts against for fairness (per_owner, and the round-robin
    /// between owners when a worker takes the next match), e.g. the name keys of its
    /// human players. Empty: both `players`, except computer players (is_bot_name);
    /// a match of computer players only counts against the owner "".
    std::vector<std::string> owners;
  };

  /// What became of one job.
  struct outcome {
    bool done = false;  ///< true: `result` holds the analysis; false: `reason` says why not
    /// gammond's analysis (gnubg_analysis.hpp, to_gammond_analysis()) when done.
    nlohmann::json result;
    /// Why it failed, a sentence a player understands ("gnubg took longer than 900 s").
    std::string reason;
    int crashes = 0;       ///< gnubg runs that crashed (a second crash fails the job)
    double seconds = 0.0;  ///< wall time of the last gnubg run
  };

  /// Called once per job, on a worker thread, when its analysis is done or has failed.
  /// Exceptions escaping it are logged.
  using done_handler = std::function<void(const job&, outcome&)>;

  /// What submit() did.
  enum class submitted : unsigned char {
    queued,      ///< it waits for a worker
    full,        ///< refused: `capacity` matches are waiting already
    owner_full,  ///< refused: one of its owners has `per_owner` matches waiting already
    duplicate,   ///< refused: that match is waiting or being analysed already
    stopped,     ///< refused: stop() was called
  };

  /// Starts `opts.workers` worker threads. Throws std::invalid_argument when workers or
  /// capacity is 0, std::system_error when the stop event cannot be created.
  analysis_queue(options opts, done_handler on_done);
  ~analysis_queue();
  analysis_queue(const analysis_queue&) = delete;
  analysis_queue& operator=(const analysis_queue&) = delete;

  /// Queues `j` unless the queue is full, one of its owners has `per_owner` matches
  /// waiting, the queue has it already, or is stopped. Never blocks on gnubg (a mutex
  /// held for a push only). Workers take the waiting match whose owners were served
  /// least recently (round-robin between owners; first come, first served among equals).
  submitted submit(job j);
  /// Stops the workers: running gnubg processes are killed, waiting jobs are dropped
  /// (their on_done is not called: they stay pending in the database and are queued
  /// again at the next start). Idempotent; returns once every worker has ended.
  void stop();

  /// Matches waiting for a worker.
  [[nodiscard]] std::size_t waiting() const;
  /// Matches being analysed now.
  [[nodiscard]] std::size_t running() const;
  [[nodiscard]] const options& settings() const noexcept { return options_; }

 private:
  void work();
  outcome analyse(const job& j);
  [[nodiscard]] bool stopping() const;
  void changed();  ///< mutex_ held
  /// Takes the next match by the round-robin between owners; mutex_ held, waiting_ not empty.
  job take_next();

  /// One owner's share of the queue: matches waiting and running, and when it was last
  /// served (0: never). Kept only while it has a match waiting or running.
  struct owner_share {
    std::size_t waiting = 0;
    std::size_t running = 0;
    std::uint64_t served = 0;
  };

  options options_;
  done_handler on_done_;
  int stop_fd_ = -1;  ///< an eventfd, readable once stop() is called
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<job> waiting_;
  std::set<std::int64_t> known_;  ///< ids waiting or running
  /// Owners with a match waiting or running: at most 2 * (capacity + workers) entries.
  std::map<std::string, owner_share> owners_;
  std::uint64_t serial_ = 0;  ///< the last `served` given
  std::size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;  // last: started once everything above is ready
};

/// "queued", "full", "owner_full", "duplicate", "stopped".
[[nodiscard]] const char* to_string(analysis_queue::submitted s) noexcept;

}  // namespace bg::bots
