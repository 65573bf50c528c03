/// @file table.cpp
/// The table's core: construction, the entry points (every change bumps the sequence
/// number once), the dispatch of a command to its family's file, and the helpers every
/// family uses (refusals, events, seats by name). The families: table_seats.cpp,
/// table_moderation.cpp, table_play.cpp, table_clock.cpp, table_views.cpp and
/// table_snapshot.cpp (server/src/table/README.md).

#include "bg/server/table/table.hpp"

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

namespace {

/// The clock option as a sentence: "no clock" or "clock 5 min + 12 s delay" (S2).
std::string clock_option_text(const protocol::clock_option& c) {
  if (c.minutes == 0) return "no clock";
  return "clock " + std::to_string(c.minutes) + " min + " + std::to_string(c.delay_seconds) +
         " s delay";
}

}  // namespace

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

std::string options_text(const engine::match_options& o, bool tutor,
                         const protocol::clock_option& clock) {
  std::string match;
  switch (o.kind) {
    case engine::match_kind::free_play:
      match = "off (one game, no cube, scored by pip count)";
      break;
    case engine::match_kind::basis:
      match = "basis (cube, continue or stop after each game)";
      break;
    case engine::match_kind::points:
      match = std::to_string(o.length) + " points";
      break;
  }
  return "match " + match + ", variant " + std::string(engine::to_string(o.game_variant)) +
         ", tutor " + (tutor ? "on" : "off") + ", " + clock_option_text(clock);
}

std::string duration_text(std::int64_t ms) {
  const std::int64_t seconds = std::max<std::int64_t>(0, ms) / 1000;
  const std::int64_t minutes = seconds / 60;
  const std::int64_t rest = seconds % 60;
  if (minutes == 0) return std::to_string(rest) + " s";
  if (rest == 0) return std::to_string(minutes) + " min";
  return std::to_string(minutes) + " min " + std::to_string(rest) + " s";
}

std::string what_is_lost(engine::match_kind kind) {
  return kind == engine::match_kind::points  ? "match"
         : kind == engine::match_kind::basis ? "session"
                                             : "game";
}

}  // namespace table_detail

using table_detail::options_json;
using table_detail::options_text;

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
// Commands

