#include "bg/bots/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <system_error>

extern char** environ;  // NOLINT(readability-redundant-declaration): posix_spawn's

namespace bg::bots {

namespace {

/// The posix_spawn attribute and file actions, destroyed with their scope.
struct spawn_setup {
  posix_spawnattr_t attr{};
  posix_spawn_file_actions_t actions{};
  spawn_setup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~spawn_setup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  spawn_setup(const spawn_setup&) = delete;
  spawn_setup& operator=(const spawn_setup&) = delete;
};

void check(int rc, const char* what) {
  if (rc != 0) throw std::system_error(rc, std::generic_category(), what);
}

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));  // NOLINT
  out.push_back(nullptr);
  return out;
}

exit_status status_of(int raw) {
  exit_status s;
  if (WIFEXITED(raw)) {
    s.exited = true;
    s.code = WEXITSTATUS(raw);
  } else if (WIFSIGNALED(raw)) {
    s.signal = WTERMSIG(raw);
  }
  return s;
}

}  // namespace

std::string exit_status::describe() const {
  if (exited) return "exit code " + std::to_string(code);
  const char* name = ::strsignal(signal);  // NOLINT(concurrency-mt-unsafe): a constant text
  return "signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
}

child_process::child_process(const std::vector<std::string>& argv,
                             const std::vector<std::string>& env, const std::filesystem::path& dir,
                             const std::filesystem::path& log) {
  if (argv.empty()) throw std::invalid_argument("child_process: no program");
  spawn_setup s;
  check(posix_spawnattr_setflags(
            &s.attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF),
        "posix_spawnattr_setflags");
  check(posix_spawnattr_setpgroup(&s.attr, 0), "posix_spawnattr_setpgroup");
  // The child starts with no signal blocked and every signal at its default, whatever
  // the parent's threads block or handle (gammond handles SIGINT and SIGTERM).
  sigset_t none;
  sigemptyset(&none);
  check(posix_spawnattr_setsigmask(&s.attr, &none), "posix_spawnattr_setsigmask");
  sigset_t all;
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  check(posix_spawnattr_setsigdefault(&s.attr, &all), "posix_spawnattr_setsigdefault");
  check(posix_spawn_file_actions_addopen(&s.actions, 0, "/dev/null", O_RDONLY, 0),
        "posix_spawn_file_actions_addopen");
  check(posix_spawn_file_actions_addopen(&s.actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                         0600),
        "posix_spawn_file_actions_addopen");
  check(posix_spawn_file_actions_adddup2(&s.actions, 1, 2), "posix_spawn_file_actions_adddup2");
  check(posix_spawn_file_actions_addchdir_np(&s.actions, dir.c_str()),
        "posix_spawn_file_actions_addchdir_np");
  auto args = pointers(argv);
  auto vars = pointers(env);
  pid_t pid = -1;
  check(posix_spawn(&pid, argv.front().c_str(), &s.actions, &s.attr, args.data(), vars.data()),
        ("cannot start " + argv.front()).c_str());
  pid_ = pid;
  const auto fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) {
    const int error = errno;
    ::kill(-pid_, SIGKILL);
    reap();
    throw std::system_error(error, std::generic_category(), "pidfd_open");
  }
  pidfd_ = static_cast<int>(fd);
}

child_process::~child_process() {
  if (!status_) kill();
  if (pidfd_ >= 0) ::close(pidfd_);
}

exit_status child_process::reap() {
  int raw = 0;
  pid_t r = -1;
  do {
    r = ::waitpid(pid_, &raw, 0);
  } while (r < 0 && errno == EINTR);
  status_ = r == pid_ ? status_of(raw) : exit_status{false, 0, SIGKILL};
  return *status_;
}

std::optional<exit_status> child_process::wait_for(std::chrono::milliseconds timeout, int stop_fd) {
  if (status_) return status_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::array<pollfd, 2> fds{pollfd{pidfd_, POLLIN, 0}, pollfd{stop_fd, POLLIN, 0}};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    const int wait_ms = static_cast<int>(
        std::max<std::chrono::milliseconds::rep>(0, std::min<long long>(left.count(), 1 << 30)));
    const int n = ::poll(fds.data(), stop_fd >= 0 ? 2 : 1, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), "poll");
    if (fds[0].revents != 0) {
      // The child has ended but is not reaped yet, so its process group id is still
      // reserved: whatever it left running in its group goes with it.
      ::kill(-pid_, SIGKILL);
      return reap();
    }
    if (n > 0) return std::nullopt;  // stop_fd is readable
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
  }
}

exit_status child_process::kill() {
  if (status_) return *status_;
  ::kill(-pid_, SIGKILL);
  return reap();
}

}  // namespace bg::bots
