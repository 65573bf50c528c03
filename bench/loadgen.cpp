// loadgen: drives gammond (or bench/echo_server) with thousands of WebSocket clients.
//
// One process, a few threads (one io_context each), every connection bound to one of
// several source addresses 127.0.0.1..127.0.0.S before it connects (so no source
// address runs out of ephemeral ports, and gammond's per-address limit is respected).
//
// Modes
//   idle  N connections say hello and stay open (the server's keep-alive pings are
//         answered). Reports connections held and the server's resident memory per
//         connection (VmRSS from /proc/<pid>/status before and after connecting).
//   load  T tables of two players each; the other N - 2T connections are spectators
//         spread over the tables (--spectate, default) or idle. Each table is one
//         stream of commands, one outstanding at a time, paced so that all tables
//         together offer --rate commands/s (0: each table sends as soon as the last
//         reply arrived). --request says what a stream sends:
//           game   real games: /join, /join, /start, then /roll or /move <a play taken
//                  from state.legal> by whoever is to act; /start again after
//                  match_over (free play: one game per match)
//           board  /board at the table (answered with the state)
//           ping   {"type":"ping"} (answered with pong; no table involved)
//         Against an echo server (--echo) the same frames are sent and echoed back.
//         Against its broadcast mode (--echo --broadcast) every member of a table
//         (players, and spectators with --spectate) first enters the table's group,
//         and each command is then forwarded to the whole group (the yardstick of a
//         table's fan-out: bench/echo_server.cpp).
//
// Latency is from sending a command (with an "id") to receiving the reply that
// carries it as "re" (for game commands: the actor's copy of the new state); only
// commands sent inside the measured window count. Errors are `error` messages and
// connections that fail or drop; a game is lost when its table stalls (a command
// unanswered for --stall seconds) or one of its connections drops.
//
// The last line of output is "RESULT {json}" for bench/run-load.

#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24  // linux/in.h
#endif

#include <algorithm>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "number_flag.hpp"

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;
using clk = std::chrono::steady_clock;
using nlohmann::json;
using namespace std::chrono_literals;

// ------------------------------------------------------------------------------------
// Options

struct options {
  std::string host = "127.0.0.1";
  int port = 8080;
  int sources = 50;
  int connections = 10000;
  std::string mode = "idle";
  std::string request = "game";
  bool echo = false;
  bool broadcast = false;
  int tables = 1000;
  bool spectate = true;
  double rate = 5000;
  double warmup = 10;
  double duration = 60;
  double hold = 5;
  double settle = 3;
  double drain = 5;
  double stall = 5;
  int threads = 2;
  int server_pid = 0;
  int connect_concurrency = 200;
  double connect_timeout = 180;
  std::uint64_t seed = 1;
  std::string label;
  std::string slow_log;  // --slow-log: where the slow replies are listed
  double slow_ms = 10;   // --slow-ms: what a slow reply is
  std::string prefix = "lg" + std::to_string(getpid()) + "-";
};

[[noreturn]] void usage(int code) {
  (code == 0 ? std::cout : std::cerr) <<
      R"(loadgen --mode idle|load [options]
  --host A            server address (127.0.0.1)
  --port N            server port (8080)
  --sources S         bind clients to 127.0.0.1..127.0.0.S round robin (50)
  --connections N     connections in all (10000)
  --threads K         client threads, one io_context each (2)
  --connect-concurrency C  handshakes in flight at once (200)
  --server-pid P      sample this process's VmRSS and CPU time (/proc/P)
  --echo              the server is bench/echo_server: replies are echoes
  --broadcast         with --echo: echo_server --broadcast (tables are groups)
  --hold SEC          idle: how long to hold the connections (5)
  --settle SEC        pause before the memory sample after connecting (3)
  --tables T          load: tables, two players each (1000)
  --request R         load: game | board | ping (game)
  --spectate | --no-spectate  load: other connections watch tables, or stay idle
  --rate R            load: commands/s offered by all tables together; 0 = closed loop (5000)
  --warmup SEC        load: before the measured window (10)
  --duration SEC      load: the measured window (60)
  --drain SEC         load: wait for outstanding replies after the window (5)
  --stall SEC         load: a command unanswered this long stalls its table (5)
  --seed N            which plays are chosen (1)
  --label TEXT        copied into the RESULT line
  --prefix TEXT       player names are TEXT0, TEXT1, ... (lg<pid>-)
  --slow-log FILE     load: list each reply in the window slower than --slow-ms, as
                      "seconds-into-the-window latency-ms" (sorted by when each was sent;
                      a first line "# window start NS" gives the window's start on the
                      monotonic clock, to line them up with a server's trace), to see
                      whether the tail comes in bursts (a pause) or spread out (queueing)
  --slow-ms MS        what --slow-log lists (10)
)";
  std::exit(code);
}

