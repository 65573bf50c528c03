// The game service's tournaments (RULES.md S6): the lobby commands (/tournament,
// /tournaments, /register, /withdraw), the director's writes and announcements, the
// seating of each pairing at its table, the results taken from finished matches, the
// timer, the restore after a restart or a cluster claim, and the API. The rules
// themselves are in tournament/ (tournament.hpp, tournament_rules.hpp).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <string>
#include <tuple>
#include <vector>

#include <spdlog/spdlog.h>

#include "bg/i18n/catalogue.hpp"
#include "bg/protocol/codec.hpp"
#include "bg/server/log_safe.hpp"
#include "bg/server/players/names.hpp"
#include "bg/server/service/game_service.hpp"
#include "bg/server/table/table_actor.hpp"
#include "players/name_errors.hpp"
#include "service_helpers.hpp"

namespace bg::server {

using nlohmann::json;
using service_helpers::info_frame;
namespace asio = boost::asio;

/// What one write of a tournament announces once it is durable.
struct tournament_news {
  json message;                      ///< the `tournament` message (its view as written)
  std::vector<std::string> players;  ///< every registered name
  std::vector<std::weak_ptr<client>> watchers;
  std::vector<std::pair<std::shared_ptr<client>, json>> replies;
  std::vector<tournament_pairing> seat;  ///< new pairings to seat
};

namespace {

/// The bytes a tournament's name may have: its tables are called NAME-rR-N / NAME-aN,
/// and a table name has at most --max-name-bytes.
constexpr std::size_t table_suffix_bytes = 8;
/// Connections one tournament pushes its news to beyond its players (/tournament NAME).
constexpr std::size_t max_watchers = 1000;
/// The default start of /tournament create without `start`: in 5 minutes.
constexpr std::int64_t default_start_delay_ms = 300'000;

win_kind arena_kind(engine::win_kind k) {
  return k == engine::win_kind::backgammon ? win_kind::backgammon
         : k == engine::win_kind::gammon   ? win_kind::gammon
                                           : win_kind::single;
}

/// The next `minute_of_day` (UTC) after `now_ms`.
std::int64_t next_time_of_day(std::int64_t now_ms, int minute_of_day) {
  constexpr std::int64_t day = 86'400'000;
  const std::int64_t midnight = now_ms - now_ms % day;
  std::int64_t at = midnight + std::int64_t{minute_of_day} * 60'000;
  if (at <= now_ms) at += day;
  return at;
}

/// "2026-11-27 20:00 UTC".
std::string utc_text(std::int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

json tournament_message(const tournament& t) {
  return json{{"type", "tournament"}, {"tournament", t.view()}};
}

/// The `tournament_pairing` message of `p` (the actor adds `opponent`, `side`, `text`).
json pairing_message(const std::string& tournament_name, const tournament_terms& terms,
                     const tournament_pairing& p) {
  return json{
      {"type", "tournament_pairing"},
      {"tournament", tournament_name},
      {"round", p.round},
      {"table", p.table},
      {"match_id", p.match_id},
      {"match",
       {{"variant", engine::to_string(terms.game_variant)},
        {"length", terms.match_length},
        {"clock", {{"minutes", terms.clock_minutes}, {"delay", terms.clock_delay_seconds}}}}}};
}

/// The match terms a pairing is seated with.
seek_terms seat_terms(const tournament_terms& terms) {
  return seek_terms{terms.match_length,
                    protocol::clock_option{terms.clock_minutes, terms.clock_delay_seconds}};
}

/// The arguments of catalogue message tournament.list_line for tournament summary `t`.
json list_line_args(const json& t) {
  const std::string status = t.value("status", "");
  return json{{"name", t.value("name", "")},
              {"kind", t.value("kind", "")},
              {"status", status},
              {"count", t.value("registered", 0)},
              {"start", status == "registering" ? utc_text(t.value("start", std::int64_t{0})) : ""},
              {"round", t.value("round", 0)}};
}

/// A pairing to seat once the service's mutex is released.
struct seating {
  std::shared_ptr<table_actor> actor;
  tournament_pairing pairing;
  tournament_terms terms;
  std::string tournament_name;
  void go() {
    spdlog::info("tournament {}: round {}, {} and {} at table {}", log_safe(tournament_name),
                 pairing.round, log_safe(pairing.red), log_safe(*pairing.black),
                 log_safe(pairing.table));
    actor->seat_tournament(pairing.red, *pairing.black, terms.game_variant, seat_terms(terms),
                           pairing.match_id, pairing_message(tournament_name, terms, pairing));
  }
};

}  // namespace

// ------------------------------------------------------------------------------------
// The lobby commands

std::map<std::string, game_service::tournament_slot>::iterator game_service::tournament_named(
    const std::string& name) {
  return name_problem_of(name) ? tournaments_.end() : tournaments_.find(name_key(name));
}

bool game_service::refuse(const std::shared_ptr<client>& c, const std::optional<engine::error>& e,
                          const std::optional<json>& re) {
  if (!e) return false;
  metrics_.error(e->code);
  c->send(frame_of(protocol::error_message(*e, re)));
  return true;
}

void game_service::reply_and_write(const std::string& key, const std::shared_ptr<client>& c,
                                   std::string say_key, json args, const std::optional<json>& re) {
  auto& slot = tournaments_.at(key);
  json reply{{"type", "info"}, {"topic", "tournament"}};
  i18n::with_say(reply, std::move(say_key), std::move(args));
  reply["data"] = slot.t->summary();
  if (re) reply["re"] = *re;
  slot.replies.emplace_back(c, std::move(reply));
  write_tournament(key);
}

bool game_service::route_tournament(const std::shared_ptr<client>& c, const std::string& name,
                                    const protocol::command& cmd, const std::string& text,
                                    const std::optional<json>& re,
                                    std::chrono::steady_clock::time_point t0) {
  std::string named;
  if (cmd.kind == protocol::command_kind::tournament && cmd.tournament &&
      cmd.tournament->action != protocol::tournament_action::create)
    named = cmd.tournament->name;
  else if (cmd.kind == protocol::command_kind::register_tournament ||
           cmd.kind == protocol::command_kind::withdraw_tournament)
    named = cmd.text;
  if (named.empty() || name_problem_of(named)) return false;
  const std::string key = name_key(named);
  {
    std::lock_guard lock(mutex_);
    if (tournaments_.count(key) != 0) return false;  // directed here
  }
  const std::string row = std::string(tournament_row_prefix) + key;
  if (const auto owner = cluster_->owner_of(row)) {
    route_to_owner(c, row, *owner, text, re);  // a dead director's row is claimed here
    return true;
  }
  // Unknown to the last heartbeat (made on another node since, or no such tournament):
  // the store says now.
  cluster_->locate(row, false,
                   [weak = weak_from_this(), c, name, cmd, text, re, t0,
                    row](std::optional<located_table> where) {
                     const auto self = weak.lock();
                     if (!self) return;
                     asio::post(self->io_, [self, c, name, cmd, text, re, t0, row,
                                            where = std::move(where)]() mutable {
                       if (where && where->elsewhere) {
                         self->route_to_owner(c, row, *where->elsewhere, text, re);
                         return;
                       }
                       // No other node directs it: answered here (unknown_tournament).
                       self->on_lobby_line(c, name, std::move(cmd), re, t0);
                     });
                   });
  return true;
}

void game_service::on_tournament(const std::shared_ptr<client>& c, const std::string& name,
                                 const protocol::command& cmd, const std::optional<json>& re) {
  const auto& t = *cmd.tournament;
  switch (t.action) {
    case protocol::tournament_action::create:
      create_tournament(c, name, t, re);
      return;
    case protocol::tournament_action::cancel:
      cancel_tournament(c, name, t, re);
      return;
    case protocol::tournament_action::adjudicate:
      adjudicate_tournament(c, name, t, re);
      return;
    case protocol::tournament_action::show:
      break;
  }
  std::lock_guard lock(mutex_);
  const auto it = tournament_named(t.name);
  if (it == tournaments_.end()) {
    metrics_.error("unknown_tournament");
    c->send(frame_of(protocol::error_message(
        protocol::said_error("unknown_tournament", "tournament.unknown_see_list"), re)));
    return;
  }
  // Its news comes to this connection from now on (within a bound).
  if (it->second.watchers.size() < max_watchers) it->second.watchers[c->id()] = c;
  auto msg = tournament_message(*it->second.t);
  if (re) msg["re"] = *re;
  c->send(frame_of(msg));
}

void game_service::create_tournament(const std::shared_ptr<client>& c, const std::string& name,
                                     const protocol::tournament_command& t,
                                     const std::optional<json>& re) {
  const auto refuse_with = [&](const char* code, std::string say_key, json args = json::object()) {
    refuse(c, protocol::said_error(code, std::move(say_key), args), re);
  };
  std::lock_guard lock(mutex_);
  const auto* s = players_.find(c->id());
  if (s == nullptr) return;
  const bool admin = s->registered && is_admin(s->key);
  if (config_.tournament_creators == "admins" ? !admin : !s->registered)
    return refuse_with("not_allowed", config_.tournament_creators == "admins"
                                          ? "tournament.admins_create"
                                          : "tournament.log_in_to_create");
  const std::size_t max_bytes =
      config_.max_name_bytes > table_suffix_bytes ? config_.max_name_bytes - table_suffix_bytes : 1;
  if (auto why = name_error(t.name, max_bytes, "bad_tournament_name", name_use::tournament)) {
    refuse(c, std::move(*why), re);
    return;
  }
  const std::string key = name_key(t.name);
  if (tournaments_.count(key) != 0 ||
      (cluster_ && cluster_->owner_of(std::string(tournament_row_prefix) + key)))
    return refuse_with("tournament_exists", "tournament.exists", {{"name", t.name}});
  const auto open = std::count_if(tournaments_.begin(), tournaments_.end(),
                                  [](const auto& e) { return e.second.t->open(); });
  if (static_cast<std::size_t>(open) >= config_.max_tournaments)
    return refuse_with("too_many_tournaments", "tournament.too_many",
                       {{"count", static_cast<std::int64_t>(config_.max_tournaments)}});
  if (t.max_players > 0 && static_cast<std::size_t>(t.max_players) > config_.max_tournament_players)
    return refuse_with("bad_command", "tournament.too_many_players",
                       {{"count", static_cast<std::int64_t>(config_.max_tournament_players)}});
  const std::int64_t now = clock_ms();
  tournament_terms terms;
  terms.kind = *tournament_kind_of(t.kind);
  if (t.rounds > 0) terms.rounds = t.rounds;
  if (t.minutes > 0) terms.minutes = t.minutes;
  terms.game_variant = t.game_variant;
  if (t.match_length > 0) terms.match_length = t.match_length;
  if (t.clock) {
    terms.clock_minutes = t.clock->first;
    terms.clock_delay_seconds = t.clock->second;
  }
  terms.start_ms = t.start_in_seconds  ? now + std::int64_t{*t.start_in_seconds} * 1000
                   : t.start_at_minute ? next_time_of_day(now, *t.start_at_minute)
                                       : now + default_start_delay_ms;
  if (t.min_players > 0) terms.min_players = t.min_players;
  terms.max_players =
      t.max_players > 0 ? t.max_players : static_cast<int>(config_.max_tournament_players);
  terms.rated = !t.unrated;
  auto& slot = tournaments_[key];
  slot.t = std::make_unique<tournament>(t.name, name, terms, now);
  slot.t->set_minute_ms(std::int64_t{config_.clock_minute_seconds} * 1000);
  slot.watchers[c->id()] = c;
  spdlog::info("tournament {} ({}) created by {}, starts {}", log_safe(t.name), t.kind,
               log_safe(name), utc_text(terms.start_ms));
  json created{{"type", "info"}, {"topic", "tournament"}};
  i18n::with_say(created, "tournament.created",
                 {{"name", t.name}, {"start", utc_text(terms.start_ms)}});
  created["data"] = slot.t->summary();
  slot.replies.emplace_back(c, std::move(created));
  if (re) slot.replies.back().second["re"] = *re;
  write_tournament(key);
  arm_tournament_timer();
}

void game_service::cancel_tournament(const std::shared_ptr<client>& c, const std::string& name,
                                     const protocol::tournament_command& t,
                                     const std::optional<json>& re) {
  std::lock_guard lock(mutex_);
  const auto* s = players_.find(c->id());
  if (s == nullptr) return;
  const auto it = tournament_named(t.name);
  std::optional<engine::error> refused;
  if (it == tournaments_.end()) {
    refused = protocol::said_error("unknown_tournament", "tournament.unknown");
  } else if (!(s->registered && is_admin(s->key)) &&
             !(s->registered && name_key(it->second.t->creator()) == s->key)) {
    refused = protocol::said_error("not_allowed", "tournament.cancel_not_allowed");
  } else {
    refused = it->second.t->cancel(clock_ms());
  }
  if (refuse(c, refused, re)) return;
  spdlog::info("tournament {} cancelled by {}", log_safe(t.name), log_safe(name));
  reply_and_write(it->first, c, "tournament.cancelled", {{"name", it->second.t->name()}}, re);
}

void game_service::adjudicate_tournament(const std::shared_ptr<client>& c, const std::string& name,
                                         const protocol::tournament_command& t,
                                         const std::optional<json>& re) {
  std::lock_guard lock(mutex_);
  const auto* s = players_.find(c->id());
  if (s == nullptr) return;
  const auto it = tournament_named(t.name);
  std::optional<engine::error> refused;
  if (!(s->registered && is_admin(s->key))) {
    refused = protocol::said_error("not_admin", "tournament.adjudicate_not_admin");
  } else if (it == tournaments_.end()) {
    refused = protocol::said_error("unknown_tournament", "tournament.unknown");
  } else if (name_problem_of(t.table) || name_problem_of(t.winner)) {
    refused = protocol::said_error("bad_command", "tournament.adjudicate_names");
  } else {
    refused = it->second.t->adjudicate(t.table, t.winner, t.reason, clock_ms(),
                                       [this] { return storage_->reserve_match_id(); });
  }
  if (refuse(c, refused, re)) return;
  // The reason is logged (S6): in the log and in the moderation log.
  spdlog::warn("tournament {}: {} adjudicated table {} for {}: {}", log_safe(t.name),
               log_safe(name), log_safe(t.table), log_safe(t.winner), log_safe(t.reason));
  moderation_action a{"adjudicate", name, t.winner, t.table, t.name + ": " + t.reason};
  writer_->run([a](store& db) { db.record_moderation(a); });
  tournament_tables_.erase(t.table);
  reply_and_write(it->first, c, "tournament.adjudicated",
                  {{"table", t.table}, {"winner", t.winner}}, re);
}

json game_service::local_tournaments(const json& elsewhere) {
  std::map<std::string, json> by_key;  // in name-key order
  for (const auto& e : elsewhere)
    if (e.is_object() && e.contains("name") && e["name"].is_string() &&
        !name_problem_of(e["name"].get<std::string>()))
      by_key[name_key(e["name"].get<std::string>())] = e;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [key, slot] : tournaments_) {
      auto summary = slot.t->summary();  // this node's copy is the newest
      if (cluster_) summary["node"] = config_.node_id;
      by_key[key] = std::move(summary);
    }
  }
  json list = json::array();
  for (auto& [key, summary] : by_key) list.push_back(std::move(summary));
  return list;
}

