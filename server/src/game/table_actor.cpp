#include "bg/server/game/table_actor.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <unordered_map>
#include <vector>

#include "bg/server/game/game_service.hpp"
#include "frames.hpp"

namespace bg::server {

namespace asio = boost::asio;
using nlohmann::json;
using frame_ptr = std::shared_ptr<const std::string>;

/// The frames one change sends, gathered per client so that each client gets them in
/// one hand-over (client::send of a batch), in the order they were added.
class outbox {
 public:
  void add(const std::shared_ptr<client>& c, frame_ptr f) {
    if (!c) return;
    const auto [it, fresh] = index_.try_emplace(c.get(), to_.size());
    if (fresh) to_.emplace_back(c, std::vector<frame_ptr>{});
    to_[it->second].second.push_back(std::move(f));
  }
  void deliver() {
    for (auto& [c, frames] : to_) {
      if (frames.size() == 1) {
        c->send(std::move(frames.front()));
      } else {
        c->send(std::move(frames));
      }
    }
    to_.clear();
    index_.clear();
  }

 private:
  std::vector<std::pair<std::shared_ptr<client>, std::vector<frame_ptr>>> to_;
  std::unordered_map<const client*, std::size_t> index_;
};

table_actor::table_actor(game_service& svc, asio::io_context& io, std::unique_ptr<table> t)
    : svc_(svc),
      strand_(asio::make_strand(io)),
      table_(std::move(t)),
      held_(table_->held_seats()) {}

template <typename F>
void table_actor::guard(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    spdlog::error("table {}: {}", table_->name(), e.what());
  }
}

/// Client `c` is present at the table; it gets the state.
void table_actor::enter(const std::shared_ptr<client>& c, std::string name,
                        std::optional<json> re) {
  asio::dispatch(strand_,
                 [self = shared_from_this(), c, name = std::move(name), re = std::move(re)] {
                   if (self->backlog_full(c, re)) return;
                   self->run([self, c, name, re] { self->do_enter(c, name, re); });
                 });
}

void table_actor::exit(std::uint64_t client_id, std::string name) {
  asio::dispatch(strand_, [self = shared_from_this(), client_id, name = std::move(name)] {
    self->run([self, client_id, name] { self->do_exit(client_id, name); });
  });
}

void table_actor::line(const std::shared_ptr<client>& c, std::string name, protocol::command cmd,
                       clock_type::time_point t0, std::optional<json> re) {
  asio::dispatch(strand_, [self = shared_from_this(), c, name = std::move(name),
                           cmd = std::move(cmd), t0, re = std::move(re)] {
    if (self->backlog_full(c, re)) return;
    self->run([self, c, name, cmd, t0, re] { self->do_line(c, name, cmd, t0, re); });
  });
}

/// Starts grace timers for every absent player (after a restore).
void table_actor::arm_timers() {
  asio::dispatch(strand_, [self = shared_from_this()] { self->run([self] { self->rearm(); }); });
}

/// Cancels timers once every change is written (shutdown); `done` is set then, on
/// the strand. Every change was saved before it was announced, so nothing is left
/// to save.
void table_actor::flush(const std::shared_ptr<std::promise<void>>& done) {
  asio::dispatch(strand_, [self = shared_from_this(), done] {
    self->run([self, done] {
      for (auto& t : self->grace_)
        if (t) t->cancel();
      self->stopped_ = true;
      done->set_value();
    });
  });
}

bool table_actor::backlog_full(const std::shared_ptr<client>& c, const std::optional<json>& re) {
  if (!writing_ || backlog_.size() < svc_.config().max_table_backlog) return false;
  --pending;
  svc_.counters().error("table_busy");
  c->send(frame_of(protocol::error_message(
      "table_busy", "the table is busy with earlier messages: try again in a moment", re)));
  return true;
}

