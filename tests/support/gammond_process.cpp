// Runs the real gammond binary for integration tests (gammond_process.hpp).

#include "gammond_process.hpp"

#include "postgres_server.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX

namespace bg::test {
namespace {

using namespace std::chrono_literals;

std::filesystem::path make_temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "gammond-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("gammond_process: mkdtemp failed: " +
                             std::string{std::strerror(errno)});
  }
  return pattern;
}

/// The exit code of a waitpid status: the code, or 128 + the signal.
int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

bool has_flag(const std::vector<std::string>& flags, const std::string& name) {
  return std::any_of(flags.begin(), flags.end(), [&](const std::string& f) {
    return f == name || f.rfind(name + "=", 0) == 0;
  });
}

}  // namespace

/// True when the tests run on PostgreSQL (GAMMOND_TEST_STORE=postgres).
bool postgres_wanted() {
  const char* store = std::getenv("GAMMOND_TEST_STORE");  // NOLINT(concurrency-mt-unsafe)
  if (store == nullptr || *store == '\0' || std::string_view{store} == "sqlite") return false;
  if (std::string_view{store} == "postgres") return true;
  throw std::runtime_error("gammond_process: GAMMOND_TEST_STORE is \"" + std::string{store} +
                           "\"; sqlite or postgres expected");
}

gammond_process::gammond_process(std::vector<std::string> extra_flags,
                                 std::chrono::milliseconds startup_timeout)
    : dir_{make_temp_dir()}, flags_{std::move(extra_flags)}, startup_timeout_{startup_timeout} {
  try {
    if (postgres_wanted() && !has_flag(flags_, "--db"))
      postgres_url_ = postgres_server::shared().create_database();
    start();
  } catch (...) {
    if (!postgres_url_.empty()) postgres_server::shared().drop_database(postgres_url_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    throw;
  }
}

gammond_process::~gammond_process() {
  if (pid_ != 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  if (!postgres_url_.empty()) postgres_server::shared().drop_database(postgres_url_);
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string gammond_process::db() const {
  // An explicit --db URL (a cluster's nodes share one database) is the database.
  for (std::size_t i = 0; i + 1 < flags_.size(); ++i)
    if (flags_[i] == "--db") return flags_[i + 1];
  return postgres_url_.empty() ? database().string() : postgres_url_;
}

std::string gammond_process::database_contents() const {
  if (!postgres_url_.empty()) return postgres_server::dump(postgres_url_);
  std::string bytes;
  for (const auto& file : {database(), std::filesystem::path{database().string() + "-wal"}}) {
    std::ifstream in{file, std::ios::binary};
    bytes.append(std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{});
  }
  return bytes;
}

void gammond_process::start() {
  const auto port_file = dir_ / "port";
  std::error_code ec;
  std::filesystem::remove(port_file, ec);

  // GAMMOND_TEST_BINARY runs the tests against another build of gammond (an older
  // commit's, to see a new test fail there first).
  const char* other = std::getenv("GAMMOND_TEST_BINARY");
  std::vector<std::string> args{other != nullptr && *other != '\0' ? other : GAMMOND_BINARY,
                                "--port", "0", "--port-file", port_file.string()};
  if (!has_flag(flags_, "--db")) {
    args.emplace_back("--db");
    args.push_back(db());
  }
  // The FIBS port (issue 32): where it was asked for, its port file is ours too.
  const auto fibs_port_file = dir_ / "fibs-port";
  const bool fibs = has_flag(flags_, "--fibs-port");
  if (fibs) {
    std::filesystem::remove(fibs_port_file, ec);
    args.emplace_back("--fibs-port-file");
    args.push_back(fibs_port_file.string());
  }
  if (!has_flag(flags_, "--log-level")) {
    args.emplace_back("--log-level");
    args.emplace_back("debug");
  }
  // Match analysis runs gnubg for seconds of CPU per finished match: only the tests
  // that are about it turn it on (issue 14).
  if (!has_flag(flags_, "--analysis-workers")) {
    args.emplace_back("--analysis-workers");
    args.emplace_back("0");
  }
  if (!has_flag(flags_, "--register-per-hour")) {
    args.emplace_back("--register-per-hour");
    args.emplace_back("0");
  }
  // Tests poll the HTTP reads (eventually): only the tests about the per-address read
  // rate set it.
  if (!has_flag(flags_, "--api-reads-per-second")) {
    args.emplace_back("--api-reads-per-second");
    args.emplace_back("100000");
  }
  if (!has_flag(flags_, "--api-read-burst")) {
    args.emplace_back("--api-read-burst");
    args.emplace_back("100000");
  }
  args.insert(args.end(), flags_.begin(), flags_.end());
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  const std::string log_path = log_file().string();
  ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                     0644);
  ::posix_spawn_file_actions_adddup2(&actions, 1, 2);
  // Whatever the test process blocks or ignores, gammond starts with default signal
  // handling (its SIGTERM/SIGINT handling is what tests exercise).
  posix_spawnattr_t attributes;
  ::posix_spawnattr_init(&attributes);
  sigset_t signals;
  ::sigemptyset(&signals);
  ::posix_spawnattr_setsigmask(&attributes, &signals);
  ::sigaddset(&signals, SIGINT);
  ::sigaddset(&signals, SIGTERM);
  ::sigaddset(&signals, SIGPIPE);
  ::posix_spawnattr_setsigdefault(&attributes, &signals);
  ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attributes);
  if (spawned != 0) {
    throw std::runtime_error("gammond_process: cannot start " + args[0] + ": " +
                             std::strerror(spawned));
  }
  pid_ = pid;
  port_ = 0;

  const auto deadline = std::chrono::steady_clock::now() + startup_timeout_;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = 0;
      throw std::runtime_error("gammond_process: gammond exited with code " +
                               std::to_string(exit_code(status)) + " before listening. Log:\n" +
                               log());
    }
    std::ifstream in{port_file};
    unsigned port = 0;
    if (in >> port && port > 0 && port < 65536) {
      port_ = static_cast<std::uint16_t>(port);
      fibs_port_ = 0;
      if (fibs) {
        // gammond writes the FIBS port file before the HTTP one (network_server::start).
        std::ifstream fibs_in{fibs_port_file};
        unsigned fp = 0;
        if (fibs_in >> fp && fp > 0 && fp < 65536) fibs_port_ = static_cast<std::uint16_t>(fp);
      }
      return;
    }
    std::this_thread::sleep_for(10ms);
  }
  stop(SIGKILL);
  throw std::runtime_error("gammond_process: no port file after " +
                           std::to_string(startup_timeout_.count()) + " ms. Log:\n" + log());
}

