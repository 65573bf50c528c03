// cluster_driver: the players of scripts/cluster-test (issue 16, Proof). Drives T tables
// through HAProxy in front of a cluster of gammond nodes, each table with two scripted
// players and one spectator, and writes down what the players were told, so that the
// script can check it against the store afterwards.
//
// Each table: the first player sends /join, the second /join, the spectator enters,
// the first /start; then whoever is to act rolls, plays a legal play chosen from
// state.legal with a seeded generator, takes, continues, and starts the next game (free
// play: one game a match); nobody doubles. One command is outstanding per table; after
// its acknowledgement (the actor's state carrying "re") the next one is sent after
// --think-ms (0: at once, the closed loop of the figures).
//
// Clients follow the cluster contract (protocol/PROTOCOL.md): `moved` + close 4000 ->
// connect to its path on the same host, hello with the resume token, send the refused
// command again; close 4001 (node fenced) or a dropped connection -> reconnect to /ws
// after 0.2-1 s with the resume token. HAProxy's response header X-Gammond-Node (the
// server that took the WebSocket) says which node each acknowledgement came from.
//
// Output: --out FILE, JSON: per table every acknowledged change ([seq, wall-clock ms,
// node, command, latency ms, match (its dice commitment's first 16 hex digits), game,
// incarnation (resets of the table before it)]), the table's resets (removed between
// matches and made again: its seqs start again), the last
// state its players saw (seq, position_id, match_id, phase, dice, board), the positions seen per
// seq (a seq seen with two different positions is a lost or rewritten change: "conflicts"),
// reconnects, redirects; totals and the latency of acknowledged commands inside the measured
// window. After writing it, the driver prints "cluster_driver: done" and keeps its connections open
// until its standard input closes or SIGTERM (so the script checks the store while the players are
// still at their tables).

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24  // linux/in.h
#endif

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <memory>
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
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;
using clk = std::chrono::steady_clock;
using nlohmann::json;
using namespace std::chrono_literals;
constexpr auto use_tuple = net::as_tuple(net::use_awaitable);

/// The driver's settings (see usage()).
struct options {
  std::string host = "127.0.0.1";
  int port = 8080;
  int tables = 150;
  int sources = 50;
  std::uint64_t seed = 1;
  double duration = 60;   ///< seconds of play after every table is set up
  double warmup = 0;      ///< seconds of play before the latency window opens
  double think_ms = 300;  ///< pause before each command of a table
  double stall = 20;      ///< a command unanswered this long: its connection is closed
  double drain = 10;      ///< after the play: wait this long for outstanding answers
  double setup_timeout = 120;
  std::string prefix = "ct";
  std::string out;
  /// Every Nth table's two players are registered accounts (issue 26); 0: none.
  int registered_every = 0;
};

[[noreturn]] void usage(int code) {
  (code == 0 ? std::cout : std::cerr) << R"(cluster_driver [options]
  --host A          HAProxy's address (127.0.0.1)
  --port N          HAProxy's port (8080)
  --tables T        tables, two players and a spectator each (150)
  --sources S       bind clients to 127.0.0.2..127.0.0.(S+1) round robin (50), so each
                    has its own X-Forwarded-For address at gammond; 0: no bind (a port
                    published by rootful podman: its NAT answers 127.0.0.1 only)
  --seed N          which legal plays are chosen (1)
  --duration SEC    seconds of play after the set-up (60)
  --warmup SEC      play before the latency window opens (0)
  --think-ms MS     pause before each command of a table; 0 = closed loop (300)
  --stall SEC       a command unanswered this long closes its connection (20)
  --drain SEC       after the play, wait for outstanding answers (10)
  --prefix TEXT     names: TEXT-t7 (table), TEXT-t7r, TEXT-t7b, TEXT-t7s (ct)
  --registered-every N  the players of every Nth table (t0, tN, ...) register an
                    account on their first connection (a login when it exists) and
                    must be welcomed as registered, with the same rating, on every node
                    they come back to (0: all guests)
  --out FILE        the results as JSON (required)
)";
  std::exit(code);
}

