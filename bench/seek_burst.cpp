// Matchmaking through the real gammond (RULES.md S5, issue 30's target: "200 players
// seeking at once are all paired within the S5 window in under 1 s of server time").
//
// Starts build/server/gammond on an ephemeral port with a temporary SQLite file,
// connects N guest WebSocket clients (all rated 1500: every pair is within the ±100
// window at once), and when every one has its `welcome` sends `/seek` from all of them
// back to back. Measures the wall time from the last `/seek` written until every client
// has its `info` topic "play", and gammond's CPU time from just before the first `/seek`
// to that moment: utime + stime from /proc/PID/stat (clock ticks) and the sum of its
// threads' on-CPU time from /proc/PID/task/*/schedstat (nanoseconds). Also counts the
// lobby count pushes (`lobby` messages) the clients got: the coalescing of S5's count.
//
//   build/bench/bench_seek_burst [--players 200] [--gammond PATH] [--timeout SECONDS]
//
// Not a test: it runs on demand (bench/README.md has its figures). Exit status 0 when
// every client was paired before the timeout, 1 otherwise, 2 on a bad command line.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#ifndef BG_GAMMOND_BINARY
#define BG_GAMMOND_BINARY "build/server/gammond"
#endif

extern char** environ;

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using clock_type = std::chrono::steady_clock;
using nlohmann::json;

/// The command line.
struct options {
  std::size_t players = 200;
  std::string gammond = BG_GAMMOND_BINARY;
  int timeout_seconds = 60;
};

/// Parses argv; nullopt (after a message on stderr) on a bad command line.
std::optional<options> parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--players" && has_value) {
      o.players = static_cast<std::size_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--gammond" && has_value) {
      o.gammond = argv[++i];
    } else if (a == "--timeout" && has_value) {
      o.timeout_seconds = std::atoi(argv[++i]);
    } else {
      std::cerr << "usage: bench_seek_burst [--players N (even, 2..1000)] [--gammond PATH] "
                   "[--timeout SECONDS]\n";
      return std::nullopt;
    }
  }
  if (o.players < 2 || o.players > 1000 || o.players % 2 != 0 || o.timeout_seconds < 1) {
    std::cerr << "bench_seek_burst: --players must be even, 2 to 1000; --timeout at least 1\n";
    return std::nullopt;
  }
  return o;
}

/// gammond's CPU time so far: utime + stime in clock ticks (/proc/PID/stat) and the sum
/// of its threads' on-CPU nanoseconds (/proc/PID/task/*/schedstat; threads that already
/// ended are not counted there).
struct cpu_time {
  long long ticks = 0;
  long long nanoseconds = 0;
};

cpu_time cpu_of(pid_t pid) {
  cpu_time out;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces) in parentheses: field 3 is the
  // state, 14 utime, 15 stime.
  const auto close = text.rfind(')');
  if (close != std::string::npos) {
    std::istringstream rest(text.substr(close + 2));
    std::string field;
    long long utime = 0;
    long long stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
      if (i == 14) utime = std::stoll(field);
      if (i == 15) stime = std::stoll(field);
    }
    out.ticks = utime + stime;
  }
  std::error_code ec;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream sched(task.path() / "schedstat");
    long long on_cpu = 0;
    if (sched >> on_cpu) out.nanoseconds += on_cpu;
  }
  return out;
}