void game_service::on_tournaments(const std::shared_ptr<client>& c, const std::optional<json>& re) {
  const auto answer = [c, re](const json& list) {
    json msg{{"type", "info"}, {"topic", "tournaments"}};
    if (list.empty()) {
      i18n::with_say(msg, "tournament.list_empty");
    } else {
      // A list of separately-keyed lines, said in c's language here.
      const std::string lang = c->lang();
      std::string text = i18n::render(lang, "tournament.list_header");
      for (const auto& t : list)
        text += "\n  " + i18n::render(lang, "tournament.list_line", list_line_args(t));
      msg["text"] = std::move(text);
    }
    msg["data"] = json{{"tournaments", list}};
    if (re) msg["re"] = *re;
    c->send(frame_of(msg));
  };
  if (!bus_) {
    answer(local_tournaments(json::array()));
    return;
  }
  // Cluster (issue 30): every live node's, as each published them, and this node's own.
  bus_->list_tournaments([weak = weak_from_this(), c, re, answer](std::optional<json> others) {
    const auto self = weak.lock();
    if (!self) return;
    if (!others) {
      self->send_error(c, protocol::said_error("storage_error", "tournament.list_unreadable"), re);
      return;
    }
    // (On an I/O thread: the bus's thread takes no lock of the service.)
    asio::post(self->io_, [self, answer, others = std::move(*others)] {
      answer(self->local_tournaments(others));
    });
  });
}