bool gammond_process::running() {
  if (pid_ == 0) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) pid_ = 0;
  return pid_ != 0;
}

int gammond_process::stop(int signal, std::chrono::milliseconds timeout) {
  if (pid_ == 0) return -1;
  ::kill(pid_, signal);
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const pid_t ended = ::waitpid(pid_, &status, WNOHANG);
    if (ended == pid_ || (ended < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(5ms);
  }
  pid_ = 0;
  port_ = 0;
  return exit_code(status);
}

void gammond_process::restart(int signal) {
  stop(signal);
  start();
}

http_result gammond_process::get(const std::string& target,
                                 std::chrono::milliseconds timeout) const {
  return http_get(host(), port_, target, timeout);
}

double gammond_process::metric(const std::string& name) const {
  const auto res = get("/metrics");
  if (res.status != 200) {
    throw std::runtime_error("gammond_process: GET /metrics answered " +
                             std::to_string(res.status));
  }
  std::istringstream lines{res.body};
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > name.size() && line.compare(0, name.size(), name) == 0 &&
        line[name.size()] == ' ') {
      return std::stod(line.substr(name.size() + 1));
    }
  }
  throw std::runtime_error("gammond_process: /metrics has no sample " + name);
}

std::string gammond_process::log() const {
  std::ifstream in{log_file()};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace bg::test

namespace bg::test {

gammond_run run_gammond(const std::vector<std::string>& args, const std::string& input) {
  const auto out_path =
      std::filesystem::temp_directory_path() /
      ("gammond-run-" + std::to_string(::getpid()) + "-" +
       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  int in_pipe[2];
  if (::pipe(in_pipe) != 0) throw std::runtime_error("run_gammond: pipe failed");
  std::vector<std::string> all{GAMMOND_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  ::posix_spawn_file_actions_addclose(&actions, in_pipe[1]);
  const std::string out = out_path.string();
  ::posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ::posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::close(in_pipe[0]);
  if (spawned != 0) {
    ::close(in_pipe[1]);
    throw std::runtime_error("run_gammond: cannot start " + all[0]);
  }
  std::size_t written = 0;
  while (written < input.size()) {
    const auto n = ::write(in_pipe[1], input.data() + written, input.size() - written);
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  ::close(in_pipe[1]);
  gammond_run result;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{60};
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in{out_path, std::ios::binary};
  result.output.assign(std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{});
  std::error_code ec;
  std::filesystem::remove(out_path, ec);
  return result;
}

void gammond_process::create_admin(const std::string& name, const std::string& password) {
  stop();
  const auto run = run_gammond({"admin", "create", name, "--db", db()}, password + "\n");
  if (run.exit_code != 0)
    throw std::runtime_error("gammond admin create " + name + " exited " +
                             std::to_string(run.exit_code) + ": " + run.output);
  start();
}

}  // namespace bg::test
