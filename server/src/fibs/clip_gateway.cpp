// The service in front of gammond's game service for FIBS connections (clip_gateway.hpp).

#include "bg/server/fibs/clip_gateway.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <ctime>
#include <deque>
#include <map>
#include <mutex>
#include <vector>

#include "bg/server/fibs/clip_translator.hpp"
#include "bg/server/metrics.hpp"

namespace bg::server::fibs {
namespace {

namespace net = boost::asio;

std::int64_t unix_now() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

/// One FIBS connection as the game service sees it: a client whose frames are
/// translated to CLIP for the connection (`outer`), and whose lines become gammond
/// messages. Calls into the game service are serialised (one drainer at a time, in
/// order), as a WebSocket session's are; the translator runs under a mutex because the
/// service sends from any thread.
class clip_connection final : public client, public std::enable_shared_from_this<clip_connection> {
 public:
  /// `max_waiting`: messages that may wait for the game service (--fibs-queue).
  clip_connection(std::shared_ptr<client> outer, service& game, clip_options options,
                  net::io_context& io, std::chrono::seconds who_interval, std::size_t max_waiting)
      : outer_{std::move(outer)},
        game_{game},
        translator_{std::move(options)},
        timer_{net::make_strand(io)},
        who_interval_{who_interval},
        max_waiting_{max_waiting} {}

  void start() {
    try {
      game_.on_open(shared_from_this());
    } catch (const std::exception& e) {
      spdlog::error("fibs client {}: service on_open failed: {}", outer_->id(), e.what());
    }
    feed([](clip_translator& t) { return t.open(); });
    arm_timer();
  }

  void line(const std::string& text) {
    feed([&](clip_translator& t) { return t.on_line(text, unix_now()); });
  }

  void closed() {
    {
      std::lock_guard lock{mutex_};
      if (closed_) return;
      closed_ = true;
      queue_.clear();
      if (draining_) {
        close_pending_ = true;  // the drainer closes after its call
        net::post(timer_.get_executor(), [self = shared_from_this()] { self->timer_.cancel(); });
        return;
      }
    }
    net::post(timer_.get_executor(), [self = shared_from_this()] { self->timer_.cancel(); });
    close_game();
  }

  // client, as the game service sees it.
  void send(std::shared_ptr<const std::string> frame) override {
    if (!frame) return;
    feed([&](clip_translator& t) { return t.on_frame(*frame, unix_now()); });
  }
  void send(std::vector<std::shared_ptr<const std::string>> frames) override {
    for (auto& f : frames) send(std::move(f));
  }
  void close(std::string reason) override { outer_->close(std::move(reason)); }
  void close_for_policy(std::string reason) override {
    outer_->close_for_policy(std::move(reason));
  }
  void close_with_code(std::uint16_t code, std::string reason) override {
    outer_->close_with_code(code, std::move(reason));
  }
  void identified() override { outer_->identified(); }
  void strike(std::string_view why) override { outer_->strike(why); }
  [[nodiscard]] std::uint64_t id() const noexcept override { return outer_->id(); }
  [[nodiscard]] const std::string& address() const noexcept override { return outer_->address(); }

 private:
  template <typename F>
  void feed(F&& step) {
    {
      std::lock_guard lock{mutex_};
      if (closed_) return;
      clip_actions a = step(translator_);
      if (!a.out.empty()) outer_->send(std::make_shared<const std::string>(std::move(a.out)));
      for (auto& m : a.to_service) {
        if (queue_.size() >= max_waiting_) {
          spdlog::warn("fibs client {}: too many requests waiting; closing", outer_->id());
          outer_->close("too many requests");
          return;
        }
        queue_.push_back(std::move(m));
      }
      if (a.close) outer_->close("goodbye");
      if (draining_ || queue_.empty()) return;
      draining_ = true;
    }
    drain();
  }

  void drain() {
    for (;;) {
      std::string message;
      {
        std::lock_guard lock{mutex_};
        if (queue_.empty() || closed_) {
          draining_ = false;
          if (!close_pending_) return;
          close_pending_ = false;
        } else {
          message = std::move(queue_.front());
          queue_.pop_front();
        }
      }
      if (message.empty()) return close_game();
      try {
        game_.on_text(shared_from_this(), std::move(message));
      } catch (const std::exception& e) {
        spdlog::error("fibs client {}: service on_text failed: {}", outer_->id(), e.what());
      }
    }
  }

