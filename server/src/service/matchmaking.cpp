// The game service's matchmaking (RULES.md S5): the queue of /seek requests, its
// pairing (lobby/matchmaking.hpp decides; this file seats the pairs) and its timer.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include <spdlog/spdlog.h>

#include "bg/protocol/codec.hpp"
#include "bg/server/log_safe.hpp"
#include "bg/server/service/game_service.hpp"
#include "bg/server/table/table_actor.hpp"
#include "service_helpers.hpp"

namespace bg::server {

using nlohmann::json;
using service_helpers::info_frame;
using service_helpers::said_info_frame;

namespace {

/// How often the queue is paired again while requests wait (their windows widen every
/// 10 s, S5; a computer player is due to the second).
constexpr auto seek_tick = std::chrono::seconds(2);

/// The match lengths of a /seek that names none, in order of preference.
const std::vector<int> default_seek_lengths{5, 7, 3, 1};

/// The arguments of catalogue message lobby.seek_waiting for request `r`: its variant,
/// its lengths (`n` says how many, in words "one".."eight"; `l1`.. each as text; `last`
/// the last one, a number) and its clock.
json seek_waiting_args(const seek_request& r) {
  static constexpr std::array<const char*, 8> counts{"one",  "two", "three", "four",
                                                     "five", "six", "seven", "eight"};
  json args{{"variant", std::string(engine::to_string(r.game_variant))},
            {"n", counts[std::min(r.lengths.size(), counts.size()) - 1]},
            {"last", r.lengths.back()},
            {"clock", !r.clock                ? "any"
                      : r.clock->minutes == 0 ? "none"
                                              : "bank"}};
  for (std::size_t i = 0; i < r.lengths.size() && i < counts.size(); ++i)
    args["l" + std::to_string(i + 1)] = std::to_string(r.lengths[i]);
  if (r.clock) {
    args["minutes"] = r.clock->minutes;
    args["delay"] = r.clock->delay_seconds;
  }
  return args;
}

/// The `data` of an `info` topic "seek": the request as the server holds it.
json seek_data(const char* status, const seek_request& r, seek_request::clock_type::time_point now,
               json waiting) {
  const auto waited = std::chrono::duration_cast<std::chrono::seconds>(now - r.since).count();
  const double window = seek_window(now - r.since);
  return json{
      {"status", status},
      {"variant", engine::to_string(r.game_variant)},
      {"lengths", r.lengths},
      {"clock", r.clock ? json{{"minutes", r.clock->minutes}, {"delay", r.clock->delay_seconds}}
                        : json(nullptr)},
      {"bot_after", r.bot_after ? json(r.bot_after->count()) : json(nullptr)},
      {"rating", r.rating},
      {"window", std::isinf(window) ? json(nullptr) : json(window)},
      {"waited", waited},
      {"waiting", std::move(waiting)}};
}

}  // namespace

json game_service::seeks_waiting() const {
  json out{{"standard", 0}, {"long", 0}};
  for (const auto& [key, s] : seeks_) {
    auto& n = out[std::string(engine::to_string(s.request.game_variant))];
    n = n.get<int>() + 1;
  }
  return out;
}

void game_service::seek_count_changed() {
  if (seek_count_timer_) return;  // a push is due already: it will carry this change too
  // At once when the last push is old enough (the timer's time is past), else when it is.
  seek_count_timer_ = std::make_shared<boost::asio::steady_timer>(
      io_, seek_count_sent_at_ + config_.seek_count_interval);
  seek_count_timer_->async_wait(
      [weak = weak_from_this(), timer = seek_count_timer_](const boost::system::error_code& ec) {
        const auto self = weak.lock();
        if (ec || !self) return;
        self->push_seek_count();
      });
}

void game_service::push_seek_count() {
  std::shared_ptr<const std::string> frame;
  std::vector<std::shared_ptr<client>> all;
  {
    std::lock_guard lock(mutex_);
    seek_count_timer_.reset();
    auto count = seeks_waiting();
    if (count == seek_count_sent_) return;  // changed and changed back: nothing to say
    seek_count_sent_ = count;
    seek_count_sent_at_ = clock_type::now();
    frame = frame_of(json{{"type", "lobby"}, {"seeking", std::move(count)}});
    all = players_.everyone();
  }
  for (const auto& c : all) c->send(frame);
}

bool game_service::on_seek(const std::shared_ptr<client>& c, const std::string& name,
                           const protocol::command& cmd, const std::optional<json>& re) {
  const auto now = seek_request::clock_type::now();
  {
    std::lock_guard lock(mutex_);
    auto* s = players_.find(c->id());
    if (s == nullptr) return false;  // closed meanwhile
    if (!seeks_.count(s->key) && seeks_.size() >= config_.max_seeks) {
      metrics_.error("too_many_seeks");
      c->send(frame_of(protocol::error_message(
          protocol::said_error("too_many_seeks", "lobby.too_many_seeks"), re)));
      return false;
    }
    waiting_seek w;
    w.request.name = name;
    w.request.game_variant = cmd.game_variant;
    w.request.lengths = cmd.lengths.empty() ? default_seek_lengths : cmd.lengths;
    if (!cmd.any_clock) w.request.clock = cmd.clock;
    w.request.rating = ratings_.of(name, cmd.game_variant).value_or(1500.0);
    w.request.since = now;
    if (const auto last = last_opponents_.find(s->key); last != last_opponents_.end())
      w.request.last_opponent = last->second;
    if (cmd.bot_after_seconds > 0)
      w.request.bot_after = std::chrono::seconds(cmd.bot_after_seconds);
    w.client_id = c->id();
    w.who = c;
    w.ignores = s->ignores;
    const auto& r = (seeks_[s->key] = std::move(w)).request;
    seek_count_changed();
    c->send(said_info_frame("seek", "lobby.seek_waiting", seek_waiting_args(r),
                            seek_data("waiting", r, now, seeks_waiting()), std::nullopt, re));
  }
  return true;
}

bool game_service::on_unseek(const std::shared_ptr<client>& c, const std::optional<json>& re) {
  std::lock_guard lock(mutex_);
  auto* s = players_.find(c->id());
  if (s == nullptr) return false;
  const auto it = seeks_.find(s->key);
  if (it == seeks_.end() || it->second.client_id != c->id()) {
    metrics_.error("not_seeking");
    c->send(frame_of(
        protocol::error_message(protocol::said_error("not_seeking", "lobby.not_seeking"), re)));
    return false;
  }
  const auto data =
      seek_data("cancelled", it->second.request, seek_request::clock_type::now(), json());
  seeks_.erase(it);
  seek_count_changed();
  auto with_count = data;
  with_count["waiting"] = seeks_waiting();
  c->send(said_info_frame("seek", "lobby.seek_cancelled", json::object(), std::move(with_count),
                          std::nullopt, re));
  return true;
}

void game_service::drop_seek_of(std::uint64_t client_id) {
  for (auto it = seeks_.begin(); it != seeks_.end(); ++it)
    if (it->second.client_id == client_id) {
      seeks_.erase(it);
      seek_count_changed();
      return;
    }
}

std::vector<std::pair<std::shared_ptr<client>, protocol::command>> game_service::take_bot_seeks(
    seek_request::clock_type::time_point now) {
  std::vector<std::pair<std::shared_ptr<client>, protocol::command>> bots;
  for (auto it = seeks_.begin(); it != seeks_.end();) {
    if (!seek_bot_due(it->second.request, now)) {
      ++it;
      continue;
    }
    if (auto c = it->second.who.lock()) {
      protocol::command play;
      play.kind = protocol::command_kind::play_bot;
      play.text = std::string(protocol::default_bot_level);
      play.game_variant = it->second.request.game_variant;
      play.match = engine::match_options{play.game_variant, engine::match_kind::points,
                                         it->second.request.lengths.front()};
      bots.emplace_back(std::move(c), std::move(play));
    }
    it = seeks_.erase(it);
  }
  return bots;
}

void game_service::arm_seek_timer() {
  if (seeks_.empty() || seek_timer_) return;
  seek_timer_ = std::make_shared<boost::asio::steady_timer>(io_, seek_tick);
  seek_timer_->async_wait(
      [weak = weak_from_this(), timer = seek_timer_](const boost::system::error_code& ec) {
        const auto self = weak.lock();
        if (ec || !self) return;
        {
          std::lock_guard relock(self->mutex_);
          if (self->seek_timer_ == timer) self->seek_timer_.reset();
        }
        self->pair_waiting_seeks();
      });
}

void game_service::pair_waiting_seeks() {
  struct seating {
    std::shared_ptr<table_actor> actor;
    std::shared_ptr<client> red, black;
    std::string red_name, black_name;
    engine::variant game_variant;
    seek_terms terms;
  };
  std::vector<seating> seat;
  std::vector<std::pair<std::shared_ptr<client>, protocol::command>> bots;
  {
    std::lock_guard lock(mutex_);
    const auto now = seek_request::clock_type::now();
    const auto waiting_before = seeks_.size();
    std::vector<seek_request> requests;
    std::vector<std::string> keys;
    // The ignore checks' index: a request's name -> its ignore list and its name key.
    std::unordered_map<std::string, std::pair<const ignore_list*, const std::string*>> by_name;
    for (const auto& [key, s] : seeks_) {
      requests.push_back(s.request);
      keys.push_back(key);
      by_name.emplace(s.request.name, std::pair{s.ignores.get(), &key});
    }
    // pair_seeks() asks this for pairs of requests: two lookups each, not a search (the
    // queue may hold --max-seeks requests, all under the service's mutex).
    const auto ignores = [&](const std::string& who, const std::string& whom) {
      const auto w = by_name.find(who);
      const auto m = by_name.find(whom);
      if (w == by_name.end() || m == by_name.end() || w->second.first == nullptr) return false;
      return w->second.first->ignores(*m->second.second);
    };
    for (const auto& p : pair_seeks(requests, now, ignores)) {
      auto red_it = seeks_.find(keys[p.red]);
      auto black_it = seeks_.find(keys[p.black]);
      auto red = red_it->second.who.lock();
      auto black = black_it->second.who.lock();
      auto* red_s = red ? players_.find(red->id()) : nullptr;
      auto* black_s = black ? players_.find(black->id()) : nullptr;
      if (!red_s || !black_s) continue;  // gone meanwhile: on_close drops its request
      std::string table;
      do {
        table = "match-" + std::to_string(next_seek_table_++);
      } while (tables_.count(table) != 0);
      engine::error why;
      auto actor = table_for(table, *red_s, why);  // bounded like any table creation
      if (!actor) {
        metrics_.error(why.code);
        const auto still = protocol::said_error(why.code, "service.seek_still_waits",
                                                {{"reason", protocol::said_of(why)}});
        for (const auto& c : {red, black})
          c->send(frame_of(protocol::error_message(still, std::nullopt)));
        continue;
      }
      red_s->tables.insert(table);
      black_s->tables.insert(table);
      ++actor->pending;
      if (last_opponents_.size() > 4 * config_.max_seeks) last_opponents_.clear();
      last_opponents_[keys[p.red]] = black_it->second.request.name;
      last_opponents_[keys[p.black]] = red_it->second.request.name;
      seat.push_back({std::move(actor), red, black, red_it->second.request.name,
                      black_it->second.request.name, red_it->second.request.game_variant, p.terms});
      seeks_.erase(red_it);
      seeks_.erase(black_it);
    }
    bots = take_bot_seeks(now);
    if (seeks_.size() != waiting_before) seek_count_changed();
    arm_seek_timer();
  }
  for (auto& s : seat) {
    spdlog::info("matchmaking: {} and {} paired at table {}", log_safe(s.red_name),
                 log_safe(s.black_name), log_safe(s.actor->name()));
    s.actor->seat_pair(s.red, s.red_name, s.black, s.black_name, s.game_variant, s.terms);
  }
  play_bot_seeks(bots);
}

void game_service::play_bot_seeks(
    const std::vector<std::pair<std::shared_ptr<client>, protocol::command>>& bots) {
  for (const auto& [c, play] : bots) {
    std::string name;
    {
      std::lock_guard lock(mutex_);
      if (const auto* s = players_.find(c->id())) name = s->name;
    }
    if (!name.empty()) on_play_bot(c, name, play, std::nullopt, std::chrono::steady_clock::now());
  }
}

}  // namespace bg::server
