#include "bg/server/game/table_actor.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <unordered_map>
#include <vector>

#include "bg/server/game/game_service.hpp"
#include "bg/server/store/mat_export.hpp"
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

/// Runs `w`; an exception escaping it is a bug: logged, answered with
/// `internal_error` to the sender, and the table goes back to its last written state
/// (the command may have changed it halfway).
void table_actor::guard(pending_work& w) {
  try {
    w.work();
    return;
  } catch (const std::exception& e) {
    spdlog::error("table {}: internal error: {}", table_->name(), e.what());
  } catch (...) {
    spdlog::error("table {}: internal error (non-standard exception)", table_->name());
  }
  svc_.counters().error("internal_error");
  if (auto c = w.sender.lock())
    c->send(frame_of(protocol::error_message(
        "internal_error", "the server failed to handle that; the table is as it was", w.re)));
  if (!writing_) reload();
}

/// Client `c` is present at the table; it gets the state.
void table_actor::enter(const std::shared_ptr<client>& c, std::string name,
                        std::optional<json> re) {
  asio::dispatch(strand_,
                 [self = shared_from_this(), c, name = std::move(name), re = std::move(re)] {
                   if (self->backlog_full(c, re)) return;
                   self->run({[self, c, name, re] { self->do_enter(c, name, re); }, c, re});
                 });
}

void table_actor::exit(std::uint64_t client_id, std::string name) {
  asio::dispatch(strand_, [self = shared_from_this(), client_id, name = std::move(name)] {
    self->run({[self, client_id, name] { self->do_exit(client_id, name); }, {}, no_re});
  });
}

void table_actor::line(const std::shared_ptr<client>& c, std::string name, protocol::command cmd,
                       clock_type::time_point t0, std::optional<json> re) {
  asio::dispatch(strand_, [self = shared_from_this(), c, name = std::move(name),
                           cmd = std::move(cmd), t0, re = std::move(re)] {
    if (self->backlog_full(c, re)) return;
    self->run({[self, c, name, cmd, t0, re] { self->do_line(c, name, cmd, t0, re); }, c, re});
  });
}

/// Starts grace timers for every absent player (after a restore).
void table_actor::arm_timers() {
  asio::dispatch(strand_, [self = shared_from_this()] {
    self->run({[self] { self->rearm(); }, {}, no_re});
  });
}

/// Cancels timers once every change is written (shutdown); `done` is set then, on
/// the strand. Every change was saved before it was announced, so nothing is left
/// to save.
void table_actor::flush(const std::shared_ptr<std::promise<void>>& done) {
  asio::dispatch(strand_, [self = shared_from_this(), done] {
    if (self->stale_) {
      // Its last change was not written and the store cannot be read: nothing to save
      // (the store holds the table as it was), and nothing to wait for.
      spdlog::warn(
          "table {}: stopping while the store is unreachable: it restarts from its "
          "last written state",
          self->table_->name());
      for (auto& t : self->grace_)
        if (t) t->cancel();
      if (self->clock_timer_) self->clock_timer_->cancel();
      if (self->reload_timer_) self->reload_timer_->cancel();
      self->stopped_ = true;
      done->set_value();
      return;
    }
    self->run({[self, done] {
                 for (auto& t : self->grace_)
                   if (t) t->cancel();
                 if (self->clock_timer_) self->clock_timer_->cancel();
                 self->stopped_ = true;
                 // S2: the time used up to a graceful stop is kept (charged and saved);
                 // the writer's stop writes it before the service ends.
                 if (self->table_->pause_clock()) {
                   table_outcome none;
                   self->svc_.writer().submit(self->write_of(none), [name = self->table_->name()](
                                                                        write_result& r) {
                     if (!r.error.empty())
                       spdlog::error("table {}: its clock could not be saved: {}", name, r.error);
                   });
                 }
                 done->set_value();
               },
               {},
               no_re});
  });
}

void table_actor::analysis_finished(std::int64_t match_id, bool done, std::string reason) {
  asio::dispatch(strand_, [self = shared_from_this(), match_id, done, reason = std::move(reason)] {
    self->run({[self, match_id, done, reason] {
                 const std::string id = std::to_string(match_id);
                 json e{{"type", "event"},
                        {"table", self->name()},
                        {"event", done ? "analysis_ready" : "analysis_failed"},
                        {"match_id", match_id}};
                 if (done) {
                   e["url"] = "/#analysis/" + id;
                   e["text"] =
                       "GNU Backgammon's analysis of match " + id + " is ready: /analysis " + id;
                 } else {
                   e["reason"] = reason;
                   e["text"] = "GNU Backgammon could not analyse match " + id + ": " + reason;
                 }
                 const auto frame = frame_of(e);
                 outbox sends;
                 for (const auto& [client_id, m] : self->members_) sends.add(m.who.lock(), frame);
                 sends.deliver();
               },
               {},
               no_re});
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
    self->run({[self, done] {
                 table_outcome none;
                 table_write w = self->write_of(none);
                 self->writing_ = true;
                 self->svc_.writer().submit(std::move(w), [self, done](write_result& r) {
                   if (!r.error.empty()) self->svc_.counters().error("storage_error");
                   done(r.error.empty());
                   // Nothing changed at the table: whatever became of the write, the
                   // table is as it was, and the backlog goes on.
                   asio::post(self->strand_, [self] {
                     pending_work w2{[&] {
                                       outbox nothing;
                                       self->written(nothing, nullptr);
                                     },
                                     {},
                                     no_re};
                     self->guard(w2);
                   });
                 });
               },
               {},
               no_re});
  });
}

