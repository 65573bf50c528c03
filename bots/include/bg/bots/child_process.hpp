#pragma once
/// @file child_process.hpp
/// A program run as a child process (GNU Backgammon, for the analysis queue): in a
/// process group of its own, so that a time limit or a shutdown ends it with everything
/// it started, and killed (Linux PR_SET_PDEATHSIG) when the thread that started it ends,
/// so that a gammond killed with SIGKILL leaves no gnubg running; waited for with a
/// Linux pidfd, so that a wait has a deadline and can be cut short without polling.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace bg::bots {

/// How a child process ended.
struct exit_status {
  bool exited = false;  ///< true: it called exit(`code`); false: signal `signal` ended it
  int code = 0;         ///< the exit code when `exited`
  int signal = 0;       ///< the signal number when !`exited` (SIGSEGV, SIGKILL, ...)
  /// "exit code 2", "signal 11 (Segmentation fault)": for logs and failure reasons.
  [[nodiscard]] std::string describe() const;
};

/// File descriptors of the caller's that become a child's standard input, output and
/// error (dup2'd to 0, 1 and 2 in the child). Each must be open; the same one may be
/// given twice (output and error to one pipe). The caller keeps and closes its own.
struct child_stdio {
  int in = -1;
  int out = -1;
  int err = -1;
};

/// One running child process. Not copyable; the destructor kills the process group
/// (SIGKILL) and reaps the child if it is still running. Not thread-safe: one thread
/// starts, waits for and kills it (stop_fd lets another thread cut a wait short).
class child_process {
 public:
  /// Starts `argv[0]` (a path; PATH is not searched) with the arguments `argv`, the
  /// environment `env` (only these "NAME=value" entries), the working directory `dir`,
  /// stdin from /dev/null and stdout and stderr appended to `log` (created if needed),
  /// every signal at its default disposition, in a new process group, and with SIGKILL
  /// as its parent-death signal: it dies with the calling thread. `niceness` (0..19)
  /// lowers its CPU priority (setpriority(2)); 19 also puts it in the SCHED_IDLE class
  /// (sched(7)), so that it runs only on CPU time nothing else wants. Throws
  /// std::system_error when it cannot be started (no such file, not executable, no such
  /// directory, no pidfd), std::invalid_argument when `argv` is empty.
  child_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                const std::filesystem::path& dir, const std::filesystem::path& log,
                int niceness = 0);
  /// As above, with the standard streams taken from `stdio` (pipes of the caller's, for a
  /// program that is talked to, like gnubg's `external` set-up) instead of /dev/null and a
  /// log file. In both forms the child holds no other descriptor of the caller's: every
  /// one from 3 up is closed before exec (close_range(2)), sockets included.
  child_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                const std::filesystem::path& dir, const child_stdio& stdio, int niceness = 0);
  ~child_process();
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  /// Waits until the child ends (and reaps it), `timeout` passes, or `stop_fd` (a file
  /// descriptor, -1 for none) becomes readable. Returns how it ended, or nullopt when it
  /// is still running (the timeout passed or stop_fd woke the wait). Once the child has
  /// ended, returns the same status again at once.
  std::optional<exit_status> wait_for(std::chrono::milliseconds timeout, int stop_fd = -1);
  /// Sends SIGKILL to the child's whole process group and reaps the child. Returns how
  /// it ended (a signal, or its exit if it ended first).
  exit_status kill();
  /// Sends SIGKILL to the child's whole process group and returns at once, without
  /// reaping: for an event loop, which learns of the end from pidfd() and then reaps
  /// with wait_for(0ms). Does nothing once the child is reaped.
  void signal_kill() noexcept;
  /// The child's process id (also its process group id).
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  /// The child's pidfd (close-on-exec, owned by this object): readable once the child has
  /// ended, for poll(2) or an event loop. Never blocks to read it.
  [[nodiscard]] int pidfd() const noexcept { return pidfd_; }

 private:
  void spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
             const std::filesystem::path& dir, const child_stdio& stdio, int niceness);
  exit_status reap();

  pid_t pid_ = -1;
  int pidfd_ = -1;
  std::optional<exit_status> status_;
};

}  // namespace bg::bots