void game_service::on_register(const std::shared_ptr<client>& c, const std::string& name,
                               const protocol::command& cmd, const std::optional<json>& re) {
  std::lock_guard lock(mutex_);
  const auto* s = players_.find(c->id());
  if (s == nullptr) return;
  const auto it = tournament_named(cmd.text);
  std::optional<engine::error> refused;
  const std::int64_t now = clock_ms();
  if (it == tournaments_.end()) {
    refused = protocol::said_error("unknown_tournament", "tournament.unknown_see_list");
  } else if (bans_.of_name(name_key(name), now)) {
    refused = protocol::said_error("banned", "tournament.banned_register");
  } else {
    const auto registered =
        std::count_if(tournaments_.begin(), tournaments_.end(), [&](const auto& e) {
          const auto* p = e.second.t->player(name);
          return e.second.t->open() && p != nullptr && !p->withdrawn;
        });
    if (it->second.t->player(name) == nullptr &&
        static_cast<std::size_t>(registered) >= config_.max_registrations)
      refused =
          protocol::said_error("too_many_registrations", "tournament.too_many_registrations",
                               {{"count", static_cast<std::int64_t>(config_.max_registrations)}});
    else
      refused = it->second.t->enter(
          name, ratings_.of(name, it->second.t->terms().game_variant).value_or(1500.0), now);
  }
  if (refuse(c, refused, re)) return;
  const auto& t = *it->second.t;
  reply_and_write(it->first, c, "tournament.registered",
                  {{"name", t.name()}, {"start", utc_text(t.terms().start_ms)}}, re);
}

