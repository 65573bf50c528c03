#include "bg/server/table/table_actor.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <unordered_map>
#include <vector>

#include "bg/bots/player.hpp"
#include "bg/i18n/catalogue.hpp"
#include "bg/server/api/analysis_view.hpp"
#include "bg/server/metrics.hpp"
#include "bg/server/players/ignore_list.hpp"
#include "bg/server/players/names.hpp"
#include "bg/server/records/mat_export.hpp"
#include "bg/server/records/rating.hpp"
#include "bg/server/server_config.hpp"
#include "bg/server/store/storage_writer.hpp"
#include "bg/server/table/frames.hpp"

namespace bg::server {

namespace asio = boost::asio;
using nlohmann::json;
using frame_ptr = std::shared_ptr<const std::string>;

namespace {

/// The lobby's entry of `t` as it is now (issue 15: its text, written without a tree).
lobby_entry entry_of(const table& t) {
  return lobby_entry{t.summary_text(), !t.is_private()};
}

}  // namespace

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

table_actor::table_actor(table_host& host, asio::io_context& io, std::unique_ptr<table> t)
    : host_(host),
      strand_(asio::make_strand(io)),
      table_(std::move(t)),
      held_(table_->held_seats()) {
  give_match_id();  // a restored match in progress
}

void table_actor::give_match_id() {
  if (!table_->wants_match_id()) return;
  const std::int64_t preset = std::exchange(preset_match_id_, 0);
  table_->give_match_id(preset > 0 ? preset : host_.reserve_match_id());
}

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
  host_.counters().error("internal_error");
  if (auto c = w.sender.lock())
    c->send(frame_of(protocol::error_message(
        protocol::said_error("internal_error", "table.internal_error"), w.re)));
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

void table_actor::close(const std::shared_ptr<client>& c, std::string by, std::optional<json> re) {
  asio::dispatch(strand_, [self = shared_from_this(), c, by = std::move(by), re = std::move(re)] {
    --self->pending;
    self->run(
        {[self, c, by, re] {
           auto o = self->table_->close(by);
           json closed{{"type", "info"}, {"topic", "close"}, {"data", {{"table", self->name()}}}};
           i18n::with_say(closed, "table.closed", {{"table", self->name()}});
           o.out.push_back(delivery{delivery::audience::actor, std::move(closed)});
           self->finish(c, o, re, false, nullptr);
           self->rearm();
           self->forget_if_idle();
         },
         c, re});
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
    self->run({[self] {
                 self->rearm();
                 self->ask_bot();
               },
               {},
               no_re});
  });
}

/// Cancels timers once every change is written (shutdown); `done` is called then, on
/// the strand. Every change was saved before it was announced, so nothing is left
/// to save.
void table_actor::flush(std::function<void()> done) {
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
      done();
      return;
    }
    self->run({[self, done] {
                 for (auto& t : self->grace_)
                   if (t) t->cancel();
                 if (self->clock_timer_) self->clock_timer_->cancel();
                 if (self->bot_timer_) self->bot_timer_->cancel();
                 self->stopped_ = true;
                 // S2: the time used up to a graceful stop is kept (charged and saved);
                 // the writer's stop writes it before the service ends.
                 if (self->table_->pause_clock()) {
                   table_outcome none;
                   self->host_.writer().submit(self->write_of(none), [name = self->table_->name()](
                                                                         write_result& r) {
                     if (r.fenced)
                       spdlog::warn("table {}: taken over by another node before it stopped", name);
                     else if (!r.error.empty())
                       spdlog::error("table {}: its clock could not be saved: {}", name, r.error);
                   });
                 }
                 done();
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
                   i18n::with_say(e, "table.analysis_ready", {{"match_id", id}});
                 } else {
                   e["reason"] = reason;
                   i18n::with_say(e, "table.analysis_failed",
                                  {{"match_id", id}, {"reason", analysis_failure_say(reason)}});
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
  if (!writing_ || backlog_.size() < host_.config().max_table_backlog) return false;
  --pending;
  host_.counters().error("table_busy");
  c->send(frame_of(
      protocol::error_message(protocol::said_error("table_busy", "table.table_busy"), re)));
  return true;
}

bool table_actor::fenced_by(const write_result& r) {
  if (r.epoch != 0) epoch_.store(r.epoch);
  if (!r.fenced) return false;
  host_.table_fenced(*this, r.claim_lost);
  fence();
  return true;
}

void table_actor::fence(bool release_holds) {
  asio::dispatch(strand_, [self = shared_from_this(), release_holds] {
    for (auto& t : self->grace_)
      if (t) t->cancel();
    if (self->clock_timer_) self->clock_timer_->cancel();
    if (self->bot_timer_) self->bot_timer_->cancel();
    if (self->reload_timer_) self->reload_timer_->cancel();
    self->stopped_ = true;
    self->writing_ = true;  // nothing more is written: whatever arrives waits for ever
    self->backlog_.clear();
    // The seats are held at the new owner now: the names' holds (and so their resume
    // tokens) end here, so that a hello coming back to this node is sent there.
    const auto held = self->table_->held_seats();
    if (release_holds && !held.empty())
      self->host_.holds_changed(self->table_->name(), held, {}, /*moved_away=*/true);
    for (auto& [id, m] : self->members_)
      if (auto c = m.who.lock()) c->close_with_code(4001, "node fenced");
    self->members_.clear();
  });
}

void table_actor::save_now(std::function<void(bool written)> done) {
  asio::dispatch(strand_, [self = shared_from_this(), done = std::move(done)] {
    self->run({[self, done] {
                 table_outcome none;
                 table_write w = self->write_of(none);
                 self->writing_ = true;
                 self->host_.writer().submit(std::move(w), [self, done](write_result& r) {
                   if (self->fenced_by(r)) {
                     done(false);
                     return;
                   }
                   if (!r.error.empty()) self->host_.counters().error("storage_error");
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
  for (int i = 0; i < games_started; ++i) host_.counters().game_started();
  for (int i = 0; i < games_finished; ++i) host_.counters().game_finished();
  if (auto held = table_->held_seats(); held != held_) {
    host_.holds_changed(table_->name(), held_, held, /*moved_away=*/false);
    held_ = std::move(held);
  }
}

/// The write in flight is on disk: announce it, then go on with the backlog.
void table_actor::written(outbox& sends, const std::function<void()>& answered_hook) {
  writing_ = false;
  sends.deliver();
  if (answered_hook) answered_hook();
  drain_backlog();
  ask_bot();
}

/// The write in flight failed: nothing of it is announced. The table goes back to
/// its last written state, the sender hears `storage_error`, then the backlog runs.
void table_actor::failed(write_result& r, const std::shared_ptr<client>& sender,
                         const std::optional<json>& re) {
  host_.counters().error("storage_error");
  if (r.reload_error.empty()) {
    roll_back(r.last_written);
  } else {
    stale_ = true;  // table_ still holds the change that was not written
  }
  if (sender)
    sender->send(frame_of(
        protocol::error_message(protocol::said_error("storage_error", "table.storage_error"), re)));
  if (stale_) {
    reload_later();  // writing_ stays set: nothing goes on from the unwritten change
    return;
  }
  writing_ = false;
  drain_backlog();
  ask_bot_later(std::chrono::seconds(1));
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
    snap = table(table_->name(), host_.hooks()).snapshot();  // never written: empty
  }
  auto t = table::restore(snap, host_.hooks(), journal, present);
  if (!t) {
    spdlog::critical("table {}: cannot go back to its last written state: {}", table_->name(),
                     t.err().message);
    return false;
  }
  table_ = std::move(*t);
  give_match_id();
  spdlog::warn("table {}: back at its last written state (seq {})", table_->name(), table_->seq());
  host_.set_summary(table_->name(), entry_of(*table_), this);
  rearm();
  return true;
}

/// Reads the table's last written state on the writer thread, then rolls back to it;
/// messages wait in the backlog meanwhile.
void table_actor::reload() {
  writing_ = true;
  host_.writer().run([self = shared_from_this(), name = table_->name()](store& db) {
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
      self->ask_bot_later(std::chrono::seconds(1));
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
  if (table_->idle() && members_.empty()) host_.set_summary(table_->name(), std::nullopt, nullptr);
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
         [&host = host_, kind, t0] { host.counters().command(kind, clock_type::now() - t0); });
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
      std::chrono::milliseconds(std::max<std::int64_t>(0, *due - host_.clock_ms())));
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
    t->expires_after(host_.config().grace_period);
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
/// match it finished (moved out of `o`) with what the store needs to rate it (issue 12):
/// its winner, which players are registered accounts (registered names cannot change
/// hands while seated, so they are the accounts that started it), and whether it is
/// rated (RULES.md S1: a match to n >= 1 points between two accounts, with a winner; a
/// forfeit is a loss).
table_write table_actor::write_of(table_outcome& o) const {
  std::array<std::optional<std::string>, 2> tokens;
  for (std::size_t i = 0; i < 2; ++i)
    if (const auto& st = table_->seats()[i]) tokens[i] = host_.token_hash_of(st->name);
  table_write w;
  w.name = table_->name();
  w.snapshot = table_->snapshot_text(tokens);
  w.snapshot_is_json = true;
  w.reset_record = o.record_reset;
  w.record_entries.reserve(o.record_log.size());
  for (const auto& e : o.record_log) w.record_entries.push_back(e.dump());
  w.finished_match = std::move(o.finished_match);
  w.moderation = o.moderation;  // issue 13: logged in the change's transaction
  w.epoch = epoch_.load();      // issue 16: the cluster's fencing check
  for (const auto& held : table_->held_seats()) w.seat_keys.push_back(name_key(held));
  if (w.finished_match) {
    const auto& m = table_->current_match();
    if (m) w.winner = m->match_winner();
    for (std::size_t i = 0; i < 2; ++i)
      w.account_keys[i] = host_.account_key_of(w.finished_match->players[i]);
    const auto& opts = w.finished_match->options;
    w.rated = opts.kind == engine::match_kind::points && opts.length >= 1 && w.winner &&
              !w.account_keys[0].empty() && !w.account_keys[1].empty() &&
              host_.rated_table(table_->name());
  }
  return w;
}

/// A rated match's ratings (issue 12) go into its `match_over` event: `ratings` {red,
/// black} with each player's name, before, after, change and experience, and a sentence
/// at the end of `text`.
void table_actor::add_ratings(table_outcome& o, const std::array<rating_change, 2>& r) {
  for (auto& d : o.out) {
    if (d.message.value("event", "") != "match_over") continue;
    json ratings;
    json args =
        d.message.contains("say") ? d.message["say"].value("args", json::object()) : json::object();
    for (std::size_t i = 0; i < 2; ++i) {
      const auto& c = r[i];
      const double change = c.after - c.before;
      ratings[i == 0 ? "red" : "black"] = {{"name", c.name},
                                           {"before", c.before},
                                           {"after", c.after},
                                           {"change", change},
                                           {"experience_before", c.experience_before},
                                           {"experience_after", c.experience_after}};
      const std::string side = i == 0 ? "red" : "black";
      args[side + "_name"] = c.name;
      args[side + "_rating"] = rating_text(c.after);
      args[side + "_change"] = change_text(change);
    }
    d.message["ratings"] = std::move(ratings);
    // Only a match won is rated: its sentence with the ratings after it.
    if (d.message.contains("say") && d.message["say"].value("key", "") == "table.match_won")
      i18n::with_say(d.message, "table.match_won_rated", std::move(args));
  }
}

void table_actor::to_members(outbox& sends, const delivery& d) const {
  const auto frame = frame_of(d.message);
  if (d.sender.empty()) {
    for (const auto& [id, m] : members_) sends.add(m.who.lock(), frame);
    return;
  }
  // A chat line (issue 13): not to those who ignore its sender.
  const std::string key = name_key(d.sender);
  for (const auto& [id, m] : members_) {
    const auto ignores = host_.ignores_of(m.name);
    if (ignores && ignores->ignores(key)) continue;
    sends.add(m.who.lock(), frame);
  }
}

void table_actor::remove_members(const std::vector<std::string>& names) {
  for (const auto& gone : names) {
    for (auto it = members_.begin(); it != members_.end();) {
      if (it->second.name != gone) {
        ++it;
        continue;
      }
      host_.left_table(it->first, table_->name());
      it = members_.erase(it);
    }
  }
}

void table_actor::add_deliveries(outbox& sends, table_outcome& o,
                                 const std::shared_ptr<client>& actor,
                                 const std::optional<json>& re, bool& answered) const {
  for (auto& d : o.out) {
    if (d.to == delivery::audience::actor) {
      if (re) d.message["re"] = *re;
      answered = true;
      sends.add(actor, frame_of(d.message));
    } else {
      to_members(sends, d);
    }
  }
}

/// The frames of the change `o` for everyone present: the table's messages, then the
/// new state (the actor's copy with `re`), gathered per client. Sets `answered` when
/// the actor got its reply.
std::shared_ptr<outbox> table_actor::frames_of(table_outcome& o,
                                               const std::shared_ptr<client>& actor,
                                               const std::optional<json>& re, bool& answered) {
  auto sends = std::make_shared<outbox>();
  const std::uint64_t actor_id = actor ? actor->id() : 0;
  add_deliveries(*sends, o, actor, re, answered);
  // Issue 13: those sent away (kicked, or the table closed) heard the events; they are
  // no longer members and get no state.
  remove_members(o.removed);
  // The state written once for the seated players and once for the spectators, who get
  // it without the legal plays they cannot make (issue 15: in phase move those lists are
  // most of the message, and spectators most of the audience); one text for all when
  // there is nothing to list. Each text is written only when someone gets it (a table
  // without spectators writes one). The actor's copy adds `re` to its text.
  std::shared_ptr<const std::string> frame;
  std::shared_ptr<const std::string> lean;
  const bool lists = table_->lists_legal();
  // With spectators present both texts are written in one pass (state_texts()).
  bool spectators = false;
  if (lists)
    for (const auto& [id, m] : members_)
      if (!table_->seat_of(m.name)) spectators = true;
  if (spectators) {
    auto [full, spectators_text] = table_->state_texts();
    frame = std::make_shared<const std::string>(std::move(full));
    lean = std::make_shared<const std::string>(std::move(spectators_text));
  }
  const auto full_text = [&] {
    if (!frame) frame = std::make_shared<const std::string>(table_->state_text());
    return frame;
  };
  for (const auto& [id, m] : members_) {
    std::shared_ptr<const std::string> text;
    if (!lists || table_->seat_of(m.name)) {
      text = full_text();
    } else {
      text = lean;
    }
    if (id == actor_id && re && !answered) {
      sends->add(m.who.lock(), frame_with_re(*text, *re));
      answered = true;
      continue;
    }
    sends->add(m.who.lock(), text);
  }
  return sends;
}

/// Delivers an outcome: refusals to the actor only; a change is written first and
/// then announced (the table's messages, then the new state to everyone).
/// `answered` runs when the actor's answer is handed to the network.
void table_actor::finish(const std::shared_ptr<client>& actor, table_outcome& o,
                         const std::optional<json>& re, bool always_state_to_actor,
                         std::function<void()> answered_hook) {
  give_match_id();  // a match begun by this change is stored under it when it ends
  if (o.refused) {
    host_.counters().error(o.refused->code);
    auto sends = std::make_shared<outbox>();
    sends->add(actor, frame_of(protocol::error_message(*o.refused, re)));
    sends->deliver();
    if (answered_hook) answered_hook();
    return;
  }
  if (o.analysis_of) {  // /analysis: answered from storage (issue 14)
    if (actor) host_.answer_analysis(actor, *o.analysis_of, re, table_->name());
    if (answered_hook) answered_hook();
    return;
  }
  if (o.changed) {
    write_then_announce(actor, o, re, std::move(answered_hook));
    return;
  }
  auto sends = std::make_shared<outbox>();
  bool answered = false;
  add_deliveries(*sends, o, actor, re, answered);
  if (always_state_to_actor || (re && !answered)) {
    std::string st = table_->state_text();
    sends->add(actor,
               re ? frame_with_re(st, *re) : std::make_shared<const std::string>(std::move(st)));
  }
  sends->deliver();
  if (answered_hook) answered_hook();
}

std::optional<bots::analysis_queue::job> table_actor::analysis_job_of(const table_outcome& o) {
  // Issue 14: a finished standard match is analysed once it is archived: its pending
  // analysis is written with it, and it is queued once that write is on disk.
  // A match the .mat export cannot write is archived unanalysed (never lost for it).
  if (!o.finished_match || !host_.analysing() || !can_export_mat(o.finished_match->options))
    return std::nullopt;
  try {
    return bots::analysis_queue::job{o.finished_match->id, table_->name(),
                                     to_mat(*o.finished_match), o.finished_match->players,
                                     host_.owners_of(o.finished_match->players)};
  } catch (const std::exception& e) {
    spdlog::error("table {}: match {} is not analysed: its .mat export failed: {}", table_->name(),
                  o.finished_match->id, e.what());
    return std::nullopt;
  }
}

void table_actor::write_then_announce(const std::shared_ptr<client>& actor, table_outcome& o,
                                      const std::optional<json>& re,
                                      std::function<void()> answered_hook) {
  auto a = std::make_shared<announcement>();
  // issue 11.8: games counted where they happen, once the change is written.
  for (const auto& d : o.out) {
    const auto ev = d.message.find("event");
    if (ev == d.message.end()) continue;
    if (*ev == "started" || *ev == "game_started") ++a->games_started;
    if (*ev == "game_over") ++a->games_finished;
  }
  a->analysis = analysis_job_of(o);
  table_write change = write_of(o);
  change.analyse_match = a->analysis.has_value();
  if (change.finished_match) {
    const auto& m = *change.finished_match;
    a->finished = match_end{m.id, m.players, change.winner, engine::win_kind::single};
    if (!m.games.empty() && m.games.back().result)
      a->finished->deciding = m.games.back().result->kind;
  }
  // Written before it is announced: the frames (and the lobby's summary, the seats
  // held and the game counts) are made once the commit is done, from the table as
  // written (nothing changes it meanwhile: later messages wait in the backlog) and
  // with the ratings a rated match got in that commit (issue 12); a failed write is
  // never announced (failed()).
  writing_ = true;
  a->game_variant = table_->current_match() ? table_->current_match()->options().game_variant
                                            : engine::variant::standard;
  a->outcome = std::move(o);
  a->actor = actor;
  a->re = re;
  a->answered_hook = std::move(answered_hook);
  host_.writer().submit(std::move(change), [self = shared_from_this(), a](write_result& r) {
    asio::post(self->strand_, [self, a, r = std::move(r)]() mutable {
      if (self->fenced_by(r)) return;  // never announced: another node owns it
      pending_work w{[&] { self->announce(*a, r); }, {}, no_re};
      self->guard(w);
    });
  });
}

void table_actor::announce(announcement& a, write_result& r) {
  if (!r.error.empty()) {
    failed(r, a.actor, a.re);
    return;
  }
  if (r.ratings) {
    host_.ratings_changed(a.game_variant, *r.ratings);
    add_ratings(a.outcome, *r.ratings);
  }
  bool answered = false;
  auto sends = frames_of(a.outcome, a.actor, a.re, answered);
  for (const auto& m : a.outcome.moderation) host_.moderation_written(m);
  for (const auto& [to, notice] : a.outcome.notices) host_.notify(to, notice);
  host_.set_summary(name(), entry_of(*table_), this);
  report_written(a.games_started, a.games_finished);
  writing_ = false;
  forget_if_idle();
  if (a.analysis) host_.queue_analysis(std::move(*a.analysis));
  if (a.finished) host_.match_ended(name(), *a.finished);
  written(*sends, a.answered_hook);
}

// ------------------------------------------------------------------------------------
// Computer players (issue 14)

void table_actor::play_bot(const std::shared_ptr<client>& c, std::string name,
                           protocol::command cmd, clock_type::time_point t0,
                           std::optional<json> re) {
  asio::dispatch(strand_, [self = shared_from_this(), c, name = std::move(name),
                           cmd = std::move(cmd), t0, re = std::move(re)] {
    if (self->backlog_full(c, re)) return;
    self->run({[self, c, name, cmd, t0, re] { self->do_play_bot(c, name, cmd, t0, re); }, c, re});
  });
}

void table_actor::do_play_bot(const std::shared_ptr<client>& c, const std::string& name,
                              const protocol::command& cmd, clock_type::time_point t0,
                              const std::optional<json>& re) {
  --pending;
  auto o = table_->enter(name);
  if (o.refused) {
    finish(c, o, re, false, nullptr);
    return;
  }
  members_[c->id()] = member{name, c};
  protocol::command join = protocol::command_of(protocol::command_kind::join);
  protocol::command bot = protocol::command_of(protocol::command_kind::bot);
  bot.text = cmd.text;
  protocol::command variant = protocol::command_of(protocol::command_kind::option_variant);
  variant.game_variant = cmd.game_variant;
  protocol::command match = protocol::command_of(protocol::command_kind::option_match);
  match.match = cmd.match;
  std::optional<engine::error> refused;
  // A new table plays standard free play: only other options are set (and announced).
  // The human who asked owns it (issue 13); others may watch unless they asked for it
  // private (`/play bot ... private`, issue 27).
  protocol::command hidden = protocol::command_of(protocol::command_kind::option_private);
  hidden.flag = true;
  // The variant before the bot, so that the computer player of that variant sits down.
  std::vector<const protocol::command*> steps;
  if (cmd.flag) steps.push_back(&hidden);
  steps.push_back(&join);
  if (cmd.game_variant != engine::variant::standard) steps.push_back(&variant);
  steps.push_back(&bot);
  if (cmd.match.kind != engine::match_kind::free_play) steps.push_back(&match);
  for (const auto* step : steps) {
    auto next = table_->handle(name, *step);
    if (next.refused) {
      refused = next.refused;
      break;
    }
    o.append(std::move(next));
  }
  if (!refused) {
    auto started = table_->handle(name, protocol::command_of(protocol::command_kind::start));
    if (started.refused) {
      refused = started.refused;
    } else {
      o.append(std::move(started));
    }
  }
  if (refused) {
    // What happened so far (the player sits there) is written; the player hears why
    // the rest did not.
    finish(c, o, no_re, true, nullptr);
    host_.counters().error(refused->code);
    c->send(frame_of(protocol::error_message(*refused, re)));
    return;
  }
  const auto bot_name = table_->seats()[0] && !table_->seats()[0]->bot.empty()
                            ? table_->seats()[0]->name
                            : (table_->seats()[1] ? table_->seats()[1]->name : std::string());
  json started{{"type", "info"},
               {"table", table_->name()},
               {"topic", "play"},
               {"data", {{"table", table_->name()}, {"bot", bot_name}}}};
  i18n::with_say(started, "table.play_bot_started", {{"bot", bot_name}, {"table", table_->name()}});
  o.out.push_back(delivery{delivery::audience::actor, std::move(started)});
  finish(c, o, re, true,
         [&host = host_, t0] { host.counters().command("play_bot", clock_type::now() - t0); });
}

void table_actor::seat_pair(const std::shared_ptr<client>& red, std::string red_name,
                            const std::shared_ptr<client>& black, std::string black_name,
                            engine::variant game_variant, seek_terms terms) {
  asio::dispatch(strand_, [self = shared_from_this(), red, red_name = std::move(red_name), black,
                           black_name = std::move(black_name), game_variant, terms] {
    self->run({[self, red, red_name, black, black_name, game_variant, terms] {
                 self->do_seat_pair(red, red_name, black, black_name, game_variant, terms);
               },
               red, no_re});
  });
}

namespace {

/// The `info` (topic "play") that tells `name` where their /seek found them a match:
/// the table, the opponent and the side.
json paired_info(const std::string& table, const std::string& opponent, const char* side,
                 const seek_terms& terms) {
  json m{{"type", "info"},
         {"table", table},
         {"topic", "play"},
         {"data", {{"table", table}, {"opponent", opponent}, {"side", side}}}};
  i18n::with_say(m, "table.seek_found",
                 {{"opponent", opponent},
                  {"side", side},
                  {"table", table},
                  {"length", static_cast<std::int64_t>(terms.length)}});
  return m;
}

}  // namespace

std::pair<table_outcome, std::optional<engine::error>> table_actor::seat_and_start(
    const std::string& red, const std::string& black, engine::variant game_variant,
    const seek_terms& terms) {
  auto join_red = protocol::command_of(protocol::command_kind::join);
  join_red.seat = engine::side::red;
  auto join_black = protocol::command_of(protocol::command_kind::join);
  join_black.seat = engine::side::black;
  auto variant = protocol::command_of(protocol::command_kind::option_variant);
  variant.game_variant = game_variant;
  auto match = protocol::command_of(protocol::command_kind::option_match);
  match.match = engine::match_options{game_variant, engine::match_kind::points, terms.length};
  auto clock = protocol::command_of(protocol::command_kind::option_clock);
  if (terms.clock) clock.clock = *terms.clock;
  std::vector<std::pair<const std::string*, const protocol::command*>> steps{{&red, &join_red},
                                                                             {&black, &join_black}};
  if (game_variant != engine::variant::standard) steps.emplace_back(&red, &variant);
  steps.emplace_back(&red, &match);
  if (terms.clock && terms.clock->minutes > 0) steps.emplace_back(&red, &clock);
  const auto start = protocol::command_of(protocol::command_kind::start);
  steps.emplace_back(&red, &start);
  table_outcome o;
  for (const auto& [who, step] : steps) {
    auto next = table_->handle(*who, *step);
    if (next.refused) return {std::move(o), next.refused};
    o.append(std::move(next));
  }
  return {std::move(o), std::nullopt};
}

void table_actor::do_seat_pair(const std::shared_ptr<client>& red, const std::string& red_name,
                               const std::shared_ptr<client>& black, const std::string& black_name,
                               engine::variant game_variant, const seek_terms& terms) {
  --pending;
  auto o = table_->enter(red_name);
  if (!o.refused) o.append(table_->enter(black_name));
  if (o.refused) {  // never: a new table admits two people
    finish(red, o, no_re, false, nullptr);
    return;
  }
  members_[red->id()] = member{red_name, red};
  members_[black->id()] = member{black_name, black};
  // Red (the longer waiter) owns the table and sets its options (issue 13).
  auto next = seat_and_start(red_name, black_name, game_variant, terms);
  o.append(std::move(next.first));
  if (next.second) {  // what happened so far is written; both hear why the rest did not
    finish(red, o, no_re, true, nullptr);
    for (const auto& c : {red, black}) {
      host_.counters().error(next.second->code);
      c->send(frame_of(protocol::error_message(*next.second, std::nullopt)));
    }
    return;
  }
  o.out.push_back(
      delivery{delivery::audience::actor, paired_info(table_->name(), black_name, "red", terms)});
  o.notices.emplace_back(black_name, paired_info(table_->name(), red_name, "black", terms));
  finish(red, o, no_re, true, nullptr);
}

void table_actor::seat_tournament(std::string red, std::string black, engine::variant game_variant,
                                  seek_terms terms, std::int64_t match_id, json pairing_message) {
  asio::dispatch(
      strand_, [self = shared_from_this(), red = std::move(red), black = std::move(black),
                game_variant, terms, match_id, msg = std::move(pairing_message)] {
        self->run({[self, red, black, game_variant, terms, match_id, msg] {
                     self->do_seat_tournament(red, black, game_variant, terms, match_id, msg);
                   },
                   {},
                   no_re});
      });
}

void table_actor::do_seat_tournament(const std::string& red, const std::string& black,
                                     engine::variant game_variant, const seek_terms& terms,
                                     std::int64_t match_id, const json& pairing_message) {
  --pending;
  preset_match_id_ = match_id;
  auto o = table_->enter(red);
  o.append(table_->enter(black));
  auto next = seat_and_start(red, black, game_variant, terms);
  o.append(std::move(next.first));
  if (o.refused && !next.second) next.second = o.refused;
  if (next.second) {  // never at a new table: logged, and what was done is written
    spdlog::error("table {}: a tournament pairing could not start: {}", table_->name(),
                  next.second->message);
    o.refused.reset();
  }
  // S3: both are away until they enter the table; the grace period runs from now.
  o.append(table_->exit(red));
  o.append(table_->exit(black));
  for (const auto& [who, opponent, side] :
       {std::tuple{&red, &black, "red"}, std::tuple{&black, &red, "black"}}) {
    auto msg = pairing_message;
    msg["opponent"] = *opponent;
    msg["side"] = side;
    i18n::with_say(msg, "table.tournament_round",
                   {{"tournament", msg.value("tournament", std::string())},
                    {"round", msg.value("round", 1)},
                    {"opponent", *opponent},
                    {"side", side},
                    {"table", table_->name()}});
    o.notices.emplace_back(*who, std::move(msg));
  }
  finish(nullptr, o, no_re, false, nullptr);
  rearm();  // the grace periods of both (S3)
}

void table_actor::ask_bot() {
  if (stopped_ || writing_ || bot_busy_) return;
  auto turn = next_bot_turn(*table_);
  if (!turn) return;
  bot_busy_ = true;
  const auto seq = table_->seq();
  if (turn->now) {
    // Posted, not run here: ask_bot() runs at the end of a handler.
    asio::post(strand_, [self = shared_from_this(), turn = std::move(*turn), seq] {
      self->run({[self, turn, seq] { self->bot_acts(turn, seq, 0, *turn.now); }, {}, no_re});
    });
    return;
  }
  ask_bot_question(*turn, seq, 0);
}

void table_actor::ask_bot_question(const bot_turn& turn, std::uint64_t seq, int attempt) {
  auto* bot = host_.bot_player(turn.level, turn.ask->game_variant);
  if (bot == nullptr) {
    bot_busy_ = false;
    bot_gives_up(turn, {{"why", "gone"}});
    return;
  }
  spdlog::debug("table {}: {} is asked {} (seq {})", table_->name(), turn.name,
                bots::to_string(turn.ask->asked), seq);
  bot->decide(*turn.ask, [self = shared_from_this(), turn, seq,
                          attempt](engine::result<std::string> answer) {
    asio::post(self->strand_, [self, turn, seq, attempt, answer = std::move(answer)] {
      self->run(
          {[self, turn, seq, attempt, answer] { self->bot_answered(turn, seq, attempt, answer); },
           {},
           no_re});
    });
  });
}

void table_actor::bot_answered(const bot_turn& turn, std::uint64_t seq, int attempt,
                               const engine::result<std::string>& answer) {
  bot_busy_ = false;
  if (stopped_) return;
  if (table_->seq() != seq) {  // the table moved on meanwhile: ask about the new state
    ask_bot();
    return;
  }
  if (!answer && answer.err().code == "bot_busy") {
    // The bots' queue is full (issue 25): the bot waits (state.bot_thinking stays true)
    // and is asked again, later each time up to 8 s; it never resigns or forfeits for
    // the server's load.
    host_.counters().error("bot_busy");
    ++bot_waits_;
    const std::chrono::milliseconds delay{250LL << std::min(bot_waits_ - 1, 5)};
    spdlog::debug("table {}: {} waits {} ms for room in the bots' queue", table_->name(), turn.name,
                  delay.count());
    ask_bot_later(delay);
    return;
  }
  bot_waits_ = 0;
  if (!answer) {
    bot_gives_up(turn, {{"why", "error"}, {"reason", protocol::said_of(answer.err())}});
    return;
  }
  auto cmd = protocol::parse_line(*answer);
  if (!cmd) {
    bot_gives_up(turn, {{"why", "answered"}, {"answer", answer->substr(0, 60)}});
    return;
  }
  bot_acts(turn, seq, attempt, *cmd);
}

void table_actor::bot_acts(const bot_turn& turn, std::uint64_t seq, int attempt,
                           const protocol::command& cmd) {
  bot_busy_ = false;
  if (stopped_) return;
  if (table_->seq() != seq) {
    ask_bot();
    return;
  }
  auto o = table_->handle(turn.name, cmd);
  if (o.refused) {
    spdlog::warn("table {}: {} sent /{} {}, refused: {}", table_->name(), turn.name,
                 protocol::to_string(cmd.kind), cmd.text.substr(0, 60), o.refused->message);
    host_.counters().error("bot_refused");
    if (!turn.ask) return;  // a roll or a continue the table refuses: nothing to think over
    if (attempt == 0) {     // ask once more, then give up
      bot_busy_ = true;
      ask_bot_question(turn, seq, attempt + 1);
      return;
    }
    bot_gives_up(turn, {{"why", "refused"}, {"reason", protocol::said_of(*o.refused)}});
    return;
  }
  finish(nullptr, o, no_re, false, nullptr);
}

void table_actor::bot_gives_up(const bot_turn& turn, json why) {
  spdlog::warn("table {}: {} cannot answer: {}", table_->name(), turn.name, why.dump());
  host_.counters().error("bot_failed");
  protocol::command instead;
  std::string what;  // for the log; `why["what"]` selects it in the sentence
  const auto asked = turn.ask ? turn.ask->asked : bots::question::play;
  switch (asked) {
    case bots::question::double_or_roll:
      instead = protocol::command_of(protocol::command_kind::roll);
      what = "it rolls without doubling";
      why["what"] = "roll";
      break;
    case bots::question::take_or_drop:
      instead = protocol::command_of(protocol::command_kind::drop);
      what = "it drops";
      why["what"] = "drop";
      break;
    case bots::question::accept_or_reject:
      instead = protocol::command_of(protocol::command_kind::accept);
      what = "it accepts the resignation";
      why["what"] = "accept";
      break;
    case bots::question::play: {
      // All the game could still cost it: a single game once a checker is off, else a
      // backgammon (long nardy: mars), as a forfeit scores (S3).
      instead = protocol::command_of(protocol::command_kind::resign);
      const bool off = turn.ask && turn.ask->position.mover(engine::off_index) > 0;
      const bool standard = !turn.ask || turn.ask->game_variant == engine::variant::standard;
      instead.resign_kind = off        ? engine::win_kind::single
                            : standard ? engine::win_kind::backgammon
                                       : engine::win_kind::gammon;
      what = "it resigns the game (" + std::string(engine::to_string(instead.resign_kind)) + ")";
      why["what"] = "resign";
      why["kind"] = engine::to_string(instead.resign_kind);
      break;
    }
  }
  auto o = table_->handle(turn.name, instead);
  if (o.refused) {
    spdlog::error("table {}: {} cannot even {}: {}", table_->name(), turn.name, what,
                  o.refused->message);
    return;
  }
  json e{{"type", "event"},
         {"table", table_->name()},
         {"event", "bot_failed"},
         {"name", turn.name},
         {"side", engine::to_string(turn.side)}};
  why["name"] = turn.name;
  i18n::with_say(e, "table.bot_gave_up", std::move(why));
  o.out.insert(o.out.begin(), delivery{delivery::audience::everyone, std::move(e)});
  finish(nullptr, o, no_re, false, nullptr);
}

void table_actor::ask_bot_later(std::chrono::milliseconds delay) {
  if (stopped_ || !next_bot_turn(*table_)) return;
  if (!bot_timer_) bot_timer_.emplace(strand_);
  bot_timer_->expires_after(delay);
  bot_timer_->async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec) return;
    self->run({[self] { self->ask_bot(); }, {}, no_re});
  });
}

}  // namespace bg::server