/// Runs `w` now, or after the write in flight (in arrival order).
void table_actor::run(pending_work w) {
  if (writing_) {
    backlog_.push_back(std::move(w));
    return;
  }
  guard(w);
}

/// Handles the backlog until it is empty or a new write is in flight.
void table_actor::drain_backlog() {
  while (!writing_ && !backlog_.empty()) {
    auto w = std::move(backlog_.front());
    backlog_.pop_front();
    guard(w);
  }
}

void table_actor::report_written(int games_started, int games_finished) {
  for (int i = 0; i < games_started; ++i) svc_.counters().game_started();
  for (int i = 0; i < games_finished; ++i) svc_.counters().game_finished();
  if (auto held = table_->held_seats(); held != held_) {
    svc_.holds_changed(table_->name(), held_, held);
    held_ = std::move(held);
  }
}

/// The write in flight is on disk: announce it, then go on with the backlog.
void table_actor::written(outbox& sends, const std::function<void()>& answered_hook) {
  writing_ = false;
  sends.deliver();
  if (answered_hook) answered_hook();
  drain_backlog();
}

/// The write in flight failed: nothing of it is announced. The table goes back to
/// its last written state, the sender hears `storage_error`, then the backlog runs.
void table_actor::failed(write_result& r, const std::shared_ptr<client>& sender,
                         const std::optional<json>& re) {
  svc_.counters().error("storage_error");
  if (r.reload_error.empty()) {
    roll_back(r.last_written);
  } else {
    stale_ = true;  // table_ still holds the change that was not written
  }
  if (sender)
    sender->send(frame_of(protocol::error_message(
        "storage_error",
        "the server could not save that change, so it did not happen: try again later", re)));
  if (stale_) {
    reload_later();  // writing_ stays set: nothing goes on from the unwritten change
    return;
  }
  writing_ = false;
  drain_backlog();
}

void table_actor::reload_later() {
  if (stopped_) return;
  if (!reload_timer_) reload_timer_.emplace(strand_);
  reload_timer_->expires_after(reload_delay_);
  reload_delay_ = std::min(reload_delay_ * 2, std::chrono::milliseconds{10'000});
  reload_timer_->async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec || self->stopped_) return;
    self->reload();
  });
}

bool table_actor::roll_back(const std::optional<saved_table>& last) {
  std::vector<std::string> present;
  for (const auto& [id, m] : members_)
    if (std::find(present.begin(), present.end(), m.name) == present.end())
      present.push_back(m.name);
  json snap;
  std::vector<json> journal;
  if (last) {
    snap = json::parse(last->snapshot, nullptr, false);
    journal.reserve(last->record_journal.size());
    for (const auto& entry : last->record_journal)
      journal.push_back(json::parse(entry, nullptr, false));
  } else {
    snap = table(table_->name(), svc_.hooks()).snapshot();  // never written: empty
  }
  auto t = table::restore(snap, svc_.hooks(), journal, present);
  if (!t) {
    spdlog::critical("table {}: cannot go back to its last written state: {}", table_->name(),
                     t.err().message);
    return false;
  }
  table_ = std::move(*t);
  spdlog::warn("table {}: back at its last written state (seq {})", table_->name(), table_->seq());
  svc_.set_summary(table_->name(), table_->summary(), this);
  rearm();
  return true;
}

/// Reads the table's last written state on the writer thread, then rolls back to it;
/// messages wait in the backlog meanwhile.
void table_actor::reload() {
  writing_ = true;
  svc_.writer().run([self = shared_from_this(), name = table_->name()](store& db) {
    std::optional<saved_table> last;
    std::string error;
    try {
      last = db.load_table(name);
    } catch (const std::exception& e) {
      error = e.what();
    }
    asio::post(self->strand_, [self, name, last = std::move(last), error] {
      if (!error.empty()) {
        spdlog::critical("table {}: cannot read its last written state: {}; trying again", name,
                         error);
        self->stale_ = true;
        self->reload_later();
        return;
      }
      self->roll_back(last);
      self->stale_ = false;
      self->reload_delay_ = std::chrono::milliseconds{500};
      self->writing_ = false;
      self->drain_backlog();
    });
  });
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
  // While a change is being written the table is not forgotten yet: the write's
  // success calls this again (and a failure may bring people back).
  if (writing_) return;
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
      backlog_.push_front({[self = shared_from_this(), c, name, cmd, t0, re] {
                             self->handle_line(c, name, cmd, t0, re);
                           },
                           c, re});
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

void table_actor::arm_clock() {
  if (stopped_) return;
  const auto due = table_->clock_expiry();
  if (due == clock_due_ && clock_timer_) return;  // armed for it already
  clock_due_ = due;
  if (!due) {
    clock_timer_.reset();  // cancels a pending wait
    return;
  }
  clock_timer_.emplace(strand_);  // replacing the timer cancels its pending wait
  clock_timer_->expires_after(
      std::chrono::milliseconds(std::max<std::int64_t>(0, *due - svc_.clock_ms())));
  clock_timer_->async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec) return;
    self->run({[self] {
                 self->clock_due_.reset();
                 self->clock_timer_.reset();
                 // The table reads the time itself: an early timer changes nothing.
                 auto o = self->table_->check_clock();
                 self->finish(nullptr, o, no_re, false, nullptr);
                 self->rearm();
               },
               {},
               no_re});
  });
}