double to_number(std::string_view flag, std::string_view text) {
  return bg::test::number_flag("loadgen", flag, text);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a{argv[i]};
    auto value = [&]() -> std::string_view {
      if (i + 1 >= argc) {
        std::cerr << "loadgen: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    auto integer = [&]() { return static_cast<int>(to_number(a, value())); };
    if (a == "--help" || a == "-h")
      usage(0);
    else if (a == "--host")
      o.host = value();
    else if (a == "--port")
      o.port = integer();
    else if (a == "--sources")
      o.sources = integer();
    else if (a == "--connections")
      o.connections = integer();
    else if (a == "--threads")
      o.threads = integer();
    else if (a == "--connect-concurrency")
      o.connect_concurrency = integer();
    else if (a == "--server-pid")
      o.server_pid = integer();
    else if (a == "--echo")
      o.echo = true;
    else if (a == "--broadcast")
      o.broadcast = o.echo = true;
    else if (a == "--mode")
      o.mode = value();
    else if (a == "--hold")
      o.hold = to_number(a, value());
    else if (a == "--settle")
      o.settle = to_number(a, value());
    else if (a == "--tables")
      o.tables = integer();
    else if (a == "--request")
      o.request = value();
    else if (a == "--spectate")
      o.spectate = true;
    else if (a == "--no-spectate")
      o.spectate = false;
    else if (a == "--rate")
      o.rate = to_number(a, value());
    else if (a == "--warmup")
      o.warmup = to_number(a, value());
    else if (a == "--duration")
      o.duration = to_number(a, value());
    else if (a == "--drain")
      o.drain = to_number(a, value());
    else if (a == "--stall")
      o.stall = to_number(a, value());
    else if (a == "--seed")
      o.seed = static_cast<std::uint64_t>(to_number(a, value()));
    else if (a == "--label")
      o.label = value();
    else if (a == "--prefix")
      o.prefix = value();
    else if (a == "--slow-log")
      o.slow_log = value();
    else if (a == "--slow-ms")
      o.slow_ms = to_number(a, value());
    else {
      std::cerr << "loadgen: unknown flag " << a << "\n";
      usage(2);
    }
  }
  if (o.mode != "idle" && o.mode != "load") usage(2);
  if (o.request != "game" && o.request != "board" && o.request != "ping") usage(2);
  if (o.mode == "idle") o.tables = 0;
  if (o.threads < 1 || o.sources < 1 || o.sources > 250 || o.connections < 1 || o.tables < 0 ||
      2 * o.tables > o.connections || o.connect_concurrency < 1) {
    std::cerr << "loadgen: need threads >= 1, 1 <= sources <= 250, 2 * tables <= connections\n";
    std::exit(2);
  }
  return o;
}

// ------------------------------------------------------------------------------------
// Small helpers

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(clk::now().time_since_epoch())
      .count();
}

/// The integer value of top-level-looking key `"key":` in a JSON text, if present.
/// gammond writes compact JSON with sorted keys; the keys searched for ("re", "id")
/// appear nowhere else in the traffic loadgen causes.
std::optional<std::int64_t> int_field(std::string_view text, std::string_view pattern) {
  const auto at = text.find(pattern);
  if (at == std::string_view::npos) return std::nullopt;
  const char* begin = text.data() + at + pattern.size();
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), value);
  if (ec != std::errc{}) return std::nullopt;
  return value;
}

bool is_error(std::string_view text) {
  return text.find(R"("type":"error")") != std::string_view::npos;
}

/// The fields of a gammond `state` message that drive a player (PROTOCOL.md): read with
/// nlohmann's SAX parser, without building a tree of the ~2 KB message, so that loadgen
/// (which shares the cores with the server it measures) spends less of them per command.
struct state_fields {
  std::string phase;                  ///< top-level "phase", "" when absent
  std::optional<std::string> to_act;  ///< top-level "to_act" when a string ("red"/"black")
  std::string red, black;             ///< top-level "players": {"red": name, "black": name}
  std::vector<std::string> legal;     ///< top-level "legal": the plays, as "/move" takes them
};

/// nlohmann SAX handler filling state_fields; every other value is skipped. Depth 1 is
/// the message object's own members.
class state_reader : public nlohmann::json_sax<json> {
 public:
  explicit state_reader(state_fields& out) : out_(out) {}
  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }
  bool string(string_t& v) override {
    if (depth_ == 1 && key_ == "phase") out_.phase = v;
    if (depth_ == 1 && key_ == "to_act") out_.to_act = v;
    if (depth_ == 2 && in_players_ && key_ == "red") out_.red = v;
    if (depth_ == 2 && in_players_ && key_ == "black") out_.black = v;
    if (depth_ == 2 && in_legal_) out_.legal.push_back(v);
    return true;
  }
  bool start_object(std::size_t) override {
    if (depth_ == 1) in_players_ = key_ == "players";
    ++depth_;
    return true;
  }
  bool end_object() override {
    --depth_;
    if (depth_ == 1) in_players_ = false;
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ == 1) in_legal_ = key_ == "legal";
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    if (depth_ == 1) in_legal_ = false;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ <= 2) key_ = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool scalar() { return true; }
  state_fields& out_;
  std::string key_;
  int depth_ = 0;
  bool in_players_ = false;
  bool in_legal_ = false;
};

/// The driving fields of state message `text`; nullopt when it is not valid JSON.
std::optional<state_fields> read_state(std::string_view text) {
  state_fields f;
  state_reader reader(f);
  if (!json::sax_parse(text.begin(), text.end(), &reader)) return std::nullopt;
  return f;
}