double to_number(std::string_view flag, std::string_view text) {
  return bg::test::number_flag("cluster_driver", flag, text);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a{argv[i]};
    auto value = [&]() -> std::string_view {
      if (i + 1 >= argc) {
        std::cerr << "cluster_driver: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h")
      usage(0);
    else if (a == "--host")
      o.host = value();
    else if (a == "--port")
      o.port = static_cast<int>(to_number(a, value()));
    else if (a == "--tables")
      o.tables = static_cast<int>(to_number(a, value()));
    else if (a == "--sources")
      o.sources = static_cast<int>(to_number(a, value()));
    else if (a == "--seed")
      o.seed = static_cast<std::uint64_t>(to_number(a, value()));
    else if (a == "--duration")
      o.duration = to_number(a, value());
    else if (a == "--warmup")
      o.warmup = to_number(a, value());
    else if (a == "--think-ms")
      o.think_ms = to_number(a, value());
    else if (a == "--stall")
      o.stall = to_number(a, value());
    else if (a == "--drain")
      o.drain = to_number(a, value());
    else if (a == "--prefix")
      o.prefix = value();
    else if (a == "--out")
      o.out = value();
    else if (a == "--registered-every")
      o.registered_every = static_cast<int>(to_number(a, value()));
    else {
      std::cerr << "cluster_driver: unknown flag " << a << "\n";
      usage(2);
    }
  }
  if (o.out.empty() || o.tables < 1 || o.sources < 0 || o.sources > 250 || o.think_ms < 0) usage(2);
  return o;
}

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double since_ms(clk::time_point t) {
  return std::chrono::duration<double, std::milli>(clk::now() - t).count();
}

/// Totals over the run (one thread: plain integers).
struct totals {
  std::uint64_t acks = 0;     ///< acknowledged changes
  std::uint64_t errors = 0;   ///< `error` answers to the driver's commands
  std::uint64_t moved = 0;    ///< redirects followed (close 4000)
  std::uint64_t fenced = 0;   ///< closes 4001
  std::uint64_t dropped = 0;  ///< other closes and failures after a hello
  std::uint64_t connect_failed = 0;
  std::uint64_t hello_refused = 0;
  std::uint64_t stalls = 0;
  std::uint64_t conflicts = 0;
  // Issue 26: the registered players.
  std::uint64_t registered_welcomes = 0;        ///< welcomes of registered players as registered
  std::uint64_t registered_moved_welcomes = 0;  ///< of those, right after a `moved`
  std::uint64_t welcomed_as_guest = 0;          ///< a registered player welcomed as a guest
  std::uint64_t rating_changed = 0;         ///< welcomed with another rating (free play is unrated)
  std::uint64_t states_without_rating = 0;  ///< a state (both seated) missing its rating
  std::uint64_t registered_resume_refused = 0;  ///< a registered player's token refused
};

struct table_run;

/// One WebSocket client (a player or the spectator of a table) that reconnects for
/// as long as the driver runs.
struct client {
  client(net::io_context& io, const options& o, table_run& t, std::string name, int index,
         bool spectator, bool registered = false)
      : io_{io},
        o_{o},
        table_{t},
        name_{std::move(name)},
        index_{index},
        spectator_{spectator},
        registered_{registered} {}

  net::awaitable<void> run();
  void send(std::string frame);
  /// Closes the current connection (a stalled command): run() reconnects.
  void drop();

  using stream = websocket::stream<beast::tcp_stream>;
  net::io_context& io_;
  const options& o_;
  table_run& table_;
  const std::string name_;
  const int index_;
  const bool spectator_;
  const bool registered_;      ///< an account's (issue 26): registers, then logs in or resumes
  bool account_made_ = false;  ///< the register was answered (welcome, or name taken)
  double rating_ = -1;         ///< the rating of its first welcome
  bool after_moved_ = false;   ///< this connection followed a `moved`
  std::int64_t moved_retry_ms_ = -1;  ///< the `retry_ms` of the last `moved` (-1: none)
  std::shared_ptr<stream> ws_;
  std::string node_;    ///< the node serving the current connection (HAProxy's header)
  std::string resume_;  ///< the resume token of the last welcome
  bool welcomed_ = false;
  std::string moved_path_;
  std::uint64_t connections_ = 0;  ///< connections opened (the first one included)
  std::uint64_t moved_ = 0;        ///< redirects followed
  std::uint64_t refused_ = 0;      ///< hellos refused
  std::deque<std::string> out_;
  bool writing_ = false;
  std::mt19937_64 rng_;

 private:
  void do_write();
  void on_message(std::string_view text);
};

