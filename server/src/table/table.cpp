/// @file table.cpp
/// The table's core: construction, the entry points (every change bumps the sequence
/// number once), the dispatch of a command to its family's file, and the helpers every
/// family uses (refusals, events, seats by name). The families: table_seats.cpp,
/// table_moderation.cpp, table_play.cpp, table_clock.cpp, table_views.cpp and
/// table_snapshot.cpp (server/src/table/README.md).

#include "bg/server/table/table.hpp"

#include "bg/i18n/catalogue.hpp"

#include <algorithm>
#include <stdexcept>

#include "bg/protocol/codec.hpp"
#include "table_internal.hpp"

namespace bg::server {

using engine::side;
using nlohmann::json;

// ------------------------------------------------------------------------------------
// The texts the families share (table_internal.hpp)

namespace table_detail {

json clock_option_json(const protocol::clock_option& c) {
  if (c.minutes == 0) return nullptr;
  return json{{"minutes", c.minutes}, {"delay", c.delay_seconds}};
}

json options_json(const engine::match_options& o, bool tutor, const protocol::clock_option& clock) {
  json j;
  j["variant"] = engine::to_string(o.game_variant);
  j["tutor"] = tutor;
  switch (o.kind) {
    case engine::match_kind::free_play:
      j["match"] = "off";
      break;
    case engine::match_kind::basis:
      j["match"] = "basis";
      break;
    case engine::match_kind::points:
      j["match"] = o.length;
      break;
  }
  j["match_length"] = o.length;
  j["clock"] = clock_option_json(clock);
  return j;
}

void add_options_args(json& args, const engine::match_options& o, bool tutor,
                      const protocol::clock_option& clock) {
  switch (o.kind) {
    case engine::match_kind::free_play:
      args["kind"] = "free";
      break;
    case engine::match_kind::basis:
      args["kind"] = "basis";
      break;
    case engine::match_kind::points:
      args["kind"] = "points";
      break;
  }
  args["length"] = o.length;
  args["variant"] = engine::to_string(o.game_variant);
  args["tutor"] = tutor ? "on" : "off";
  args["clock_min"] = clock.minutes;
  args["clock_delay"] = clock.delay_seconds;
}

void add_duration_args(json& args, const std::string& name, std::int64_t ms) {
  const std::int64_t seconds = std::max<std::int64_t>(0, ms) / 1000;
  args[name + "_min"] = seconds / 60;
  args[name + "_s"] = seconds % 60;
}

std::string what_is_lost(engine::match_kind kind) {
  return kind == engine::match_kind::points  ? "match"
         : kind == engine::match_kind::basis ? "session"
                                             : "game";
}

}  // namespace table_detail

table::table(std::string name, engine::dice_source& dice, table_hooks hooks)
    : name_(std::move(name)), dice_(&dice), hooks_(std::move(hooks)) {}

table::table(std::string name, table_hooks hooks)
    : name_(std::move(name)), dice_(nullptr), hooks_(std::move(hooks)) {
  if (!hooks_.match_seed)
    throw std::invalid_argument("a table without a dice source needs table_hooks::match_seed");
}

std::int64_t table::now() const {
  return hooks_.clock_ms ? hooks_.clock_ms() : 0;
}

// ------------------------------------------------------------------------------------
// Helpers

table_outcome table::refuse(std::string code, std::string message) const {
  table_outcome o;
  o.refused = engine::make_error(std::move(code), std::move(message));
  return o;
}

table_outcome table::refuse(engine::error e) const {
  table_outcome o;
  o.refused = std::move(e);
  return o;
}

table_outcome table::refuse(std::string code, std::string key, const json& args) const {
  table_outcome o;
  o.refused = protocol::said_error(std::move(code), std::move(key), args);
  return o;
}

void table::event(table_outcome& o, json e, std::string key, json args) {
  i18n::with_say(e, std::move(key), std::move(args));
  event(o, std::move(e));
}

void table::said_info(table_outcome& o, std::string topic, std::string key, json args, json data) {
  json j{{"type", "info"}, {"table", name_}, {"topic", std::move(topic)}};
  i18n::with_say(j, std::move(key), std::move(args));
  if (!data.is_null()) j["data"] = std::move(data);
  o.out.push_back(delivery{delivery::audience::actor, std::move(j)});
}

void table::event(table_outcome& o, json e) {
  e["type"] = "event";
  e["table"] = name_;
  o.out.push_back(delivery{delivery::audience::everyone, std::move(e)});
  o.changed = true;
}

void table::info(table_outcome& o, std::string topic, std::string text, json data) {
  json j{
      {"type", "info"}, {"table", name_}, {"topic", std::move(topic)}, {"text", std::move(text)}};
  if (!data.is_null()) j["data"] = std::move(data);
  o.out.push_back(delivery{delivery::audience::actor, std::move(j)});
}

std::string table::player_name(side s) const {
  const auto& seat_at = seats_[static_cast<std::size_t>(engine::index_of(s))];
  return seat_at ? seat_at->name : std::string(engine::to_string(s));
}

std::optional<side> table::seat_of(const std::string& who) const {
  for (side s : {side::red, side::black}) {
    const auto& st = seats_[static_cast<std::size_t>(engine::index_of(s))];
    if (st && st->name == who) return s;
  }
  return std::nullopt;
}

bool table::in_match() const noexcept {
  return match_ && match_->phase() != engine::match_phase::match_over;
}

bool table::wants_match_id() const noexcept {
  return in_match() && match_id_ == 0;
}

void table::give_match_id(std::int64_t id) noexcept {
  if (wants_match_id() && id > 0) match_id_ = id;
}

std::vector<std::string> table::held_seats() const {
  std::vector<std::string> out;
  if (!in_match()) return out;
  for (const auto& st : seats_)
    if (st && st->bot.empty()) out.push_back(st->name);
  return out;
}

std::optional<std::string> table::bot_level(side s) const {
  const auto& st = seats_[static_cast<std::size_t>(engine::index_of(s))];
  if (!st || st->bot.empty()) return std::nullopt;
  return st->bot;
}

bool table::bot_thinking() const {
  const auto s = waiting_on();
  return s && bot_level(*s).has_value();
}

bool table::person_seated() const noexcept {
  return std::any_of(seats_.begin(), seats_.end(),
                     [](const auto& st) { return st && st->bot.empty(); });
}

json table::bots_json() const {
  return {{"red", seats_[0] && !seats_[0]->bot.empty() ? json(seats_[0]->bot) : json(nullptr)},
          {"black", seats_[1] && !seats_[1]->bot.empty() ? json(seats_[1]->bot) : json(nullptr)}};
}

bool table::idle() const noexcept {
  return !in_match() && spectators_.empty() && !seats_[0] && !seats_[1];
}

std::vector<side> table::absent_seats() const {
  std::vector<side> out;
  if (!in_match()) return out;
  for (side s : {side::red, side::black}) {
    const auto& st = seats_[static_cast<std::size_t>(engine::index_of(s))];
    if (st && !st->present) out.push_back(s);
  }
  return out;
}

std::vector<std::string> table::present() const {
  std::vector<std::string> out(spectators_.begin(), spectators_.end());
  for (const auto& st : seats_)
    if (st && st->present) out.push_back(st->name);
  return out;
}

// ------------------------------------------------------------------------------------
// Commands: each family in its own file

table_outcome table::handle_impl(const std::string& who, const protocol::command& c) {
  using k = protocol::command_kind;
  const auto s = seat_of(who);
  switch (c.kind) {
    // Moderation (table_moderation.cpp).
    case k::chat:
      return chat(who, c.text);
    case k::kick:
      return kick(who, c.text);
    case k::invite:
    case k::uninvite:
      return invite(who, c.text, c.kind == k::invite);
    case k::option_private:
      return option_private(who, c.flag);
    // Questions that change nothing (table_views.cpp).
    case k::board:
    case k::who:
    case k::help:
    case k::option_show:
    case k::export_match:
    case k::analysis:
    case k::tables:
      return query(c);
    // Seats, options and the start (table_seats.cpp).
    case k::join:
      return join(who, s, c.seat);
    case k::bot:
      return seat_bot(s, c.text);
    case k::leave:
      return leave(who, s);
    case k::option_tutor:
      return option_tutor(who, s, c.flag);
    case k::option_clock:
      return option_clock(who, c.clock);
    case k::option_match:
    case k::option_variant:
      return option_match_or_variant(who, s, c);
    case k::start:
      return start(who, s);
    // The dice (table_play.cpp) and the clocks (table_clock.cpp).
    case k::seed:
      if (!s) return refuse("not_seated", "table.seed_not_seated", json::object());
      return seed(*s, c.text);
    case k::claim:
      if (!s) return refuse("not_seated", "table.claim_not_seated", json::object());
      return claim(*s);
    default:
      break;
  }
  // Game commands (table_play.cpp): seated players only, during a match.
  if (!s) return refuse("not_seated", "table.play_not_seated", json::object());
  if (!match_) return refuse("wrong_phase", "table.no_match_yet", json::object());
  auto out = game_command(*s, c);
  if (!out.refused) actor_ = *s;  // S2: the side that acted (a new delay if it acts again)
  return out;
}

// ------------------------------------------------------------------------------------
// Entry points: every change bumps the sequence number once.

namespace {

/// `then` after `first`: when `first` changed the table (a loss on time before the
/// command), a refusal of `then` becomes an `error` delivered to the actor alone.
table_outcome merge(table_outcome first, table_outcome then) {
  if (!first.changed) return then;
  if (then.refused) {
    first.out.push_back(
        delivery{delivery::audience::actor, protocol::error_message(*then.refused, std::nullopt)});
    return first;
  }
  first.append(std::move(then));
  return first;
}

}  // namespace

void table_outcome::append(table_outcome&& then) {
  for (auto& d : then.out) out.push_back(std::move(d));
  changed = changed || then.changed;
  if (then.record_reset) {
    record_log = std::move(then.record_log);
    record_reset = true;
  } else {
    for (auto& e : then.record_log) record_log.push_back(std::move(e));
  }
  if (then.finished_match) finished_match = std::move(then.finished_match);
  if (then.analysis_of) analysis_of = then.analysis_of;
  for (auto& r : then.removed) removed.push_back(std::move(r));
  for (auto& m : then.moderation) moderation.push_back(std::move(m));
  for (auto& n : then.notices) notices.push_back(std::move(n));
}

table_outcome table::bump(table_outcome o) {
  if (!o.refused) release_lonely_bots(o);
  if (o.changed) pass_ownership(o);
  if (o.changed) {
    ++seq_;
    update_clock();
    o.record_log = std::move(journal_);
    o.record_reset = journal_reset_;
    journal_.clear();
    journal_reset_ = false;
  }
  actor_.reset();
  return o;
}
table_outcome table::enter(const std::string& who) {
  return bump(enter_impl(who));
}
table_outcome table::exit(const std::string& who) {
  return bump(exit_impl(who));
}
table_outcome table::handle(const std::string& who, const protocol::command& c) {
  table_outcome late = settle_clock();  // S2: a bank that ran out before the command
  return bump(merge(std::move(late), handle_impl(who, c)));
}
table_outcome table::check_clock() {
  return bump(settle_clock());
}
table_outcome table::close(const std::string& by) {
  return bump(close_impl(by));
}
table_outcome table::forfeit(side s) {
  const std::string lost = match_ ? table_detail::what_is_lost(match_->options().kind) : "game";
  if (match_ && match_->phase() == engine::match_phase::game_over)
    return bump(forfeit_impl(s, "absent", "table.session_abandoned", {{"name", player_name(s)}}));
  return bump(forfeit_impl(s, "absent", "table.forfeit_absent",
                           {{"name", player_name(s)}, {"lost", lost}}));
}

}  // namespace bg::server