table_outcome table::handle_impl(const std::string& who, const protocol::command& c) {
  using k = protocol::command_kind;
  const auto s = seat_of(who);
  table_outcome o;
  switch (c.kind) {
    case k::chat:
      return chat(who, c.text);
    case k::kick:
      return kick(who, c.text);
    case k::invite:
    case k::uninvite:
      return invite(who, c.text, c.kind == k::invite);
    case k::option_private:
      return option_private(who, c.flag);
    case k::board: {
      o.out.push_back(delivery{delivery::audience::actor, state()});
      return o;
    }
    case k::who: {
      json data{
          {"red", seats_[0] ? json(seats_[0]->name) : json(nullptr)},
          {"black", seats_[1] ? json(seats_[1]->name) : json(nullptr)},
          {"bots", bots_json()},
          {"spectators", json(std::vector<std::string>(spectators_.begin(), spectators_.end()))}};
      const auto seated = [](const std::optional<seat>& st) {
        if (!st) return std::string("free");
        return st->bot.empty() ? st->name : st->name + " (computer)";
      };
      data["owner"] = owner_.empty() ? json(nullptr) : json(owner_);
      std::string text = "red: " + seated(seats_[0]) + ", black: " + seated(seats_[1]);
      text += ", watching: " + std::to_string(spectators_.size());
      if (!owner_.empty()) text += ", owner: " + owner_;
      info(o, "who", text, data);
      return o;
    }
    case k::help: {
      const auto text = protocol::help_text(c.text);
      if (!text)
        return refuse("unknown_command", "no help for \"" + c.text.substr(0, 20) + "\": try /help");
      info(o, "help", *text);
      return o;
    }
    case k::option_show: {
      info(o, "options", options_text(options_, tutor_, clock_option_),
           options_json(options_, tutor_, clock_option_));
      return o;
    }
    case k::export_match: {
      if (last_match_id_ == 0) return refuse("no_match", "no match has finished at this table yet");
      const std::string url = "/matches/" + std::to_string(last_match_id_) + ".mat";
      info(o, "export", "the last match as a .mat file: " + url,
           json{{"match_id", last_match_id_}, {"url", url}});
      return o;
    }
    case k::analysis: {
      // Issue 14: the analysis lives in storage; the host reads it and answers.
      std::int64_t id = last_match_id_;
      if (!c.text.empty()) id = std::stoll(c.text);  // the grammar allows 1..18 digits
      if (id == 0)
        return refuse("no_match",
                      "no match has finished at this table yet: give a match id, e.g. "
                      "/analysis 12");
      o.analysis_of = id;
      return o;
    }
    case k::tables:
      return refuse("wrong_place", "/tables is answered by the lobby");
    case k::join: {
      if (s)
        return refuse("already_seated", "you already sit on " + std::string(engine::to_string(*s)));
      std::optional<side> want = c.seat;
      if (!want) {
        if (!seats_[0])
          want = side::red;
        else if (!seats_[1])
          want = side::black;
        else
          return refuse("table_full", "both seats are taken: you can watch and chat");
      }
      auto& st = seats_[static_cast<std::size_t>(engine::index_of(*want))];
      if (st)
        return refuse("seat_taken",
                      std::string(engine::to_string(*want)) + " is taken by " + st->name);
      st = seat{who, true, 0, {}};
      spectators_.erase(who);
      event(o, {{"event", "joined"},
                {"name", who},
                {"side", engine::to_string(*want)},
                {"text", who + " sits down as " + std::string(engine::to_string(*want))}});
      return o;
    }
    case k::bot: {
      // issue 14: a computer player takes the free seat, opposite the one who asks.
      if (!s)
        return refuse("not_seated",
                      "sit down first (/join): /bot then seats the computer opposite you");
      if (in_match())
        return refuse("already_started", "a computer player can sit down only before /start");
      const side free = engine::opponent_of(*s);
      auto& st = seats_[static_cast<std::size_t>(engine::index_of(free))];
      if (st)
        return refuse("table_full", std::string(engine::to_string(free)) + " is taken by " +
                                        st->name + ": the computer needs a free seat");
      if (!hooks_.bot) return refuse("no_bot", "this server has no computer players");
      auto name = hooks_.bot(c.text, options_.game_variant);
      if (!name) return refuse(name.err().code, name.err().message);
      st = seat{*name, true, 0, c.text};
      event(o, {{"event", "joined"},
                {"name", *name},
                {"side", engine::to_string(free)},
                {"bot", c.text},
                {"text", *name + " (the computer, " + c.text + ") sits down as " +
                             std::string(engine::to_string(free))}});
      return o;
    }
    case k::leave: {
      if (!s) return refuse("not_seated", "you are not sitting at this table");
      if (in_match())
        return refuse("in_match", "you are playing a match: finish it or /resign first");
      seats_[static_cast<std::size_t>(engine::index_of(*s))].reset();
      spectators_.insert(who);
      event(o, {{"event", "left"},
                {"name", who},
                {"side", engine::to_string(*s)},
                {"text", who + " leaves the " + std::string(engine::to_string(*s)) + " seat"}});
      return o;
    }
    case k::option_tutor: {
      if (!s) return refuse("not_seated", "only the players can change the options: /join first");
      tutor_ = c.flag;
      event(o, {{"event", "option"},
                {"name", who},
                {"option", "tutor"},
                {"value", tutor_},
                {"text", who + " turns the tutor " + (tutor_ ? "on" : "off")}});
      return o;
    }
    case k::option_clock:
      return option_clock(who, c.clock);
    case k::seed:
      if (!s) return refuse("not_seated", "only the players add seeds to the dice: /join first");
      return seed(*s, c.text);
    case k::claim:
      if (!s) return refuse("not_seated", "only a player can claim a game: /join first");
      return claim(*s);
    case k::option_match:
    case k::option_variant: {
      if (!s) return refuse("not_seated", "only the players can change the options: /join first");
      if (in_match()) return refuse("options_locked", "options can change only before /start");
      if (c.kind == k::option_match) {
        options_.kind = c.match.kind;
        options_.length = c.match.length;
      } else {
        // issue 14: a computer player seated for the other variant gives its seat to the
        // computer player of the same level for this one (gnubg-expert <-> nardy-expert);
        // refused, changing nothing, when there is none here.
        std::array<std::optional<std::string>, 2> swapped;
        for (std::size_t i = 0; i < seats_.size(); ++i) {
          const auto& st = seats_[i];
          if (!st || st->bot.empty() || !hooks_.bot) continue;
          auto fits = hooks_.bot(st->bot, c.game_variant);
          if (!fits)
            return refuse(fits.err().code,
                          st->name + " cannot play that variant: " + fits.err().message);
          if (*fits != st->name) swapped[i] = std::move(*fits);
        }
        for (std::size_t i = 0; i < seats_.size(); ++i) {
          if (!swapped[i]) continue;
          auto& st = seats_[i];
          const std::string gone = st->name;
          const std::string_view colour = engine::to_string(i == 0 ? side::red : side::black);
          st->name = *swapped[i];
          event(o, {{"event", "left"},
                    {"name", gone},
                    {"side", colour},
                    {"text", gone + " gives its seat to " + st->name + " for that variant"}});
          event(o, {{"event", "joined"},
                    {"name", st->name},
                    {"side", colour},
                    {"bot", st->bot},
                    {"text", st->name + " (the computer, " + st->bot + ") sits down as " +
                                 std::string(colour)}});
        }
        options_.game_variant = c.game_variant;
      }
      event(o, {{"event", "option"},
                {"name", who},
                {"option", c.kind == k::option_match ? "match" : "variant"},
                {"value",
                 options_json(options_, tutor_,
                              clock_option_)[c.kind == k::option_match ? "match" : "variant"]},
                {"text", who + " sets " + options_text(options_, tutor_, clock_option_)}});
      return o;
    }
    case k::start: {
      if (!s) return refuse("not_seated", "only the players can start: /join first");
      if (in_match()) return refuse("already_started", "the match is already under way");
      if (!seats_[0] || !seats_[1])
        return refuse("need_opponent", "both seats must be taken before /start");
      const auto checked = engine::match::check(options_);
      if (!checked) return refuse(checked.err().code, checked.err().message);
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
                   {"dice_commitment", match_dice_ ? json(match_dice_->commitment()) : json()},
                   {"text", who + " starts: " + options_text(options_, tutor_, clock_option_) +
                                ". Roll for the opening with /roll"}};
      event(o, std::move(started));
      return o;
    }
    default:
      break;
  }
  // Game commands: seated players only, during a match.
  if (!s) return refuse("not_seated", "only the players can do that: /join to take a seat");
  if (!match_) return refuse("wrong_phase", "no match is being played: /start first");
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
        delivery{delivery::audience::actor,
                 protocol::error_message(then.refused->code, then.refused->message, std::nullopt)});
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
  return bump(
      forfeit_impl(s, "absent",
                   match_ && match_->phase() == engine::match_phase::game_over
                       ? player_name(s) + " did not come back: the session ends"
                       : player_name(s) + " did not come back in time and forfeits the " + lost));
}

}  // namespace bg::server
