/// @file moderation.cpp
/// The game service's part of moderation (issue 13): /ignore and /unignore, the
/// administrators' /ban, /unban, /broadcast and /close, and the bans a hello meets.
/// A table's own moderation (owner, /kick, /option private, /invite) is the table's.

#include <spdlog/spdlog.h>

#include <cmath>

#include "bg/server/players/names.hpp"
#include "bg/server/service/game_service.hpp"
#include "bg/server/table/frames.hpp"
#include "bg/server/table/table_actor.hpp"
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

/// The answer of a moderation command: `info` with `topic`, a sentence and data.
json info_of(const std::string& topic, const std::string& text, json data,
             const std::optional<json>& re) {
  json m{{"type", "info"}, {"topic", topic}, {"text", text}, {"data", std::move(data)}};
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
  std::string text = b->address.empty() ? "this name is banned from the server"
                                        : "your address is banned from the server";
  json e = protocol::error_message("banned", "", re);
  if (b->until_ms == 0) {
    text += " until an administrator lifts the ban";
    e["seconds"] = nullptr;
  } else {
    text += " for " + time_text(b->until_ms - now) + " more";
    e["seconds"] = (b->until_ms - now + 999) / 1000;
  }
  e["message"] = text;
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
    send_error(c, "not_admin",
               "only the server's administrators can do that (logged in with their password)", re);
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
      send_error(c, "bad_command", "that is not a moderation command", re);
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
  const auto answer = [&](const std::string& text) {
    const auto names = list->names();
    c->send(frame_of(info_of("ignore", text, json{{"ignored", names}}, re)));
  };
  if (on && cmd.text.empty()) {
    const auto names = list->names();
    std::string text = names.empty() ? "you ignore nobody" : "you ignore ";
    for (std::size_t i = 0; i < names.size(); ++i) text += (i ? ", " : "") + names[i];
    answer(text);
    return;
  }
  if (const auto why = name_problem_of(cmd.text)) {
    send_error(c, "bad_name", "that is not a player's name: " + *why, re);
    return;
  }
  const std::string key = name_key(cmd.text);
  if (key == me_key) {
    send_error(c, "bad_command", "you cannot ignore yourself", re);
    return;
  }
  if (on) {
    switch (list->add(key, cmd.text)) {
      case ignore_list::added::full:
        send_error(c, "too_many_ignored",
                   "you ignore as many names as one may (" + std::to_string(list->capacity()) +
                       "): /unignore one first",
                   re);
        return;
      case ignore_list::added::already:
        answer("you ignore " + cmd.text + " already");
        return;
      case ignore_list::added::yes:
        break;
    }
  } else if (!list->remove(key)) {
    send_error(c, "not_ignored", "you do not ignore " + cmd.text, re);
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
  answer(on ? "you ignore " + cmd.text + ": their chat is not shown to you (/unignore " + cmd.text +
                  " to hear them again)"
            : "you hear " + cmd.text + " again");
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
  if (const auto why = name_problem_of(cmd.text)) {
    send_error(c, "bad_name", "that is not a player's name: " + *why, re);
    return;
  }
  const std::string key = name_key(cmd.text);
  if (is_admin(key)) {
    send_error(c, "bad_command", "an administrator cannot be banned", re);
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
  moderation_action a{"ban", by, cmd.text, "",
                      (cmd.ban_hours > 0 ? json(cmd.ban_hours).dump() + " h" : length) +
                          (addresses.empty() ? "" : "; addresses " + addresses)};
  writer_->run([self = shared_from_this(), c, re, bans = std::move(bans), a, length,
                key](store& db) {
    std::string error;
    {
      std::lock_guard lock(self->mutex_);
      if (self->bans_.set(bans, self->clock_ms()) == ban_list::outcome::full)
        error = "the server keeps as many bans as it may (--max-bans): /unban someone first";
    }
    if (!error.empty()) {
      self->send_error(c, "too_many_bans", error, re);
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
      self->send_error(c, "storage_error",
                       "the server could not save the ban, so it is not in force: try again", re);
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
    auto answer = frame_of(info_of("ban",
                                   a.target + " is banned (" + length + "); " +
                                       std::to_string(gone.size()) + " connection(s) closed",
                                   std::move(data), re));
    // The ban withdraws the name from every open tournament (S6) before it is answered.
    boost::asio::post(self->io_, [self, c, t = a.target, answer = std::move(answer)] {
      self->withdraw_banned(t);
      c->send(answer);
    });
  });
}

void game_service::on_unban(const std::shared_ptr<client>& c, const std::string& by,
                            const protocol::command& cmd, const std::optional<json>& re) {
  if (const auto why = name_problem_of(cmd.text)) {
    send_error(c, "bad_name", "that is not a player's name: " + *why, re);
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
      self->send_error(c, "not_banned", a.target + " is not banned", re);
      return;
    }
    try {
      db.lift_bans(key, a);
    } catch (const std::exception& e) {
      spdlog::error("a ban could not be lifted in the database: {}", e.what());
      self->send_error(c, "storage_error",
                       "the ban is lifted until the server restarts, but could not be saved", re);
      return;
    }
    log_moderation(a);
    c->send(frame_of(
        info_of("unban", a.target + " is no longer banned", json{{"name", a.target}}, re)));
  });
}

void game_service::on_broadcast(const std::shared_ptr<client>& c, const std::string& by,
                                const protocol::command& cmd, const std::optional<json>& re) {
  if (cmd.text.empty()) {
    send_error(c, "bad_command", "/broadcast needs the words to send: /broadcast TEXT", re);
    return;
  }
  if (cmd.text.size() > config_.max_chat_bytes) {
    send_error(c, "too_long",
               "a broadcast is at most " + std::to_string(config_.max_chat_bytes) + " bytes", re);
    return;
  }
  // In a cluster every node's sessions get it too (gammond_chat, at most 8000 bytes).
  if (bus_ && !bus_->say(json{{"broadcast", true}, {"from", by}, {"text", cmd.text}})) {
    send_error(c, "too_long", "the broadcast could not reach the other nodes: a shorter one", re);
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
    send_error(c, "no_such_table", "there is no table called " + cmd.text.substr(0, 24), re);
    return;
  }
  actor->close(c, by, re);
}

}  // namespace bg::server
