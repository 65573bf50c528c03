// The gnubg pool (gnubg_pool.hpp): GNU Backgammon processes started on demand, each
// serving the `external` interface on 127.0.0.1, supervised from a thread of the
// pool's own.
//
// gnubg 1.07's `external` interface, as found by reading external.c and by trying:
//  - `external 127.0.0.1:PORT` binds, prints "Waiting for a connection from
//    127.0.0.1:PORT...", accepts ONE connection and closes the listening socket; when
//    that connection ends it listens again. The pool connects once the line appears.
//  - One line in, one line out, in order; a line is at most 255 bytes. An answer may
//    end with a blank before "\n" ("8/5 6/5 \n"). A request gnubg cannot parse is
//    answered "Error: ..." (a malformed answer to us).
//  - gnubg reads its settings from standard input before `external`, and nothing
//    while it serves, so a process is set to one level for life. Standard input is
//    closed after the commands: if `external` fails (the port was taken) gnubg reads
//    EOF and exits, which the pool sees at once.
//  - Its messages are translated: the pool runs it with LC_ALL=C to read them, and
//    with HOME in a directory of the pool's own (gnubg writes ~/.gnubg).

#include "bg/bots/gnubg_pool.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <array>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "bg/bots/child_process.hpp"
#include "bg/protocol/codec.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX

