#pragma once
/// @file piped_process.hpp
/// Runs a program with its stdin and stdout (stderr merged in) on pipes, for tests
/// that drive a command-line client line by line.
///
/// Usage:
/// @code
///   bg::test::piped_process term{{GAMMON_TERM_BINARY, "--name", "alice"}};
///   term.write_line("/join");
///   auto line = term.read_line(deadline);   // nullopt on timeout or end of output
///   term.close_stdin();
///   CHECK(term.wait(std::chrono::seconds{5}) == 0);
/// @endcode
/// The destructor kills a still running process (SIGKILL) and waits for it.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace bg::test {

/// One child process with piped stdin and stdout. Not thread-safe.
class piped_process {
 public:
  using clock_type = std::chrono::steady_clock;

  /// Starts `argv` (argv[0] is the program's path) with the test's environment plus
  /// `env` ("NAME=value" entries). Throws std::runtime_error when it cannot start.
  explicit piped_process(std::vector<std::string> argv, std::vector<std::string> env = {});
  /// Kills (SIGKILL) a still running process and waits for it.
  ~piped_process();
  piped_process(const piped_process&) = delete;
  piped_process& operator=(const piped_process&) = delete;

  /// Writes `line` and a newline to the child's stdin. Throws std::runtime_error when
  /// stdin is closed or the child is gone.
  void write_line(const std::string& line);
  /// Closes the child's stdin (it reads the end of input).
  void close_stdin();
  /// The next line of output (without the newline), waiting until `deadline`;
  /// nullopt on timeout or when the output has ended.
  [[nodiscard]] std::optional<std::string> read_line(clock_type::time_point deadline);
  /// Waits up to `timeout` for the child to exit; returns its exit code, 128 + the
  /// signal when a signal ended it, or -1 after the timeout (the child is then killed).
  int wait(std::chrono::milliseconds timeout);
  /// Every line read so far, for failure messages (the last `max_lines`).
  [[nodiscard]] std::string transcript(std::size_t max_lines = 80) const;

 private:
  pid_t pid_ = 0;
  int in_ = -1;   ///< the write end of the child's stdin
  int out_ = -1;  ///< the read end of the child's stdout
  std::string buffer_;
  std::vector<std::string> lines_;
  bool out_ended_ = false;
};

}  // namespace bg::test