/// The gammond process: started with a temporary directory (database, port file, log),
/// stopped (SIGTERM, then waited for) and its directory removed by the destructor.
class gammond {
 public:
  explicit gammond(const options& o, std::size_t players) {
    char pattern[] = "/tmp/bench-seek-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    const std::string tables = std::to_string(players);  // every pair's table from 127.0.0.1
    std::vector<std::string> args{o.gammond,
                                  "--port",
                                  "0",
                                  "--port-file",
                                  (dir_ / "port").string(),
                                  "--db",
                                  (dir_ / "bench.db").string(),
                                  "--log-level",
                                  "warn",
                                  "--analysis-workers",
                                  "0",
                                  "--max-tables-per-client",
                                  tables,
                                  "--max-connections-per-address",
                                  std::to_string(players + 16),
                                  "--commands-per-second",
                                  "100000",
                                  "--command-burst",
                                  "100000"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    const std::string log = (dir_ / "log").string();
    ::posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                       0600);
    ::posix_spawn_file_actions_adddup2(&actions, 1, 2);
    const int rc = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot start " + o.gammond);
    const auto deadline = clock_type::now() + std::chrono::seconds(30);
    while (clock_type::now() < deadline) {
      std::ifstream in(dir_ / "port");
      int port = 0;
      if (in >> port && port > 0) {
        port_ = static_cast<std::uint16_t>(port);
        return;
      }
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("gammond exited at start; its log: " + log);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("gammond wrote no port in 30 s");
  }
  gammond(const gammond&) = delete;
  gammond& operator=(const gammond&) = delete;
  ~gammond() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] std::uint16_t port() const { return port_; }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
};

struct run;

/// One guest: connects, says hello, later sends /seek, and reads until its `play`.
class player : public std::enable_shared_from_this<player> {
 public:
  player(asio::io_context& io, run& r, std::size_t index) : ws_(io), run_(r), index_(index) {}
  void start(std::uint16_t port);
  void seek();
  std::optional<clock_type::time_point> played;  ///< when its `info` topic "play" came
  std::string table;                             ///< the table it was seated at
  std::size_t lobby_pushes = 0;                  ///< `lobby` messages read

 private:
  void read();
  void write(std::string text, std::function<void()> then);
  websocket::stream<beast::tcp_stream> ws_;
  beast::flat_buffer buffer_;
  run& run_;
  std::size_t index_;
};

/// The whole run's counters (one io_context thread: no locks).
struct run {
  std::size_t players = 0;
  std::size_t welcomed = 0;
  std::size_t seeks_written = 0;
  std::size_t paired = 0;
  std::size_t failed = 0;
  clock_type::time_point last_seek_written;
  clock_type::time_point all_paired;
  std::vector<std::shared_ptr<player>> all;
  std::function<void()> on_all_welcomed;
  std::function<void()> on_all_paired;
};

void player::start(std::uint16_t port) {
  ws_.next_layer().async_connect(
      tcp::endpoint(asio::ip::make_address("127.0.0.1"), port),
      [self = shared_from_this(), port](beast::error_code ec) {
        if (ec) return void(++self->run_.failed);
        self->ws_.next_layer().socket().set_option(tcp::no_delay(true));
        self->ws_.async_handshake(
            "127.0.0.1:" + std::to_string(port), "/ws", [self](beast::error_code ec2) {
              if (ec2) return void(++self->run_.failed);
              self->ws_.text(true);
              const json hello{{"type", "hello"},
                               {"name", "seeker" + std::to_string(self->index_)},
                               {"id", "hello"}};
              self->write(hello.dump(), [] {});
              self->read();
            });
      });
}

void player::seek() {
  write(json{{"type", "line"}, {"text", "/seek"}, {"id", "seek"}}.dump(),
        [self = shared_from_this()] {
          self->run_.last_seek_written = clock_type::now();
          ++self->run_.seeks_written;
        });
}

void player::write(std::string text, std::function<void()> then) {
  auto frame = std::make_shared<std::string>(std::move(text));
  ws_.async_write(asio::buffer(*frame), [self = shared_from_this(), frame, then = std::move(then)](
                                            beast::error_code ec, std::size_t) {
    if (ec) return void(++self->run_.failed);
    then();
  });
}