  void close_game() {
    try {
      game_.on_close(shared_from_this());
    } catch (const std::exception& e) {
      spdlog::error("fibs client {}: service on_close failed: {}", outer_->id(), e.what());
    }
  }

  void arm_timer() {
    timer_.expires_after(who_interval_);
    timer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
      if (ec) return;
      const auto self = weak.lock();
      if (!self) return;
      {
        std::lock_guard lock{self->mutex_};
        if (self->closed_) return;
      }
      self->feed([](clip_translator& t) { return t.on_tick(unix_now()); });
      self->arm_timer();
    });
  }

  std::shared_ptr<client> outer_;
  service& game_;
  std::mutex mutex_;
  clip_translator translator_;     // under mutex_
  std::deque<std::string> queue_;  // under mutex_: messages for the game service
  bool draining_ = false;          // under mutex_: a thread is calling the game service
  bool closed_ = false;            // under mutex_
  bool close_pending_ = false;     // under mutex_: on_close waits for the drainer
  net::steady_timer timer_;
  std::chrono::seconds who_interval_;
  std::size_t max_waiting_;
};

class clip_gateway final : public service {
 public:
  clip_gateway(std::shared_ptr<service> game, const server_config& config, net::io_context& io)
      : game_{std::move(game)}, config_{config}, io_{io} {}

  /// /metrics: the FIBS connections open now (logged in or not).
  [[nodiscard]] std::string metrics_text() {
    std::size_t open = 0;
    {
      std::lock_guard lock{mutex_};
      open = connections_.size();
    }
    return "# HELP gammond_fibs_connections FIBS (CLIP) connections open\n"
           "# TYPE gammond_fibs_connections gauge\n"
           "gammond_fibs_connections " +
           std::to_string(open) + "\n";
  }

  void on_open(const std::shared_ptr<client>& c) override {
    clip_options options;
    options.motd = config_.motd;
    options.address = c->address();
    options.version = GAMMOND_VERSION;
    options.max_invitations = config_.fibs_invitations;
    auto connection = std::make_shared<clip_connection>(
        c, *game_, std::move(options), io_, config_.fibs_who_interval, config_.fibs_queue);
    {
      std::lock_guard lock{mutex_};
      connections_[c->id()] = connection;
    }
    connection->start();
  }

  void on_text(const std::shared_ptr<client>& c, std::string text) override {
    std::shared_ptr<clip_connection> connection;
    {
      std::lock_guard lock{mutex_};
      const auto it = connections_.find(c->id());
      if (it == connections_.end()) return;
      connection = it->second;
    }
    connection->line(text);
  }

  void on_close(const std::shared_ptr<client>& c) override {
    std::shared_ptr<clip_connection> connection;
    {
      std::lock_guard lock{mutex_};
      const auto it = connections_.find(c->id());
      if (it == connections_.end()) return;
      connection = std::move(it->second);
      connections_.erase(it);
    }
    connection->closed();
  }

  /// SIGINT/SIGTERM: every FIBS connection is told and closed (after what is queued);
  /// the game service saves the tables (network_server shuts it down after this).
  void shutdown(std::function<void()> saved) override {
    std::vector<std::shared_ptr<clip_connection>> all;
    {
      std::lock_guard lock{mutex_};
      for (const auto& [id, connection] : connections_) all.push_back(connection);
    }
    for (const auto& connection : all) connection->close("The server is shutting down. Goodbye.");
    saved();
  }

 private:
  std::shared_ptr<service> game_;
  server_config config_;
  net::io_context& io_;
  std::mutex mutex_;
  std::map<std::uint64_t, std::shared_ptr<clip_connection>> connections_;  // under mutex_
};

}  // namespace

std::shared_ptr<service> make_clip_gateway(std::shared_ptr<service> game,
                                           const server_config& config, net::io_context& io,
                                           metrics& counters) {
  auto gateway = std::make_shared<clip_gateway>(std::move(game), config, io);
  counters.add_section([weak = std::weak_ptr<clip_gateway>(gateway)] {
    const auto self = weak.lock();
    return self ? self->metrics_text() : std::string();
  });
  return gateway;
}
}  // namespace bg::server::fibs
