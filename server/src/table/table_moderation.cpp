/// @file table_moderation.cpp
/// Moderation at the table (issue 13): the owner and its passing on, chat and its
/// bounds, /kick, /invite and /uninvite, /option private, and an administrator's /close.

#include "bg/server/players/names.hpp"
#include "bg/server/table/table.hpp"
#include "table_internal.hpp"

namespace bg::server {

using engine::side;
using nlohmann::json;
using table_detail::duration_text;

void table::forget_presence(const std::string& who) {
  arrived_.erase(who);
  last_chat_.erase(who);
}

bool table::at_table(const std::string& who) const {
  return spectators_.count(who) != 0 || seat_of(who).has_value();
}

std::optional<table_outcome> table::unless_owner(const std::string& who) const {
  if (!owner_.empty() && owner_ == who) return std::nullopt;
  return refuse("not_owner", owner_.empty()
                                 ? "only the table's owner can do that"
                                 : "only the table's owner (" + owner_ + ") can do that");
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
  event(o, {{"event", "owner"},
            {"name", next},
            {"text", before.empty() ? next + " owns the table"
                                    : next + " owns the table now (" + before + " left it)"}});
}

table_outcome table::chat(const std::string& who, const std::string& typed) {
  if (typed.size() > hooks_.max_chat_bytes)
    return refuse("too_long",
                  "a chat line is at most " + std::to_string(hooks_.max_chat_bytes) + " bytes");
  // Bidirectional overrides and zero-width characters are taken out (they could make a
  // line read as something else); a line with nothing else is refused.
  const std::string text = strip_invisible(typed);
  if (blank(text))
    return refuse("empty_line",
                  "that chat line holds only invisible or direction characters: nothing to say");
  const std::int64_t t = now();
  if (hooks_.chat_interval_ms > 0) {
    const auto last = last_chat_.find(who);
    if (last != last_chat_.end() && t - last->second < hooks_.chat_interval_ms)
      return refuse("chat_throttled", "one line every " + duration_text(hooks_.chat_interval_ms) +
                                          " at a table: wait a moment");
  }
  if (t - chat_window_start_ >= 60'000) {
    chat_window_start_ = t;
    chat_in_window_ = 0;
  }
  if (chat_in_window_ >= hooks_.chat_per_minute)
    return refuse("chat_throttled", "this table's chat is busy: wait a moment and try again");
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
  if (const auto why = name_problem(target, hooks_.max_name_bytes))
    return refuse("bad_name", "that is not a player's name: " + *why);
  const std::string key = name_key(target);
  if (key == name_key(who))
    return refuse("bad_command", "you cannot kick yourself: /leave instead");
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
  if (name.empty()) return refuse("not_here", "nobody called " + target + " is at this table");
  const bool bot = seat && !seats_[static_cast<std::size_t>(engine::index_of(*seat))]->bot.empty();
  if (seat && in_match())
    return refuse("in_match", name +
                                  " is playing a match: until it ends only spectators can be "
                                  "sent away (an administrator can /close the table)");
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
  if (bot) {
    e["text"] = who + " sends " + name + " (the computer) away from the table";
  } else {
    // The bar: one more than max_kicked forgets the bar that ends first.
    kicked_[key] = kick_bar{name, now() + hooks_.kick_bar_ms};
    while (kicked_.size() > hooks_.max_kicked) {
      auto first = kicked_.begin();
      for (auto it = kicked_.begin(); it != kicked_.end(); ++it)
        if (it->second.until_ms < first->second.until_ms) first = it;
      kicked_.erase(first);
    }
    e["seconds"] = hooks_.kick_bar_ms / 1000;
    e["text"] = who + " sends " + name + " away from the table; " + name + " may come back in " +
                duration_text(hooks_.kick_bar_ms);
    o.removed.push_back(name);
  }
  event(o, std::move(e));
  o.moderation.push_back(moderation_action{"kick", who, name, name_,
                                           std::to_string(hooks_.kick_bar_ms / 1000) + " s"});
  return o;
}

table_outcome table::invite(const std::string& who, const std::string& target, bool on) {
  if (auto refused = unless_owner(who)) return std::move(*refused);
  if (const auto why = name_problem(target, hooks_.max_name_bytes))
    return refuse("bad_name", "that is not a player's name: " + *why);
  const std::string key = name_key(target);
  table_outcome o;
  if (!on) {
    const auto it = invited_.find(key);
    if (it == invited_.end())
      return refuse("not_invited", target + " is not invited to this table");
    const std::string name = it->second;
    invited_.erase(it);
    event(o, {{"event", "uninvited"},
              {"name", name},
              {"by", who},
              {"text", who + " takes back the invitation of " + name +
                           (at_table(name) ? " (who stays while here)" : "")}});
    o.moderation.push_back(moderation_action{"uninvite", who, name, name_, ""});
    return o;
  }
  if (key == name_key(who))
    return refuse("bad_command", "you own this table: no invitation needed");
  if (invited_.count(key) == 0 && invited_.size() >= hooks_.max_invited)
    return refuse("too_many_invited", "this table has as many invitations as it keeps (" +
                                          std::to_string(hooks_.max_invited) +
                                          "): /uninvite someone first");
  invited_[key] = target;
  kicked_.erase(key);  // the owner asks them back
  event(o, {{"event", "invited"},
            {"name", target},
            {"by", who},
            {"text", who + " invites " + target + " to the table"}});
  o.notices.emplace_back(target, json{{"type", "info"},
                                      {"topic", "invitation"},
                                      {"table", name_},
                                      {"text", who + " invites you to table " + name_},
                                      {"data", {{"table", name_}, {"by", who}}}});
  o.moderation.push_back(moderation_action{"invite", who, target, name_, ""});
  return o;
}

table_outcome table::option_private(const std::string& who, bool on) {
  if (auto refused = unless_owner(who)) return std::move(*refused);
  private_ = on;
  table_outcome o;
  event(o, {{"event", "option"},
            {"name", who},
            {"option", "private"},
            {"value", on},
            {"text", on ? who + " makes the table private: it is not listed, and only the names "
                                "invited may enter"
                        : who + " makes the table public: it is listed and anyone may enter"}});
  o.moderation.push_back(moderation_action{"private", who, "", name_, on ? "on" : "off"});
  return o;
}

table_outcome table::close_impl(const std::string& by) {
  table_outcome o;
  std::string text = by + " (an administrator) closes the table";
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
      text += ": the match ends unfinished (match " + std::to_string(id) + ")";
    }
    if (match_dice_) e["dice_seed"] = record_->dice.seed;
  }
  e["text"] = text;
  event(o, std::move(e));
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