void player::read() {
  ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
    if (ec) return;  // closed at the end of the run
    const auto m = json::parse(beast::buffers_to_string(self->buffer_.data()), nullptr, false);
    self->buffer_.consume(self->buffer_.size());
    const std::string type = m.is_object() ? m.value("type", "") : "";
    if (type == "welcome") {
      if (++self->run_.welcomed == self->run_.players) self->run_.on_all_welcomed();
    } else if (type == "lobby") {
      ++self->lobby_pushes;
    } else if (type == "info" && m.value("topic", "") == "play" && !self->played) {
      self->played = clock_type::now();
      self->table = m["data"].value("table", "");
      if (++self->run_.paired == self->run_.players) {
        self->run_.all_paired = *self->played;
        self->run_.on_all_paired();
      }
    } else if (type == "error") {
      std::cerr << "seeker" << self->index_ << ": " << m.dump() << "\n";
      ++self->run_.failed;
    }
    self->read();
  });
}

double ms(clock_type::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

}  // namespace

int main(int argc, char** argv) {
  const auto o = parse(argc, argv);
  if (!o) return 2;
  try {
    gammond server(*o, o->players);
    asio::io_context io;
    run r;
    r.players = o->players;
    cpu_time before;
    clock_type::time_point first_seek;
    asio::steady_timer deadline(io, std::chrono::seconds(o->timeout_seconds));
    r.on_all_welcomed = [&] {
      // Every client said hello: the burst. Every /seek is handed to its socket now, in
      // one pass, on this one thread.
      before = cpu_of(server.pid());
      first_seek = clock_type::now();
      for (auto& p : r.all) p->seek();
    };
    r.on_all_paired = [&] {
      deadline.cancel();
      io.stop();
    };
    for (std::size_t i = 0; i < o->players; ++i) {
      r.all.push_back(std::make_shared<player>(io, r, i));
      r.all.back()->start(server.port());
    }
    deadline.async_wait([&](beast::error_code ec) {
      if (!ec) io.stop();
    });
    io.run();
    const auto after = cpu_of(server.pid());
    // A moment later: what the pairing's tail (the tables' first states) cost on top.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto settled = cpu_of(server.pid());

    const long tick = ::sysconf(_SC_CLK_TCK);
    std::set<std::string> tables;
    std::size_t pushes = 0;
    for (const auto& p : r.all) {
      if (!p->table.empty()) tables.insert(p->table);
      pushes += p->lobby_pushes;
    }
    std::printf(
        "bench_seek_burst: %zu guests (rating 1500) /seek at once through gammond (pid %d)\n",
        r.players, static_cast<int>(server.pid()));
    std::printf("  welcomed %zu, /seek written %zu, paired %zu at %zu tables, failures %zu\n",
                r.welcomed, r.seeks_written, r.paired, tables.size(), r.failed);
    if (r.paired != r.players) {
      std::printf("  NOT all paired within %d s\n", o->timeout_seconds);
      return 1;
    }
    std::printf("  first /seek handed to its socket -> last written: %.1f ms\n",
                ms(r.last_seek_written - first_seek));
    std::printf("  last /seek written -> every client has info \"play\": %.1f ms (wall)\n",
                ms(r.all_paired - r.last_seek_written));
    std::printf(
        "  gammond CPU, first /seek -> all paired: %.0f ms (utime+stime, %ld ticks/s), "
        "%.1f ms (threads' schedstat)\n",
        1000.0 * static_cast<double>(after.ticks - before.ticks) / static_cast<double>(tick), tick,
        static_cast<double>(after.nanoseconds - before.nanoseconds) / 1e6);
    std::printf(
        "  gammond CPU, first /seek -> 0.5 s after: %.0f ms (utime+stime), %.1f ms "
        "(schedstat)\n",
        1000.0 * static_cast<double>(settled.ticks - before.ticks) / static_cast<double>(tick),
        static_cast<double>(settled.nanoseconds - before.nanoseconds) / 1e6);
    std::printf("  lobby count pushes read: %zu in all (%.2f a client)\n", pushes,
                static_cast<double>(pushes) / static_cast<double>(r.players));
    const bool met = ms(r.all_paired - r.last_seek_written) < 1000.0 &&
                     static_cast<double>(after.nanoseconds - before.nanoseconds) < 1e9;
    std::printf("  target (issue 30: all paired in under 1 s of server time): %s\n",
                met ? "met" : "NOT met");
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "bench_seek_burst: " << e.what() << "\n";
    return 1;
  }
}