/// Resident memory of a process in KiB (VmRSS), or -1.
long rss_kib(int pid) {
  if (pid <= 0) return -1;
  std::ifstream in{"/proc/" + std::to_string(pid) + "/status"};
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

/// User + system CPU time of a process in seconds (from /proc/<pid>/stat), or -1.
double cpu_seconds(int pid) {
  if (pid <= 0) return -1;
  std::ifstream in{"/proc/" + std::to_string(pid) + "/stat"};
  std::string stat;
  std::getline(in, stat);
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::vector<std::string> fields;
  std::string field;
  for (std::size_t i = close + 2; i <= stat.size(); ++i) {
    if (i == stat.size() || stat[i] == ' ') {
      fields.push_back(field);
      field.clear();
    } else {
      field += stat[i];
    }
  }
  // Fields after the name: state is [0], utime [11], stime [12] (proc(5) fields 14, 15).
  if (fields.size() < 13) return -1;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  return (std::strtod(fields[11].c_str(), nullptr) + std::strtod(fields[12].c_str(), nullptr)) /
         ticks;
}

double self_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// ------------------------------------------------------------------------------------
// Shared state

struct window {
  std::atomic<std::int64_t> start{INT64_MAX};
  std::atomic<std::int64_t> end{INT64_MAX};
  std::atomic<bool> stop_sending{false};
  [[nodiscard]] bool contains(std::int64_t t) const {
    return t >= start.load(std::memory_order_relaxed) && t < end.load(std::memory_order_relaxed);
  }
};

/// One thread's counters. Written by its own thread only; read by main for progress.
struct counters {
  std::atomic<std::uint64_t> connected{0};       // WebSocket handshake done
  std::atomic<std::uint64_t> welcomed{0};        // hello answered
  std::atomic<std::uint64_t> connect_failed{0};  // connect / handshake / hello failed
  std::atomic<std::uint64_t> dropped{0};         // closed after the hello
  std::atomic<std::uint64_t> errors{0};          // `error` messages received
  std::atomic<std::uint64_t> frames_in{0};
  std::atomic<std::uint64_t> bytes_in{0};
  std::atomic<std::uint64_t> state_frames_in{0};  // frames with "type":"state"
  std::atomic<std::uint64_t> state_bytes_in{0};
  std::atomic<std::uint64_t> sent{0};       // stream commands sent
  std::atomic<std::uint64_t> completed{0};  // stream commands answered
  std::atomic<std::uint64_t> window_completed{0};
  std::atomic<std::uint64_t> window_errors{0};
  std::atomic<std::uint64_t> games{0};  // games completed (all time)
  std::atomic<std::uint64_t> window_games{0};
  std::atomic<std::uint64_t> tables_ready{0};
  std::atomic<std::uint64_t> tables_failed{0};
  std::atomic<std::uint64_t> outstanding{0};
};

struct worker;
struct table_driver;

std::mutex log_mutex;
std::atomic<int> logged_errors{0};

void log_error(std::string_view who, std::string_view what) {
  if (logged_errors.fetch_add(1) >= 20) return;
  std::lock_guard lock{log_mutex};
  std::cerr << "loadgen: " << who << ": " << what.substr(0, 300) << '\n';
}

// ------------------------------------------------------------------------------------
// One connection

enum class role { idle, player, spectator };

struct connection {
  connection(worker& w, const options& o, int index, role r, table_driver* t);

  void start();
  void send(std::string frame);

  worker& w_;
  const options& o_;
  const int index_;
  const role role_;
  table_driver* const table_;
  const std::string name_;
  websocket::stream<tcp::socket> ws_;
  beast::flat_buffer buffer_;
  std::deque<std::string> out_;
  bool writing_ = false;
  bool welcomed_ = false;
  bool dead_ = false;
  bool entered_ = false;  // spectator: its enter was answered
  bool refused_ = false;  // the hello was refused

 private:
  void fail(std::string_view stage, beast::error_code ec);
  void do_read();
  void on_message(std::string_view text);
  void do_write();
};

// ------------------------------------------------------------------------------------
// One table: two players (and spectators), one stream of commands

struct table_driver {
  table_driver(worker& w, const options& o, window& win, int index);

  void on_welcome();
  void on_reply(connection& from, std::string_view text, bool error);
  void on_spectator_entered();
  void on_group_entered();
  void on_drop();
  void begin_stream();
  void stop();
  void fail_table(std::string_view why);

  worker& w_;
  const options& o_;
  window& win_;
  const int index_;
  const std::string name_;
  connection* players_[2] = {nullptr, nullptr};
  std::vector<connection*> spectators_;
  net::steady_timer timer_;
  std::mt19937_64 rng_;

  int welcomed_ = 0;
  int entered_ = 0;
  enum class stage {
    hello,
    join0,
    join1,
    enter,
    start,
    ready,
    running,
    failed
  } stage_ = stage::hello;
  bool lost_ = false;
  bool counted_failed_ = false;

  // The stream: one command outstanding at a time.
  std::int64_t next_id_ = 1;
  std::int64_t outstanding_id_ = 0;
  std::int64_t sent_at_ = 0;
  connection* outstanding_on_ = nullptr;
  connection* next_actor_ = nullptr;
  std::string next_text_;
  clk::time_point due_;
  clk::duration interval_{};
  int ping_turn_ = 0;
  std::string last_phase_;

 private:
  void send_setup(connection& who, std::string_view kind, std::string_view text);
  void decide(const state_fields& state);
  void schedule(connection& who, std::string text);
  void send_now();
};

// ------------------------------------------------------------------------------------
// One thread

struct worker {
  explicit worker(const options& o, window& w) : o_{o}, win_{w}, io_{1} {}

  void queue_connect(connection* c) { to_connect_.push_back(c); }
  void start_connecting() {
    const int share = std::max(1, o_.connect_concurrency / o_.threads);
    for (int i = 0; i < share; ++i) next_connect();
  }
  /// A connection finished its hello (or failed): start the next one.
  void connect_done() {
    --in_flight_;
    next_connect();
  }
  void next_connect() {
    if (to_connect_.empty()) return;
    connection* c = to_connect_.front();
    to_connect_.pop_front();
    ++in_flight_;
    c->start();
  }
  void record(std::int64_t sent_at_ns, std::int64_t latency_ns) {
    latencies_us_.push_back(static_cast<std::uint32_t>(
        std::min<std::int64_t>(latency_ns / 1000, std::numeric_limits<std::uint32_t>::max())));
    if (!o_.slow_log.empty() && static_cast<double>(latency_ns) >= o_.slow_ms * 1e6)
      slow_.emplace_back(sent_at_ns, latency_ns);
  }

  const options& o_;
  window& win_;
  net::io_context io_;
  counters c_;
  std::deque<connection*> to_connect_;
  int in_flight_ = 0;
  std::vector<std::uint32_t> latencies_us_;
  std::vector<std::pair<std::int64_t, std::int64_t>> slow_;  // (sent at, latency) in ns
};

// ------------------------------------------------------------------------------------
// connection

connection::connection(worker& w, const options& o, int index, role r, table_driver* t)
    : w_{w},
      o_{o},
      index_{index},
      role_{r},
      table_{t},
      name_{o.prefix + std::to_string(index)},
      ws_{w.io_} {}

void connection::start() {
  beast::error_code ec;
  auto& socket = ws_.next_layer();
  socket.open(tcp::v4(), ec);
  if (ec) return fail("socket", ec);
  // Pick the port at connect time, per destination, not at bind time.
  const int one = 1;
  ::setsockopt(socket.native_handle(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
  const auto source = net::ip::make_address_v4(static_cast<net::ip::address_v4::uint_type>(
      (127U << 24U) + static_cast<unsigned>(1 + index_ % o_.sources)));
  socket.bind(tcp::endpoint{source, 0}, ec);
  if (ec) return fail("bind", ec);
  const tcp::endpoint server{net::ip::make_address(o_.host), static_cast<std::uint16_t>(o_.port)};
  socket.async_connect(server, [this](beast::error_code ec2) {
    if (ec2) return fail("connect", ec2);
    beast::error_code ignored;
    ws_.next_layer().set_option(tcp::no_delay(true), ignored);
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
    ws_.async_handshake(o_.host + ":" + std::to_string(o_.port), "/ws",
                        [this](beast::error_code ec3) {
                          if (ec3) return fail("handshake", ec3);
                          w_.c_.connected.fetch_add(1, std::memory_order_relaxed);
                          ws_.text(true);
                          do_read();
                          send(R"({"type":"hello","name":")" + name_ + R"("})");
                        });
  });
}

void connection::fail(std::string_view stage, beast::error_code ec) {
  if (dead_) return;
  dead_ = true;
  if (!welcomed_) {
    w_.c_.connect_failed.fetch_add(1, std::memory_order_relaxed);
    log_error(name_, std::string{stage} + ": " + ec.message());
    w_.connect_done();
  } else {
    w_.c_.dropped.fetch_add(1, std::memory_order_relaxed);
    log_error(name_, std::string{stage} + " after hello: " + ec.message());
  }
  if (table_ && role_ == role::player) table_->on_drop();
}

void connection::do_read() {
  ws_.async_read(buffer_, [this](beast::error_code ec, std::size_t bytes) {
    if (ec) return fail("read", ec);
    w_.c_.frames_in.fetch_add(1, std::memory_order_relaxed);
    w_.c_.bytes_in.fetch_add(bytes, std::memory_order_relaxed);
    const auto data = buffer_.cdata();
    if (std::string_view{static_cast<const char*>(data.data()), data.size()}.find(
            R"("type":"state")") != std::string_view::npos) {
      w_.c_.state_frames_in.fetch_add(1, std::memory_order_relaxed);
      w_.c_.state_bytes_in.fetch_add(bytes, std::memory_order_relaxed);
    }
    on_message({static_cast<const char*>(data.data()), data.size()});
    buffer_.consume(buffer_.size());
    if (!dead_) do_read();
  });
}

void connection::on_message(std::string_view text) {
  const bool error = !o_.echo && is_error(text);
  if (!welcomed_) {
    if (error || (!o_.echo && text.find(R"("type":"welcome")") == std::string_view::npos)) {
      log_error(name_, std::string{"hello refused: "} + std::string{text});
      if (!refused_) {
        refused_ = true;
        w_.c_.connect_failed.fetch_add(1, std::memory_order_relaxed);
        w_.connect_done();
        if (table_) table_->fail_table("a hello was refused");
      }
      return;
    }
    welcomed_ = true;
    w_.c_.welcomed.fetch_add(1, std::memory_order_relaxed);
    w_.connect_done();
    if (table_) table_->on_welcome();
    return;
  }
  if (error) {
    w_.c_.errors.fetch_add(1, std::memory_order_relaxed);
    if (w_.win_.contains(now_ns())) w_.c_.window_errors.fetch_add(1, std::memory_order_relaxed);
    log_error(name_, text);
  }
  if (!table_) return;
  if (o_.broadcast && !entered_) {
    // The group's acknowledgement of this connection's enter.
    if (text.find(R"("type":"enter")") != std::string_view::npos) {
      entered_ = true;
      table_->on_group_entered();
    }
    return;
  }
  if (role_ == role::spectator) {
    if (!entered_ && text.find(R"("re":)") != std::string_view::npos) {
      entered_ = true;
      table_->on_spectator_entered();
    }
    return;
  }
  table_->on_reply(*this, text, error);
}

void connection::send(std::string frame) {
  if (dead_) return;
  out_.push_back(std::move(frame));
  if (!writing_) do_write();
}

void connection::do_write() {
  writing_ = true;
  ws_.async_write(net::buffer(out_.front()), [this](beast::error_code ec, std::size_t) {
    writing_ = false;
    if (ec) return fail("write", ec);
    out_.pop_front();
    if (!out_.empty()) do_write();
  });
}

// ------------------------------------------------------------------------------------
// table_driver

table_driver::table_driver(worker& w, const options& o, window& win, int index)
    : w_{w},
      o_{o},
      win_{win},
      index_{index},
      name_{o.prefix + "t" + std::to_string(index)},
      timer_{w.io_},
      rng_{o.seed * 1000003U + static_cast<std::uint64_t>(index)} {
  if (o.rate > 0) {
    interval_ = std::chrono::duration_cast<clk::duration>(
        std::chrono::duration<double>(static_cast<double>(o.tables) / o.rate));
  }
}

void table_driver::on_welcome() {
  ++welcomed_;
  if (welcomed_ < static_cast<int>(2 + spectators_.size())) return;
  // Everyone is logged in: set the table up (echo servers have no tables; the
  // broadcast server has groups).
  if (o_.broadcast && o_.request != "ping") {
    stage_ = stage::enter;
    for (auto* p : players_) send_setup(*p, "enter", "");
    for (auto* s : spectators_) send_setup(*s, "enter", "");
    return;
  }
  if (o_.echo || o_.request == "ping") {
    stage_ = stage::ready;
    w_.c_.tables_ready.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  stage_ = stage::join0;
  send_setup(*players_[0], "line", "/join");
}

void table_driver::send_setup(connection& who, std::string_view kind, std::string_view text) {
  std::string frame = R"({"type":")" + std::string{kind} + R"(","table":")" + name_ + '"';
  if (!text.empty()) frame += R"(,"text":")" + std::string{text} + '"';
  frame += R"(,"id":0})";
  who.send(std::move(frame));
}

void table_driver::on_spectator_entered() {
  if (stage_ != stage::enter) return;
  if (++entered_ < static_cast<int>(spectators_.size())) return;
  stage_ = stage::start;
  send_setup(*players_[0], "line", "/start");
}

void table_driver::on_group_entered() {
  if (stage_ != stage::enter) return;
  if (++entered_ < static_cast<int>(2 + spectators_.size())) return;
  stage_ = stage::ready;
  w_.c_.tables_ready.fetch_add(1, std::memory_order_relaxed);
}

void table_driver::fail_table(std::string_view why) {
  if (stage_ == stage::failed) return;
  const bool setting_up = stage_ != stage::running && stage_ != stage::ready;
  stage_ = stage::failed;
  lost_ = true;
  timer_.cancel();
  if (setting_up && !counted_failed_) {
    counted_failed_ = true;
    w_.c_.tables_failed.fetch_add(1, std::memory_order_relaxed);
  }
  if (outstanding_id_ != 0) {
    outstanding_id_ = 0;
    w_.c_.outstanding.fetch_sub(1, std::memory_order_relaxed);
  }
  log_error(name_, why);
}

void table_driver::on_drop() {
  fail_table("a connection dropped");
}

void table_driver::on_reply(connection& from, std::string_view text, bool error) {
  switch (stage_) {
    case stage::join0:
    case stage::join1:
    case stage::enter:
    case stage::start: {
      if (text.find(R"("re":)") == std::string_view::npos) return;  // a broadcast
      if (error) return fail_table("setup refused: " + std::string{text});
      if (stage_ == stage::join0 && &from == players_[0]) {
        stage_ = stage::join1;
        send_setup(*players_[1], "line", "/join");
      } else if (stage_ == stage::join1 && &from == players_[1]) {
        if (spectators_.empty() || !o_.spectate) {
          stage_ = stage::start;
          send_setup(*players_[0], "line", "/start");
        } else {
          stage_ = stage::enter;
          for (auto* s : spectators_) send_setup(*s, "enter", "");
        }
      } else if (stage_ == stage::start && &from == players_[0]) {
        last_phase_ = json::parse(text).value("phase", "");
        stage_ = stage::ready;
        w_.c_.tables_ready.fetch_add(1, std::memory_order_relaxed);
      }
      return;
    }
    case stage::running:
      break;
    default:
      return;
  }
  if (outstanding_id_ == 0 || &from != outstanding_on_) return;
  const auto re = int_field(text, o_.echo ? R"("id":)" : R"("re":)");
  if (!re || *re != outstanding_id_) return;  // the other player's copy, or an event
  const std::int64_t t = now_ns();
  const bool in_window = win_.contains(sent_at_);
  outstanding_id_ = 0;
  w_.c_.outstanding.fetch_sub(1, std::memory_order_relaxed);
  w_.c_.completed.fetch_add(1, std::memory_order_relaxed);
  if (in_window) {
    w_.record(sent_at_, t - sent_at_);
    w_.c_.window_completed.fetch_add(1, std::memory_order_relaxed);
  }
  if (o_.echo || o_.request != "game") {
    // Alternate the two players, as a game does.
    ping_turn_ ^= 1;
    schedule(*players_[ping_turn_], std::string{});
    return;
  }
  if (error || text.find(R"("type":"state")") == std::string_view::npos) {
    // Resynchronise from the state.
    schedule(*players_[0], "/board");
    return;
  }
  const auto state = read_state(text);
  if (!state) return fail_table("a state that is not JSON");
  decide(*state);
}

void table_driver::decide(const state_fields& state) {
  const std::string& phase = state.phase;
  connection* actor = players_[0];
  if (state.to_act) {
    const std::string& who = *state.to_act == "red" ? state.red : state.black;
    if ((*state.to_act == "red" || *state.to_act == "black") && who == players_[1]->name_)
      actor = players_[1];
  }
  if (phase == "match_over" && last_phase_ != "match_over") {
    w_.c_.games.fetch_add(1, std::memory_order_relaxed);
    if (win_.contains(sent_at_)) w_.c_.window_games.fetch_add(1, std::memory_order_relaxed);
  }
  last_phase_ = phase;
  if (phase == "match_over" || phase == "waiting") return schedule(*players_[0], "/start");
  if (phase == "opening") return schedule(*players_[0], "/roll");
  if (phase == "roll") return schedule(*actor, "/roll");
  if (phase == "move") {
    const auto& legal = state.legal;
    if (legal.empty()) return fail_table("phase move without legal plays");
    const auto pick = rng_() % legal.size();
    return schedule(*actor, "/move " + legal[pick]);
  }
  if (phase == "cube_offered") return schedule(*actor, "/take");
  if (phase == "resign_offered") return schedule(*actor, "/reject");
  if (phase == "game_over") return schedule(*actor, "/continue");
  fail_table("unknown phase " + phase);
}

void table_driver::begin_stream() {
  if (stage_ != stage::ready) return;
  stage_ = stage::running;
  // Spread the tables' first commands over one interval.
  std::uniform_real_distribution<double> spread{0.0, 1.0};
  due_ = clk::now() + std::chrono::duration_cast<clk::duration>(interval_ * spread(rng_));
  if (o_.echo || o_.request != "game") {
    next_actor_ = players_[0];
    next_text_.clear();
  } else if (last_phase_ == "opening") {
    next_actor_ = players_[0];
    next_text_ = "/roll";
  } else {
    next_actor_ = players_[0];
    next_text_ = "/board";
  }
  if (interval_.count() == 0) return send_now();
  timer_.expires_at(due_);
  timer_.async_wait([this](beast::error_code ec) {
    if (!ec) send_now();
  });
}

void table_driver::schedule(connection& who, std::string text) {
  next_actor_ = &who;
  next_text_ = std::move(text);
  if (win_.stop_sending.load(std::memory_order_relaxed)) return;
  if (interval_.count() == 0) return send_now();
  const auto now = clk::now();
  due_ += interval_;
  // Catch up after a slow reply, but never by more than a second's worth.
  if (due_ < now - 1s) due_ = now - 1s;
  if (due_ <= now) return send_now();
  timer_.expires_at(due_);
  timer_.async_wait([this](beast::error_code ec) {
    if (!ec) send_now();
  });
}

void table_driver::send_now() {
  if (stage_ != stage::running || win_.stop_sending.load(std::memory_order_relaxed)) return;
  const std::int64_t id = next_id_++;
  std::string frame;
  if (o_.request == "ping") {
    frame = R"({"type":"ping","id":)" + std::to_string(id) + '}';
  } else {
    std::string text = next_text_;
    if (o_.echo || o_.request == "board") text = o_.echo ? "/move 24/18 13/11" : "/board";
    frame = R"({"type":"line","table":")" + name_ + R"(","text":")" + text + R"(","id":)" +
            std::to_string(id) + '}';
  }
  outstanding_id_ = id;
  outstanding_on_ = next_actor_;
  sent_at_ = now_ns();
  w_.c_.outstanding.fetch_add(1, std::memory_order_relaxed);
  w_.c_.sent.fetch_add(1, std::memory_order_relaxed);
  next_actor_->send(std::move(frame));
}

/// Called on the table's thread after the drain: a command still unanswered is a
/// stalled table, and its game is lost.
void table_driver::stop() {
  timer_.cancel();
  if (stage_ == stage::running && outstanding_id_ != 0 &&
      now_ns() - sent_at_ > static_cast<std::int64_t>(o_.stall * 1e9)) {
    lost_ = true;
  }
  // A late reply is no longer counted (nor recorded: main reads the latencies next).
  outstanding_id_ = 0;
  stage_ = stage::failed;
}

// ------------------------------------------------------------------------------------
// main

struct percentiles {
  double p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0, mean = 0;
  std::size_t count = 0;
};

percentiles summarize(std::vector<std::uint32_t>& us) {
  percentiles p;
  p.count = us.size();
  if (us.empty()) return p;
  std::sort(us.begin(), us.end());
  auto at = [&](double q) {
    const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(us.size()))) - 1;
    return static_cast<double>(us[std::min(i, us.size() - 1)]) / 1000.0;
  };
  p.p50 = at(0.50);
  p.p90 = at(0.90);
  p.p99 = at(0.99);
  p.p999 = at(0.999);
  p.max = static_cast<double>(us.back()) / 1000.0;
  double sum = 0;
  for (auto v : us) sum += v;
  p.mean = sum / static_cast<double>(us.size()) / 1000.0;
  return p;
}

