#include "bg/bots/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace bg::bots {

namespace {

/// A file descriptor, closed with its scope.
class fd {
 public:
  explicit fd(int value) noexcept : value_(value) {}
  ~fd() { reset(); }
  fd(const fd&) = delete;
  fd& operator=(const fd&) = delete;
  [[nodiscard]] int get() const noexcept { return value_; }
  void reset() noexcept {
    if (value_ >= 0) ::close(value_);
    value_ = -1;
  }

 private:
  int value_;
};

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

/// In a forked child: makes `from` the descriptor `to` (dup2), and open across exec
/// (dup2 onto itself would keep a close-on-exec flag). Async-signal-safe.
bool onto(int from, int to) noexcept {
  if (from < 0) return false;
  if (from == to) return ::fcntl(to, F_SETFD, 0) == 0;
  return ::dup2(from, to) >= 0;
}

/// close_range(2) as a raw system call (glibc's wrapper is recent).
int close_fds(unsigned first, unsigned last) noexcept {
  return static_cast<int>(::syscall(SYS_close_range, first, last, 0U));
}

/// In a forked child: closes every descriptor from 3 up but `keep`.
/// Async-signal-safe; without close_range (Linux < 5.9) one close() per number.
void close_from_3_but(int keep) noexcept {
  const auto k = static_cast<unsigned>(keep);
  const bool ok = keep < 3 ? close_fds(3, ~0U) == 0
                           : (k == 3 || close_fds(3, k - 1) == 0) && close_fds(k + 1, ~0U) == 0;
  if (ok) return;
  for (int n = 3; n < (1 << 16); ++n)
    if (n != keep) ::close(n);
}

}  // namespace

std::string exit_status::describe() const {
  if (exited) return "exit code " + std::to_string(code);
  const char* name = ::strsignal(signal);  // NOLINT(concurrency-mt-unsafe): a constant text
  return "signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
}

child_process::child_process(const std::vector<std::string>& argv,
                             const std::vector<std::string>& env, const std::filesystem::path& dir,
                             const std::filesystem::path& log, int niceness) {
  if (argv.empty()) throw std::invalid_argument("child_process: no program");
  const fd out(::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (out.get() < 0)
    throw std::system_error(errno, std::generic_category(), "cannot open " + log.string());
  const fd in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (in.get() < 0)
    throw std::system_error(errno, std::generic_category(), "cannot open /dev/null");
  spawn(argv, env, dir, child_stdio{in.get(), out.get(), out.get()}, niceness);
}

child_process::child_process(const std::vector<std::string>& argv,
                             const std::vector<std::string>& env, const std::filesystem::path& dir,
                             const child_stdio& stdio, int niceness) {
  if (argv.empty()) throw std::invalid_argument("child_process: no program");
  spawn(argv, env, dir, stdio, niceness);
}

void child_process::spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          const std::filesystem::path& dir, const child_stdio& stdio,
                          int niceness) {
  // Everything the child needs is made before fork(): between fork() and exec() the
  // child of a threaded process may only make async-signal-safe calls.
  auto args = pointers(argv);
  auto vars = pointers(env);
  std::array<int, 2> report{-1, -1};  // exec's failure comes back through it
  if (::pipe2(report.data(), O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  const fd report_read(report[0]);
  fd report_write(report[1]);
  const pid_t parent = ::getpid();
  // No signal handler may run in the child before exec: every signal is blocked around
  // fork() here and unblocked in the child once the dispositions are back to default.
  sigset_t all;
  sigset_t before;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &before);
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The child: its own process group (a kill reaches what it starts), killed when the
    // thread that started it ends (gammond killed with SIGKILL included), the parent's
    // signal dispositions reset, stdin from /dev/null, stdout and stderr to the log.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // A raw system call (as the others here): lowering one's own priority cannot fail
    // for lack of rights, and a failure would only leave the default priority.
    if (niceness > 0) ::syscall(SYS_setpriority, PRIO_PROCESS, 0, niceness);
    // At 19, also the SCHED_IDLE class (issue 15): a nice value only weighs the child's
    // share, and measured at 5,000 commands/s a gnubg at nice 19 still took a quarter of
    // the machine from gammond; a thread of any other class that wakes takes the CPU
    // from an idle-class one at once.
    if (niceness >= 19) {
      sched_param idle{};
      idle.sched_priority = 0;
      ::syscall(SYS_sched_setscheduler, 0, SCHED_IDLE, &idle);
    }
    if (::getppid() != parent) ::_exit(127);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig)
      if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (!onto(stdio.in, 0) || !onto(stdio.out, 1) || !onto(stdio.err, 2) ||
        ::chdir(dir.c_str()) != 0) {
      const int error = errno;
      [[maybe_unused]] const auto n = ::write(report_write.get(), &error, sizeof error);
      ::_exit(127);
    }
    // Nothing of the parent's but the three streams goes on into the program: gammond's
    // listening and client sockets, the database, other children's pipes (issue 25).
    // Only the report pipe stays open until exec (it is close-on-exec).
    close_from_3_but(report_write.get());
    ::execve(args[0], args.data(), vars.data());
    const int error = errno;
    [[maybe_unused]] const auto n = ::write(report_write.get(), &error, sizeof error);
    ::_exit(127);
  }
  const int fork_error = errno;
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  report_write.reset();
  if (pid < 0) throw std::system_error(fork_error, std::generic_category(), "fork");
  pid_ = pid;
  int error = 0;
  ssize_t n = -1;
  do {
    n = ::read(report_read.get(), &error, sizeof error);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof error)) {  // exec failed: the child is gone
    reap();
    throw std::system_error(error, std::generic_category(), "cannot start " + argv.front());
  }
  const auto pidfd = ::syscall(SYS_pidfd_open, pid, 0);
  if (pidfd < 0) {
    const int open_error = errno;
    ::kill(-pid_, SIGKILL);
    reap();
    throw std::system_error(open_error, std::generic_category(), "pidfd_open");
  }
  pidfd_ = static_cast<int>(pidfd);
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

void child_process::signal_kill() noexcept {
  if (!status_) ::kill(-pid_, SIGKILL);
}

exit_status child_process::kill() {
  if (status_) return *status_;
  ::kill(-pid_, SIGKILL);
  return reap();
}

}  // namespace bg::bots