/// Starts a grace timer for each absent player that has none, and the clock's timer.
void table_actor::rearm() {
  if (stopped_) return;
  arm_clock();
  cancel_timer_if_back();
  for (engine::side s : table_->absent_seats()) {
    auto& t = grace_[static_cast<std::size_t>(engine::index_of(s))];
    if (t) continue;
    t.emplace(strand_);
    t->expires_after(svc_.config().grace_period);
    t->async_wait([self = shared_from_this(), s](const boost::system::error_code& ec) {
      if (ec) return;
      self->run({[self, s] {
                   self->grace_[static_cast<std::size_t>(engine::index_of(s))].reset();
                   const auto absent = self->table_->absent_seats();
                   if (std::find(absent.begin(), absent.end(), s) == absent.end()) return;
                   auto o = self->table_->forfeit(s);
                   self->finish(nullptr, o, no_re, false, nullptr);
                   self->rearm();
                 },
                 {},
                 no_re});
    });
  }
}

/// The write of the table's change `o`: snapshot, tokens, record journal, and the
/// match it finished (moved out of `o`).
table_write table_actor::write_of(table_outcome& o) const {
  json snap = table_->snapshot();
  json tokens = json::array();
  for (const auto& st : table_->seats())
    tokens.push_back(st ? json(svc_.token_hash_of(st->name)) : json(nullptr));
  snap["token_hashes"] = std::move(tokens);
  table_write w;
  w.name = table_->name();
  w.snapshot = snap.dump();
  w.reset_record = o.record_reset;
  w.record_entries.reserve(o.record_log.size());
  for (const auto& e : o.record_log) w.record_entries.push_back(e.dump());
  w.finished_match = std::move(o.finished_match);
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
  if (o.analysis_of) {  // /analysis: answered from storage (issue 14)
    if (actor) svc_.answer_analysis(actor, *o.analysis_of, re, table_->name());
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
    // issue 11.8: games counted where they happen, once the change is written.
    int started = 0;
    int finished = 0;
    for (const auto& d : o.out) {
      const auto ev = d.message.find("event");
      if (ev == d.message.end()) continue;
      if (*ev == "started" || *ev == "game_started") ++started;
      if (*ev == "game_over") ++finished;
    }
    // Issue 14: a finished standard match is analysed once it is archived: its pending
    // analysis is written with it, and it is queued once that write is on disk.
    // A match the .mat export cannot write is archived unanalysed (never lost for it).
    std::optional<bots::analysis_queue::job> analysis;
    if (o.finished_match && svc_.analysing() && can_export_mat(o.finished_match->options)) {
      try {
        analysis = bots::analysis_queue::job{o.finished_match->id, table_->name(),
                                             to_mat(*o.finished_match), o.finished_match->players};
      } catch (const std::exception& e) {
        spdlog::error("table {}: match {} is not analysed: its .mat export failed: {}",
                      table_->name(), o.finished_match->id, e.what());
      }
    }
    table_write change = write_of(o);
    change.analyse_match = analysis.has_value();
    // Written before it is announced: the frames (and the lobby's summary, the seats
    // held and the game counts) wait for the commit; a failed write is never announced
    // (failed()).
    writing_ = true;
    svc_.writer().submit(
        std::move(change),
        [self = shared_from_this(), sends, summary = table_->summary(),
         hook = std::move(answered_hook), sender = std::weak_ptr<client>(actor), re, started,
         finished, analysis = std::move(analysis)](write_result& r) mutable {
          asio::post(self->strand_, [self, sends, summary = std::move(summary),
                                     hook = std::move(hook), sender, re, started, finished,
                                     r = std::move(r), analysis = std::move(analysis)]() mutable {
            pending_work w{[&] {
                             if (!r.error.empty()) {
                               self->failed(r, sender.lock(), re);
                               return;
                             }
                             self->svc_.set_summary(self->name(), std::move(summary), self.get());
                             self->report_written(started, finished);
                             self->writing_ = false;
                             self->forget_if_idle();
                             if (analysis) self->svc_.queue_analysis(std::move(*analysis));
                             self->written(*sends, hook);
                           },
                           {},
                           no_re};
            self->guard(w);
          });
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
