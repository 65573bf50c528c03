/// @file moderation.cpp
/// The game service's part of moderation (issue 13): /ignore and /unignore, the
/// administrators' /ban, /unban, /broadcast and /close, and the bans a hello meets.
/// A table's own moderation (owner, /kick, /option private, /invite) is the table's.

#include <spdlog/spdlog.h>

#include <cmath>

#include "bg/i18n/catalogue.hpp"
#include "bg/protocol/codec.hpp"
#include "bg/server/players/names.hpp"
#include "bg/server/service/game_service.hpp"
#include "bg/server/table/frames.hpp"
#include "bg/server/table/table_actor.hpp"
#include "players/name_errors.hpp"
#include "service/service_helpers.hpp"

namespace bg::server {

using nlohmann::json;

namespace {

/// "3 h 20 min", "12 min", "40 s": a ban's time left, rounded up to what is said.
std::string time_text(std::int64_t ms) {
  const std::int64_t s = (ms + 999) / 1000;
  if (s < 60) return std::to_string(s) + " s";
  const std::int64_t min = (s + 59) / 60;
  if (min < 60) return std::to_string(min) + " min";
  const std::int64_t h = min / 60;
  if (h < 48)
    return std::to_string(h) + " h" + (min % 60 ? " " + std::to_string(min % 60) + " min" : "");
  return std::to_string((h + 23) / 24) + " days";
}

/// A ban's time left as the arguments of a sentence (`unit` "s", "min", "h", "hmin" or
/// "days", `n` and `m` the numbers): what time_text() says, for a catalogue message.
json time_args(std::int64_t ms) {
  const std::int64_t s = (ms + 999) / 1000;
  if (s < 60) return {{"unit", "s"}, {"n", s}, {"m", 0}};
  const std::int64_t min = (s + 59) / 60;
  if (min < 60) return {{"unit", "min"}, {"n", min}, {"m", 0}};
  const std::int64_t h = min / 60;
  if (h < 48) return {{"unit", min % 60 ? "hmin" : "h"}, {"n", h}, {"m", min % 60}};
  return {{"unit", "days"}, {"n", (h + 23) / 24}, {"m", 0}};
}

/// The answer of a moderation command: `info` with `topic`, the sentence of catalogue
/// message `key` with `args` (`say`), and data.
json said_info_of(const std::string& topic, std::string key, json args, json data,
                  const std::optional<json>& re) {
  json m{{"type", "info"}, {"topic", topic}, {"data", std::move(data)}};
  i18n::with_say(m, std::move(key), std::move(args));
  if (re) m["re"] = *re;
  return m;
}

}  // namespace

void game_service::log_moderation(const moderation_action& a) {
  spdlog::info("moderation: {} by {} on {} at table {}: {}", a.action, a.actor,
               a.target.empty() ? "-" : a.target, a.table.empty() ? "-" : a.table,
               json(a.detail).dump());
}

std::shared_ptr<ignore_list> game_service::ignores_of(const std::string& name) const {
  if (name_problem_of(name)) return nullptr;
  std::lock_guard lock(mutex_);
  return players_.ignores_of(name_key(name));
}

void game_service::left_table(std::uint64_t client_id, const std::string& table) {
  std::lock_guard lock(mutex_);
  if (auto* s = players_.find(client_id)) s->tables.erase(table);
}

void game_service::notify(const std::string& name, const json& message) {
  if (name_problem_of(name)) return;
  std::string by;
  if (const auto data = message.find("data"); data != message.end() && data->is_object())
    by = data->value("by", "");
  std::vector<std::shared_ptr<client>> to;
  std::shared_ptr<ignore_list> ignores;
  {
    std::lock_guard lock(mutex_);
    const std::string key = name_key(name);
    to = players_.connections_of(key);
    ignores = players_.ignores_of(key);
  }
  if (to.empty()) {
    // Cluster (issue 30): a tournament pairing's notice finds its player on any node.
    if (bus_ && service_helpers::relayed_to_other_nodes(message))
      bus_->deliver({name_key(name)}, message);
    return;
  }
  // An invitation from a name `name` ignores is not delivered; the sender is told
  // nothing different, so that ignoring someone is not revealed to them.
  if (ignores && !by.empty() && !name_problem_of(by) && ignores->ignores(name_key(by))) return;
  const auto frame = frame_of(message);
  for (auto& c : to) c->send(frame);
}

std::optional<json> game_service::refusal_if_banned(const std::string& key,
                                                    const std::string& address,
                                                    const std::optional<json>& re) const {
  const std::int64_t now = clock_ms();
  auto b = bans_.of_name(key, now);
  if (!b) b = bans_.of_address(address, now);
  if (!b) return std::nullopt;
  const char* whose = b->address.empty() ? "name" : "address";
  if (b->until_ms == 0) {
    json e = protocol::error_message(
        protocol::said_error("banned", "service.banned_forever", {{"whose", whose}}), re);
    e["seconds"] = nullptr;
    return e;
  }
  json args = time_args(b->until_ms - now);
  args["whose"] = whose;
  json e = protocol::error_message(protocol::said_error("banned", "service.banned_for", args), re);
  e["seconds"] = (b->until_ms - now + 999) / 1000;
  return e;
}

void game_service::on_moderation_command(const std::shared_ptr<client>& c, const std::string& name,
                                         const protocol::command& cmd,
                                         const std::optional<json>& re) {
  using k = protocol::command_kind;
  if (cmd.kind == k::ignore || cmd.kind == k::unignore) {
    on_ignore(c, cmd, re);
    return;
  }
  bool admin = false;
  {
    std::lock_guard lock(mutex_);
    const auto* s = players_.find(c->id());
    admin = s != nullptr && s->registered && is_admin(s->key);
  }
  if (!admin) {
    send_error(c, protocol::said_error("not_admin", "service.not_admin"), re);
    return;
  }
  switch (cmd.kind) {
    case k::ban:
      on_ban(c, name, cmd, re);
      return;
    case k::unban:
      on_unban(c, name, cmd, re);
      return;
    case k::broadcast:
      on_broadcast(c, name, cmd, re);
      return;
    case k::close_table:
      on_close_table(c, name, cmd, re);
      return;
    default:
      send_error(c, protocol::said_error("bad_command", "service.not_moderation"), re);
      return;
  }
}

void game_service::on_ignore(const std::shared_ptr<client>& c, const protocol::command& cmd,
                             const std::optional<json>& re) {
  const bool on = cmd.kind == protocol::command_kind::ignore;
  std::shared_ptr<ignore_list> list;
  std::string me_key;
  bool registered = false;
  {
    std::lock_guard lock(mutex_);
    const auto* s = players_.find(c->id());
    if (s == nullptr || !s->ignores) return;
    list = s->ignores;
    me_key = s->key;
    registered = s->registered;
  }
  const auto answer = [&](std::string key, json args) {
    const auto names = list->names();
    c->send(frame_of(
        said_info_of("ignore", std::move(key), std::move(args), json{{"ignored", names}}, re)));
  };
  if (on && cmd.text.empty()) {
    const auto names = list->names();
    std::string shown;  // names are never translated: one list in every language
    for (std::size_t i = 0; i < names.size(); ++i) shown += (i ? ", " : "") + names[i];
    if (names.empty())
      answer("service.ignore_none", json::object());
    else
      answer("service.ignore_list", {{"names", shown}});
    return;
  }
  if (const auto why = name_error(cmd.text, config_.max_name_bytes, "bad_name", name_use::player)) {
    send_error(c, *why, re);
    return;
  }
  const std::string key = name_key(cmd.text);
  if (key == me_key) {
    send_error(c, protocol::said_error("bad_command", "service.ignore_self"), re);
    return;
  }
  if (on) {
    switch (list->add(key, cmd.text)) {
      case ignore_list::added::full:
        send_error(c,
                   protocol::said_error("too_many_ignored", "service.ignore_full",
                                        {{"max", std::to_string(list->capacity())}}),
                   re);
        return;
      case ignore_list::added::already:
        answer("service.ignore_already", {{"name", cmd.text}});
        return;
      case ignore_list::added::yes:
        break;
    }
  } else if (!list->remove(key)) {
    send_error(c, protocol::said_error("not_ignored", "service.not_ignored", {{"name", cmd.text}}),
               re);
    return;
  }
  // An account's list is kept in the database (across sessions); a guest's lives with
  // the name. The answer does not wait for the write: the list in memory is in force.
  if (registered)
    writer_->run([me_key, key, shown = cmd.text, on](store& db) {
      try {
        db.set_ignored(me_key, key, shown, on);
      } catch (const std::exception& e) {
        spdlog::error("an ignore list could not be saved: {}", e.what());
      }
    });
  if (on)
    answer("service.ignore_on", {{"name", cmd.text}});
  else
    answer("service.ignore_off", {{"name", cmd.text}});
}

std::vector<ban> game_service::bans_of(const std::string& key, const std::string& name,
                                       const std::string& by, std::int64_t until,
                                       std::string& addresses) {
  std::vector<ban> bans{ban{key, name, "", by, until, ""}};
  std::lock_guard lock(mutex_);
  // The addresses the name uses or used last, except those an administrator uses now
  // (so that an administrator never bans their own address, e.g. a shared one).
  std::set<std::string> exempt;
  for (const auto& admin : admin_keys_)
    for (auto& a : players_.addresses_of(admin)) exempt.insert(std::move(a));
  for (auto& a : players_.addresses_of(key)) {
    if (exempt.count(a) != 0) continue;
    addresses += (addresses.empty() ? "" : " ") + a;
    bans.push_back(ban{key, name, a, by, until, ""});
  }
  return bans;
}

void game_service::on_ban(const std::shared_ptr<client>& c, const std::string& by,
                          const protocol::command& cmd, const std::optional<json>& re) {
  if (const auto why = name_error(cmd.text, config_.max_name_bytes, "bad_name", name_use::player)) {
    send_error(c, *why, re);
    return;
  }
  const std::string key = name_key(cmd.text);
  if (is_admin(key)) {
    send_error(c, protocol::said_error("bad_command", "service.ban_admin"), re);
    return;
  }
  const std::int64_t until =
      cmd.ban_hours > 0
          ? clock_ms() + static_cast<std::int64_t>(std::llround(cmd.ban_hours * 3.6e6))
          : 0;
  std::string addresses;
  auto bans = bans_of(key, cmd.text, by, until, addresses);
  const std::string length =
      cmd.ban_hours > 0 ? time_text(until - clock_ms()) : std::string("until unbanned");
  const json length_args = cmd.ban_hours > 0 ? time_args(until - clock_ms())
                                             : json{{"unit", "forever"}, {"n", 0}, {"m", 0}};
  moderation_action a{"ban", by, cmd.text, "",
                      (cmd.ban_hours > 0 ? json(cmd.ban_hours).dump() + " h" : length) +
                          (addresses.empty() ? "" : "; addresses " + addresses)};
  writer_->run([self = shared_from_this(), c, re, bans = std::move(bans), a, length_args,
                key](store& db) {
    bool full = false;
    {
      std::lock_guard lock(self->mutex_);
      full = self->bans_.set(bans, self->clock_ms()) == ban_list::outcome::full;
    }
    if (full) {
      self->send_error(c, protocol::said_error("too_many_bans", "service.bans_full"), re);
      return;
    }
    try {
      db.save_bans(bans, a);
    } catch (const std::exception& e) {
      spdlog::error("a ban could not be saved: {}", e.what());
      {
        std::lock_guard lock(self->mutex_);
        self->bans_.lift(key);
      }
      self->send_error(c, protocol::said_error("storage_error", "service.ban_not_saved"), re);
      return;
    }
    log_moderation(a);
    std::vector<std::shared_ptr<client>> gone;
    {
      std::lock_guard lock(self->mutex_);
      gone = self->players_.connections_of(key);
      // The name's resume token is revoked: it resumes nothing any more (a seat the
      // name holds waits out its clock), and a hello that shows it is refused as the
      // banned name's while the ban lasts.
      if (const auto hash = self->players_.token_hash_of(a.target))
        self->bans_.revoke_token(key, *hash);
      self->players_.drop_token(key);
    }
    for (auto& s : gone) s->close_for_policy("banned");
    json data{{"name", a.target}, {"sessions_closed", gone.size()}, {"addresses", bans.size() - 1}};
    json args = length_args;
    args["name"] = a.target;
    args["count"] = gone.size();
    auto answer = frame_of(
        said_info_of("ban", "service.banned_answer", std::move(args), std::move(data), re));
    // The ban withdraws the name from every open tournament (S6) before it is answered.
    boost::asio::post(self->io_, [self, c, t = a.target, answer = std::move(answer)] {
      self->withdraw_banned(t);
      c->send(answer);
    });
  });
}

void game_service::on_unban(const std::shared_ptr<client>& c, const std::string& by,
                            const protocol::command& cmd, const std::optional<json>& re) {
  if (const auto why = name_error(cmd.text, config_.max_name_bytes, "bad_name", name_use::player)) {
    send_error(c, *why, re);
    return;
  }
  const std::string key = name_key(cmd.text);
  moderation_action a{"unban", by, cmd.text, "", ""};
  writer_->run([self = shared_from_this(), c, re, a, key](store& db) {
    std::size_t lifted = 0;
    {
      std::lock_guard lock(self->mutex_);
      lifted = self->bans_.lift(key);
    }
    if (lifted == 0) {
      self->send_error(
          c, protocol::said_error("not_banned", "service.not_banned", {{"name", a.target}}), re);
      return;
    }
    try {
      db.lift_bans(key, a);
    } catch (const std::exception& e) {
      spdlog::error("a ban could not be lifted in the database: {}", e.what());
      self->send_error(c, protocol::said_error("storage_error", "service.unban_not_saved"), re);
      return;
    }
    log_moderation(a);
    c->send(frame_of(said_info_of("unban", "service.unbanned", {{"name", a.target}},
                                  json{{"name", a.target}}, re)));
  });
}

void game_service::on_broadcast(const std::shared_ptr<client>& c, const std::string& by,
                                const protocol::command& cmd, const std::optional<json>& re) {
  if (cmd.text.empty()) {
    send_error(c, protocol::said_error("bad_command", "service.broadcast_empty"), re);
    return;
  }
  if (cmd.text.size() > config_.max_chat_bytes) {
    send_error(c,
               protocol::said_error("too_long", "service.broadcast_too_long",
                                    {{"max", std::to_string(config_.max_chat_bytes)}}),
               re);
    return;
  }
  // In a cluster every node's sessions get it too (gammond_chat, at most 8000 bytes).
  if (bus_ && !bus_->say(json{{"broadcast", true}, {"from", by}, {"text", cmd.text}})) {
    send_error(c, protocol::said_error("too_long", "service.broadcast_cluster"), re);
    return;
  }
  std::vector<std::shared_ptr<client>> all;
  {
    std::lock_guard lock(mutex_);
    all = players_.everyone();
  }
  const json message{{"type", "broadcast"}, {"from", by}, {"text", cmd.text}};
  const auto frame = frame_of(message);
  for (auto& other : all)
    if (other != c) other->send(frame);
  json mine = message;
  if (re) mine["re"] = *re;
  c->send(frame_of(mine));
  moderation_action a{"broadcast", by, "", "", cmd.text};
  log_moderation(a);
  writer_->run([a](store& db) {
    try {
      db.record_moderation(a);
    } catch (const std::exception& e) {
      spdlog::error("a broadcast could not be logged in the database: {}", e.what());
    }
  });
}

void game_service::on_close_table(const std::shared_ptr<client>& c, const std::string& by,
                                  const protocol::command& cmd, const std::optional<json>& re) {
  std::shared_ptr<table_actor> actor;
  {
    std::lock_guard lock(mutex_);
    if (!name_problem_of(cmd.text))
      if (const auto it = tables_.find(cmd.text); it != tables_.end()) {
        actor = it->second;
        ++actor->pending;
      }
  }
  if (!actor) {
    send_error(c,
               protocol::said_error("no_such_table", "service.no_such_table",
                                    {{"name", cmd.text.substr(0, 24)}}),
               re);
    return;
  }
  actor->close(c, by, re);
}

}  // namespace bg::server
