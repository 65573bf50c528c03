// A child process on pipes for tests (piped_process.hpp).

#include "piped_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX

namespace bg::test {
namespace {

int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

piped_process::piped_process(std::vector<std::string> argv, std::vector<std::string> env) {
  int in[2];
  int out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error("piped_process: pipe failed");
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    throw std::runtime_error("piped_process: pipe failed");
  }
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  ::posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  ::posix_spawn_file_actions_adddup2(&actions, out[1], 2);

  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) environment.emplace_back(*e);
  environment.insert(environment.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  ::posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  if (spawned != 0) {
    ::close(in[1]);
    ::close(out[0]);
    throw std::runtime_error("piped_process: cannot start " + argv.front() + ": " +
                             std::strerror(spawned));
  }
  pid_ = pid;
  in_ = in[1];
  out_ = out[0];
}

piped_process::~piped_process() {
  if (in_ >= 0) ::close(in_);
  if (out_ >= 0) ::close(out_);
  if (pid_ != 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

void piped_process::write_line(const std::string& line) {
  if (in_ < 0) throw std::runtime_error("piped_process: stdin is closed");
  const std::string data = line + "\n";
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(in_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error("piped_process: write failed: " + std::string{std::strerror(errno)});
    done += static_cast<std::size_t>(n);
  }
}

void piped_process::close_stdin() {
  if (in_ >= 0) ::close(in_);
  in_ = -1;
}

std::optional<std::string> piped_process::read_line(clock_type::time_point deadline) {
  for (;;) {
    if (const auto end = buffer_.find('\n'); end != std::string::npos) {
      std::string line = buffer_.substr(0, end);
      buffer_.erase(0, end + 1);
      lines_.push_back(line);
      return line;
    }
    if (out_ended_) return std::nullopt;
    const auto now = clock_type::now();
    if (now >= deadline) return std::nullopt;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    pollfd p{out_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char chunk[8192];
    const ssize_t n = ::read(out_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      out_ended_ = true;
      continue;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

int piped_process::wait(std::chrono::milliseconds timeout) {
  if (pid_ == 0) return -1;
  const auto deadline = clock_type::now() + timeout;
  int status = 0;
  for (;;) {
    const pid_t ended = ::waitpid(pid_, &status, WNOHANG);
    if (ended == pid_) break;
    if (ended < 0 && errno != EINTR) return -1;
    if (clock_type::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      pid_ = 0;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{5});
  }
  pid_ = 0;
  return exit_code(status);
}

std::string piped_process::transcript(std::size_t max_lines) const {
  std::string out;
  const std::size_t from = lines_.size() > max_lines ? lines_.size() - max_lines : 0;
  for (std::size_t i = from; i < lines_.size(); ++i) out += lines_[i] + "\n";
  return out + buffer_;
}

}  // namespace bg::test
