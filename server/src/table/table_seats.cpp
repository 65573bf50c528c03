/// @file table_seats.cpp
/// Who is at the table and where: coming and going (enter, exit), the seats (/join,
/// /bot, /leave, computer players who would sit alone), the options (/option tutor,
/// clock, match, variant) and /start.

#include <string_view>

#include "bg/protocol/codec.hpp"
#include "bg/server/players/names.hpp"
#include "bg/server/table/table.hpp"
#include "table_internal.hpp"

namespace bg::server {

using engine::side;
using nlohmann::json;
using table_detail::add_duration_args;
using table_detail::add_options_args;
using table_detail::options_json;

// ------------------------------------------------------------------------------------
// Presence

table_outcome table::enter_impl(const std::string& who) {
  table_outcome o;
  if (const auto s = seat_of(who)) {
    auto& st = seats_[static_cast<std::size_t>(engine::index_of(*s))];
    if (!st->present) {
      st->present = true;
      arrived_[who] = ++arrivals_;
      event(o, {{"event", "returned"}, {"name", who}, {"side", engine::to_string(*s)}},
            "table.returned", {{"name", who}});
    }
    return o;
  }
  if (spectators_.count(who) != 0) return o;
  // Issue 13: a name the owner kicked stays away for a while; a private table admits
  // its owner and the names invited.
  const std::string key = name_key(who);
  if (const auto k = kicked_.find(key); k != kicked_.end()) {
    const std::int64_t left = k->second.until_ms - now();
    if (left > 0) {
      json args = json::object();
      add_duration_args(args, "left", left + 999);
      return refuse("kicked", "table.kicked_away", args);
    }
    kicked_.erase(k);
  }
  if (private_ && !owner_.empty() && name_key(owner_) != key && invited_.count(key) == 0)
    return refuse("private_table", "table.private_table", {{"table", name_}});
  if (spectators_.size() >= hooks_.max_spectators)
    return refuse("table_crowded", "table.table_crowded",
                  {{"count", static_cast<std::int64_t>(hooks_.max_spectators)}});
  spectators_.insert(who);
  arrived_[who] = ++arrivals_;
  event(o, {{"event", "entered"}, {"name", who}}, "table.entered", {{"name", who}});
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
      event(o, {{"event", "left"}, {"name", who}, {"side", engine::to_string(*s)}}, "table.left",
            {{"name", who}, {"side", engine::to_string(*s)}});
    } else if (st->present) {
      st->present = false;
      st->absent_since_ms = now();
      event(o, {{"event", "absent"}, {"name", who}, {"side", engine::to_string(*s)}},
            "table.absent", {{"name", who}});
    }
    return o;
  }
  if (spectators_.erase(who) > 0)
    event(o, {{"event", "exited"}, {"name", who}}, "table.exited", {{"name", who}});
  return o;
}

// ------------------------------------------------------------------------------------
// Seats

table_outcome table::join(const std::string& who, std::optional<side> s, std::optional<side> want) {
  if (s) return refuse("already_seated", "table.already_seated", {{"side", engine::to_string(*s)}});
  if (!want) {
    if (!seats_[0])
      want = side::red;
    else if (!seats_[1])
      want = side::black;
    else
      return refuse("table_full", "table.table_full", json::object());
  }
  auto& st = seats_[static_cast<std::size_t>(engine::index_of(*want))];
  if (st)
    return refuse("seat_taken", "table.seat_taken",
                  {{"side", engine::to_string(*want)}, {"name", st->name}});
  st = seat{who, true, 0, {}};
  spectators_.erase(who);
  table_outcome o;
  event(o, {{"event", "joined"}, {"name", who}, {"side", engine::to_string(*want)}}, "table.joined",
        {{"name", who}, {"side", engine::to_string(*want)}});
  return o;
}

table_outcome table::seat_bot(std::optional<side> s, const std::string& level) {
  // issue 14: a computer player takes the free seat, opposite the one who asks.
  if (!s) return refuse("not_seated", "table.bot_not_seated", json::object());
  if (in_match()) return refuse("already_started", "table.bot_after_start", json::object());
  const side free = engine::opponent_of(*s);
  auto& st = seats_[static_cast<std::size_t>(engine::index_of(free))];
  if (st)
    return refuse("table_full", "table.bot_seat_taken",
                  {{"side", engine::to_string(free)}, {"name", st->name}});
  if (!hooks_.bot) return refuse("no_bot", "table.no_bot", json::object());
  auto name = hooks_.bot(level, options_.game_variant);
  if (!name) return refuse(name.err());
  st = seat{*name, true, 0, level};
  table_outcome o;
  event(o,
        {{"event", "joined"}, {"name", *name}, {"side", engine::to_string(free)}, {"bot", level}},
        "table.bot_joined", {{"name", *name}, {"level", level}, {"side", engine::to_string(free)}});
  return o;
}

table_outcome table::leave(const std::string& who, std::optional<side> s) {
  if (!s) return refuse("not_seated", "table.not_sitting", json::object());
  if (in_match()) return refuse("in_match", "table.leave_in_match", json::object());
  seats_[static_cast<std::size_t>(engine::index_of(*s))].reset();
  spectators_.insert(who);
  table_outcome o;
  event(o, {{"event", "left"}, {"name", who}, {"side", engine::to_string(*s)}}, "table.left",
        {{"name", who}, {"side", engine::to_string(*s)}});
  return o;
}

void table::release_lonely_bots(table_outcome& o) {
  if (in_match() || person_seated()) return;
  for (side s : {side::red, side::black}) {
    auto& st = seats_[static_cast<std::size_t>(engine::index_of(s))];
    if (!st) continue;
    const std::string gone = st->name;
    st.reset();
    event(o, {{"event", "left"}, {"name", gone}, {"side", engine::to_string(s)}}, "table.bot_left",
          {{"name", gone}});
  }
}