/// One acknowledged change.
struct ack {
  std::int64_t seq;
  std::int64_t wall_ms;
  std::string node;
  std::string command;
  double latency_ms;
  std::string match;    ///< the match's dice commitment (its first 16 hex digits)
  int game = 0;         ///< the game number within that match
  int incarnation = 0;  ///< table_run::incarnation_ when acknowledged
};

/// One table: its three clients and the stream of commands.
struct table_run {
  table_run(net::io_context& io, const options& o, totals& t, int index)
      : io_{io},
        o_{o},
        totals_{t},
        name_{o.prefix + "-t" + std::to_string(index)},
        timer_{io},
        rng_{o.seed * 1000003U + static_cast<std::uint64_t>(index)} {}

  void on_welcome(client& c);
  void on_state(client& c, const json& j);
  void on_error(client& c, const json& j);
  void on_disconnect(client& c);
  void check_stall();
  [[nodiscard]] json result() const;

  net::io_context& io_;
  const options& o_;
  totals& totals_;
  const std::string name_;
  std::unique_ptr<client> players_[2];
  std::unique_ptr<client> spectator_;
  net::steady_timer timer_;
  std::mt19937_64 rng_;

  bool ready_ = false;  ///< set up: both seated, a match started
  bool stopping_ = false;
  bool spectator_in_ = false;
  std::int64_t next_id_ = 1;
  std::int64_t outstanding_id_ = 0;
  client* outstanding_on_ = nullptr;
  std::string outstanding_frame_;
  std::string outstanding_command_;
  clk::time_point sent_at_{};
  bool scheduled_ = false;
  std::int64_t acted_seq_ = -1;
  json latest_;  ///< the newest state a player saw (highest seq)
  std::vector<ack> acks_;
  std::map<std::int64_t, std::string> position_by_seq_;
  std::vector<json> resets_;  ///< the table was removed and made again (see on_state)
  int incarnation_ = 0;       ///< how many times
  std::vector<json> conflicts_;
  std::vector<std::string> error_samples_;
  std::uint64_t errors_ = 0;
  std::uint64_t reconnects_ = 0;
  std::uint64_t moved_ = 0;
  std::vector<double> window_latencies_;
  std::int64_t window_start_ms_ = INT64_MAX;
  std::int64_t window_end_ms_ = INT64_MAX;

 private:
  void decide();
  void schedule(client& who, std::string command);
  void send_now(client& who, const std::string& command);
};

// ------------------------------------------------------------------------------------
// client