namespace bg::bots {

namespace asio = boost::asio;
using asio::ip::tcp;
using error_code = boost::system::error_code;

namespace {

/// The longest answer line the pool reads (gnubg's own limit is 255 bytes).
constexpr std::size_t max_answer_bytes = 1024;
/// Bytes of gnubg's own output kept while looking for the end of a line.
constexpr std::size_t max_output_line = 4096;

/// `text` with control characters replaced, cut at `limit` bytes: safe in a log line.
std::string printable(std::string_view text, std::size_t limit = 200) {
  std::string out;
  for (const char c : text.substr(0, limit)) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? '?' : c;
  }
  if (text.size() > limit) out += "...";
  return out;
}

std::string trimmed(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\r' || s.back() == '\n' || s.back() == '\t'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return std::string(s);
}

/// A file descriptor owned here: closed with its scope unless released.
class owned_fd {
 public:
  owned_fd() noexcept = default;
  ~owned_fd() { reset(); }
  owned_fd(const owned_fd&) = delete;
  owned_fd& operator=(const owned_fd&) = delete;
  [[nodiscard]] int get() const noexcept { return fd_; }
  int release() noexcept { return std::exchange(fd_, -1); }
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

/// Makes a pipe (both ends close-on-exec) into `read_end` and `write_end`, or throws
/// std::system_error.
void make_pipe(owned_fd& read_end, owned_fd& write_end) {
  std::array<int, 2> ends{-1, -1};
  if (::pipe2(ends.data(), O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  read_end.reset(ends[0]);
  write_end.reset(ends[1]);
}

/// One request and how far it got.
struct request {
  gnubg_level level = gnubg_level::expert;
  std::string line;
  gnubg_answer_check check;
  gnubg_answer_handler done;
  int failures = 0;
};

/// Why a gnubg process failed: `why` a code that table.bot_no_answer selects on
/// ("ended", "timeout", ...), `detail` the system's words or a number, as data.
struct failure {
  std::string why;
  std::string detail;
};

/// One gnubg process and its connection.
struct slot {
  enum class state : unsigned char { starting, idle, busy, dead };

  slot(asio::io_context& io, gnubg_level l)
      : level(l), output(io), socket(io), timer(io), exit_watch(io) {}

  gnubg_level level;
  state st = state::starting;
  /// The process; reaped (never waited for while it runs) once exit_watch, a copy of its
  /// pidfd, is readable: the pool's thread never blocks on a child (issue 25).
  std::unique_ptr<child_process> process;
  std::int64_t pid = 0;
  std::uint16_t port = 0;
  asio::readable_pipe output;  ///< gnubg's stdout and stderr
  tcp::socket socket;
  asio::steady_timer timer;                   ///< the attempt's time limit
  asio::posix::stream_descriptor exit_watch;  ///< a duplicate of the process's pidfd
  std::string output_buffer;
  std::string answer_buffer;
  std::unique_ptr<request> current;  ///< the request it serves (or starts for)
};

}  // namespace

struct gnubg_pool::impl : std::enable_shared_from_this<impl> {
  explicit impl(gnubg_pool_options o) : options(std::move(o)), work(asio::make_work_guard(io)) {}

  gnubg_pool_options options;
  asio::io_context io{1};
  asio::executor_work_guard<asio::io_context::executor_type> work;
  std::thread thread;
  std::filesystem::path home;            ///< HOME of every gnubg process
  std::vector<std::string> environment;  ///< the children's environment
  std::vector<const char*> environment_pointers;

  // The pool thread's own state.
  std::deque<std::unique_ptr<request>> waiting;
  std::vector<std::shared_ptr<slot>> slots;
  bool stopped = false;
  /// When the processes of the last start_window started (max_starts of them at most).
  std::deque<std::chrono::steady_clock::time_point> starts;
  asio::steady_timer start_timer{io};  ///< wakes dispatch() when a start may happen
  bool start_timer_armed = false;

  // Shared with stats().
  mutable std::mutex stats_mutex;
  gnubg_pool_stats counters;

  void prepare_environment();
  void ask(std::unique_ptr<request> r);
  void dispatch();
  void start(std::unique_ptr<request> r);
  void watch_exit(const std::shared_ptr<slot>& s);
  /// Whether a process may start now (at most options.max_starts in any
  /// options.start_window); when not, a timer calls dispatch() when one may.
  bool may_start();
  void read_output(const std::shared_ptr<slot>& s);
  void connect(const std::shared_ptr<slot>& s);
  void read_answer(const std::shared_ptr<slot>& s);
  void send(const std::shared_ptr<slot>& s, std::unique_ptr<request> r);
  void arm_timer(const std::shared_ptr<slot>& s);
  void answered(const std::shared_ptr<slot>& s, std::string answer);
  /// The process of `s` failed (`why`): it is killed, its request retried.
  void failed(const std::shared_ptr<slot>& s, const failure& why);
  void kill(const std::shared_ptr<slot>& s);
  /// Asks again for `r`, whose process failed (`why`), or gives up after the retries.
  void retry(std::unique_ptr<request> r, const failure& why);
  /// Answers `r` with error "bot_failed": `message`, catalogue sentence `key` with `args`.
  void give_up(std::unique_ptr<request> r, const std::string& message, const char* key,
               std::vector<engine::sentence_arg> args = {});
  void publish();
  void shut_down();
  template <typename F>
  void count(F f) {
    const std::lock_guard lock(stats_mutex);
    f(counters);
  }
};

void gnubg_pool::impl::prepare_environment() {
  std::string pattern = (std::filesystem::temp_directory_path() / "gammond-gnubg-XXXXXX").string();
  if (::mkdtemp(pattern.data()) != nullptr) home = pattern;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view var(*e);
    if (var.starts_with("HOME=") || var.starts_with("LANG=") || var.starts_with("LC_") ||
        var.starts_with("LANGUAGE="))
      continue;
    environment.emplace_back(var);
  }
  environment.push_back("HOME=" + (home.empty() ? std::string("/tmp") : home.string()));
  environment.emplace_back("LANG=C");
  environment.emplace_back("LC_ALL=C");
  for (const auto& v : environment) environment_pointers.push_back(v.c_str());
  environment_pointers.push_back(nullptr);
}

void gnubg_pool::impl::ask(std::unique_ptr<request> r) {
  if (stopped) {
    give_up(std::move(r), "the computer players are shutting down", "table.bot_shutting_down");
    return;
  }
  if (waiting.size() >= options.max_waiting) {
    count([](auto& c) { ++c.refused; });
    r->done(engine::make_error("bot_busy",
                               "the computer players have too many questions waiting: "
                               "try again in a moment",
                               "table.bot_busy"));
    return;
  }
  count([](auto& c) { ++c.requests; });
  waiting.push_back(std::move(r));
  dispatch();
}

void gnubg_pool::impl::dispatch() {
  // In order of arrival, each request takes an idle process of its level, or a new
  // process (up to max_processes, and as the start limit allows), or the place of an
  // idle process of another level. A request that can have none of these waits, and
  // those behind it may still take an idle process of their own level: a request held
  // back by the start limit does not hold back the levels already running.
  for (auto it = waiting.begin(); !stopped && it != waiting.end();) {
    const auto level = (*it)->level;
    auto idle_of = [&](bool any_level) {
      return std::find_if(slots.begin(), slots.end(), [&](const auto& s) {
        return s->st == slot::state::idle && (any_level || s->level == level);
      });
    };
    if (auto idle = idle_of(false); idle != slots.end()) {
      auto s = *idle;
      auto r = std::move(*it);
      it = waiting.erase(it);
      send(s, std::move(r));
      continue;
    }
    if (slots.size() < options.max_processes) {
      if (!may_start()) break;  // every start of the window is used: wait for the timer
      auto r = std::move(*it);
      it = waiting.erase(it);
      start(std::move(r));
      it = waiting.begin();  // start() may have failed and put a request back in front
      continue;
    }
    if (auto idle = idle_of(true); idle != slots.end()) {
      if (!may_start()) break;
      // Every process is taken, and an idle one is set to another level: replace it.
      auto s = *idle;
      spdlog::info("gnubg {}: stopped to make room for the level {}", s->pid, to_string(level));
      kill(s);
      continue;  // the same request now finds room for a new process
    }
    ++it;  // it waits for a process; the next request may find an idle one of its level
  }
  publish();
}

bool gnubg_pool::impl::may_start() {
  if (options.max_starts == 0) return true;
  const auto now = std::chrono::steady_clock::now();
  while (!starts.empty() && now - starts.front() >= options.start_window) starts.pop_front();
  if (starts.size() < options.max_starts) return true;
  count([](auto& c) { ++c.start_delays; });
  if (!start_timer_armed) {
    start_timer_armed = true;
    start_timer.expires_at(starts.front() + options.start_window);
    start_timer.async_wait([self = shared_from_this()](error_code ec) {
      self->start_timer_armed = false;
      if (!ec) self->dispatch();
    });
  }
  return false;
}

void gnubg_pool::impl::start(std::unique_ptr<request> r) {
  // HOME and the environment are made for the first process only: a gammond that never
  // runs gnubg leaves no directory behind.
  if (environment_pointers.empty()) prepare_environment();
  auto s = std::make_shared<slot>(io, r->level);
  s->current = std::move(r);
  s->st = slot::state::starting;
  slots.push_back(s);
  starts.push_back(std::chrono::steady_clock::now());
  arm_timer(s);  // starting counts against the request's time
  // A free port on the loopback interface, for gnubg to bind (it uses SO_REUSEADDR).
  error_code ec;
  {
    tcp::acceptor probe(io);
    probe.open(tcp::v4(), ec);
    if (!ec) probe.bind({asio::ip::address_v4::loopback(), 0}, ec);
    if (!ec) s->port = probe.local_endpoint(ec).port();
  }
  if (ec) {
    failed(s, {"no_port", ec.message()});
    return;
  }
  std::string commands;
  for (const auto& c : level_commands(s->level)) commands += c + "\n";
  // One evaluation thread per process: --bot-processes bounds the cores gnubg uses.
  commands += "set threads 1\nset jacoby off\nset beavers 0\n";
  commands += "external 127.0.0.1:" + std::to_string(s->port) + "\n";
  try {
    // gnubg's settings are in its standard input before it starts (a few hundred bytes:
    // the pipe holds them, so the write does not wait), and the input is closed after
    // them. Every descriptor here is close-on-exec; the child gets only its three
    // streams (child_process closes the rest).
    owned_fd input_read;
    owned_fd input_write;
    owned_fd output_read;
    owned_fd output_write;
    make_pipe(input_read, input_write);
    make_pipe(output_read, output_write);
    if (::write(input_write.get(), commands.data(), commands.size()) !=
        static_cast<ssize_t>(commands.size()))
      throw std::system_error(errno, std::generic_category(), "cannot send gnubg its settings");
    input_write.reset();
    s->process = std::make_unique<child_process>(
        std::vector<std::string>{options.program, "-t", "-q", "-r"}, environment,
        home.empty() ? std::filesystem::path("/tmp") : home,
        child_stdio{input_read.get(), output_write.get(), output_write.get()});
    s->output.assign(output_read.release());
    const int watch = ::fcntl(s->process->pidfd(), F_DUPFD_CLOEXEC, 3);
    if (watch < 0) throw std::system_error(errno, std::generic_category(), "dup of a pidfd");
    s->exit_watch.assign(watch);
  } catch (const std::exception& e) {
    if (s->process) {
      // Started but not watched: reaped here (it is killed first, so this is short).
      s->process->kill();
    }
    failed(s, {"start", options.program + ": " + e.what()});
    return;
  }
  s->pid = s->process->pid();
  count([](auto& c) { ++c.started; });
  spdlog::info("gnubg {}: started ({}, level {}, 127.0.0.1:{})", s->pid, options.program,
               to_string(s->level), s->port);
  watch_exit(s);
  read_output(s);
  publish();
}

void gnubg_pool::impl::watch_exit(const std::shared_ptr<slot>& s) {
  s->exit_watch.async_wait(
      asio::posix::stream_descriptor::wait_read, [self = shared_from_this(), s](error_code ec) {
        if (ec == asio::error::operation_aborted && self->io.stopped()) return;
        // The pidfd is readable: the process has ended, so reaping it does not wait.
        const auto status = s->process ? s->process->wait_for(std::chrono::milliseconds{0})
                                       : std::optional<exit_status>{};
        if (!status && !ec) {  // a spurious wake-up: watch again
          self->watch_exit(s);
          return;
        }
        if (s->st != slot::state::dead) {
          self->count([](auto& c) { ++c.ended; });
          self->failed(
              s, status ? failure{"ended", status->describe()} : failure{"lost", ec.message()});
        }
        error_code ignored;
        s->exit_watch.close(ignored);
        // Reaped (or, if the watch failed, killed and reaped by child_process's
        // destructor, which no longer waits on a live process once SIGKILL is sent).
        s->process.reset();
      });
}

void gnubg_pool::impl::read_output(const std::shared_ptr<slot>& s) {
  asio::async_read_until(
      s->output, asio::dynamic_buffer(s->output_buffer, max_output_line), '\n',
      [self = shared_from_this(), s](error_code ec, std::size_t n) {
        if (s->st == slot::state::dead) return;
        if (ec) {
          if (ec == asio::error::not_found) {  // a line longer than we keep: drop it
            s->output_buffer.clear();
            self->read_output(s);
          }
          return;  // EOF: the process's end is seen by async_wait
        }
        const std::string line = trimmed(std::string_view(s->output_buffer).substr(0, n));
        s->output_buffer.erase(0, n);
        if (!line.empty()) spdlog::debug("gnubg {}: {}", s->pid, printable(line));
        if (s->st == slot::state::starting &&
            line.find("Waiting for a connection") != std::string::npos)
          self->connect(s);
        self->read_output(s);
      });
}

void gnubg_pool::impl::connect(const std::shared_ptr<slot>& s) {
  s->socket.async_connect({asio::ip::address_v4::loopback(), s->port},
                          [self = shared_from_this(), s](error_code ec) {
                            if (s->st == slot::state::dead) return;
                            if (ec) {
                              self->failed(s, {"refused", ec.message()});
                              return;
                            }
                            error_code ignored;
                            s->socket.set_option(tcp::no_delay(true), ignored);
                            self->read_answer(s);
                            auto r = std::move(s->current);
                            s->st = slot::state::idle;
                            if (r) {
                              self->send(s, std::move(r));
                            } else {
                              self->dispatch();
                            }
                          });
}

void gnubg_pool::impl::read_answer(const std::shared_ptr<slot>& s) {
  asio::async_read_until(s->socket, asio::dynamic_buffer(s->answer_buffer, max_answer_bytes), '\n',
                         [self = shared_from_this(), s](error_code ec, std::size_t n) {
                           if (s->st == slot::state::dead) return;
                           if (ec) {
                             if (ec == asio::error::not_found) {
                               self->count([](auto& c) { ++c.malformed; });
                               self->failed(s, {"too_long", std::to_string(max_answer_bytes)});
                               return;
                             }
                             self->count([](auto& c) { ++c.ended; });
                             self->failed(s, {"closed", ec.message()});
                             return;
                           }
                           std::string answer =
                               trimmed(std::string_view(s->answer_buffer).substr(0, n));
                           s->answer_buffer.erase(0, n);
                           if (s->st != slot::state::busy) {
                             self->count([](auto& c) { ++c.malformed; });
                             self->failed(s, {"unasked", printable(answer)});
                             return;
                           }
                           self->answered(s, std::move(answer));
                           if (s->st != slot::state::dead) self->read_answer(s);
                         });
}

void gnubg_pool::impl::send(const std::shared_ptr<slot>& s, std::unique_ptr<request> r) {
  s->st = slot::state::busy;
  auto line = std::make_shared<std::string>(r->line + "\n");
  s->current = std::move(r);
  arm_timer(s);
  asio::async_write(s->socket, asio::buffer(*line),
                    [self = shared_from_this(), s, line](error_code ec, std::size_t) {
                      if (s->st == slot::state::dead || !ec) return;
                      self->count([](auto& c) { ++c.ended; });
                      self->failed(s, {"unwritable", ec.message()});
                    });
  publish();
}

void gnubg_pool::impl::arm_timer(const std::shared_ptr<slot>& s) {
  s->timer.expires_after(options.timeout);
  s->timer.async_wait([self = shared_from_this(), s, current = s->current.get()](error_code ec) {
    if (ec || s->st == slot::state::dead || s->current.get() != current || !current) return;
    self->count([](auto& c) { ++c.timeouts; });
    self->failed(s, {"timeout", std::to_string(self->options.timeout.count())});
  });
}

void gnubg_pool::impl::answered(const std::shared_ptr<slot>& s, std::string answer) {
  auto r = std::move(s->current);
  s->timer.cancel();
  s->st = slot::state::idle;
  if (answer.empty() || answer.starts_with("Error") || !r->check || !r->check(answer)) {
    count([](auto& c) { ++c.malformed; });
    spdlog::warn("gnubg {}: answered \"{}\" to \"{}\"", s->pid, printable(answer),
                 printable(r->line));
    s->current = std::move(r);
    failed(s, {"answered", printable(answer, 60)});
    return;
  }
  count([](auto& c) { ++c.answers; });
  r->done(std::move(answer));
  dispatch();
}

void gnubg_pool::impl::failed(const std::shared_ptr<slot>& s, const failure& why) {
  if (s->st == slot::state::dead) return;
  spdlog::warn("gnubg {}: {} ({}); it is stopped", s->pid, why.why, why.detail);
  auto r = std::move(s->current);
  kill(s);
  if (r) retry(std::move(r), why);
  dispatch();
}

void gnubg_pool::impl::kill(const std::shared_ptr<slot>& s) {
  s->st = slot::state::dead;
  error_code ignored;
  s->timer.cancel();
  s->socket.close(ignored);
  s->output.close(ignored);
  // SIGKILL to its process group, without waiting: watch_exit() reaps it.
  if (s->process) s->process->signal_kill();
  std::erase(slots, s);
  publish();
}

void gnubg_pool::impl::retry(std::unique_ptr<request> r, const failure& why) {
  ++r->failures;
  if (stopped || r->failures > options.retries) {
    count([](auto& c) { ++c.failed; });
    r->done(
        protocol::said_error("bot_failed", "table.bot_no_answer",
                             {{"count", r->failures}, {"why", why.why}, {"detail", why.detail}}));
    return;
  }
  waiting.push_front(std::move(r));
}

void gnubg_pool::impl::give_up(std::unique_ptr<request> r, const std::string& message,
                               const char* key, std::vector<engine::sentence_arg> args) {
  count([](auto& c) { ++c.failed; });
  r->done(engine::make_error("bot_failed", message, key, std::move(args)));
}

void gnubg_pool::impl::publish() {
  std::vector<gnubg_pool_stats::process_info> now;
  now.reserve(slots.size());
  for (const auto& s : slots)
    if (s->pid != 0) now.push_back({s->pid, s->level, s->st == slot::state::busy});
  const std::lock_guard lock(stats_mutex);
  counters.processes = std::move(now);
  counters.waiting = waiting.size();
}

void gnubg_pool::impl::shut_down() {
  stopped = true;
  start_timer.cancel();
  while (!waiting.empty()) {
    auto r = std::move(waiting.front());
    waiting.pop_front();
    give_up(std::move(r), "the computer players are shutting down", "table.bot_shutting_down");
  }
  for (auto s : std::vector<std::shared_ptr<slot>>(slots)) {
    auto r = std::move(s->current);
    kill(s);
    if (r)
      give_up(std::move(r), "the computer players are shutting down", "table.bot_shutting_down");
  }
}

// ------------------------------------------------------------------------------------

gnubg_pool::gnubg_pool(gnubg_pool_options options)
    : impl_(std::make_shared<impl>(std::move(options))) {
  impl_->thread = std::thread([i = impl_] {
    for (;;) {
      try {
        i->io.run();
        return;
      } catch (const std::exception& e) {
        spdlog::critical("gnubg pool: uncaught exception: {}", e.what());
      }
    }
  });
}

gnubg_pool::~gnubg_pool() {
  stop();
}

void gnubg_pool::ask(gnubg_level level, std::string request_line, gnubg_answer_check check,
                     gnubg_answer_handler done) {
  auto r = std::make_unique<request>();
  r->level = level;
  r->line = std::move(request_line);
  r->check = std::move(check);
  r->done = std::move(done);
  asio::post(impl_->io, [i = impl_, r = std::move(r)]() mutable { i->ask(std::move(r)); });
}

gnubg_pool_stats gnubg_pool::stats() const {
  const std::lock_guard lock(impl_->stats_mutex);
  return impl_->counters;
}

void gnubg_pool::stop() {
  if (!impl_->thread.joinable()) return;
  asio::post(impl_->io, [i = impl_] {
    i->shut_down();
    i->work.reset();
  });
  impl_->thread.join();
  // Whatever is left (a process killed but not yet reaped) is reaped here.
  impl_->io.restart();
  impl_->io.run_for(std::chrono::seconds(5));
  std::error_code ec;
  if (!impl_->home.empty()) std::filesystem::remove_all(impl_->home, ec);
}

std::string gnubg_pool::problem_with(const std::string& program) {
  std::error_code ec;
  if (program.empty()) return "no GNU Backgammon program is configured (--gnubg)";
  if (!std::filesystem::exists(program, ec))
    return "GNU Backgammon is not installed here (" + program + " does not exist)";
  if (std::filesystem::is_directory(program, ec)) return program + " is a directory";
  if (::access(program.c_str(), X_OK) != 0) return program + " cannot be run (not executable)";
  return {};
}

}  // namespace bg::bots