void game_service::on_withdraw(const std::shared_ptr<client>& c, const std::string& name,
                               const protocol::command& cmd, const std::optional<json>& re) {
  std::lock_guard lock(mutex_);
  auto it = tournaments_.end();
  if (!cmd.text.empty()) {
    if (!name_problem_of(cmd.text)) it = tournaments_.find(name_key(cmd.text));
  } else {  // the one open tournament the name plays in
    std::size_t found = 0;
    for (auto e = tournaments_.begin(); e != tournaments_.end(); ++e)
      if (const auto* p = e->second.t->player(name); p && !p->withdrawn && e->second.t->open()) {
        it = e;
        ++found;
      }
    if (found > 1) {
      metrics_.error("bad_command");
      c->send(frame_of(protocol::error_message(
          protocol::said_error("bad_command", "tournament.withdraw_which"), re)));
      return;
    }
  }
  std::optional<engine::error> refused;
  if (it == tournaments_.end())
    refused = protocol::said_error("not_registered", "tournament.not_registered");
  else
    refused = it->second.t->withdraw(name, clock_ms());
  if (refuse(c, refused, re)) return;
  spdlog::info("tournament {}: {} withdrew", log_safe(it->second.t->name()), log_safe(name));
  reply_and_write(it->first, c, "tournament.withdrawn", {{"name", it->second.t->name()}}, re);
}

