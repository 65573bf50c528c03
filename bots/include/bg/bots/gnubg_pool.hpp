#pragma once
/// @file gnubg_pool.hpp
/// A supervised pool of GNU Backgammon processes serving `external` requests: a FIBS
/// `board:` line in, one answer line out, one request at a time per process.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bg/bots/gnubg_level.hpp"
#include "bg/engine/error.hpp"

namespace bg::bots {

/// How the pool runs gnubg.
struct gnubg_pool_options {
  /// The gnubg program (or a wrapper that execs it), started as
  /// `PROGRAM -t -q -r` with its commands on standard input.
  std::string program = "/usr/games/gnubg";
  std::size_t max_processes = 2;  ///< processes running at most (started on demand)
  /// One attempt's time limit, for starting a process for the request (until gnubg
  /// listens and the connection is made) and again for its answer. On timeout the
  /// process is killed and the request retried.
  std::chrono::milliseconds timeout{std::chrono::seconds{15}};
  int retries = 2;                ///< attempts after the first one (timeout, EOF, malformed answer)
  std::size_t max_waiting = 256;  ///< requests waiting for a process, at most
  /// Processes started at most in any `start_window` (0: no limit). Past it a request
  /// that needs a new process waits in the queue (bounded by max_waiting) until a start
  /// is allowed again; requests for the levels already running are served meanwhile.
  std::size_t max_starts = 60;
  std::chrono::milliseconds start_window{std::chrono::minutes{1}};  ///< see max_starts
};

/// What the pool has done, for /metrics. Counters only grow.
struct gnubg_pool_stats {
  /// One running process: its pid and the level it is set to.
  struct process_info {
    std::int64_t pid = 0;
    gnubg_level level = gnubg_level::expert;
    bool busy = false;
  };
  std::vector<process_info> processes;
  std::size_t waiting = 0;         ///< requests waiting for a process
  std::uint64_t requests = 0;      ///< requests asked
  std::uint64_t answers = 0;       ///< requests answered
  std::uint64_t failed = 0;        ///< requests given up after every retry
  std::uint64_t started = 0;       ///< processes started
  std::uint64_t timeouts = 0;      ///< attempts that ran out of time
  std::uint64_t ended = 0;         ///< processes that ended or closed the socket by themselves
  std::uint64_t malformed = 0;     ///< answers that were not what was asked for
  std::uint64_t refused = 0;       ///< requests refused because max_waiting were waiting
  std::uint64_t start_delays = 0;  ///< times a start waited for the start limit
};

/// Receives the answer line to one request (without "\n" and trailing blanks), or an
/// error: "bot_failed" (every attempt failed; the message says how) or "bot_busy"
/// (too many requests waiting). Called exactly once, on the pool's own thread.
using gnubg_answer_handler = std::function<void(engine::result<std::string>)>;

/// Decides whether an answer line is well formed for the request it answers (a play
/// for a play, "take"/"drop"/"beaver" for a take, ...). A malformed answer counts as a
/// failed attempt: the process is killed and the request retried.
using gnubg_answer_check = std::function<bool(std::string_view answer)>;

/// The pool. Its processes run on a thread of the pool's own (an io_context of its
/// own), so gnubg never runs on the server's I/O threads nor blocks a table: ask()
/// only queues. Processes listen on 127.0.0.1 only, at a port the pool picks; each is
/// set to one level when it starts (gnubg reads no settings while it serves
/// `external`), so a request for another level takes an idle process of its level,
/// starts one (up to max_processes), or replaces an idle process of another level.
///
/// A process that does not answer in time, closes the connection, ends, or answers
/// something malformed is killed (SIGKILL) and its request goes to another process,
/// up to `retries` times. The destructor kills every process and waits for them.
///
/// The pool's thread never waits on a child: processes run through child_process
/// (every descriptor of the server's closed in the child) and are reaped once their
/// pidfd says they ended, so a time limit always fires (steady clock) and a stopped
/// (SIGSTOP) or dead gnubg is killed, reaped and replaced. Starts are limited to
/// `max_starts` per `start_window`.
class gnubg_pool {
 public:
  explicit gnubg_pool(gnubg_pool_options options);
  ~gnubg_pool();
  gnubg_pool(const gnubg_pool&) = delete;
  gnubg_pool& operator=(const gnubg_pool&) = delete;

  /// Sends `request` (one line, no "\n": a `board:` line with its options, or
  /// `evaluation fibsboard board:...`) to a process set to `level`; `check` judges the
  /// answer; `done` gets it. Thread-safe; never blocks.
  void ask(gnubg_level level, std::string request, gnubg_answer_check check,
           gnubg_answer_handler done);

  /// A copy of the counters and the running processes (thread-safe).
  [[nodiscard]] gnubg_pool_stats stats() const;

  /// Kills every process and fails every request still waiting ("bot_failed");
  /// later ask() calls fail at once. Idempotent; the destructor calls it.
  void stop();

  /// Why `program` cannot be run (it does not exist or is not executable), as a
  /// sentence, or an empty string when it can.
  [[nodiscard]] static std::string problem_with(const std::string& program);

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace bg::bots
