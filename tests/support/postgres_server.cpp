// A throwaway PostgreSQL server for tests (postgres_server.hpp).

#include "postgres_server.hpp"

#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace bg::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

/// The superuser initdb creates (the same whoever runs the tests).
constexpr const char* superuser = "gammond";

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("postgres_server: " + what);
}

/// Who runs the server: the `postgres` system user when we are root (PostgreSQL
/// refuses to run as root), nobody else (ourselves) otherwise.
struct run_as {
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

run_as server_user() {
  run_as who;
  if (::geteuid() != 0) return who;
  const passwd* pw = ::getpwnam("postgres");
  if (pw == nullptr)
    fail(
        "the tests run as root and there is no 'postgres' user to run PostgreSQL as "
        "(install postgresql-15: scripts/setup)");
  who.switch_user = true;
  who.uid = pw->pw_uid;
  who.gid = pw->pw_gid;
  return who;
}

/// The directory of PostgreSQL's programs: GAMMOND_PG_BINDIR, else the newest
/// /usr/lib/postgresql/N/bin that has initdb.
fs::path bin_dir() {
  if (const char* env = std::getenv("GAMMOND_PG_BINDIR")) return env;  // NOLINT
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec))
    if (fs::exists(entry.path() / "bin" / "initdb", ec)) found.push_back(entry.path() / "bin");
  if (found.empty())
    fail(
        "no PostgreSQL server programs in /usr/lib/postgresql/*/bin (install postgresql-15: "
        "scripts/setup)");
  std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) {
    return std::atoi(a.parent_path().filename().c_str()) <
           std::atoi(b.parent_path().filename().c_str());
  });
  return found.back();
}

/// Hands `path` and everything under it to the server's user.
void give(const fs::path& path, const run_as& who) {
  if (!who.switch_user) return;
  const auto own = [&](const fs::path& p) {
    if (::lchown(p.c_str(), who.uid, who.gid) != 0)
      fail("cannot give " + p.string() + " to the postgres user: " + std::strerror(errno));
  };
  own(path);
  if (fs::is_directory(path))
    for (const auto& entry : fs::recursive_directory_iterator(path)) own(entry.path());
}

/// Starts `args` as the server's user with stdout and stderr appended to `log`; the
/// child gets SIGQUIT (PostgreSQL's immediate shutdown) if this thread dies first.
pid_t spawn(const std::vector<std::string>& args, const fs::path& log, const run_as& who) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) fail(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec.
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int null = ::open("/dev/null", O_RDONLY);
    if (fd < 0 || null < 0) ::_exit(126);
    ::dup2(null, 0);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    if (who.switch_user) {
      if (::setgroups(0, nullptr) != 0 || ::setgid(who.gid) != 0 || ::setuid(who.uid) != 0)
        ::_exit(125);
    }
    // After the user switch (which clears it): end with the test process.
    ::prctl(PR_SET_PDEATHSIG, SIGQUIT);
    if (::getppid() != parent) ::_exit(124);
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs `args` as the server's user to its end; throws with its output when it fails.
void run(const std::vector<std::string>& args, const fs::path& log, const run_as& who) {
  const pid_t pid = spawn(args, log, who);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail(args[0] + " failed (status " + std::to_string(status) + "):\n" + read_file(log));
}

/// The data directory every server of this build starts from: made once with initdb
/// (into a temporary name, then renamed, so concurrent test processes never see half
/// of it) under GAMMOND_TEST_PG_TEMPLATE, or under the temporary directory.
fs::path template_dir(const fs::path& bin, const run_as& who) {
  fs::path root;
  if (const char* env = std::getenv("GAMMOND_TEST_PG_TEMPLATE")) root = env;  // NOLINT
#ifdef GAMMOND_TEST_PG_TEMPLATE_DIR
  if (root.empty()) root = GAMMOND_TEST_PG_TEMPLATE_DIR;
#endif
  if (root.empty()) root = fs::temp_directory_path() / "gammond-pg-template";
  const fs::path ready =
      root.string() + "-" + bin.parent_path().filename().string() + (who.switch_user ? "-pg" : "");
  std::error_code ec;
  if (fs::exists(ready / "PG_VERSION", ec)) return ready;
  fs::create_directories(ready.parent_path(), ec);
  std::string pattern = ready.string() + ".XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    fail("cannot make " + pattern + ": " + std::strerror(errno));
  const fs::path making = pattern;
  try {
    give(making, who);
    const fs::path log = making.string() + ".log";
    run({(bin / "initdb").string(), "-D", making.string(), "-U", superuser, "-A", "trust", "-E",
         "UTF8", "--locale=C", "-N"},
        log, who);
    fs::remove(log, ec);
  } catch (...) {
    fs::remove_all(making, ec);
    throw;
  }
  if (::rename(making.c_str(), ready.c_str()) != 0) fs::remove_all(making, ec);  // another won
  if (!fs::exists(ready / "PG_VERSION", ec)) fail("cannot make the template " + ready.string());
  return ready;
}

/// A libpq connection closed with its scope.
struct pg_link {
  PGconn* conn;
  explicit pg_link(const std::string& url) : conn(PQconnectdb(url.c_str())) {
    if (conn == nullptr || PQstatus(conn) != CONNECTION_OK)
      fail("cannot connect to " + url + ": " + (conn ? PQerrorMessage(conn) : "out of memory"));
  }
  ~pg_link() { PQfinish(conn); }
  pg_link(const pg_link&) = delete;
  pg_link& operator=(const pg_link&) = delete;
};

std::string url_of(const fs::path& dir, const std::string& database) {
  return std::string("postgresql://") + superuser + "@/" + database + "?host=" + dir.string();
}

/// The database named in a URL made by url_of (between "@/" and "?").
std::string database_of(const std::string& url) {
  const auto at = url.find("@/");
  const auto query = url.find('?', at);
  if (at == std::string::npos || query == std::string::npos) return {};
  return url.substr(at + 2, query - at - 2);
}

}  // namespace