void game_service::withdraw_banned(const std::string& name) {
  std::lock_guard lock(mutex_);
  for (auto& [key, slot] : tournaments_) {
    const auto* p = slot.t->player(name);
    if (p == nullptr || p->withdrawn || !slot.t->open()) continue;
    if (!slot.t->withdraw(name, clock_ms())) {
      spdlog::info("tournament {}: {} withdrawn (banned)", log_safe(slot.t->name()),
                   log_safe(name));
      write_tournament(key);
    }
  }
}

// ------------------------------------------------------------------------------------
// Written, then announced

void game_service::write_tournament(const std::string& key) {
  auto& slot = tournaments_.at(key);
  if (slot.writing) {
    slot.dirty = true;
    return;
  }
  auto news = std::make_shared<tournament_news>();
  news->message = tournament_message(*slot.t);
  for (const auto& p : slot.t->players()) news->players.push_back(p.name);
  for (auto w = slot.watchers.begin(); w != slot.watchers.end();) {
    if (w->second.expired()) {
      w = slot.watchers.erase(w);
    } else {
      news->watchers.push_back(w->second);
      ++w;
    }
  }
  news->replies = std::move(slot.replies);
  slot.replies.clear();
  news->seat = slot.t->take_new_pairings();
  table_write w;
  w.name = std::string(tournament_row_prefix) + key;
  w.snapshot = slot.t->to_json().dump();
  w.epoch = slot.epoch;
  slot.writing = true;
  slot.dirty = false;
  writer_->submit(std::move(w), [self = shared_from_this(), key, news](write_result& r) {
    asio::post(self->io_, [self, key, news, r = std::move(r)]() mutable {
      self->tournament_written(key, r, news);
    });
  });
}

void game_service::tournament_written(const std::string& key, write_result& r,
                                      const std::shared_ptr<tournament_news>& news) {
  std::vector<seating> seat;
  {
    std::lock_guard lock(mutex_);
    const auto it = tournaments_.find(key);
    if (it == tournaments_.end()) return;
    auto& slot = it->second;
    slot.writing = false;
    if (r.fenced) {
      // Cluster: another node directs it now; this copy writes and says nothing more.
      stale_writes_.fetch_add(1);
      spdlog::warn("cluster: tournament {} is directed by another node now; dropped here",
                   log_safe(slot.t->name()));
      for (auto t = tournament_tables_.begin(); t != tournament_tables_.end();)
        t = t->second == key ? tournament_tables_.erase(t) : std::next(t);
      publish_tournament(key, /*gone=*/true);
      tournaments_.erase(it);
      for (auto& [c, reply] : news->replies) {
        json e = protocol::error_message(
            protocol::said_error("table_moving", "tournament.directed_elsewhere"), std::nullopt);
        if (reply.contains("re")) e["re"] = reply["re"];
        c->send(frame_of(e));
      }
      return;
    }
    if (!r.error.empty()) {
      // Not announced; the next change writes the whole tournament again.
      spdlog::error("tournament {}: its change could not be written: {}", log_safe(slot.t->name()),
                    r.error);
      for (auto& [c, reply] : news->replies) {
        json e = protocol::error_message(
            protocol::said_error("storage_error", "tournament.not_saved"), std::nullopt);
        if (reply.contains("re")) e["re"] = reply["re"];
        c->send(frame_of(e));
      }
      slot.unseated.insert(slot.unseated.end(), news->seat.begin(), news->seat.end());
      slot.dirty = true;
    } else {
      if (r.epoch > 0) slot.epoch = r.epoch;
      publish_tournament(key);
      for (const auto& p : news->seat)
        if (auto actor = p.winner || !p.black ? nullptr : table_for_pairing(key, p))
          seat.push_back({std::move(actor), p, slot.t->terms(), slot.t->name()});
    }
    if (slot.dirty) write_tournament(key);
  }
  if (!r.error.empty()) return;
  for (auto& [c, reply] : news->replies) c->send(frame_of(reply));
  const auto frame = frame_of(news->message);
  tell_names(news->players, news->message);
  for (const auto& w : news->watchers)
    if (const auto c = w.lock()) c->send(frame);
  for (auto& st : seat) st.go();
  for (const auto& p : news->seat)
    if (!p.black) {  // a bye: a win without a match (S6)
      const std::string name = news->message["tournament"]["name"];
      json bye{{"type", "tournament_pairing"},
               {"tournament", name},
               {"round", p.round},
               {"table", nullptr},
               {"bye", true}};
      i18n::with_say(bye, "tournament.bye", {{"name", name}, {"round", p.round}});
      tell_names({p.red}, bye);
    }
}