net::awaitable<void> client::run() {
  rng_.seed(o_.seed * 7919U + static_cast<std::uint64_t>(index_));
  std::string path = "/ws";
  bool first = true;
  for (;;) {
    if (!first) ++table_.reconnects_;
    first = false;
    ++connections_;
    welcomed_ = false;
    moved_path_.clear();
    moved_retry_ms_ = -1;
    auto ws = std::make_shared<stream>(io_);
    ws_ = ws;
    out_.clear();
    writing_ = false;
    bool connected = false;
    {
      auto& socket = beast::get_lowest_layer(*ws).socket();
      beast::error_code ec;
      socket.open(tcp::v4(), ec);
      const int one = 1;
      if (!ec)
        ::setsockopt(socket.native_handle(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
      if (!ec && o_.sources > 0) {
        const auto source = net::ip::make_address_v4(static_cast<net::ip::address_v4::uint_type>(
            (127U << 24U) + static_cast<unsigned>(2 + index_ % o_.sources)));
        socket.bind(tcp::endpoint{source, 0}, ec);
      }
      if (!ec) {
        beast::get_lowest_layer(*ws).expires_after(10s);
        const tcp::endpoint server{net::ip::make_address(o_.host),
                                   static_cast<std::uint16_t>(o_.port)};
        auto [cec] = co_await beast::get_lowest_layer(*ws).async_connect(server, use_tuple);
        if (!cec) {
          beast::get_lowest_layer(*ws).expires_never();
          websocket::stream_base::timeout t =
              websocket::stream_base::timeout::suggested(beast::role_type::client);
          t.handshake_timeout = 5s;  // a frozen node (SIGSTOP) accepts but never answers
          t.idle_timeout = 10s;      // a frozen node: pings unanswered (the stall does the rest)
          t.keep_alive_pings = true;
          ws->set_option(t);
          websocket::response_type res;
          auto [hec] = co_await ws->async_handshake(res, o_.host + ":" + std::to_string(o_.port),
                                                    path, use_tuple);
          if (!hec) {
            connected = true;
            node_ = std::string(res["X-Gammond-Node"]);
          }
        }
      }
    }
    std::uint16_t close_code = 0;
    if (connected) {
      ws->text(true);
      json hello = {{"type", "hello"}, {"name", name_}};
      if (!resume_.empty()) {
        hello["resume"] = resume_;
      } else if (registered_) {
        // The account's password is its name backwards and a suffix (8+ characters).
        const std::string password = std::string(name_.rbegin(), name_.rend()) + "-pw-26";
        hello = {{"type", account_made_ ? "hello" : "register"},
                 {"name", name_},
                 {"password", password}};
      }
      send(hello.dump());
      beast::flat_buffer buffer;
      for (;;) {
        auto [rec, bytes] = co_await ws->async_read(buffer, use_tuple);
        if (rec) {
          close_code = ws->reason().code;
          break;
        }
        const auto data = buffer.cdata();
        on_message({static_cast<const char*>(data.data()), data.size()});
        buffer.consume(buffer.size());
        if (ws_ != ws) break;  // drop() replaced it
      }
    } else {
      ++table_.totals_.connect_failed;
    }
    const bool was_welcomed = welcomed_;
    welcomed_ = false;
    ws_.reset();
    table_.on_disconnect(*this);
    if (table_.stopping_) co_return;
    std::chrono::milliseconds delay{0};
    after_moved_ = false;
    if (close_code == 4000 && !moved_path_.empty()) {
      ++table_.totals_.moved;
      ++table_.moved_;
      ++moved_;
      path = moved_path_;
      after_moved_ = true;
      // A node being taken over: wait as told (issue 26), with a little spread.
      if (moved_retry_ms_ >= 0)
        delay = std::chrono::milliseconds(std::min<std::int64_t>(moved_retry_ms_, 30000) +
                                          static_cast<std::int64_t>(rng_() % 251));
    } else {
      if (close_code == 4001)
        ++table_.totals_.fenced;
      else if (was_welcomed)
        ++table_.totals_.dropped;
      path = "/ws";
      delay = std::chrono::milliseconds(200 + static_cast<int>(rng_() % 801));
    }
    if (delay.count() > 0) {
      net::steady_timer wait{io_, delay};
      co_await wait.async_wait(use_tuple);
    }
  }
}

void client::send(std::string frame) {
  if (!ws_) return;
  out_.push_back(std::move(frame));
  if (!writing_) do_write();
}

void client::do_write() {
  writing_ = true;
  auto ws = ws_;
  ws->async_write(net::buffer(out_.front()), [this, ws](beast::error_code ec, std::size_t) {
    if (ws != ws_) return;  // a write of an older connection
    writing_ = false;
    if (ec) return;  // the read fails too and reconnects
    out_.pop_front();
    if (!out_.empty()) do_write();
  });
}

void client::drop() {
  if (!ws_) return;
  beast::error_code ignored;
  beast::get_lowest_layer(*ws_).socket().shutdown(tcp::socket::shutdown_both, ignored);
  beast::get_lowest_layer(*ws_).socket().close(ignored);
}

void client::on_message(std::string_view text) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return;
  const std::string type = j.value("type", "");
  if (type == "welcome") {
    welcomed_ = true;
    resume_ = j.value("resume", "");
    if (registered_) {
      account_made_ = true;
      const json& account = j.contains("account") ? j["account"] : json();
      if (account.is_object() && account.value("registered", false)) {
        ++table_.totals_.registered_welcomes;
        if (after_moved_) ++table_.totals_.registered_moved_welcomes;
        const double rating = account.contains("rating") && account["rating"].is_object()
                                  ? account["rating"].value("standard", -1.0)
                                  : -1.0;
        if (rating_ < 0) {
          rating_ = rating;
        } else if (std::abs(rating - rating_) > 1e-9) {
          ++table_.totals_.rating_changed;
          if (table_.error_samples_.size() < 5)
            table_.error_samples_.push_back("rating changed: " + j.dump());
        }
      } else {
        ++table_.totals_.welcomed_as_guest;
        if (table_.error_samples_.size() < 5)
          table_.error_samples_.push_back("welcomed as a guest: " + j.dump());
      }
    }
    table_.on_welcome(*this);
  } else if (type == "moved") {
    moved_path_ = j.value("path", "");
    moved_retry_ms_ = j.contains("retry_ms") && j["retry_ms"].is_number_integer()
                          ? j["retry_ms"].get<std::int64_t>()
                          : -1;
  } else if (type == "state") {
    if (j.value("table", "") == table_.name_) table_.on_state(*this, j);
  } else if (type == "error") {
    if (!welcomed_) {
      ++table_.totals_.hello_refused;
      ++refused_;
      if (table_.error_samples_.size() < 5) table_.error_samples_.push_back("hello: " + j.dump());
      // A spectator holds no seat: a token its dead node took along is worth nothing,
      // so it comes back under its name alone. A player keeps its token (its seat's),
      // which works again once a live node has claimed the table.
      if (spectator_ && j.value("code", "") == "bad_resume") resume_.clear();
      // The account exists already (an earlier run, or a register that was answered
      // but not seen): log in with the password next time.
      if (registered_ && resume_.empty()) account_made_ = true;
      // Issue 26: a registered player's token must keep working on every node; one
      // refused is counted (and the player logs in with its password instead).
      if (registered_ && !resume_.empty()) {
        const std::string code = j.value("code", "");
        if (code == "bad_resume" || code == "name_registered") {
          ++table_.totals_.registered_resume_refused;
          resume_.clear();
        }
      }
      drop();  // try again after the delay, with the same token
      return;
    }
    table_.on_error(*this, j);
  }
}

// ------------------------------------------------------------------------------------
// table_run

void table_run::on_welcome(client& c) {
  if (stopping_) return;
  if (&c == spectator_.get()) {
    c.send(json{{"type", "enter"}, {"table", name_}}.dump());
    return;
  }
  // The refused command again (a redirect), or the set-up's first step.
  if (outstanding_id_ != 0 && outstanding_on_ == &c && !outstanding_frame_.empty()) {
    c.send(outstanding_frame_);
    return;
  }
  if (latest_.is_null()) {
    if (&c == players_[0].get() && outstanding_id_ == 0 && !scheduled_) send_now(c, "/join");
    return;
  }
  // A resumed player gets the table's state from the server; the other player may have
  // waited for this one to come back.
  decide();
}

void table_run::on_state(client& c, const json& j) {
  const auto seq = j.value("seq", std::int64_t{-1});
  // A table removed and made again (a failover or restart rebuilds only tables with a
  // match in progress: between matches, with nobody seated, the table is gone and the
  // next comer makes a new one): an older seq of another match (dice commitment). Its
  // seqs start again, so the positions seen per seq start again too. A reset in the
  // middle of a match is a lost table: the check fails on it.
  if (latest_.is_object() && seq < latest_.value("seq", std::int64_t{-1}) &&
      j["dice_commitment"] != latest_["dice_commitment"]) {
    resets_.push_back({{"from_seq", latest_.value("seq", std::int64_t{-1})},
                       {"from_phase", latest_.value("phase", "")},
                       {"to_seq", seq},
                       {"to_phase", j.value("phase", "")},
                       {"node", c.node_},
                       {"wall_ms", wall_ms()}});
    ++incarnation_;
    position_by_seq_.clear();
    latest_ = j;
    acted_seq_ = -1;
  }
  const std::string position = j.value("position_id", "") + " " + j.value("match_id", "") + " " +
                               j.value("phase", "") + " " + j["dice"].dump();
  if (auto [it, fresh] = position_by_seq_.emplace(seq, position);
      !fresh && it->second != position) {
    ++totals_.conflicts;
    if (conflicts_.size() < 20)
      conflicts_.push_back({{"seq", seq},
                            {"first", it->second},
                            {"then", position},
                            {"node", c.node_},
                            {"wall_ms", wall_ms()}});
  }
  if (&c == spectator_.get()) {
    spectator_in_ = true;
    return;
  }
  // Issue 26: both players registered and seated: the state shows both ratings, on
  // whatever node the table is now.
  if (c.registered_ && j.contains("players") && j["players"].is_object()) {
    const json& p = j["players"];
    const json& r = j.contains("ratings") ? j["ratings"] : json();
    for (const char* side : {"red", "black"})
      if (p.contains(side) && p[side].is_string() &&
          (!r.is_object() || !r.contains(p[side].get<std::string>()))) {
        ++totals_.states_without_rating;
        if (error_samples_.size() < 5)
          error_samples_.push_back("state without a rating on " + c.node_ + ": " + j.dump());
        break;
      }
  }
  if (latest_.is_null() || seq >= latest_.value("seq", std::int64_t{-1})) latest_ = j;
  if (outstanding_id_ != 0 && &c == outstanding_on_ && j.contains("re") &&
      j["re"] == outstanding_id_) {
    const double latency = since_ms(sent_at_);
    const auto now = wall_ms();
    if (outstanding_command_ != "/board") {
      const json& commitment = j["dice_commitment"];
      acks_.push_back({seq, now, c.node_, outstanding_command_, latency,
                       commitment.is_string() ? commitment.get<std::string>().substr(0, 16) : "",
                       j.value("game_number", 0), incarnation_});
      ++totals_.acks;
      if (now >= window_start_ms_ && now < window_end_ms_) window_latencies_.push_back(latency);
    }
    // /board (a resynchronisation after an error) changes nothing: its state, of the
    // same seq, is decided upon afresh.
    if (outstanding_command_ == "/board") acted_seq_ = -1;
    outstanding_id_ = 0;
    outstanding_on_ = nullptr;
    outstanding_frame_.clear();
  }
  decide();
}

void table_run::on_error(client& c, const json& j) {
  if (outstanding_id_ == 0 || &c != outstanding_on_ || !j.contains("re") ||
      j["re"] != outstanding_id_)
    return;
  ++errors_;
  ++totals_.errors;
  if (error_samples_.size() < 5)
    error_samples_.push_back(outstanding_command_ + ": " + j.value("code", "") + " " +
                             j.value("message", ""));
  outstanding_id_ = 0;
  outstanding_on_ = nullptr;
  outstanding_frame_.clear();
  // Resynchronise from the table's state.
  acted_seq_ = -1;
  schedule(c, "/board");
}

void table_run::on_disconnect(client& c) {
  if (outstanding_on_ == &c) {
    // Unknown whether it was done: the state after the reconnect tells.
    outstanding_id_ = 0;
    outstanding_on_ = nullptr;
    outstanding_frame_.clear();
    acted_seq_ = -1;
  }
  if (&c == spectator_.get()) spectator_in_ = false;
}

void table_run::check_stall() {
  if (outstanding_id_ == 0 || outstanding_on_ == nullptr) return;
  if (since_ms(sent_at_) < o_.stall * 1000) return;
  ++totals_.stalls;
  if (error_samples_.size() < 5) error_samples_.push_back("stalled: " + outstanding_command_);
  outstanding_on_->drop();
}

void table_run::decide() {
  if (stopping_ || outstanding_id_ != 0 || scheduled_ || latest_.is_null()) return;
  const json& s = latest_;
  const auto seq = s.value("seq", std::int64_t{-1});
  if (seq == acted_seq_) return;
  const json& seats = s["players"];
  auto seated = [&](const client& p) {
    for (const char* side : {"red", "black"})
      if (seats.contains(side) && seats[side].is_string() && seats[side] == p.name_) return true;
    return false;
  };
  if (!seated(*players_[0])) return schedule(*players_[0], "/join");
  if (!seated(*players_[1])) return schedule(*players_[1], "/join");
  auto player_of = [&](const json& side) -> client* {
    if (!side.is_string() || !seats.contains(side.get<std::string>())) return nullptr;
    const json& who = seats[side.get<std::string>()];
    for (auto& p : players_)
      if (who == p->name_) return p.get();
    return nullptr;
  };
  const std::string phase = s.value("phase", "");
  client* actor = player_of(s["to_act"]);
  if (phase == "waiting" || phase == "match_over") return schedule(*players_[0], "/start");
  ready_ = true;
  if (phase == "opening") return schedule(*players_[0], "/roll");
  if (actor == nullptr) return;
  if (phase == "roll") return schedule(*actor, "/roll");
  if (phase == "move") {
    const json& legal = s["legal"];
    if (!legal.is_array() || legal.empty()) return;
    return schedule(*actor, "/move " + legal[rng_() % legal.size()].get<std::string>());
  }
  if (phase == "cube_offered") return schedule(*actor, "/take");
  if (phase == "resign_offered") return schedule(*actor, "/reject");
  if (phase == "game_over") {
    // Basis sessions only: whoever has not said continue yet.
    return schedule(*actor, "/continue");
  }
}

void table_run::schedule(client& who, std::string command) {
  if (latest_.is_object()) acted_seq_ = latest_.value("seq", std::int64_t{-1});
  if (o_.think_ms <= 0) return send_now(who, command);
  scheduled_ = true;
  timer_.expires_after(std::chrono::microseconds(static_cast<std::int64_t>(o_.think_ms * 1000)));
  timer_.async_wait([this, &who, command = std::move(command)](beast::error_code ec) {
    scheduled_ = false;
    if (ec) return;
    send_now(who, command);
  });
}

void table_run::send_now(client& who, const std::string& command) {
  if (stopping_ || outstanding_id_ != 0) return;
  if (!who.welcomed_) {
    acted_seq_ = -1;  // decided again when it is back
    return;
  }
  const std::int64_t id = next_id_++;
  outstanding_id_ = id;
  outstanding_on_ = &who;
  outstanding_command_ = command;
  outstanding_frame_ =
      json{{"type", "line"}, {"table", name_}, {"text", command}, {"id", id}}.dump();
  sent_at_ = clk::now();
  who.send(outstanding_frame_);
}

json table_run::result() const {
  json acks = json::array();
  for (const auto& a : acks_)
    acks.push_back({a.seq, a.wall_ms, a.node, a.command, std::round(a.latency_ms * 100) / 100,
                    a.match, a.game, a.incarnation});
  json last = nullptr;
  if (latest_.is_object())
    last = {{"seq", latest_.value("seq", std::int64_t{-1})},
            {"position_id", latest_.value("position_id", "")},
            {"match_id", latest_.value("match_id", "")},
            {"phase", latest_.value("phase", "")},
            {"dice", latest_.value("dice", json::array())},
            {"board", latest_.value("board", json())},
            {"game_number", latest_.value("game_number", 0)}};
  json clients = json::array();
  for (const client* c : {players_[0].get(), players_[1].get(), spectator_.get()})
    clients.push_back({{"name", c->name_},
                       {"registered", c->registered_},
                       {"connections", c->connections_},
                       {"moved", c->moved_},
                       {"hello_refused", c->refused_}});
  return {{"table", name_},
          {"clients", std::move(clients)},
          {"resets", resets_},
          {"acks", std::move(acks)},
          {"last", std::move(last)},
          {"conflicts", conflicts_},
          {"errors", errors_},
          {"error_samples", error_samples_},
          {"reconnects", reconnects_},
          {"moved", moved_},
          {"ready", ready_},
          {"spectator_in", spectator_in_}};
}

void sleep_until(clk::time_point t) {
  std::this_thread::sleep_until(t);
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  net::io_context io{1};
  totals sum;
  std::vector<std::unique_ptr<table_run>> tables;
  for (int t = 0; t < o.tables; ++t) {
    auto run = std::make_unique<table_run>(io, o, sum, t);
    const std::string base = run->name_;
    const bool registered = o.registered_every > 0 && t % o.registered_every == 0;
    run->players_[0] = std::make_unique<client>(io, o, *run, base + "r", 3 * t, false, registered);
    run->players_[1] =
        std::make_unique<client>(io, o, *run, base + "b", 3 * t + 1, false, registered);
    run->spectator_ = std::make_unique<client>(io, o, *run, base + "s", 3 * t + 2, true);
    tables.push_back(std::move(run));
  }
  // Connect gradually (a few per millisecond), players first.
  for (auto& t : tables) {
    net::co_spawn(io, t->players_[0]->run(), net::detached);
    net::co_spawn(io, t->players_[1]->run(), net::detached);
    net::co_spawn(io, t->spectator_->run(), net::detached);
  }
  // A stall check every second.
  std::function<void()> stall_check;
  net::steady_timer stall_timer{io};
  stall_check = [&] {
    for (auto& t : tables) t->check_stall();
    stall_timer.expires_after(1s);
    stall_timer.async_wait([&](beast::error_code ec) {
      if (!ec) stall_check();
    });
  };
  stall_check();
  std::jthread worker{[&io] { io.run(); }};

  auto on_io = [&io](auto f) {
    std::promise<void> done;
    net::post(io, [&] {
      f();
      done.set_value();
    });
    done.get_future().wait();
  };
  auto count_ready = [&] {
    int n = 0;
    on_io([&] {
      for (auto& t : tables) n += t->ready_ ? 1 : 0;
    });
    return n;
  };
  const auto t0 = clk::now();
  int ready = 0;
  while ((ready = count_ready()) < o.tables &&
         clk::now() - t0 < std::chrono::duration<double>(o.setup_timeout))
    std::this_thread::sleep_for(100ms);
  std::cout << "cluster_driver: " << ready << " of " << o.tables << " tables set up in "
            << std::chrono::duration<double>(clk::now() - t0).count() << " s" << std::endl;
  const auto play_start = clk::now();
  const auto window_start = wall_ms() + static_cast<std::int64_t>(o.warmup * 1000);
  const auto window_end = wall_ms() + static_cast<std::int64_t>(o.duration * 1000);
  on_io([&] {
    for (auto& t : tables) {
      t->window_start_ms_ = window_start;
      t->window_end_ms_ = window_end;
    }
  });
  std::cout << "cluster_driver: playing " << wall_ms() << std::endl;
  for (int s = 1; s <= static_cast<int>(o.duration); ++s) {
    sleep_until(play_start + std::chrono::seconds(s));
    if (s % 5 == 0) {
      totals now;
      on_io([&] { now = sum; });
      std::cout << "cluster_driver: " << s << " s: " << now.acks << " acknowledged, " << now.errors
                << " errors, " << now.moved << " moved, " << now.fenced << " fenced, "
                << now.dropped << " dropped, " << now.stalls << " stalls, " << now.conflicts
                << " conflicts" << std::endl;
    }
  }
  sleep_until(play_start +
              std::chrono::duration_cast<clk::duration>(std::chrono::duration<double>(o.duration)));
  // Stop sending; wait for what is outstanding.
  on_io([&] {
    for (auto& t : tables) {
      t->stopping_ = true;
      t->timer_.cancel();
    }
  });
  const auto drain_start = clk::now();
  for (;;) {
    int outstanding = 0;
    on_io([&] {
      for (auto& t : tables) outstanding += t->outstanding_id_ != 0 ? 1 : 0;
    });
    if (outstanding == 0 || clk::now() - drain_start > std::chrono::duration<double>(o.drain)) {
      std::cout << "cluster_driver: " << outstanding << " command(s) unanswered after the drain"
                << std::endl;
      break;
    }
    std::this_thread::sleep_for(50ms);
  }
  json result;
  on_io([&] {
    json per = json::array();
    std::vector<double> latencies;
    for (auto& t : tables) {
      per.push_back(t->result());
      latencies.insert(latencies.end(), t->window_latencies_.begin(), t->window_latencies_.end());
    }
    std::sort(latencies.begin(), latencies.end());
    auto at = [&](double q) {
      if (latencies.empty()) return 0.0;
      const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(latencies.size())));
      return latencies[std::min(latencies.size() - 1, i == 0 ? 0 : i - 1)];
    };
    const double window_s = std::max(0.001, o.duration - o.warmup);
    result = {{"tables", std::move(per)},
              {"totals",
               {{"acks", sum.acks},
                {"errors", sum.errors},
                {"moved", sum.moved},
                {"fenced", sum.fenced},
                {"dropped", sum.dropped},
                {"connect_failed", sum.connect_failed},
                {"hello_refused", sum.hello_refused},
                {"stalls", sum.stalls},
                {"conflicts", sum.conflicts},
                {"registered_welcomes", sum.registered_welcomes},
                {"registered_moved_welcomes", sum.registered_moved_welcomes},
                {"welcomed_as_guest", sum.welcomed_as_guest},
                {"rating_changed", sum.rating_changed},
                {"states_without_rating", sum.states_without_rating},
                {"registered_resume_refused", sum.registered_resume_refused}}},
              {"window",
               {{"seconds", window_s},
                {"commands", latencies.size()},
                {"commands_per_second", static_cast<double>(latencies.size()) / window_s},
                {"p50_ms", at(0.5)},
                {"p99_ms", at(0.99)},
                {"max_ms", latencies.empty() ? 0.0 : latencies.back()}}},
              {"options",
               {{"tables", o.tables},
                {"think_ms", o.think_ms},
                {"seed", o.seed},
                {"registered_every", o.registered_every},
                {"duration", o.duration},
                {"warmup", o.warmup}}}};
  });
  {
    std::ofstream out{o.out};
    out << result.dump() << '\n';
    if (!out) {
      std::cerr << "cluster_driver: cannot write " << o.out << '\n';
      std::_Exit(1);
    }
  }
  std::cout << "cluster_driver: window " << result["window"].dump() << std::endl;
  std::cout << "cluster_driver: done" << std::endl;
  // Keep the players at their tables until told to go (stdin closes, or SIGTERM).
  char c = 0;
  while (::read(0, &c, 1) > 0) {
  }
  std::_Exit(0);
}
