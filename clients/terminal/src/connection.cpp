// gammon-term's WebSocket link with hello, resume and reconnection (connection.hpp).
// Everything below runs on one strand: handlers of the resolver, the socket and the
// timers are bound to it through their I/O objects' executor.

#include "bg/term/connection.hpp"

#include "bg/term/board_view.hpp"

#include <algorithm>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <random>
#include <utility>

namespace bg::term {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

/// One connection attempt: its socket, its read buffer and its own write queue, kept
/// alive by the handlers in flight (so a dropped connection's late completions touch
/// only their own holder).
struct connection::stream_holder {
  explicit stream_holder(const net::strand<net::io_context::executor_type>& ex)
      : resolver{ex}, ws{ex} {}
  tcp::resolver resolver;
  websocket::stream<beast::tcp_stream> ws;
  beast::flat_buffer buffer;
  std::deque<std::string> writes;  ///< frames to write, the front one in flight
  bool writing = false;
  bool open = false;   ///< the handshake succeeded
  bool ended = false;  ///< on_ended ran for it
};

connection::connection(net::io_context& io, settings s, handlers h)
    : strand_{net::make_strand(io)},
      settings_{std::move(s)},
      handlers_{std::move(h)},
      backoff_timer_{strand_},
      finish_timer_{strand_},
      resume_{settings_.resume},
      session_{settings_.session},
      target_{settings_.target} {}

connection::~connection() = default;

void connection::start() {
  net::post(strand_, [this] { attempt(); });
}

void connection::send_line(std::string text) {
  net::post(strand_, [this, text = std::move(text)] {
    nlohmann::json m{{"type", "line"}, {"text", text}};
    if (!settings_.table.empty()) m["table"] = settings_.table;
    lines_.push_back(std::move(m));
    flush_lines();
  });
}

void connection::finish(std::chrono::milliseconds timeout) {
  net::post(strand_, [this, timeout] {
    if (done_ || finishing_) return;
    finishing_ = true;
    finish_timer_.expires_after(timeout);
    finish_timer_.async_wait([this](beast::error_code ec) {
      if (ec || done_) return;
      stopping_ = true;
      close_now();
    });
    check_finished();
  });
}

void connection::stop() {
  net::post(strand_, [this] {
    stopping_ = true;
    close_now();
  });
}

void connection::go(std::string table) {
  net::post(strand_, [this, table = std::move(table)] {
    if (table == settings_.table) return;
    follow(table);
  });
}

void connection::follow(const std::string& table) {
  if (welcomed_ && !settings_.table.empty() && settings_.table != table)
    write(nlohmann::json{{"type", "exit"}, {"table", settings_.table}}.dump());
  set_view(table);
  if (welcomed_ && !table.empty()) {
    const std::string id = "enter" + std::to_string(++next_id_);
    awaiting_.insert(id);
    write(nlohmann::json{{"type", "enter"}, {"table", table}, {"id", id}}.dump());
  }
}

void connection::set_view(const std::string& table) {
  settings_.table = table;
  if (handlers_.on_view) handlers_.on_view(table);
}

void connection::set_session(const std::string& credential) {
  if (credential == session_) return;
  session_ = credential;
  if (handlers_.on_session) handlers_.on_session(credential);
}

void connection::set_token(const std::string& token) {
  if (token == resume_) return;
  resume_ = token;
  if (handlers_.on_token) handlers_.on_token(token);
}

void connection::report(status st, const std::string& detail) {
  if (handlers_.on_status) handlers_.on_status(st, detail);
}

void connection::attempt() {
  if (stopping_) return;
  auto s = std::make_shared<stream_holder>(strand_);
  stream_ = s;
  welcomed_ = false;
  s->resolver.async_resolve(
      settings_.host, settings_.port,
      [this, s](beast::error_code ec, const tcp::resolver::results_type& results) {
        if (ec)
          return on_ended(s, tr(settings_.lang, "term.link.cannot_resolve",
                                {{"host", settings_.host}, {"why", ec.message()}}));
        auto& socket = beast::get_lowest_layer(s->ws);
        socket.expires_after(10s);
        socket.async_connect(results, [this, s](beast::error_code ec2,
                                                const tcp::resolver::results_type::endpoint_type&) {
          if (ec2)
            return on_ended(
                s, tr(settings_.lang, "term.link.cannot_connect", {{"why", ec2.message()}}));
          beast::get_lowest_layer(s->ws).expires_never();
          websocket::stream_base::timeout t{};
          t.handshake_timeout = 10s;
          t.idle_timeout = 20s;  // pings at half of it, so a dead server is noticed
          t.keep_alive_pings = true;
          s->ws.set_option(t);
          s->ws.set_option(websocket::stream_base::decorator([](websocket::request_type& req) {
            req.set(beast::http::field::user_agent, "gammon-term/" GAMMOND_VERSION);
          }));
          s->ws.read_message_max(4U * 1024U * 1024U);
          s->ws.text(true);
          s->ws.async_handshake(
              settings_.host + ":" + settings_.port, target_, [this, s](beast::error_code ec3) {
                if (ec3)
                  return on_ended(s, tr(settings_.lang, "term.link.handshake_failed",
                                        {{"why", ec3.message()}}));
                on_connected(s);
              });
        });
      });
}

void connection::on_connected(const std::shared_ptr<stream_holder>& s) {
  s->open = true;
  if (stopping_) {
    close_now();
    return;
  }
  report(status::connected, "ws://" + settings_.host + ":" + settings_.port + target_);
  nlohmann::json hello{{"type", "hello"}, {"name", settings_.name}, {"id", "hello"}};
  if (!settings_.lang.empty()) hello["lang"] = settings_.lang;
  if (!resume_.empty()) {
    hello["resume"] = resume_;
  } else if (!session_.empty()) {
    // A remembered sign-in of the account (issue 27): no password needed.
    hello["session"] = session_;
    hello["label"] = "gammon-term";
  } else if (!settings_.password.empty()) {
    // An account: registered once (the first time), logged in afterwards.
    if (settings_.register_account && !ever_welcomed_) hello["type"] = "register";
    hello["password"] = settings_.password;
    if (settings_.remember) {
      hello["remember"] = true;
      hello["label"] = "gammon-term";
    }
  }
  write(hello.dump());
  read_next(s);
}

void connection::read_next(const std::shared_ptr<stream_holder>& s) {
  s->ws.async_read(s->buffer, [this, s](beast::error_code ec, std::size_t) {
    if (ec) {
      std::string why = ec.message();
      std::uint16_t code = 0;
      if (ec == websocket::error::closed) {
        const std::string reason{s->ws.reason().reason.c_str()};
        why = reason.empty() ? tr(settings_.lang, "term.link.closed_by_server") : reason;
        code = s->ws.reason().code;
      }
      return on_ended(s, why, code);
    }
    const std::string text = beast::buffers_to_string(s->buffer.data());
    s->buffer.consume(s->buffer.size());
    on_frame(s, text);
    if (!s->ended) read_next(s);
  });
}

void connection::on_frame(const std::shared_ptr<stream_holder>& s, const std::string& text) {
  auto m = nlohmann::json::parse(text, nullptr, false);
  if (m.is_discarded() || !m.is_object()) {
    m = nlohmann::json{{"type", "unparsed"}, {"text", text}};
  }
  const std::string type = m.value("type", "");
  if (type == "moved") {
    const std::string path = m.value("path", "");
    if (!path.empty() && path.front() == '/') moved_ = m;
  }
  if (type == "welcome") {
    welcomed_ = true;
    ever_welcomed_ = true;
    backoff_ = 250ms;
    if (m.contains("resume") && m["resume"].is_string()) set_token(m["resume"].get<std::string>());
    if (m.contains("session") && m["session"].is_string())
      set_session(m["session"].get<std::string>());
  }
  // /password ends every remembered sign-in and gives this one a new credential;
  // /signout (this one, or all) ends it.
  if (type == "info" && m.value("topic", "") == "password" && m.contains("data") &&
      m["data"].is_object() && m["data"].contains("session") && m["data"]["session"].is_string())
    set_session(m["data"]["session"].get<std::string>());
  if (type == "info" && m.value("topic", "") == "signout" && m.contains("data") &&
      m["data"].is_object() && (m["data"].value("current", false) || m["data"].value("all", false)))
    set_session("");
  // A password change hands out a new token: the old one no longer resumes.
  if (type == "info" && m.value("topic", "") == "password" && m.contains("data") &&
      m["data"].is_object() && m["data"].contains("resume") && m["data"]["resume"].is_string())
    set_token(m["data"]["resume"].get<std::string>());
  if (handlers_.on_message) handlers_.on_message(m);
  // The server seated the player at a new table (`/play bot`, a pairing): follow it.
  if (type == "info" && m.value("topic", "") == "play" && m.contains("data") &&
      m["data"].is_object() && m["data"].contains("table") && m["data"]["table"].is_string()) {
    const std::string seated = m["data"]["table"].get<std::string>();
    if (!seated.empty() && seated != settings_.table) set_view(seated);
  }
  // A tournament's pairing (RULES.md S6): the match has started with both players away;
  // go to the table (enter it, even when it is the one followed) before the grace period.
  if (type == "tournament_pairing" && m.contains("table") && m["table"].is_string() &&
      !m["table"].get<std::string>().empty())
    follow(m["table"].get<std::string>());
  if (type == "welcome") {
    // A resumed seat with no table asked for: go back to the seat's table.
    if (settings_.table.empty() && m.contains("tables") && m["tables"].is_array() &&
        !m["tables"].empty() && m["tables"][0].is_string())
      set_view(m["tables"][0].get<std::string>());
    if (!settings_.table.empty()) {
      const std::string id = "enter" + std::to_string(++next_id_);
      awaiting_.insert(id);
      write(nlohmann::json{{"type", "enter"}, {"table", settings_.table}, {"id", id}}.dump());
    }
    if (resend_) {
      // The message a `moved` answered, sent again to the table's node (an `enter` of
      // our own table was just sent above).
      auto again = std::move(*resend_);
      resend_.reset();
      const bool own_enter =
          again.value("type", "") == "enter" && again.value("table", "") == settings_.table;
      if (!own_enter) {
        const std::string id = "l" + std::to_string(++next_id_);
        again["id"] = id;
        awaiting_.insert(id);
        write(again.dump());
      }
    }
    flush_lines();
  } else if (type == "error" && !welcomed_ && m.value("re", nlohmann::json()) == "hello") {
    const std::string code = m.value("code", "");
    if (code == "bad_resume") {
      set_token("");  // the next attempt logs in afresh
      beast::get_lowest_layer(s->ws).close();
    } else if (code == "bad_session" && !settings_.password.empty()) {
      set_session("");  // ended elsewhere: the next attempt uses the password
      beast::get_lowest_layer(s->ws).close();
    } else {
      if (code == "bad_session") set_session("");
      stopping_ = true;
      done_ = true;
      report(status::failed, code + ": " + m.value("message", ""));
      close_now();
    }
  }
  if (m.contains("re") && m["re"].is_string()) awaiting_.erase(m["re"].get<std::string>());
  check_finished();
}

void connection::on_ended(const std::shared_ptr<stream_holder>& s, const std::string& why,
                          std::uint16_t code) {
  if (s->ended) return;
  s->ended = true;
  beast::error_code ignored;
  beast::get_lowest_layer(s->ws).socket().close(ignored);
  if (s != stream_) return;
  stream_.reset();
  welcomed_ = false;
  awaiting_.clear();  // their replies, if any, went with the connection
  if (stopping_) {
    close_now();
    return;
  }
  if (why == "replaced by a new connection") {
    stopping_ = true;
    done_ = true;
    report(status::failed, tr(settings_.lang, "term.link.replaced"));
    close_now();
    return;
  }
  report(status::disconnected, why);
  check_finished();
  if (stopping_) return;
  auto wait = backoff_;
  if (code == 4000 && moved_) {
    // The table lives on another node: there at once, then the message again. While
    // that node is being taken over (`retry_ms`, path /ws) wait that long first.
    target_ = moved_->value("path", settings_.target);
    if (moved_->contains("re") && (*moved_)["re"].is_object()) resend_ = (*moved_)["re"];
    wait = 0ms;
    if (const auto r = moved_->find("retry_ms"); r != moved_->end() && r->is_number()) {
      const double ms = std::clamp(r->get<double>(), 0.0, 30000.0);
      std::uniform_int_distribution<int> spread(0, 250);
      wait = std::chrono::milliseconds{static_cast<std::int64_t>(ms) + spread(random_)};
    }
  } else {
    target_ = settings_.target;  // a live node answers, and redirects if need be
    if (code == 4001) {
      // Fenced: our node lost its tables. Back soon, at a random moment (0.2-1 s), so
      // that its players do not all arrive at once.
      std::uniform_int_distribution<int> spread(200, 1000);
      wait = std::chrono::milliseconds{spread(random_)};
    } else {
      backoff_ = std::min(backoff_ * 2, settings_.max_backoff);
    }
  }
  moved_.reset();
  report(status::reconnecting, std::to_string(wait.count()));
  backoff_timer_.expires_after(wait);
  backoff_timer_.async_wait([this](beast::error_code ec) {
    if (!ec) attempt();
  });
}

void connection::write(std::string frame) {
  if (!stream_ || !stream_->open || stream_->ended) return;
  stream_->writes.push_back(std::move(frame));
  write_next(stream_);
}

void connection::write_next(const std::shared_ptr<stream_holder>& s) {
  if (s->writing || s->writes.empty() || s->ended) return;
  s->writing = true;
  s->ws.async_write(net::buffer(s->writes.front()), [this, s](beast::error_code ec, std::size_t) {
    s->writing = false;
    if (ec)
      return on_ended(s, tr(settings_.lang, "term.link.write_failed", {{"why", ec.message()}}));
    s->writes.pop_front();
    write_next(s);
    check_finished();
  });
}

void connection::flush_lines() {
  if (!welcomed_) return;
  while (!lines_.empty()) {
    auto m = std::move(lines_.front());
    lines_.pop_front();
    if (!settings_.table.empty()) {
      const std::string id = "l" + std::to_string(++next_id_);
      m["id"] = id;
      awaiting_.insert(id);
    }
    write(m.dump());
  }
}

void connection::check_finished() {
  if (!finishing_ || stopping_ || !ever_welcomed_) return;
  if (!lines_.empty() || !awaiting_.empty()) return;
  // Connected: every frame written. Disconnected with nothing left to send: done too.
  if (stream_ && (!welcomed_ || !stream_->writes.empty())) return;
  stopping_ = true;
  close_now();
}

void connection::close_now() {
  backoff_timer_.cancel();
  finish_timer_.cancel();
  if (stream_ && !stream_->ended) {
    auto s = stream_;
    if (s->open) {
      s->ws.async_close(websocket::close_code::normal, [this, s](beast::error_code) {
        on_ended(s, tr(settings_.lang, "term.link.ended"));
      });
    } else {
      s->resolver.cancel();
      beast::get_lowest_layer(s->ws).cancel();  // the pending step ends in on_ended
    }
    return;
  }
  if (!done_) {
    done_ = true;
    report(status::closed, "");
  }
}

}  // namespace bg::term