void table_actor::save_now(std::function<void(bool written)> done) {
  asio::dispatch(strand_, [self = shared_from_this(), done = std::move(done)] {
    self->run([self, done] {
      table_outcome none;
      table_write w = self->write_of(none);
      self->writing_ = true;
      self->svc_.writer().submit(std::move(w), [self, done](const std::string& error) {
        if (!error.empty()) self->svc_.counters().error("storage_error");
        done(error.empty());
        asio::post(self->strand_, [self] {
          self->guard([&] {
            outbox nothing;
            self->written(nothing, nullptr);
          });
        });
      });
    });
  });
}

/// Runs `f` now, or after the write in flight (in arrival order).
void table_actor::run(std::function<void()> f) {
  if (writing_) {
    backlog_.push_back(std::move(f));
    return;
  }
  guard(f);
}

/// The write in flight is on disk: announce it, then go on with the backlog.
void table_actor::written(outbox& sends, const std::function<void()>& answered_hook) {
  writing_ = false;
  sends.deliver();
  if (answered_hook) answered_hook();
  while (!writing_ && !backlog_.empty()) {
    auto f = std::move(backlog_.front());
    backlog_.pop_front();
    guard(f);
  }
}

void table_actor::do_enter(const std::shared_ptr<client>& c, const std::string& name,
                           const std::optional<json>& re) {
  --pending;
  auto o = table_->enter(name);
  if (!o.refused) members_[c->id()] = member{name, c};
  finish(c, o, re, /*always_state_to_actor=*/true, nullptr);
  cancel_timer_if_back();
}

void table_actor::do_exit(std::uint64_t client_id, const std::string& name) {
  if (members_.erase(client_id) == 0) return;
  for (const auto& [id, m] : members_)
    if (m.name == name) return;  // still here on another connection
  auto o = table_->exit(name);
  finish(nullptr, o, no_re, false, nullptr);
  rearm();
  forget_if_idle();
}

void table_actor::forget_if_idle() {
  if (table_->idle() && members_.empty()) svc_.set_summary(table_->name(), nullptr);
}

void table_actor::do_line(const std::shared_ptr<client>& c, const std::string& name,
                          const protocol::command& cmd, clock_type::time_point t0,
                          const std::optional<json>& re) {
  --pending;
  if (!members_.count(c->id())) {
    auto o = table_->enter(name);
    if (o.refused) {  // e.g. a crowded table: the command is answered with the refusal
      finish(c, o, re, false, nullptr);
      return;
    }
    members_[c->id()] = member{name, c};
    finish(c, o, no_re, true, nullptr);
    if (writing_) {  // the command waits for its own entrance to be written
      backlog_.push_front([self = shared_from_this(), c, name, cmd, t0, re] {
        self->handle_line(c, name, cmd, t0, re);
      });
      return;
    }
  }
  handle_line(c, name, cmd, t0, re);
}

void table_actor::handle_line(const std::shared_ptr<client>& c, const std::string& name,
                              const protocol::command& cmd, clock_type::time_point t0,
                              const std::optional<json>& re) {
  auto o = table_->handle(name, cmd);
  // The command's latency is measured when its answer is handed to the network.
  const std::string kind(protocol::to_string(cmd.kind));
  finish(c, o, re, false,
         [&svc = svc_, kind, t0] { svc.counters().command(kind, clock_type::now() - t0); });
  rearm();
  forget_if_idle();
}

void table_actor::cancel_timer_if_back() {
  const auto absent = table_->absent_seats();
  for (engine::side s : {engine::side::red, engine::side::black}) {
    auto& t = grace_[static_cast<std::size_t>(engine::index_of(s))];
    if (t && std::find(absent.begin(), absent.end(), s) == absent.end()) {
      t->cancel();
      t.reset();
    }
  }
}

