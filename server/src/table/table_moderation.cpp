/// @file table_moderation.cpp
/// Moderation at the table (issue 13): the owner and its passing on, chat and its
/// bounds, /kick, /invite and /uninvite, /option private, and an administrator's /close.

#include "bg/i18n/catalogue.hpp"
#include "bg/server/players/names.hpp"
#include "bg/server/table/table.hpp"
#include "players/name_errors.hpp"
#include "table_internal.hpp"

namespace bg::server {

using engine::side;
using nlohmann::json;
using table_detail::add_duration_args;

void table::forget_presence(const std::string& who) {
  arrived_.erase(who);
  last_chat_.erase(who);
}

bool table::at_table(const std::string& who) const {
  return spectators_.count(who) != 0 || seat_of(who).has_value();
}

std::optional<table_outcome> table::unless_owner(const std::string& who) const {
  if (!owner_.empty() && owner_ == who) return std::nullopt;
  if (owner_.empty()) return refuse("not_owner", "table.not_owner", json::object());
  return refuse("not_owner", "table.not_owner_named", {{"owner", owner_}});
}

void table::pass_ownership(table_outcome& o) {
  if (!owner_.empty() && at_table(owner_)) return;
  // A person seated and here; else the person here the longest; else one seated away.
  std::string next;
  for (const auto& st : seats_)
    if (st && st->bot.empty() && st->present && next.empty()) next = st->name;
  if (next.empty()) {
    std::uint64_t first = 0;
    for (const auto& [name, number] : arrived_) {
      if (!at_table(name) || (first != 0 && number >= first)) continue;
      first = number;
      next = name;
    }
  }
  if (next.empty())
    for (const auto& st : seats_)
      if (st && st->bot.empty() && next.empty()) next = st->name;
  if (next == owner_) return;
  const std::string before = owner_;
  owner_ = next;
  if (next.empty()) return;
  if (before.empty())
    event(o, {{"event", "owner"}, {"name", next}}, "table.owner", {{"name", next}});
  else
    event(o, {{"event", "owner"}, {"name", next}}, "table.owner_changed",
          {{"name", next}, {"before", before}});
}

table_outcome table::chat(const std::string& who, const std::string& typed) {
  if (typed.size() > hooks_.max_chat_bytes)
    return refuse("too_long", "table.chat_too_long",
                  {{"count", static_cast<std::int64_t>(hooks_.max_chat_bytes)}});
  // Bidirectional overrides and zero-width characters are taken out (they could make a
  // line read as something else); a line with nothing else is refused.
  const std::string text = strip_invisible(typed);
  if (blank(text)) return refuse("empty_line", "table.chat_empty", json::object());
  const std::int64_t t = now();
  if (hooks_.chat_interval_ms > 0) {
    const auto last = last_chat_.find(who);
    if (last != last_chat_.end() && t - last->second < hooks_.chat_interval_ms) {
      json args = json::object();
      add_duration_args(args, "interval", hooks_.chat_interval_ms);
      return refuse("chat_throttled", "table.chat_interval", args);
    }
  }
  if (t - chat_window_start_ >= 60'000) {
    chat_window_start_ = t;
    chat_in_window_ = 0;
  }
  if (chat_in_window_ >= hooks_.chat_per_minute)
    return refuse("chat_throttled", "table.chat_busy", json::object());
  ++chat_in_window_;
  last_chat_[who] = t;
  table_outcome o;
  o.out.push_back(delivery{delivery::audience::everyone,
                           json{{"type", "chat"}, {"table", name_}, {"from", who}, {"text", text}},
                           who});
  return o;
}

table_outcome table::kick(const std::string& who, const std::string& target) {
  if (auto refused = unless_owner(who)) return std::move(*refused);
  if (auto why = name_error(target, hooks_.max_name_bytes, "bad_name", name_use::player))
    return refuse(std::move(*why));
  const std::string key = name_key(target);
  if (key == name_key(who)) return refuse("bad_command", "table.kick_self", json::object());
  // The name at the table as it is written there.
  std::string name;
  std::optional<side> seat;
  for (side s : {side::red, side::black}) {
    const auto& st = seats_[static_cast<std::size_t>(engine::index_of(s))];
    if (st && name_key(st->name) == key) {
      name = st->name;
      seat = s;
    }
  }
  for (const auto& spectator : spectators_)
    if (name.empty() && name_key(spectator) == key) name = spectator;
  if (name.empty()) return refuse("not_here", "table.not_here", {{"name", target}});
  const bool bot = seat && !seats_[static_cast<std::size_t>(engine::index_of(*seat))]->bot.empty();
  if (seat && in_match()) return refuse("in_match", "table.kick_in_match", {{"name", name}});
  table_outcome o;
  if (seat) {
    seats_[static_cast<std::size_t>(engine::index_of(*seat))].reset();
  } else {
    spectators_.erase(name);
  }
  forget_presence(name);
  invited_.erase(key);
  json e{{"event", "kicked"}, {"name", name}, {"by", who}};
  if (seat) e["side"] = engine::to_string(*seat);
  json args{{"by", who}, {"name", name}};
  std::string said = "table.kicked_bot";
  if (!bot) {
    // The bar: one more than max_kicked forgets the bar that ends first.
    kicked_[key] = kick_bar{name, now() + hooks_.kick_bar_ms};
    while (kicked_.size() > hooks_.max_kicked) {
      auto first = kicked_.begin();
      for (auto it = kicked_.begin(); it != kicked_.end(); ++it)
        if (it->second.until_ms < first->second.until_ms) first = it;
      kicked_.erase(first);
    }
    e["seconds"] = hooks_.kick_bar_ms / 1000;
    said = "table.kicked";
    add_duration_args(args, "bar", hooks_.kick_bar_ms);
    o.removed.push_back(name);
  }
  event(o, std::move(e), std::move(said), std::move(args));
  o.moderation.push_back(moderation_action{"kick", who, name, name_,
                                           std::to_string(hooks_.kick_bar_ms / 1000) + " s"});
  return o;
}

table_outcome table::invite(const std::string& who, const std::string& target, bool on) {
  if (auto refused = unless_owner(who)) return std::move(*refused);
  if (auto why = name_error(target, hooks_.max_name_bytes, "bad_name", name_use::player))
    return refuse(std::move(*why));
  const std::string key = name_key(target);
  table_outcome o;
  if (!on) {
    const auto it = invited_.find(key);
    if (it == invited_.end()) return refuse("not_invited", "table.not_invited", {{"name", target}});
    const std::string name = it->second;
    invited_.erase(it);
    event(o, {{"event", "uninvited"}, {"name", name}, {"by", who}}, "table.uninvited",
          {{"by", who}, {"name", name}, {"here", at_table(name) ? "yes" : "no"}});
    o.moderation.push_back(moderation_action{"uninvite", who, name, name_, ""});
    return o;
  }
  if (key == name_key(who)) return refuse("bad_command", "table.invite_self", json::object());
  if (invited_.count(key) == 0 && invited_.size() >= hooks_.max_invited)
    return refuse("too_many_invited", "table.too_many_invited",
                  {{"count", static_cast<std::int64_t>(hooks_.max_invited)}});
  invited_[key] = target;
  kicked_.erase(key);  // the owner asks them back
  event(o, {{"event", "invited"}, {"name", target}, {"by", who}}, "table.invited",
        {{"by", who}, {"name", target}});
  json notice{{"type", "info"}, {"topic", "invitation"}, {"table", name_}};
  i18n::with_say(notice, "table.invitation", {{"by", who}, {"table", name_}});
  notice["data"] = {{"table", name_}, {"by", who}};
  // The match it is for (issue 32: FIBS says "wants to play a 5 point match"): the
  // `match` option as /option writes it, N, "basis" or "off".
  switch (options_.kind) {
    case engine::match_kind::free_play:
      notice["data"]["match"] = "off";
      break;
    case engine::match_kind::basis:
      notice["data"]["match"] = "basis";
      break;
    case engine::match_kind::points:
      notice["data"]["match"] = options_.length;
      break;
  }
  notice["data"]["variant"] =
      options_.game_variant == engine::variant::long_nardy ? "long" : "standard";
  o.notices.emplace_back(target, std::move(notice));
  o.moderation.push_back(moderation_action{"invite", who, target, name_, ""});
  return o;
}

table_outcome table::option_private(const std::string& who, bool on) {
  if (auto refused = unless_owner(who)) return std::move(*refused);
  private_ = on;
  table_outcome o;
  event(o, {{"event", "option"}, {"name", who}, {"option", "private"}, {"value", on}},
        on ? "table.private_on" : "table.private_off", {{"name", who}});
  o.moderation.push_back(moderation_action{"private", who, "", name_, on ? "on" : "off"});
  return o;
}

table_outcome table::close_impl(const std::string& by) {
  table_outcome o;
  std::string key = "table.closed_by_admin";
  json args{{"by", by}};
  json e{{"event", "closed"}, {"by", by}};
  std::string detail;
  if (in_match() && record_) {
    // The match ends here, unfinished: archived as such, never rated; its seed revealed.
    record_->unfinished = true;
    record_->closed_by = by;
    const std::int64_t id = archive_match(o);
    if (id > 0) {
      e["match_id"] = id;
      e["url"] = "/matches/" + std::to_string(id) + ".mat";
      detail = "match " + std::to_string(id);
      key = "table.closed_unfinished";
      args["match_id"] = std::to_string(id);
    }
    if (match_dice_) e["dice_seed"] = record_->dice.seed;
  }
  event(o, std::move(e), std::move(key), std::move(args));
  for (const auto& who : present()) o.removed.push_back(who);
  seats_ = {};
  spectators_.clear();
  match_.reset();
  record_.reset();
  reset_journal(std::nullopt);
  clock_.reset();
  match_dice_.reset();
  owner_.clear();
  private_ = false;
  invited_.clear();
  kicked_.clear();
  arrived_.clear();
  last_chat_.clear();
  o.moderation.push_back(moderation_action{"close", by, "", name_, detail});
  return o;
}

}  // namespace bg::server