postgres_server::postgres_server() {
  const run_as who = server_user();
  const fs::path bin = bin_dir();
  const fs::path tmpl = template_dir(bin, who);
  std::string pattern = (fs::temp_directory_path() / "gammond-pg-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    fail("mkdtemp failed: " + std::string(std::strerror(errno)));
  dir_ = pattern;
  try {
    fs::copy(tmpl, dir_ / "data", fs::copy_options::recursive);
    fs::permissions(dir_ / "data", fs::perms::owner_all, fs::perm_options::replace);
    give(dir_, who);
    admin_url_ = url_of(dir_, "postgres");
    start();
  } catch (...) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    throw;
  }
}

postgres_server::postgres_server(attached, std::string admin_url)
    : admin_url_(std::move(admin_url)), owned_(false) {}

postgres_server::~postgres_server() {
  if (!owned_) return;
  stop();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

postgres_server& postgres_server::shared() {
  if (const char* env = std::getenv("GAMMOND_TEST_POSTGRES"); env && *env) {  // NOLINT
    static postgres_server attached_server(attached{}, env);
    return attached_server;
  }
  static postgres_server own;
  return own;
}

void postgres_server::start() {
  if (!owned_ || pid_ != 0) return;
  const run_as who = server_user();
  const fs::path bin = bin_dir();
  const fs::path log = dir_ / "postgres.log";
  // fsync off: the tests are about gammond, not PostgreSQL's durability; a benchmark
  // comparing the stores turns it on (GAMMOND_TEST_PG_FSYNC=on).
  const char* fsync_env = std::getenv("GAMMOND_TEST_PG_FSYNC");  // NOLINT(concurrency-mt-unsafe)
  const bool fsync = fsync_env != nullptr && std::string(fsync_env) == "on";
  pid_ = spawn({(bin / "postgres").string(), "-D", (dir_ / "data").string(), "-k", dir_.string(),
                "-c", "listen_addresses=", "-c", fsync ? "fsync=on" : "fsync=off", "-c",
                fsync ? "full_page_writes=on" : "full_page_writes=off", "-c", "max_connections=200",
                "-c", "shared_buffers=32MB", "-c", "log_min_messages=warning"},
               log, who);
  const std::string ping = admin_url_ + "&connect_timeout=2";
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = 0;
      fail("PostgreSQL exited at start (status " + std::to_string(status) + "). Its log:\n" +
           read_file(log));
    }
    if (PQping(ping.c_str()) == PQPING_OK) return;
    std::this_thread::sleep_for(20ms);
  }
  stop();
  fail("PostgreSQL did not accept connections within 60 s. Its log:\n" + read_file(log));
}

void postgres_server::stop() {
  if (!owned_ || pid_ == 0) return;
  ::kill(pid_, SIGINT);  // fast shutdown
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  for (;;) {
    const pid_t ended = ::waitpid(pid_, &status, WNOHANG);
    if (ended == pid_ || (ended < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGQUIT);  // immediate shutdown: it stops its children itself
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(10ms);
  }
  pid_ = 0;
}

std::string postgres_server::create_database() {
  static std::mt19937_64 random{std::random_device{}()};
  std::ostringstream name;
  name << "g" << std::hex << random() << ::getpid();
  query(admin_url_, "CREATE DATABASE " + name.str() +
                        " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' "
                        "STRATEGY FILE_COPY");
  // The same socket directory as the admin URL: only the database changes.
  const auto at = admin_url_.find("@/");
  const auto rest = admin_url_.find('?', at);
  if (at == std::string::npos || rest == std::string::npos)
    fail("cannot make a URL from " + admin_url_);
  return admin_url_.substr(0, at + 2) + name.str() + admin_url_.substr(rest);
}

void postgres_server::drop_database(const std::string& url) noexcept {
  const std::string name = database_of(url);
  if (name.empty() ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
    return;
  try {
    query(admin_url_, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  } catch (const std::exception&) {
  }
}

std::string postgres_server::query(const std::string& url, const std::string& sql) {
  pg_link link(url);
  std::unique_ptr<PGresult, void (*)(PGresult*)> r(PQexec(link.conn, sql.c_str()), PQclear);
  const auto status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
    fail(sql + ": " + (r ? PQresultErrorMessage(r.get()) : PQerrorMessage(link.conn)));
  if (status != PGRES_TUPLES_OK || PQntuples(r.get()) == 0 || PQgetisnull(r.get(), 0, 0)) return {};
  return PQgetvalue(r.get(), 0, 0);
}

std::string postgres_server::dump(const std::string& url) {
  const std::string command =
      "'" + (bin_dir() / "pg_dump").string() + "' --data-only '" + url + "' 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  if (!pipe) fail("cannot run pg_dump: " + std::string(std::strerror(errno)));
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe.get())) > 0;)
    out.append(buffer, n);
  const int status = ::pclose(pipe.release());
  if (status != 0) fail("pg_dump failed: " + out);
  return out;
}

std::string postgres_server::log() const {
  return owned_ ? read_file(dir_ / "postgres.log") : std::string();
}

}  // namespace bg::test