// ------------------------------------------------------------------------------------
// Options

json table::options_args(const std::string& who) const {
  json args{{"name", who}};
  add_options_args(args, options_, tutor_, clock_option_);
  return args;
}

table_outcome table::option_tutor(const std::string& who, std::optional<side> s, bool on) {
  if (!s) return refuse("not_seated", "table.options_not_seated", json::object());
  tutor_ = on;
  table_outcome o;
  event(o, {{"event", "option"}, {"name", who}, {"option", "tutor"}, {"value", tutor_}},
        "table.tutor", {{"name", who}, {"tutor", tutor_ ? "on" : "off"}});
  return o;
}

table_outcome table::option_clock(const std::string& who, const protocol::clock_option& c) {
  if (!seat_of(who)) return refuse("not_seated", "table.options_not_seated", json::object());
  if (in_match()) return refuse("options_locked", "table.options_locked", json::object());
  clock_option_ = c;
  clock_.reset();  // the last match's clocks are no longer what the next match gets
  table_outcome o;
  event(o,
        {{"event", "option"},
         {"name", who},
         {"option", "clock"},
         {"value", c.minutes == 0 ? json("off") : table_detail::clock_option_json(c)}},
        "table.options_set", options_args(who));
  return o;
}

table_outcome table::option_match_or_variant(const std::string& who, std::optional<side> s,
                                             const protocol::command& c) {
  using k = protocol::command_kind;
  if (!s) return refuse("not_seated", "table.options_not_seated", json::object());
  if (in_match()) return refuse("options_locked", "table.options_locked", json::object());
  table_outcome o;
  if (c.kind == k::option_match) {
    options_.kind = c.match.kind;
    options_.length = c.match.length;
  } else {
    if (auto refused = swap_bots_for_variant(o, c.game_variant)) return std::move(*refused);
    options_.game_variant = c.game_variant;
  }
  event(o,
        {{"event", "option"},
         {"name", who},
         {"option", c.kind == k::option_match ? "match" : "variant"},
         {"value", options_json(options_, tutor_,
                                clock_option_)[c.kind == k::option_match ? "match" : "variant"]}},
        "table.options_set", options_args(who));
  return o;
}

std::optional<table_outcome> table::swap_bots_for_variant(table_outcome& o, engine::variant v) {
  // issue 14: a computer player seated for the other variant gives its seat to the
  // computer player of the same level for this one (gnubg-expert <-> nardy-expert);
  // refused, changing nothing, when there is none here.
  std::array<std::optional<std::string>, 2> swapped;
  for (std::size_t i = 0; i < seats_.size(); ++i) {
    const auto& st = seats_[i];
    if (!st || st->bot.empty() || !hooks_.bot) continue;
    auto fits = hooks_.bot(st->bot, v);
    if (!fits)
      return refuse(fits.err().code, "table.bot_cannot_play_variant",
                    {{"name", st->name}, {"reason", protocol::said_of(fits.err())}});
    if (*fits != st->name) swapped[i] = std::move(*fits);
  }
  for (std::size_t i = 0; i < seats_.size(); ++i) {
    if (!swapped[i]) continue;
    auto& st = seats_[i];
    const std::string gone = st->name;
    const std::string_view colour = engine::to_string(i == 0 ? side::red : side::black);
    st->name = *swapped[i];
    event(o, {{"event", "left"}, {"name", gone}, {"side", colour}}, "table.bot_swapped",
          {{"name", gone}, {"other", st->name}});
    event(o, {{"event", "joined"}, {"name", st->name}, {"side", colour}, {"bot", st->bot}},
          "table.bot_joined", {{"name", st->name}, {"level", st->bot}, {"side", colour}});
  }
  return std::nullopt;
}

// ------------------------------------------------------------------------------------
// The start

table_outcome table::start(const std::string& who, std::optional<side> s) {
  if (!s) return refuse("not_seated", "table.start_not_seated", json::object());
  if (in_match()) return refuse("already_started", "table.already_started", json::object());
  if (!seats_[0] || !seats_[1])
    return refuse("need_opponent", "table.need_opponent", json::object());
  const auto checked = engine::match::check(options_);
  if (!checked) return refuse(checked.err());
  match_.emplace(options_);
  // S2: the clocks of this match (an untimed one still tracks the idle limit, S3).
  clock_ = clock_option_.minutes > 0
               ? match_clock::timed(clock_option_.minutes * hooks_.clock_minute_ms,
                                    std::int64_t{clock_option_.delay_seconds} * 1000, now())
               : match_clock::untimed(now());
  // S4: the match's own seed, committed now and revealed at the end.
  match_dice_.reset();
  if (hooks_.match_seed) match_dice_.emplace(hooks_.match_seed(name_, matches_started_));
  ++matches_started_;
  record_ = match_record{};
  match_id_ = 0;  // the host gives this match its id before the next call
  record_->table = name_;
  record_->players = {seats_[0]->name, seats_[1]->name};
  record_->options = options_;
  record_->started_at = hooks_.now ? hooks_.now() : std::string{};
  if (match_dice_) record_->dice.commitment = match_dice_->commitment();
  reset_journal(record_);
  begin_game_record();
  json started{{"event", "started"},
               {"name", who},
               {"options", options_json(options_, tutor_, clock_option_)},
               {"dice_commitment", match_dice_ ? json(match_dice_->commitment()) : json()}};
  table_outcome o;
  event(o, std::move(started), "table.started", options_args(who));
  return o;
}

}  // namespace bg::server