template <typename F>
std::uint64_t total(const std::vector<std::unique_ptr<worker>>& workers, F field) {
  std::uint64_t sum = 0;
  for (const auto& w : workers) sum += field(w->c_).load(std::memory_order_relaxed);
  return sum;
}

void sleep_for(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);

  // Every connection is a file descriptor: raise the soft limit to the hard one.
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    if (limit.rlim_cur < static_cast<rlim_t>(o.connections) + 64) {
      std::cerr << "loadgen: the open-file limit " << limit.rlim_cur << " is below "
                << o.connections << " connections\n";
      return 2;
    }
  }

  window win;
  std::vector<std::unique_ptr<worker>> workers;
  for (int i = 0; i < o.threads; ++i) workers.push_back(std::make_unique<worker>(o, win));

  // Tables and their players first, then the other connections (spectators or idle).
  std::vector<std::unique_ptr<table_driver>> tables;
  std::vector<std::unique_ptr<connection>> conns;
  conns.reserve(static_cast<std::size_t>(o.connections));
  for (int t = 0; t < o.tables; ++t) {
    auto& w = *workers[static_cast<std::size_t>(t % o.threads)];
    tables.push_back(std::make_unique<table_driver>(w, o, win, t));
    for (int s = 0; s < 2; ++s) {
      conns.push_back(std::make_unique<connection>(w, o, static_cast<int>(conns.size()),
                                                   role::player, tables.back().get()));
      tables.back()->players_[s] = conns.back().get();
    }
  }
  while (static_cast<int>(conns.size()) < o.connections) {
    const int i = static_cast<int>(conns.size());
    if (o.tables > 0 && o.spectate) {
      const int t = (i - 2 * o.tables) % o.tables;
      auto* table = tables[static_cast<std::size_t>(t)].get();
      conns.push_back(std::make_unique<connection>(table->w_, o, i, role::spectator, table));
      table->spectators_.push_back(conns.back().get());
    } else {
      auto& w = *workers[static_cast<std::size_t>(i % o.threads)];
      conns.push_back(std::make_unique<connection>(w, o, i, role::idle, nullptr));
    }
  }
  // Connect in an interleaved order so every source address and table fills evenly.
  for (auto& c : conns) c->w_.queue_connect(c.get());

  const long rss_before = rss_kib(o.server_pid);
  std::cout << "loadgen: " << o.connections << " connections to " << o.host << ':' << o.port
            << (o.echo ? " (echo server)" : "") << " from 127.0.0.1..127.0.0." << o.sources
            << ", mode " << o.mode;
  if (o.mode == "load")
    std::cout << ", " << o.tables << " tables, request " << o.request << ", rate "
              << (o.rate > 0 ? std::to_string(static_cast<long>(o.rate)) : std::string{"max"})
              << (o.spectate ? ", spectators" : ", idle extras");
  std::cout << "\nloadgen: server RSS before: " << rss_before << " KiB" << std::endl;

  std::vector<std::jthread> threads;
  std::vector<net::executor_work_guard<net::io_context::executor_type>> guards;
  for (auto& w : workers) {
    guards.push_back(net::make_work_guard(w->io_));
    net::post(w->io_, [p = w.get()] { p->start_connecting(); });
    threads.emplace_back([p = w.get()] { p->io_.run(); });
  }

  // Connect everyone.
  const auto t_connect = clk::now();
  for (;;) {
    const auto done = total(
                          workers, [](counters & c) -> auto& { return c.welcomed; }) +
                      total(
                          workers, [](counters & c) -> auto& { return c.connect_failed; });
    const double elapsed = std::chrono::duration<double>(clk::now() - t_connect).count();
    if (done >= static_cast<std::uint64_t>(o.connections) || elapsed > o.connect_timeout) break;
    sleep_for(0.2);
  }
  const double connect_seconds = std::chrono::duration<double>(clk::now() - t_connect).count();
  const auto welcomed = total(
      workers, [](counters & c) -> auto& { return c.welcomed; });
  std::cout << "loadgen: " << welcomed << " connections said hello in " << connect_seconds << " s ("
            << total(
                   workers, [](counters & c) -> auto& { return c.connect_failed; })
            << " failed)" << std::endl;

  sleep_for(o.settle);
  const long rss_connected = rss_kib(o.server_pid);
  std::cout << "loadgen: server RSS with the connections: " << rss_connected << " KiB" << std::endl;

  json result;
  result["label"] = o.label;
  result["mode"] = o.mode;
  result["echo"] = o.echo;
  result["broadcast"] = o.broadcast;
  result["connections"] = o.connections;
  result["connect_seconds"] = connect_seconds;
  result["rss_before_kib"] = rss_before;
  result["rss_connected_kib"] = rss_connected;
  if (rss_before > 0 && rss_connected > 0 && welcomed > 0)
    result["rss_per_connection_kib"] =
        static_cast<double>(rss_connected - rss_before) / static_cast<double>(welcomed);

  if (o.mode == "idle") {
    sleep_for(o.hold);
  } else {
    // Set the tables up, then run the streams.
    const auto t_setup = clk::now();
    while (total(
               workers, [](counters & c) -> auto& { return c.tables_ready; }) +
                   total(
                       workers, [](counters & c) -> auto& { return c.tables_failed; }) <
               static_cast<std::uint64_t>(o.tables) &&
           clk::now() - t_setup < 120s)
      sleep_for(0.1);
    std::cout << "loadgen: "
              << total(
                     workers, [](counters & c) -> auto& { return c.tables_ready; })
              << " tables ready in " << std::chrono::duration<double>(clk::now() - t_setup).count()
              << " s" << std::endl;
    for (auto& t : tables) net::post(t->w_.io_, [p = t.get()] { p->begin_stream(); });

    sleep_for(o.warmup);
    const double self_cpu1 = self_cpu_seconds();
    const double server_cpu1 = cpu_seconds(o.server_pid);
    const auto sent1 = total(
        workers, [](counters & c) -> auto& { return c.sent; });
    const auto frames1 = total(
        workers, [](counters & c) -> auto& { return c.frames_in; });
    const auto bytes1 = total(
        workers, [](counters & c) -> auto& { return c.bytes_in; });
    const auto w_start = clk::now();
    win.start = now_ns();
    for (int s = 1; s <= static_cast<int>(o.duration); ++s) {
      sleep_for(1.0);
      if (s % 10 == 0)
        std::cout << "loadgen: " << s << " s: "
                  << total(
                         workers, [](counters & c) -> auto& { return c.window_completed; }) /
                         static_cast<std::uint64_t>(s)
                  << " commands/s so far, "
                  << total(
                         workers, [](counters & c) -> auto& { return c.errors; })
                  << " errors, "
                  << total(
                         workers, [](counters & c) -> auto& { return c.dropped; })
                  << " dropped" << std::endl;
    }
    sleep_for(o.duration - std::floor(o.duration));
    win.end = now_ns();
    const double window_seconds = std::chrono::duration<double>(clk::now() - w_start).count();
    const double self_cpu2 = self_cpu_seconds();
    const double server_cpu2 = cpu_seconds(o.server_pid);
    const auto sent2 = total(
        workers, [](counters & c) -> auto& { return c.sent; });
    const auto frames2 = total(
        workers, [](counters & c) -> auto& { return c.frames_in; });
    const auto bytes2 = total(
        workers, [](counters & c) -> auto& { return c.bytes_in; });
    win.stop_sending = true;
    const auto t_drain = clk::now();
    while (total(
               workers, [](counters & c) -> auto& { return c.outstanding; }) > 0 &&
           std::chrono::duration<double>(clk::now() - t_drain).count() < o.drain)
      sleep_for(0.05);
    // Stop the tables on their own threads and count the lost games.
    std::atomic<int> stopped{0};
    for (auto& t : tables)
      net::post(t->w_.io_, [p = t.get(), &stopped] {
        p->stop();
        ++stopped;
      });
    while (stopped.load() < o.tables) sleep_for(0.01);
    int lost = 0;
    for (auto& t : tables) lost += t->lost_ ? 1 : 0;

    // Every table has stopped on its thread: no thread records latencies any more.
    std::vector<std::uint32_t> all;
    for (auto& w : workers) all.insert(all.end(), w->latencies_us_.begin(), w->latencies_us_.end());
    if (!o.slow_log.empty()) {
      std::vector<std::pair<std::int64_t, std::int64_t>> slow;
      for (auto& w : workers) slow.insert(slow.end(), w->slow_.begin(), w->slow_.end());
      std::sort(slow.begin(), slow.end());
      std::ofstream log(o.slow_log);
      const std::int64_t start = win.start.load();
      log << "# window start " << start << "\n";
      for (const auto& [at, latency] : slow)
        log << static_cast<double>(at - start) / 1e9 << ' ' << static_cast<double>(latency) / 1e6
            << '\n';
      if (!log) std::cerr << "loadgen: cannot write " << o.slow_log << "\n";
    }
    const auto p = summarize(all);
    const auto completed = total(
        workers, [](counters & c) -> auto& { return c.window_completed; });
    result["tables"] = o.tables;
    result["request"] = o.request;
    result["spectate"] = o.spectate;
    result["rate_offered"] = o.rate;
    result["window_seconds"] = window_seconds;
    result["sent_in_window"] = sent2 - sent1;
    result["commands_per_second"] = static_cast<double>(completed) / window_seconds;
    result["frames_in_per_second"] = static_cast<double>(frames2 - frames1) / window_seconds;
    result["mbytes_in_per_second"] = static_cast<double>(bytes2 - bytes1) / window_seconds / 1e6;
    {
      const auto sf = total(
          workers, [](counters & c) -> auto& { return c.state_frames_in; });
      const auto sb = total(
          workers, [](counters & c) -> auto& { return c.state_bytes_in; });
      const auto af = total(
          workers, [](counters & c) -> auto& { return c.frames_in; });
      const auto ab = total(
          workers, [](counters & c) -> auto& { return c.bytes_in; });
      // Mean sizes over the whole run (set-up included): what the broadcast yardstick
      // sends in their place.
      result["state_frame_bytes"] =
          sf > 0 ? static_cast<double>(sb) / static_cast<double>(sf) : 0.0;
      result["other_frame_bytes"] =
          af > sf ? static_cast<double>(ab - sb) / static_cast<double>(af - sf) : 0.0;
    }
    result["latency_ms"] = {{"p50", p.p50},      {"p90", p.p90}, {"p99", p.p99},
                            {"p99.9", p.p999},   {"max", p.max}, {"mean", p.mean},
                            {"samples", p.count}};
    result["games_completed"] = total(
        workers, [](counters & c) -> auto& { return c.games; });
    result["games_completed_in_window"] = total(
        workers, [](counters & c) -> auto& { return c.window_games; });
    result["games_lost"] = lost;
    result["tables_failed_setup"] = total(
        workers, [](counters & c) -> auto& { return c.tables_failed; });
    result["unanswered_after_drain"] = total(
        workers, [](counters & c) -> auto& { return c.outstanding; });
    result["window_errors"] = total(
        workers, [](counters & c) -> auto& { return c.window_errors; });
    result["server_cpu_percent"] =
        server_cpu1 >= 0 ? 100.0 * (server_cpu2 - server_cpu1) / window_seconds : -1.0;
    result["loadgen_cpu_percent"] = 100.0 * (self_cpu2 - self_cpu1) / window_seconds;
  }

  const auto dropped = total(
      workers, [](counters & c) -> auto& { return c.dropped; });
  const auto failed = total(
      workers, [](counters & c) -> auto& { return c.connect_failed; });
  result["connections_held"] = welcomed - dropped;
  result["connect_failed"] = failed;
  result["dropped"] = dropped;
  result["error_messages"] = total(
      workers, [](counters & c) -> auto& { return c.errors; });
  result["errors"] = failed + dropped +
                     total(
                         workers, [](counters & c) -> auto& { return c.errors; });
  result["rss_end_kib"] = rss_kib(o.server_pid);
  std::cout << "RESULT " << result.dump() << std::endl;
  // Tearing down 10,000 sockets one by one tells nothing: the kernel closes them.
  std::_Exit(0);
}
