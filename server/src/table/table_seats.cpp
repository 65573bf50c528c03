/// @file table_seats.cpp
/// Who is at the table and where: coming and going (enter, exit), the seats (computer
/// players who would sit alone) and the options (/option clock). /join, /bot, /leave,
/// the other options and /start are still in table::handle_impl (table.cpp).

#include "bg/server/players/names.hpp"
#include "bg/server/table/table.hpp"
#include "table_internal.hpp"

namespace bg::server {

using engine::side;
using nlohmann::json;
using table_detail::duration_text;
using table_detail::options_text;

// ------------------------------------------------------------------------------------
// Presence

table_outcome table::enter_impl(const std::string& who) {
  table_outcome o;
  if (const auto s = seat_of(who)) {
    auto& st = seats_[static_cast<std::size_t>(engine::index_of(*s))];
    if (!st->present) {
      st->present = true;
      arrived_[who] = ++arrivals_;
      event(o, {{"event", "returned"},
                {"name", who},
                {"side", engine::to_string(*s)},
                {"text", who + " is back"}});
    }
    return o;
  }
  if (spectators_.count(who) != 0) return o;
  // Issue 13: a name the owner kicked stays away for a while; a private table admits
  // its owner and the names invited.
  const std::string key = name_key(who);
  if (const auto k = kicked_.find(key); k != kicked_.end()) {
    const std::int64_t left = k->second.until_ms - now();
    if (left > 0)
      return refuse("kicked", "the owner of this table sent you away: you may come back in " +
                                  duration_text(left + 999));
    kicked_.erase(k);
  }
  if (private_ && !owner_.empty() && name_key(owner_) != key && invited_.count(key) == 0)
    return refuse("private_table",
                  "table " + name_ + " is private: only the names its owner invites may enter");
  if (spectators_.size() >= hooks_.max_spectators)
    return refuse("table_crowded", "this table has as many spectators as it admits (" +
                                       std::to_string(hooks_.max_spectators) +
                                       "): try again later");
  spectators_.insert(who);
  arrived_[who] = ++arrivals_;
  event(o, {{"event", "entered"}, {"name", who}, {"text", who + " comes to the table"}});
  return o;
}

table_outcome table::exit_impl(const std::string& who) {
  table_outcome o;
  forget_presence(who);
  if (const auto s = seat_of(who)) {
    auto& st = seats_[static_cast<std::size_t>(engine::index_of(*s))];
    if (!in_match()) {
      // Outside a match a seat is not held for an absent player.
      st.reset();
      event(o, {{"event", "left"},
                {"name", who},
                {"side", engine::to_string(*s)},
                {"text", who + " leaves the " + std::string(engine::to_string(*s)) + " seat"}});
    } else if (st->present) {
      st->present = false;
      st->absent_since_ms = now();
      event(o, {{"event", "absent"},
                {"name", who},
                {"side", engine::to_string(*s)},
                {"text", who + " is away; the seat is kept for them"}});
    }
    return o;
  }
  if (spectators_.erase(who) > 0)
    event(o, {{"event", "exited"}, {"name", who}, {"text", who + " leaves the table"}});
  return o;
}

// ------------------------------------------------------------------------------------
// Seats

void table::release_lonely_bots(table_outcome& o) {
  if (in_match() || person_seated()) return;
  for (side s : {side::red, side::black}) {
    auto& st = seats_[static_cast<std::size_t>(engine::index_of(s))];
    if (!st) continue;
    const std::string gone = st->name;
    st.reset();
    event(o, {{"event", "left"},
              {"name", gone},
              {"side", engine::to_string(s)},
              {"text", gone + " leaves the table with its opponent"}});
  }
}

// ------------------------------------------------------------------------------------
// Options

table_outcome table::option_clock(const std::string& who, const protocol::clock_option& c) {
  if (!seat_of(who))
    return refuse("not_seated", "only the players can change the options: /join first");
  if (in_match()) return refuse("options_locked", "options can change only before /start");
  clock_option_ = c;
  clock_.reset();  // the last match's clocks are no longer what the next match gets
  table_outcome o;
  event(o, {{"event", "option"},
            {"name", who},
            {"option", "clock"},
            {"value", c.minutes == 0 ? json("off") : table_detail::clock_option_json(c)},
            {"text", who + " sets " + options_text(options_, tutor_, clock_option_)}});
  return o;
}

}  // namespace bg::server