void game_service::tell_names(const std::vector<std::string>& names, const json& message) {
  std::vector<std::shared_ptr<client>> here;
  std::vector<std::string> elsewhere;  // name keys not connected here
  {
    std::lock_guard lock(mutex_);
    for (const auto& n : names) {
      if (name_problem_of(n)) continue;
      const std::string key = name_key(n);
      auto to = players_.connections_of(key);
      if (to.empty()) elsewhere.push_back(key);
      here.insert(here.end(), to.begin(), to.end());
    }
  }
  const auto frame = frame_of(message);
  for (const auto& c : here) c->send(frame);
  // A payload over the bus's limit (a large tournament's view) is not sent: those
  // players see the news with /tournament NAME.
  if (bus_ && !elsewhere.empty() && service_helpers::relayed_to_other_nodes(message) &&
      !bus_->deliver(elsewhere, message))
    spdlog::debug("cluster: a {} message for {} players elsewhere was not sent (too long)",
                  message.value("type", ""), elsewhere.size());
}

void game_service::publish_tournament(const std::string& key, bool gone) {
  if (!bus_) return;
  const std::string row = std::string(tournament_row_prefix) + key;
  const auto it = tournaments_.find(key);
  if (gone || it == tournaments_.end()) {
    bus_->publish_table(row, std::nullopt);
    return;
  }
  bus_->publish_table(row, it->second.t->summary().dump());
}

std::shared_ptr<table_actor> game_service::table_for_pairing(const std::string& key,
                                                             const tournament_pairing& p) {
  auto& slot = tournaments_.at(key);
  if (tables_.count(p.table) != 0) return nullptr;  // seated already (a restore)
  if (shutting_down_ || tables_.size() >= config_.max_tables) {
    spdlog::warn("tournament {}: no table can be made for {} now; retried",
                 log_safe(slot.t->name()), log_safe(p.table));
    slot.unseated.push_back(p);
    return nullptr;
  }
  auto actor = std::make_shared<table_actor>(*this, io_, std::make_unique<table>(p.table, hooks()));
  tables_[p.table] = actor;
  tournament_tables_[p.table] = key;
  metrics_.set_tables(tables_.size());
  ++actor->pending;
  return actor;
}

// ------------------------------------------------------------------------------------
// Results, the timer

void game_service::match_ended(const std::string& table, const match_end& m) {
  std::lock_guard lock(mutex_);
  const auto t = tournament_tables_.find(table);
  if (t == tournament_tables_.end()) return;
  const std::string key = t->second;
  tournament_tables_.erase(t);
  const auto it = tournaments_.find(key);
  if (it == tournaments_.end()) return;
  std::optional<std::string> winner;
  if (m.winner) winner = m.players[static_cast<std::size_t>(engine::index_of(*m.winner))];
  spdlog::info("tournament {}: the match at {} ended, won by {}", log_safe(it->second.t->name()),
               log_safe(table), winner ? log_safe(*winner) : std::string("nobody"));
  if (it->second.t->match_finished(table, winner, arena_kind(m.deciding), clock_ms(),
                                   [this] { return storage_->reserve_match_id(); }))
    write_tournament(key);
}

bool game_service::rated_table(const std::string& table) {
  std::lock_guard lock(mutex_);
  const auto t = tournament_tables_.find(table);
  if (t == tournament_tables_.end()) return true;
  const auto it = tournaments_.find(t->second);
  return it == tournaments_.end() || it->second.t->terms().rated;
}

void game_service::arm_tournament_timer() {
  if (tournament_timer_ || shutting_down_) return;
  const bool any_open = std::any_of(tournaments_.begin(), tournaments_.end(),
                                    [](const auto& e) { return e.second.t->open(); });
  if (!any_open) return;
  tournament_timer_ = std::make_shared<asio::steady_timer>(io_, std::chrono::seconds(1));
  tournament_timer_->async_wait(
      [weak = weak_from_this(), timer = tournament_timer_](const boost::system::error_code& ec) {
        const auto self = weak.lock();
        if (ec || !self) return;
        {
          std::lock_guard relock(self->mutex_);
          if (self->tournament_timer_ == timer) self->tournament_timer_.reset();
        }
        self->tournaments_tick();
      });
}