/// Starts a grace timer for each absent player that has none.
void table_actor::rearm() {
  if (stopped_) return;
  cancel_timer_if_back();
  for (engine::side s : table_->absent_seats()) {
    auto& t = grace_[static_cast<std::size_t>(engine::index_of(s))];
    if (t) continue;
    t.emplace(strand_);
    t->expires_after(svc_.config().grace_period);
    t->async_wait([self = shared_from_this(), s](const boost::system::error_code& ec) {
      if (ec) return;
      self->run([self, s] {
        self->grace_[static_cast<std::size_t>(engine::index_of(s))].reset();
        const auto absent = self->table_->absent_seats();
        if (std::find(absent.begin(), absent.end(), s) == absent.end()) return;
        auto o = self->table_->forfeit(s);
        self->finish(nullptr, o, no_re, false, nullptr);
        self->rearm();
      });
    });
  }
}

/// The write of the table's change `o`: snapshot, tokens, record journal.
table_write table_actor::write_of(const table_outcome& o) const {
  json snap = table_->snapshot();
  json tokens = json::array();
  for (const auto& st : table_->seats())
    tokens.push_back(st ? json(svc_.token_hash_of(st->name)) : json(nullptr));
  snap["token_hashes"] = std::move(tokens);
  table_write w{table_->name(), snap.dump(), o.record_reset, {}};
  w.record_entries.reserve(o.record_log.size());
  for (const auto& e : o.record_log) w.record_entries.push_back(e.dump());
  return w;
}

/// Delivers an outcome: refusals to the actor only; a change is written first and
/// then announced (the table's messages, then the new state to everyone).
/// `answered` runs when the actor's answer is handed to the network.
void table_actor::finish(const std::shared_ptr<client>& actor, table_outcome& o,
                         const std::optional<json>& re, bool always_state_to_actor,
                         std::function<void()> answered_hook) {
  auto sends = std::make_shared<outbox>();
  if (o.refused) {
    svc_.counters().error(o.refused->code);
    sends->add(actor, frame_of(protocol::error_message(o.refused->code, o.refused->message, re)));
    sends->deliver();
    if (answered_hook) answered_hook();
    return;
  }
  const std::uint64_t actor_id = actor ? actor->id() : 0;
  bool answered = false;
  for (auto& d : o.out) {
    if (d.to == delivery::audience::actor) {
      if (re) d.message["re"] = *re;
      answered = true;
      sends->add(actor, frame_of(d.message));
    } else {
      const auto frame = frame_of(d.message);
      for (const auto& [id, m] : members_) sends->add(m.who.lock(), frame);
    }
  }
  if (o.changed) {
    json st = table_->state();
    const auto frame = frame_of(st);
    for (const auto& [id, m] : members_) {
      if (id == actor_id && re && !answered) {
        json mine = st;
        mine["re"] = *re;
        sends->add(m.who.lock(), frame_of(mine));
        answered = true;
        continue;
      }
      sends->add(m.who.lock(), frame);
    }
    for (const auto& d : o.out) {  // issue 11.8: games counted where they happen
      const auto ev = d.message.find("event");
      if (ev == d.message.end()) continue;
      if (*ev == "started" || *ev == "game_started") svc_.counters().game_started();
      if (*ev == "game_over") svc_.counters().game_finished();
    }
    if (auto held = table_->held_seats(); held != held_) {
      svc_.holds_changed(table_->name(), held_, held);
      held_ = std::move(held);
    }
    svc_.set_summary(table_->name(), table_->summary());
    // Written before it is announced: the frames wait for the commit.
    writing_ = true;
    svc_.writer().submit(write_of(o), [self = shared_from_this(), sends,
                                       hook = std::move(answered_hook)](const std::string& error) {
      if (!error.empty()) self->svc_.counters().error("storage_error");
      asio::post(self->strand_,
                 [self, sends, hook] { self->guard([&] { self->written(*sends, hook); }); });
    });
    return;
  }
  if (always_state_to_actor || (re && !answered)) {
    json st = table_->state();
    if (re) st["re"] = *re;
    sends->add(actor, frame_of(st));
  }
  sends->deliver();
  if (answered_hook) answered_hook();
}

}  // namespace bg::server