void game_service::tournaments_tick() {
  std::vector<seating> seat;
  {
    std::lock_guard lock(mutex_);
    const std::int64_t now = clock_ms();
    std::vector<std::string> ended;
    poll_tournament_results();  // cluster: results at other nodes' tables
    for (auto& [key, slot] : tournaments_) {
      if (!slot.t->open()) {
        ended.push_back(key);
        continue;
      }
      if (slot.t->tick(now, [this] { return storage_->reserve_match_id(); })) write_tournament(key);
      if (slot.unseated.empty() || slot.writing) continue;
      // Pairings that found no table before (or were lost in a restart) are seated now.
      auto again = std::move(slot.unseated);
      slot.unseated.clear();
      for (const auto& p : again) {
        const auto* still = slot.t->pairing_at(p.table);
        if (still == nullptr || still->winner) continue;
        tournament_tables_[p.table] = key;
        if (auto actor = table_for_pairing(key, p))
          seat.push_back({std::move(actor), p, slot.t->terms(), slot.t->name()});
      }
    }
    // Ended tournaments beyond --kept-tournaments go, the oldest first.
    if (ended.size() > config_.kept_tournaments) {
      std::sort(ended.begin(), ended.end(), [&](const auto& a, const auto& b) {
        return tournaments_.at(a).t->ended_ms() < tournaments_.at(b).t->ended_ms();
      });
      for (std::size_t i = 0; i + config_.kept_tournaments < ended.size(); ++i) {
        auto& slot = tournaments_.at(ended[i]);
        if (slot.writing) continue;
        table_write w;
        w.name = std::string(tournament_row_prefix) + ended[i];
        w.drop = true;
        w.epoch = slot.epoch;
        writer_->submit(std::move(w), [](write_result&) {});
        publish_tournament(ended[i], /*gone=*/true);
        tournaments_.erase(ended[i]);
      }
    }
    arm_tournament_timer();
  }
  for (auto& st : seat) st.go();
}

// ------------------------------------------------------------------------------------
// Restore

bool game_service::restore_tournament(const saved_table& saved, std::int64_t epoch) {
  const std::string key = saved.name.substr(tournament_row_prefix.size());
  try {
    auto t = std::make_unique<tournament>(tournament::from_json(json::parse(saved.snapshot)));
    t->set_minute_ms(std::int64_t{config_.clock_minute_seconds} * 1000);
    auto& slot = tournaments_[key];
    slot.t = std::move(t);
    slot.epoch = epoch;
    for (const auto& p : slot.t->pairings())
      if (!p.winner && !p.table.empty() && p.how != "unfinished") tournament_tables_[p.table] = key;
    spdlog::info("tournament {} restored ({}, round {})", log_safe(slot.t->name()),
                 to_string(slot.t->status()), slot.t->round());
    publish_tournament(key);
    return true;
  } catch (const std::exception& e) {
    spdlog::error("tournament {}: its saved state cannot be read ({}); skipped", log_safe(key),
                  e.what());
    tournaments_.erase(key);
    return false;
  }
}

void game_service::reconcile_tournaments() {
  // Under mutex_: the pairings in play whose table is not here.
  struct missing {
    std::string key;
    tournament_pairing pairing;
  };
  std::vector<missing> lost;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [table, key] : tournament_tables_) {
      if (tables_.count(table) != 0) continue;
      if (cluster_ && cluster_->owner_of(table)) continue;  // another node plays it
      const auto it = tournaments_.find(key);
      if (it == tournaments_.end()) continue;
      if (const auto* p = it->second.t->pairing_at(table)) lost.push_back({key, *p});
    }
  }
  // Without the mutex: was its match stored (it ended while the director was away)?
  std::vector<std::pair<missing, std::optional<match_record>>> found;
  for (auto& m : lost) {
    std::optional<match_record> rec;
    try {
      if (m.pairing.match_id > 0) rec = storage_->load_match(m.pairing.match_id);
    } catch (const std::exception& e) {
      spdlog::error("tournament: match {} could not be read: {}", m.pairing.match_id, e.what());
      continue;
    }
    found.emplace_back(std::move(m), std::move(rec));
  }
  std::lock_guard lock(mutex_);
  for (auto& [m, rec] : found) {
    const auto it = tournaments_.find(m.key);
    if (it == tournaments_.end()) continue;
    if (!rec) {  // never started: seated again at the next tick
      tournament_tables_.erase(m.pairing.table);
      it->second.unseated.push_back(m.pairing);
      tournament_tables_[m.pairing.table] = m.key;
      continue;
    }
    take_stored_result(m.key, m.pairing.table, *rec);
  }
  arm_tournament_timer();
}

bool game_service::take_stored_result(const std::string& key, const std::string& table,
                                      const match_record& rec) {
  const auto it = tournaments_.find(key);
  if (it == tournaments_.end()) return false;
  const auto* p = it->second.t->pairing_at(table);
  if (p == nullptr || p->winner) return false;
  tournament_tables_.erase(table);
  std::optional<std::string> winner;
  if (!rec.unfinished && rec.final_score[0] != rec.final_score[1])
    winner = rec.players[rec.final_score[0] > rec.final_score[1] ? 0 : 1];
  engine::win_kind kind = engine::win_kind::single;
  if (!rec.games.empty() && rec.games.back().result) kind = rec.games.back().result->kind;
  spdlog::info("tournament {}: the match at {} was stored as ended, won by {}",
               log_safe(it->second.t->name()), log_safe(table),
               winner ? log_safe(*winner) : std::string("nobody"));
  if (it->second.t->match_finished(table, winner, arena_kind(kind), clock_ms(),
                                   [this] { return storage_->reserve_match_id(); }))
    write_tournament(key);
  return true;
}

void game_service::poll_tournament_results() {
  if (!cluster_ || polling_results_) return;
  std::vector<std::tuple<std::string, std::string, std::int64_t>> away;  // key, table, match
  for (const auto& [table, key] : tournament_tables_) {
    const auto it = tournaments_.find(key);
    if (tables_.count(table) != 0 || it == tournaments_.end()) continue;
    const auto* p = it->second.t->pairing_at(table);
    if (p != nullptr && !p->winner && p->match_id > 0) away.emplace_back(key, table, p->match_id);
  }
  if (away.empty()) return;
  polling_results_ = true;
  auto look = [weak = weak_from_this(), away](store& db) {
    std::vector<std::pair<std::size_t, match_record>> ended;
    for (std::size_t i = 0; i < away.size(); ++i) {
      try {
        if (auto rec = db.load_match(std::get<2>(away[i]))) ended.emplace_back(i, std::move(*rec));
      } catch (const std::exception& e) {
        spdlog::error("tournament: match {} could not be read: {}", std::get<2>(away[i]), e.what());
      }
    }
    const auto self = weak.lock();
    if (!self) return;
    asio::post(self->io_, [self, away, ended = std::move(ended)] {
      std::lock_guard lock(self->mutex_);
      self->polling_results_ = false;
      for (const auto& [i, rec] : ended)
        self->take_stored_result(std::get<0>(away[i]), std::get<1>(away[i]), rec);
    });
  };
  // On the reader's thread (the writer's when there is no second connection).
  if (!reader_) {
    writer_->run(std::move(look));
  } else if (!reader_->run(std::move(look))) {
    polling_results_ = false;  // its queue is full: the next tick tries again
  }
}

// ------------------------------------------------------------------------------------
// The API

void game_service::answer_api_tournaments(std::string_view rest, http_callback& reply) {
  const auto unknown = [](http_callback& to) {
    to(http_reply{404, "application/json",
                  json{{"error", "unknown_tournament"},
                       {"message", i18n::english("tournament.unknown")},
                       {"say", i18n::say("tournament.unknown")}}
                      .dump()});
  };
  if (rest.empty()) {
    if (!bus_) {
      reply(http_reply{200, "application/json",
                       json{{"tournaments", local_tournaments(json::array())}}.dump()});
      return;
    }
    // Cluster (issue 30): every live node's tournaments.
    bus_->list_tournaments(
        [weak = weak_from_this(), reply = reply](std::optional<json> others) mutable {
          const auto self = weak.lock();
          if (!self || !others) {
            reply(http_reply{503, "application/json",
                             json{{"error", "storage_error"},
                                  {"message", i18n::english("tournament.list_unreadable")},
                                  {"say", i18n::say("tournament.list_unreadable")}}
                                 .dump()});
            return;
          }
          asio::post(self->io_, [self, reply, others = std::move(*others)]() mutable {
            reply(http_reply{200, "application/json",
                             json{{"tournaments", self->local_tournaments(others)}}.dump()});
          });
        });
    return;
  }
  const std::string name(rest);
  std::optional<std::string> body;
  {
    std::lock_guard lock(mutex_);
    if (const auto it = tournament_named(name); it != tournaments_.end())
      body = it->second.t->view().dump();
  }
  if (body) return reply(http_reply{200, "application/json", std::move(*body)});
  if (!cluster_ || name_problem_of(name)) return unknown(reply);
  // Cluster: another node directs it; its last written state is in the store.
  read_for_http(reply, [row = std::string(tournament_row_prefix) + name_key(name), unknown](
                           store& db, http_callback& to) {
    const auto saved = db.load_table(row);
    if (!saved) return unknown(to);
    std::string view;
    try {
      view = tournament::from_json(json::parse(saved->snapshot)).view().dump();
    } catch (const std::exception& e) {
      spdlog::error("tournament {}: its saved state cannot be read: {}", row, e.what());
      return to(http_reply{500, "application/json",
                           json{{"error", "storage_error"},
                                {"message", i18n::english("tournament.unreadable")},
                                {"say", i18n::say("tournament.unreadable")}}
                               .dump()});
    }
    to(http_reply{200, "application/json", std::move(view)});
  });
}

}  // namespace bg::server
