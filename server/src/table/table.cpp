#include "bg/server/table/table.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "bg/engine/board.hpp"
#include "bg/engine/notation.hpp"
#include "bg/engine/position_id.hpp"
#include "bg/protocol/codec.hpp"
#include "bg/protocol/json_writer.hpp"
#include "bg/server/players/names.hpp"
#include "bg/server/records/record_json.hpp"

namespace bg::server {

using engine::side;
using nlohmann::json;
namespace pr = bg::protocol;

namespace {

json side_json(std::optional<side> s) {
  return s ? json(engine::to_string(*s)) : json(nullptr);
}

std::string roll_text(engine::roll r) {
  return std::to_string(r.high()) + "-" + std::to_string(r.low());
}

/// The clock option as `options.clock`: null (no clock) or {"minutes", "delay"} (S2).
json clock_option_json(const protocol::clock_option& c) {
  if (c.minutes == 0) return nullptr;
  return json{{"minutes", c.minutes}, {"delay", c.delay_seconds}};
}

/// options_json() with `private` (as `state` and the lobby's summary carry it), written
/// straight into `w` in nlohmann's key order.
void write_options(pr::json_writer& w, const engine::match_options& o, bool is_private, bool tutor,
                   const protocol::clock_option& clock) {
  w.begin_object().key("clock");
  if (clock.minutes == 0) {
    w.null();
  } else {
    w.begin_object().key("delay").value(clock.delay_seconds).key("minutes").value(clock.minutes);
    w.end_object();
  }
  w.key("match");
  switch (o.kind) {
    case engine::match_kind::free_play:
      w.value("off");
      break;
    case engine::match_kind::basis:
      w.value("basis");
      break;
    case engine::match_kind::points:
      w.value(o.length);
      break;
  }
  w.key("match_length").value(o.length);
  w.key("private").value(is_private);  // issue 13
  w.key("tutor").value(tutor);
  w.key("variant").value(engine::to_string(o.game_variant)).end_object();
}

/// A side as "red"/"black", or null.
void write_side(pr::json_writer& w, std::optional<side> s) {
  if (s) {
    w.value(engine::to_string(*s));
  } else {
    w.null();
  }
}

/// A game's result as to_json(game_result) writes it, in nlohmann's key order.
void write_result(pr::json_writer& w, const engine::game_result& r) {
  w.begin_object()
      .key("kind")
      .value(engine::to_string(r.kind))
      .key("points")
      .value(r.points)
      .key("reason")
      .value(engine::to_string(r.reason))
      .key("winner")
      .value(engine::to_string(r.winner))
      .end_object();
}

std::string clock_option_text(const protocol::clock_option& c) {
  if (c.minutes == 0) return "no clock";
  return "clock " + std::to_string(c.minutes) + " min + " + std::to_string(c.delay_seconds) +
         " s delay";
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

/// "4 min 20 s", "45 s", "10 min" for a duration in ms (rounded down to the second).
std::string duration_text(std::int64_t ms) {
  const std::int64_t seconds = std::max<std::int64_t>(0, ms) / 1000;
  const std::int64_t minutes = seconds / 60;
  const std::int64_t rest = seconds % 60;
  if (minutes == 0) return std::to_string(rest) + " s";
  if (rest == 0) return std::to_string(minutes) + " min";
  return std::to_string(minutes) + " min " + std::to_string(rest) + " s";
}

std::string points_text(int n) {
  return std::to_string(n) + (n == 1 ? " point" : " points");
}

}  // namespace

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

void table::journal(json entry) {
  journal_.push_back(std::move(entry));
}

void table::reset_journal(const std::optional<match_record>& begin) {
  journal_.clear();
  journal_reset_ = true;
  if (begin) journal({{"op", "begin"}, {"record", *begin}});
}

void table::record(record_action a) {
  if (!record_ || record_->games.empty()) return;
  journal({{"op", "action"}, {"action", a}});
  record_->games.back().actions.push_back(std::move(a));
}

void table::begin_game_record() {
  if (!record_ || !match_) return;
  game_record g;
  g.number = match_->game_number();
  g.score_before = match_->score();
  g.crawford = match_->is_crawford_game();
  journal({{"op", "game"}, {"game", g}});
  record_->games.push_back(std::move(g));
}

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

table_outcome table::game_command(side s, const protocol::command& c) {
  using k = protocol::command_kind;
  using engine::match_phase;
  table_outcome o;
  auto& m = *match_;
  const std::string me = player_name(s);
  const std::string colour(engine::to_string(s));
  auto fail = [&](const engine::error& e) { return refuse(e.code, e.message); };

  switch (c.kind) {
    case k::roll: {
      if (m.phase() == match_phase::opening) {
        auto r = m.roll_opening(dice_for_roll());
        if (!r) return fail(r.err());
        record_rolls();
        if (record_ && !record_->games.empty()) {
          record_->games.back().first = r->first;
          record_->games.back().opening = m.current_game().dice();
          journal(
              {{"op", "opening"}, {"first", r->first}, {"dice", record_->games.back().opening}});
        }
        json ties = json::array();
        for (const auto& t : r->ties) ties.push_back({t.die1, t.die2});
        const std::string first(engine::to_string(r->first));
        event(o, {{"event", "opening_roll"},
                  {"red_die", r->red_die},
                  {"black_die", r->black_die},
                  {"ties", ties},
                  {"side", first},
                  {"dice", {m.current_game().dice().die1, m.current_game().dice().die2}},
                  {"text", "opening roll: red " + std::to_string(r->red_die) + ", black " +
                               std::to_string(r->black_die) +
                               (r->ties.empty() ? ""
                                                : " (after " + std::to_string(r->ties.size()) +
                                                      (r->ties.size() == 1 ? " tie)" : " ties)")) +
                               ": " + player_name(r->first) + " (" + first + ") plays " +
                               roll_text(m.current_game().dice())}});
        return o;
      }
      auto r = m.roll_dice(s, dice_for_roll());
      if (!r) return fail(r.err());
      record_rolls();
      event(o, {{"event", "rolled"},
                {"side", colour},
                {"dice", {r->dice.die1, r->dice.die2}},
                {"text", me + " (" + colour + ") rolls " + roll_text(r->dice)}});
      if (r->passed) {
        record({record_action::kind::pass, s, r->dice, {}, 0, engine::win_kind::single});
        event(o, {{"event", "passed"},
                  {"side", colour},
                  {"dice", {r->dice.die1, r->dice.die2}},
                  {"text", me + " cannot move with " + roll_text(r->dice) + " and passes"}});
      }
      return o;
    }
    case k::move: {
      const engine::roll dice = m.current_game().dice();
      auto r = m.make_play(s, c.text);
      if (!r) return fail(r.err());
      record({record_action::kind::play, s, dice, r->notation, 0, engine::win_kind::single});
      event(o, {{"event", "moved"},
                {"side", colour},
                {"dice", {dice.die1, dice.die2}},
                {"play", r->notation},
                {"text", me + " (" + colour + ") plays " + r->notation}});
      if (r->game_over) {
        const auto& res = m.results().back();
        engine::game_end end{res, m.score(), m.phase() == match_phase::match_over,
                             m.is_crawford_game()};
        after_game(o, end);
      }
      return o;
    }
    case k::double_offer: {
      auto r = m.offer_double(s);
      if (!r) return fail(r.err());
      record({record_action::kind::double_offer, s, {}, {}, *r, engine::win_kind::single});
      event(o, {{"event", "doubled"},
                {"side", colour},
                {"value", *r},
                {"text", me + " (" + colour + ") doubles to " + std::to_string(*r)}});
      return o;
    }
    case k::take:
    case k::accept:
    case k::drop:
    case k::reject: {
      const bool yes = c.kind == k::take || c.kind == k::accept;
      if (m.phase() == match_phase::resign_offered &&
          (c.kind == k::accept || c.kind == k::reject)) {
        if (yes) {
          const auto kind = m.pending_resignation()->kind;
          auto r = m.accept_resignation(s);
          if (!r) return fail(r.err());
          record({record_action::kind::resign_accept, s, {}, {}, 0, kind});
          event(o, {{"event", "resign_accepted"},
                    {"side", colour},
                    {"text", me + " accepts the resignation"}});
          after_game(o, *r);
        } else {
          auto r = m.reject_resignation(s);
          if (!r) return fail(r.err());
          record({record_action::kind::resign_reject, s, {}, {}, 0, r->kind});
          event(o, {{"event", "resign_rejected"},
                    {"side", colour},
                    {"text", me + " rejects the resignation; play goes on"}});
        }
        return o;
      }
      if (m.phase() != match_phase::cube_offered && (c.kind == k::accept || c.kind == k::reject))
        return refuse("no_offer", "there is no double or resignation to answer");
      if (yes) {
        auto r = m.take(s);
        if (!r) return fail(r.err());
        record({record_action::kind::take, s, {}, {}, *r, engine::win_kind::single});
        event(o, {{"event", "took"},
                  {"side", colour},
                  {"value", *r},
                  {"text", me + " (" + colour + ") takes: the cube is at " + std::to_string(*r)}});
      } else {
        auto r = m.drop(s);
        if (!r) return fail(r.err());
        record({record_action::kind::drop, s, {}, {}, 0, engine::win_kind::single});
        event(o,
              {{"event", "dropped"}, {"side", colour}, {"text", me + " (" + colour + ") drops"}});
        after_game(o, *r);
      }
      return o;
    }
    case k::resign: {
      auto r = m.offer_resignation(s, c.resign_kind);
      if (!r) return fail(r.err());
      record({record_action::kind::resign_offer, s, {}, {}, 0, c.resign_kind});
      const std::string kind(engine::to_string(c.resign_kind));
      event(o, {{"event", "resign_offered"},
                {"side", colour},
                {"kind", kind},
                {"text",
                 me + " (" + colour + ") offers to resign " +
                     (c.resign_kind == engine::win_kind::single ? "a single game" : "a " + kind) +
                     ": /accept or /reject"}});
      return o;
    }
    case k::continue_session: {
      auto r = m.continue_session(s);
      if (!r) return fail(r.err());
      event(o, {{"event", "continued"}, {"side", colour}, {"text", me + " wants to continue"}});
      if (*r) {
        begin_game_record();
        // The same fields as every other game_started (PROTOCOL.md): a basis session
        // has no Crawford game, but the field is part of the event's contract.
        event(o, {{"event", "game_started"},
                  {"game_number", m.game_number()},
                  {"crawford", m.is_crawford_game()},
                  {"text", "game " + std::to_string(m.game_number()) +
                               ": roll for the opening with /roll"}});
      }
      return o;
    }
    case k::stop_session: {
      auto r = m.stop_session(s);
      if (!r) return fail(r.err());
      event(o, {{"event", "stopped"}, {"side", colour}, {"text", me + " stops the session"}});
      engine::game_end end{m.results().empty() ? engine::game_result{} : m.results().back(),
                           m.score(), true, false};
      after_game(o, end);  // only closes the match (no new game result)
      return o;
    }
    default:
      return refuse("unknown_command", "that command is not available here");
  }
}

void table::after_game(table_outcome& o, const engine::game_end& end) {
  auto& m = *match_;
  // A game result is announced unless this is a basis /stop (no new game ended).
  const bool new_result =
      record_ && !record_->games.empty() && !record_->games.back().result && !m.results().empty();
  if (new_result) {
    const auto& res = m.results().back();
    record_->games.back().result = res;
    journal({{"op", "result"}, {"result", res}});
    const std::string winner(engine::to_string(res.winner));
    std::string how;
    if (m.options().kind == engine::match_kind::free_play) {
      how = "wins";
    } else if (res.kind == engine::win_kind::single) {
      how = "wins a single game";
    } else {
      how = "wins a " + std::string(engine::to_string(res.kind));
    }
    if (res.reason == engine::end_reason::dropped) how = "wins: the double was dropped";
    if (res.reason == engine::end_reason::resigned) how += " (resignation)";
    if (res.reason == engine::end_reason::forfeit) how += " (forfeit)";
    event(o, {{"event", "game_over"},
              {"winner", winner},
              {"kind", engine::to_string(res.kind)},
              {"reason", engine::to_string(res.reason)},
              {"points", res.points},
              {"score", {{"red", m.score()[0]}, {"black", m.score()[1]}}},
              {"text", player_name(res.winner) + " (" + winner + ") " + how + ", " +
                           points_text(res.points)}});
    if (end.crawford_next)
      event(o,
            {{"event", "crawford"}, {"text", "the next game is the Crawford game: no doubling"}});
  }
  if (m.phase() == engine::match_phase::match_over) {
    record_->final_score = m.score();
    record_->ended_at = hooks_.now ? hooks_.now() : std::string{};
    // S4: the match is over, so its seed is revealed (record, event, .mat header).
    if (match_dice_) {
      record_->dice.seed = derived_dice::to_hex(match_dice_->seed());
      record_->dice.player_seeds = match_dice_->player_seeds();
    }
    const std::int64_t id = std::exchange(match_id_, 0);
    record_->private_table = private_;  // read by its players and administrators only
    last_match_id_ = id;
    if (id > 0) {  // stored by the host with this change's snapshot
      o.finished_match = *record_;
      o.finished_match->id = id;
    }
    const auto winner = m.match_winner();
    json e{{"event", "match_over"},
           {"winner", side_json(winner)},
           {"score", {{"red", m.score()[0]}, {"black", m.score()[1]}}},
           // The winner's score first ("alice (black) wins the match 5-2"); a basis
           // session that ends gives red's first.
           {"text",
            winner ? player_name(*winner) + " (" + std::string(engine::to_string(*winner)) +
                         ") wins the match " +
                         std::to_string(
                             m.score()[static_cast<std::size_t>(engine::index_of(*winner))]) +
                         "-" +
                         std::to_string(
                             m.score()[static_cast<std::size_t>(1 - engine::index_of(*winner))])
                   : "the session ends " + std::to_string(m.score()[0]) + "-" +
                         std::to_string(m.score()[1]) + " (red-black)"}};
    if (id > 0) {
      e["match_id"] = id;
      e["url"] = "/matches/" + std::to_string(id) + ".mat";
    }
    if (match_dice_) {
      e["dice_commitment"] = match_dice_->commitment();
      e["dice_seed"] = record_->dice.seed;
    }
    event(o, std::move(e));
    record_.reset();
    reset_journal(std::nullopt);
    // S3: the seats of a finished match are free again for those who are not here.
    for (side s : {side::red, side::black}) {
      auto& st = seats_[static_cast<std::size_t>(engine::index_of(s))];
      if (!st || st->present) continue;
      const std::string gone = st->name;
      st.reset();
      event(o, {{"event", "left"},
                {"name", gone},
                {"side", engine::to_string(s)},
                {"text", gone + " is not here: the " + std::string(engine::to_string(s)) +
                             " seat is free"}});
    }
  } else if (m.phase() == engine::match_phase::opening) {
    begin_game_record();
    event(o, {{"event", "game_started"},
              {"game_number", m.game_number()},
              {"crawford", m.is_crawford_game()},
              {"text", "game " + std::to_string(m.game_number()) +
                           (m.is_crawford_game() ? " (Crawford game)" : "") +
                           ": roll for the opening with /roll"}});
  } else if (m.phase() == engine::match_phase::game_over) {
    event(o, {{"event", "continue_question"},
              {"text", "continue? both type /continue to play on, or /stop to end the session"}});
  }
}

table_outcome table::forfeit_impl(side s, const std::string& why, const std::string& text) {
  table_outcome o;
  if (!in_match()) return o;
  auto& m = *match_;
  if (m.phase() == engine::match_phase::game_over) {
    // Between basis games a player who is gone (or idle) ends the session.
    (void)m.stop_session(s);
    event(o, {{"event", "stopped"}, {"side", engine::to_string(s)}, {"text", text}});
    engine::game_end end{m.results().empty() ? engine::game_result{} : m.results().back(),
                         m.score(), true, false};
    after_game(o, end);
    return o;
  }
  auto r = m.forfeit(s);
  if (!r) return o;
  record({record_action::kind::forfeit, s, {}, {}, 0, r->result.kind});
  event(o, {{"event", "forfeit"}, {"side", engine::to_string(s)}, {"why", why}, {"text", text}});
  after_game(o, *r);
  return o;
}

namespace {

/// "match", "session" or "game": what a forfeit or a loss on time loses (S2, S3).
std::string what_is_lost(engine::match_kind kind) {
  return kind == engine::match_kind::points  ? "match"
         : kind == engine::match_kind::basis ? "session"
                                             : "game";
}

}  // namespace

table_outcome table::claim(side claimer) {
  if (!in_match()) return refuse("nothing_to_claim", "no match is being played at this table");
  const side them = engine::opponent_of(claimer);
  const auto& st = seats_[static_cast<std::size_t>(engine::index_of(them))];
  const std::string name = player_name(them);
  const std::string lost = what_is_lost(match_->options().kind);
  const std::int64_t t = now();
  // A computer player is never claimed against (issue 25): it is present, and a slow
  // answer is the server's load (its queue), not the bot leaving the game.
  if (st && !st->bot.empty())
    return refuse("bot_thinking", name +
                                      " is a computer player: it answers as soon as GNU "
                                      "Backgammon has room for its question, and its game "
                                      "cannot be claimed");
  if (st && !st->present) {
    const std::int64_t away = t - st->absent_since_ms;
    if (away < hooks_.grace_period_ms)
      return refuse("claim_too_early", name + " has been away for " + duration_text(away) +
                                           "; the seat is kept for them for " +
                                           duration_text(hooks_.grace_period_ms) +
                                           " (the grace period): you can claim after that");
    return forfeit_impl(them, "absent",
                        name + " did not come back in time and forfeits the " + lost);
  }
  if (clock_ && clock_->is_timed())
    return refuse("nothing_to_claim",
                  "the clock is running: " + name + " loses on time if their bank runs out");
  if (waiting_on() != them)
    return refuse("nothing_to_claim", waiting_on() == claimer
                                          ? "it is your turn to act, not " + name + "'s"
                                          : name + " is not the one the game waits for");
  const std::int64_t waited = clock_ ? clock_->waited(t) : 0;
  if (waited < hooks_.idle_limit_ms)
    return refuse("claim_too_early", name + " has had " + duration_text(waited) +
                                         " to act; you can claim the game after " +
                                         duration_text(hooks_.idle_limit_ms) +
                                         " without an action (the idle limit)");
  return forfeit_impl(them, "idle",
                      name + " did not act for " + duration_text(waited) + ": " +
                          player_name(claimer) + " claims the game, and " + name +
                          " forfeits the " + lost);
}

table_outcome table::seed(side s, const std::string& text) {
  if (!in_match() || !match_dice_)
    return refuse("wrong_phase", "/seed works after /start, before the match's first roll");
  if (match_dice_->rolling())
    return refuse("seed_locked",
                  "the dice of this match are already rolling: /seed works only between "
                  "/start and the first roll");
  if (text.size() > hooks_.max_seed_bytes)
    return refuse("too_long",
                  "a seed is at most " + std::to_string(hooks_.max_seed_bytes) + " bytes");
  match_dice_->set_player_seed(s, text);
  if (record_) record_->dice.player_seeds[static_cast<std::size_t>(engine::index_of(s))] = text;
  journal({{"op", "seed"}, {"side", s}, {"text", text}});
  table_outcome o;
  event(o, {{"event", "seeded"},
            {"side", engine::to_string(s)},
            {"seed", text},
            {"text", player_name(s) + " (" + std::string(engine::to_string(s)) +
                         ") adds their own seed to the dice: \"" + text + "\""}});
  return o;
}

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
            {"value", c.minutes == 0 ? json("off") : clock_option_json(c)},
            {"text", who + " sets " + options_text(options_, tutor_, clock_option_)}});
  return o;
}

// ------------------------------------------------------------------------------------
// Moderation (issue 13)

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
    record_->final_score = match_->score();
    record_->ended_at = hooks_.now ? hooks_.now() : std::string{};
    if (match_dice_) {
      record_->dice.seed = derived_dice::to_hex(match_dice_->seed());
      record_->dice.player_seeds = match_dice_->player_seeds();
    }
    const std::int64_t id = std::exchange(match_id_, 0);
    record_->private_table = private_;  // read by its players and administrators only
    last_match_id_ = id;
    if (id > 0) {
      o.finished_match = *record_;
      o.finished_match->id = id;
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

std::optional<side> table::waiting_on() const {
  if (!in_match()) return std::nullopt;
  switch (match_->phase()) {
    case engine::match_phase::roll:
    case engine::match_phase::move:
    case engine::match_phase::cube_offered:
    case engine::match_phase::resign_offered:
      return match_->to_act();
    case engine::match_phase::game_over: {
      // Basis: once one has said /continue, the match waits for the other.
      const auto& c = match_->continuing();
      if (c[0] == c[1]) return std::nullopt;
      return c[0] ? side::black : side::red;
    }
    default:  // opening: either player may roll; match_over: nothing to wait for
      return std::nullopt;
  }
}

void table::update_clock() {
  if (!clock_) return;
  const auto next = waiting_on();
  // The same side again after its own action (a roll, then the play) starts a new
  // action with a fresh delay; a change by anyone else (chat, a spectator, the other
  // side's resignation offer) leaves the running action alone.
  const bool acted_again = actor_ && clock_->running() == actor_;
  if (next != clock_->running() || acted_again) clock_->start(next, now());
}

table_outcome table::settle_clock() {
  table_outcome o;
  if (!in_match() || !clock_ || !clock_->is_timed()) return o;
  const std::int64_t t = now();
  if (!clock_->expired(t)) return o;
  const side s = *clock_->running();
  clock_->pause(t);  // the bank is empty now
  auto& m = *match_;
  const std::string colour(engine::to_string(s));
  const std::string lost =
      m.phase() == engine::match_phase::game_over || m.options().kind == engine::match_kind::points
          ? what_is_lost(m.options().kind)
          : "game";
  event(o, {{"event", "out_of_time"},
            {"side", colour},
            {"name", player_name(s)},
            {"text", player_name(s) + " (" + colour + ") has no time left and loses the " + lost +
                         " on time"}});
  if (m.phase() == engine::match_phase::game_over) {
    // Between basis games: the one the session waited for ends it.
    (void)m.stop_session(s);
    event(o, {{"event", "stopped"},
              {"side", colour},
              {"text", player_name(s) + " ran out of time: the session ends"}});
    engine::game_end end{m.results().empty() ? engine::game_result{} : m.results().back(),
                         m.score(), true, false};
    after_game(o, end);
    return o;
  }
  auto r = m.forfeit(s, engine::end_reason::time);
  if (!r) return o;
  record({record_action::kind::forfeit, s, {}, {}, 0, r->result.kind});
  after_game(o, *r);
  return o;
}

engine::dice_source& table::dice_for_roll() {
  if (match_dice_) {
    match_dice_->at_game(match_ ? match_->game_number() : 1);
    return *match_dice_;
  }
  if (dice_ == nullptr) throw std::logic_error("a match without dice");
  return *dice_;
}

void table::record_rolls() {
  if (!match_dice_) return;
  for (auto& r : match_dice_->take_rolls()) {
    journal({{"op", "roll"}, {"roll", r}});
    if (record_) record_->dice.rolls.push_back(r);
  }
}

std::optional<std::int64_t> table::clock_expiry() const {
  if (!in_match() || !clock_) return std::nullopt;
  return clock_->expiry();
}

bool table::pause_clock() {
  if (!in_match() || !clock_ || !clock_->running()) return false;
  clock_->pause(now());
  return true;
}

void table::resume_clock() {
  const std::int64_t t = now();
  if (clock_) clock_->resume(t);
  for (auto& st : seats_)
    if (st && !st->present) st->absent_since_ms = t;
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
  const std::string lost = match_ ? what_is_lost(match_->options().kind) : "game";
  return bump(
      forfeit_impl(s, "absent",
                   match_ && match_->phase() == engine::match_phase::game_over
                       ? player_name(s) + " did not come back: the session ends"
                       : player_name(s) + " did not come back in time and forfeits the " + lost));
}

// ------------------------------------------------------------------------------------
// State

bool table::lists_legal() const {
  return match_.has_value() && match_->phase() == engine::match_phase::move &&
         match_->current_game().legal().size() > 1;
}

json table::state(bool with_legal) const {
  return json::parse(state_text(with_legal));
}

// Written straight into a string (every change sends it; building a tree cost more than
// the rest of the change), keys in sorted order (as nlohmann writes them, so a parsed
// and re-encoded state is the same text). Table tests compare it with frames recorded
// from seeded games (tests/server/data/state-frames.txt).
std::string table::state_text(bool with_legal) const {
  using writer = protocol::json_writer;
  const auto& opts = match_ ? match_->options() : options_;
  const engine::variant v = opts.game_variant;
  engine::game fresh(v);
  const engine::game& g = match_ ? match_->current_game() : fresh;
  const bool playing = match_.has_value();
  const auto phase = playing ? match_->phase() : engine::match_phase::opening;
  const bool has_turn = playing && phase != engine::match_phase::opening &&
                        phase != engine::match_phase::match_over &&
                        phase != engine::match_phase::game_over;
  const bool moving = playing && phase == engine::match_phase::move;
  const bool listed = moving && (with_legal || g.legal().size() == 1);
  const auto red_black = [](writer& w, const auto& black, const auto& red) {
    w.begin_object().key("black").value(black).key("red").value(red).end_object();
  };
  const auto seat_name = [](writer& w, const std::optional<seat>& st) {
    if (st) {
      w.value(st->name);
    } else {
      w.null();
    }
  };
  const auto seat_bot = [](writer& w, const std::optional<seat>& st) {
    if (st && !st->bot.empty()) {
      w.value(st->bot);
    } else {
      w.null();
    }
  };

  writer w(listed ? 8192 : 2048);
  w.begin_object();
  const auto b = g.board();
  w.key("board").begin_object();
  w.key("bar");
  red_black(w, b.bar[1], b.bar[0]);
  w.key("off");
  red_black(w, b.off[1], b.off[0]);
  w.key("points").begin_array();
  for (const int n : b.points) w.value(n);
  w.end_array().end_object();
  w.key("bot_thinking").value(bot_thinking());
  w.key("bots").begin_object().key("black");
  seat_bot(w, seats_[1]);
  w.key("red");
  seat_bot(w, seats_[0]);
  w.end_object();
  // clock: the banks at `since`, the delay the running action has left at `since`, the
  // running side. The match's clocks when they are timed (kept after the match until the
  // options change); before a match with a clock option, full banks; null without a clock.
  w.key("clock");
  if (clock_ && clock_->is_timed()) {
    w.begin_object()
        .key("black")
        .value(clock_->bank(side::black))
        .key("delay_ms")
        .value(clock_->delay_left())
        .key("red")
        .value(clock_->bank(side::red))
        .key("running");
    write_side(w, in_match() ? clock_->running() : std::nullopt);
    w.key("since").value(clock_->since()).end_object();
  } else if (!in_match() && clock_option_.minutes > 0) {
    const std::int64_t bank = clock_option_.minutes * hooks_.clock_minute_ms;
    w.begin_object()
        .key("black")
        .value(bank)
        .key("delay_ms")
        .value(std::int64_t{clock_option_.delay_seconds} * 1000)
        .key("red")
        .value(bank)
        .key("running")
        .null()
        .key("since")
        .value(now())
        .end_object();
  } else {
    w.null();
  }
  if (playing && phase == engine::match_phase::game_over) {
    w.key("continuing");
    red_black(w, match_->continuing()[1], match_->continuing()[0]);
  }
  w.key("crawford").value(playing && match_->is_crawford_game());
  const engine::cube cube = playing ? match_->doubling_cube() : engine::cube{};
  w.key("cube").begin_object().key("in_play").value(opts.kind != engine::match_kind::free_play);
  w.key("offered_by");
  write_side(w, cube.offered_by);
  w.key("owner").value(cube.owner ? engine::to_string(*cube.owner) : std::string_view{"center"});
  w.key("value").value(cube.value).end_object();
  w.key("dice").begin_array();
  if (moving) w.value(g.dice().die1).value(g.dice().die2);
  w.end_array();
  w.key("dice_commitment");
  if (match_dice_) {
    w.value(match_dice_->commitment());
  } else {
    w.null();
  }
  w.key("game_number").value(playing ? match_->game_number() : 0);
  w.key("invited").begin_array();  // issue 13
  for (const auto& [key, name] : invited_) w.value(name);
  w.end_array();
  w.key("last_match_id");
  if (last_match_id_ > 0) {
    w.value(last_match_id_);
  } else {
    w.null();
  }
  if (playing && !match_->results().empty() &&
      (phase == engine::match_phase::game_over || phase == engine::match_phase::match_over ||
       phase == engine::match_phase::opening)) {
    w.key("last_result");
    write_result(w, match_->results().back());
  }
  w.key("legal").begin_array();
  if (listed)
    for (const auto& p : g.legal()) w.value(engine::format_play(g.current(), p, v));
  w.end_array();
  w.key("legal_moves").begin_array();
  if (listed) {
    const side mover = g.turn();
    const auto place = [&](int own) {
      if (own == 25) {
        w.value("bar");
      } else if (own == 0) {
        w.value("off");
      } else {
        w.value(engine::board_point(v, mover, own));
      }
    };
    for (const auto& p : g.legal()) {
      w.begin_array();
      for (std::size_t i = 0; i < p.count; ++i) {
        const auto& m = p.moves[i];
        w.begin_object().key("from");
        place(m.from);
        w.key("hit").value(m.hit).key("to");
        place(m.to);
        w.end_object();
      }
      w.end_array();
    }
  }
  w.end_array();
  w.key("match_id").value(playing ? match_->id() : std::string{});
  w.key("match_length").value(opts.kind == engine::match_kind::points ? opts.length : 0);
  w.key("may_double").value(playing && has_turn && match_->may_double(g.turn()));
  w.key("options");
  write_options(w, options_, private_, tutor_, clock_option_);
  w.key("owner");  // issue 13
  if (owner_.empty()) {
    w.null();
  } else {
    w.value(owner_);
  }
  w.key("phase").value(playing ? engine::to_string(phase) : std::string_view{"waiting"});
  w.key("pips");
  red_black(w, b.pips[1], b.pips[0]);
  w.key("players").begin_object().key("black");
  seat_name(w, seats_[1]);
  w.key("red");
  seat_name(w, seats_[0]);
  w.end_object();
  w.key("position_id").value(engine::position_id(g.current()));
  w.key("present");
  red_black(w, seats_[1] && seats_[1]->present, seats_[0] && seats_[0]->present);
  // issue 12: the ratings of the registered names here, in the table's variant, by name
  // (sorted, each once, as a json object keeps them).
  w.key("ratings").begin_object();
  if (hooks_.rating_of) {
    std::vector<std::pair<std::string_view, double>> ratings;
    const auto add = [&](const std::string& who) {
      if (const auto r = hooks_.rating_of(who, v)) ratings.emplace_back(who, *r);
    };
    for (const auto& st : seats_)
      if (st) add(st->name);
    for (const auto& who : spectators_) add(who);
    std::stable_sort(ratings.begin(), ratings.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::string_view last;
    for (std::size_t i = 0; i < ratings.size(); ++i) {
      if (i > 0 && ratings[i].first == last) continue;
      last = ratings[i].first;
      w.key(ratings[i].first).value(ratings[i].second);
    }
  }
  w.end_object();
  w.key("resign");
  if (playing && match_->pending_resignation()) {
    const auto& r = *match_->pending_resignation();
    w.begin_object()
        .key("by")
        .value(engine::to_string(r.by))
        .key("kind")
        .value(engine::to_string(r.kind))
        .end_object();
  } else {
    w.null();
  }
  const auto score = playing ? match_->score() : std::array<int, 2>{0, 0};
  w.key("score");
  red_black(w, score[1], score[0]);
  w.key("seq").value(static_cast<std::uint64_t>(seq_));
  w.key("spectators").begin_array();
  for (const auto& who : spectators_) w.value(who);
  w.end_array();
  w.key("table").value(name_);
  w.key("to_act");
  write_side(w, playing ? match_->to_act() : std::nullopt);
  w.key("turn");
  write_side(w, has_turn ? std::optional<side>(g.turn()) : std::nullopt);
  w.key("type").value("state");
  w.key("variant").value(engine::to_string(v));
  w.end_object();
  return w.release();
}

json table::summary() const {
  return json::parse(summary_text());
}

std::string table::summary_text() const {
  using writer = protocol::json_writer;
  const auto name_or_null = [](writer& w, const std::optional<seat>& st, bool bot) {
    if (st && (!bot || !st->bot.empty())) {
      w.value(bot ? st->bot : st->name);
    } else {
      w.null();
    }
  };
  const auto rating = [&](writer& w, const std::optional<seat>& st) {
    const auto r =
        st && hooks_.rating_of ? hooks_.rating_of(st->name, options_.game_variant) : std::nullopt;
    if (r) {
      w.value(*r);
    } else {
      w.null();
    }
  };
  writer w(512);
  w.begin_object().key("bots").begin_object().key("black");
  name_or_null(w, seats_[1], true);
  w.key("red");
  name_or_null(w, seats_[0], true);
  w.end_object();
  w.key("name").value(name_);
  w.key("options");
  write_options(w, options_, private_, tutor_, clock_option_);
  w.key("owner");
  if (owner_.empty()) {
    w.null();
  } else {
    w.value(owner_);
  }
  w.key("phase").value(match_ ? engine::to_string(match_->phase()) : std::string_view{"waiting"});
  w.key("players").begin_object().key("black");
  name_or_null(w, seats_[1], false);
  w.key("red");
  name_or_null(w, seats_[0], false);
  w.end_object();
  w.key("ratings").begin_object().key("black");
  rating(w, seats_[1]);
  w.key("red");
  rating(w, seats_[0]);
  w.end_object();
  const auto score = match_ ? match_->score() : std::array<int, 2>{0, 0};
  w.key("score").begin_object().key("black").value(score[1]).key("red").value(score[0]);
  w.end_object();
  w.key("spectators").value(static_cast<std::uint64_t>(spectators_.size()));
  w.end_object();
  return w.release();
}

// ------------------------------------------------------------------------------------
// Snapshot and restore

namespace {

engine::side side_from(const json& j) {
  const auto s = engine::side_from_string(j.get<std::string>());
  if (!s) throw std::invalid_argument("bad side");
  return *s;
}

std::optional<engine::side> optional_side_from(const json& j) {
  if (j.is_null()) return std::nullopt;
  return side_from(j);
}

engine::match_phase match_phase_from(const std::string& name) {
  using engine::match_phase;
  for (auto p :
       {match_phase::opening, match_phase::roll, match_phase::move, match_phase::cube_offered,
        match_phase::resign_offered, match_phase::game_over, match_phase::match_over})
    if (engine::to_string(p) == name) return p;
  throw std::invalid_argument("bad phase");
}

engine::win_kind win_kind_from(const json& j) {
  const auto k = j.get<std::string>();
  if (k == "single") return engine::win_kind::single;
  if (k == "gammon") return engine::win_kind::gammon;
  if (k == "backgammon") return engine::win_kind::backgammon;
  throw std::invalid_argument("bad win kind");
}

/// Applies one record journal entry (table_outcome::record_log) to `record`. Throws
/// std::invalid_argument (or a json exception) when the entry does not fit.
void replay(std::optional<match_record>& record, const json& entry) {
  const auto op = entry.at("op").get<std::string>();
  if (op == "begin") {
    record = entry.at("record").get<match_record>();
    return;
  }
  if (!record) throw std::invalid_argument("record journal: '" + op + "' before 'begin'");
  if (op == "game") {
    record->games.push_back(entry.at("game").get<game_record>());
    return;
  }
  if (record->games.empty())
    throw std::invalid_argument("record journal: '" + op + "' before 'game'");
  auto& g = record->games.back();
  if (op == "opening") {
    g.first = entry.at("first").get<side>();
    g.opening = entry.at("dice").get<engine::roll>();
  } else if (op == "action") {
    g.actions.push_back(entry.at("action").get<record_action>());
  } else if (op == "result") {
    g.result = entry.at("result").get<engine::game_result>();
  } else if (op == "roll") {
    record->dice.rolls.push_back(entry.at("roll").get<dice_roll_record>());
  } else if (op == "seed") {
    record->dice
        .player_seeds[static_cast<std::size_t>(engine::index_of(entry.at("side").get<side>()))] =
        entry.at("text").get<std::string>();
  } else {
    throw std::invalid_argument("record journal: unknown op '" + op + "'");
  }
}

}  // namespace

json table::snapshot() const {
  json j = json::parse(snapshot_text({}));
  j.erase("token_hashes");
  return j;
}

std::string table::snapshot_text(
    const std::array<std::optional<std::string>, 2>& token_hashes) const {
  // The keys of every object in sorted order (as nlohmann writes them).
  using writer = protocol::json_writer;
  const auto text_or_null = [](writer& w, const std::optional<std::string>& t) {
    if (t) {
      w.value(*t);
    } else {
      w.null();
    }
  };
  const auto options = [](writer& w, const engine::match_options& o) {
    w.begin_object()
        .key("kind")
        .value(engine::to_string(o.kind))
        .key("length")
        .value(o.length)
        .key("variant")
        .value(engine::to_string(o.game_variant))
        .end_object();
  };
  const auto bot_of = [](const std::optional<seat>& st) {
    return st && !st->bot.empty() ? std::optional<std::string>(st->bot) : std::nullopt;
  };
  const auto name_of = [](const std::optional<seat>& st) {
    return st ? std::optional<std::string>(st->name) : std::nullopt;
  };

  writer w(1024);
  w.begin_object();
  w.key("bots").begin_object().key("black");
  text_or_null(w, bot_of(seats_[1]));
  w.key("red");
  text_or_null(w, bot_of(seats_[0]));
  w.end_object();
  w.key("clock");
  if (clock_) {
    w.begin_object()
        .key("bank")
        .begin_array()
        .value(clock_->bank(side::red))
        .value(clock_->bank(side::black))
        .end_array()
        .key("delay")
        .value(clock_->delay())
        .key("delay_left")
        .value(clock_->delay_left())
        .key("running");
    write_side(w, clock_->running());
    w.key("since").value(clock_->since()).key("timed").value(clock_->is_timed()).end_object();
  } else {
    w.null();
  }
  w.key("clock_option")
      .begin_object()
      .key("delay")
      .value(clock_option_.delay_seconds)
      .key("minutes")
      .value(clock_option_.minutes)
      .end_object();
  w.key("dice");
  if (match_dice_) {
    w.begin_object()
        .key("game")
        .value(match_dice_->game())
        .key("next_k")
        .value(match_dice_->next_k())
        .key("player_seeds")
        .begin_array();
    for (const auto& seed : match_dice_->player_seeds()) w.value(seed);
    w.end_array().key("seed").value(derived_dice::to_hex(match_dice_->seed())).end_object();
  } else {
    w.null();
  }
  w.key("invited").begin_array();
  for (const auto& [key, name] : invited_) w.value(name);
  w.end_array();
  w.key("kicked").begin_array();
  for (const auto& [key, bar] : kicked_)
    w.begin_object().key("name").value(bar.name).key("until_ms").value(bar.until_ms).end_object();
  w.end_array();
  w.key("last_match_id").value(last_match_id_);
  w.key("match");
  if (match_) {
    const auto& m = *match_;
    w.begin_object().key("continuing").begin_array();
    for (const bool c : m.continuing()) w.value(c);
    w.end_array();
    w.key("crawford_done").value(m.crawford_done());
    w.key("crawford_game").value(m.is_crawford_game());
    w.key("cube").begin_object().key("offered_by");
    write_side(w, m.doubling_cube().offered_by);
    w.key("owner");
    write_side(w, m.doubling_cube().owner);
    w.key("value").value(m.doubling_cube().value).end_object();
    // game (game_json())
    const auto& g = m.current_game();
    w.key("game").begin_object();
    w.key("dice").begin_array().value(g.dice().die1).value(g.dice().die2).end_array();
    w.key("phase");
    switch (g.phase()) {
      case engine::game_phase::opening:
        w.value("opening");
        break;
      case engine::game_phase::roll:
        w.value("roll");
        break;
      case engine::game_phase::move:
        w.value("move");
        break;
      case engine::game_phase::over:
        w.value("over");
        break;
    }
    w.key("position").value(engine::position_id(g.current()));
    w.key("result");
    if (g.result_of_game()) {
      write_result(w, *g.result_of_game());
    } else {
      w.null();
    }
    w.key("turn").value(engine::to_string(g.turn()));
    w.key("turns").value(g.turn_number()).end_object();
    w.key("game_number").value(m.game_number());
    w.key("options");
    options(w, m.options());
    w.key("phase").value(engine::to_string(m.phase()));
    w.key("resignation");
    if (m.pending_resignation()) {
      const auto& r = *m.pending_resignation();
      w.begin_object()
          .key("by")
          .value(engine::to_string(r.by))
          .key("kind")
          .value(engine::to_string(r.kind))
          .key("resume_phase")
          .value(engine::to_string(r.resume_phase))
          .end_object();
    } else {
      w.null();
    }
    w.key("results").begin_array();
    for (const auto& r : m.results()) write_result(w, r);
    w.end_array();
    w.key("score").begin_array().value(m.score()[0]).value(m.score()[1]).end_array();
    w.end_object();
  } else {
    w.null();
  }
  w.key("matches_started").value(matches_started_);
  w.key("name").value(name_);
  w.key("options");
  options(w, options_);
  w.key("owner").value(owner_);
  w.key("private").value(private_);
  w.key("seats").begin_array();
  for (const auto& st : seats_) text_or_null(w, name_of(st));
  w.end_array();
  w.key("seq").value(seq_);
  w.key("token_hashes").begin_array();
  for (const auto& t : token_hashes) text_or_null(w, t);
  w.end_array();
  w.key("tutor").value(tutor_);
  w.key("version").value(2);
  w.end_object();
  return w.release();
}

engine::result<std::unique_ptr<table>> table::restore(const json& snap, engine::dice_source& dice,
                                                      table_hooks hooks,
                                                      const std::vector<json>& record_journal,
                                                      const std::vector<std::string>& present) {
  return restore_into(snap, &dice, std::move(hooks), record_journal, present);
}

engine::result<std::unique_ptr<table>> table::restore(const json& snap, table_hooks hooks,
                                                      const std::vector<json>& record_journal,
                                                      const std::vector<std::string>& present) {
  if (!hooks.match_seed)
    return engine::make_error("bad_snapshot", "a table without dice needs a match seed hook");
  return restore_into(snap, nullptr, std::move(hooks), record_journal, present);
}

engine::result<std::unique_ptr<table>> table::restore_into(
    const json& snap, engine::dice_source* dice, table_hooks hooks,
    const std::vector<json>& record_journal, const std::vector<std::string>& present) {
  try {
    auto name = snap.at("name").get<std::string>();
    auto t = dice != nullptr ? std::make_unique<table>(std::move(name), *dice, std::move(hooks))
                             : std::make_unique<table>(std::move(name), std::move(hooks));
    t->options_ = snap.at("options").get<engine::match_options>();
    t->tutor_ = snap.at("tutor").get<bool>();
    // Written since the clocks and the verifiable dice (absent in older snapshots).
    if (const auto it = snap.find("clock_option"); it != snap.end() && !it->is_null()) {
      t->clock_option_.minutes = it->at("minutes").get<int>();
      t->clock_option_.delay_seconds = it->at("delay").get<int>();
    }
    t->matches_started_ = snap.value("matches_started", std::uint64_t{0});
    // Written since moderation (issue 13; absent in older snapshots: no owner yet, the
    // first person back becomes it).
    t->owner_ = snap.value("owner", std::string{});
    t->private_ = snap.value("private", false);
    const auto max_name = t->hooks_.max_name_bytes;
    const auto valid = [max_name](const std::string& n) { return !name_problem(n, max_name); };
    if (!t->owner_.empty() && !valid(t->owner_))
      return engine::make_error("bad_snapshot", "the saved owner is not a name");
    if (const auto it = snap.find("invited"); it != snap.end() && it->is_array())
      for (const auto& n : *it) {
        const auto guest = n.get<std::string>();
        if (!valid(guest))
          return engine::make_error("bad_snapshot", "a saved invitation is not a name");
        t->invited_[name_key(guest)] = guest;
      }
    if (const auto it = snap.find("kicked"); it != snap.end() && it->is_array())
      for (const auto& k : *it) {
        const auto barred = k.at("name").get<std::string>();
        if (!valid(barred)) return engine::make_error("bad_snapshot", "a saved kick is not a name");
        t->kicked_[name_key(barred)] = kick_bar{barred, k.at("until_ms").get<std::int64_t>()};
      }
    if (const auto it = snap.find("clock"); it != snap.end() && !it->is_null()) {
      const auto& cj = *it;
      t->clock_ = match_clock::restore(
          cj.at("timed").get<bool>(), cj.at("bank").get<std::array<std::int64_t, 2>>(),
          cj.at("delay").get<std::int64_t>(), cj.at("delay_left").get<std::int64_t>(),
          optional_side_from(cj.at("running")), cj.at("since").get<std::int64_t>());
    }
    if (const auto it = snap.find("dice"); it != snap.end() && !it->is_null()) {
      const auto& dj = *it;
      const auto seed = derived_dice::seed_from_hex(dj.at("seed").get<std::string>());
      if (!seed) return engine::make_error("bad_snapshot", "the saved dice seed is damaged");
      t->match_dice_.emplace(*seed, dj.at("player_seeds").get<std::array<std::string, 2>>(),
                             dj.at("game").get<int>(), dj.at("next_k").get<std::uint32_t>());
    }
    const auto& seats = snap.at("seats");
    for (std::size_t i = 0; i < 2; ++i)
      if (!seats.at(i).is_null()) t->seats_[i] = seat{seats.at(i).get<std::string>(), false, 0, {}};
    if (const auto b = snap.find("bots"); b != snap.end() && b->is_object()) {
      // issue 14: a computer player's seat and level survive a restart.
      for (side s : {side::red, side::black}) {
        const auto& level = b->at(engine::to_string(s));
        auto& st = t->seats_[static_cast<std::size_t>(engine::index_of(s))];
        if (!level.is_null() && st) st->bot = level.get<std::string>();
      }
    }
    t->last_match_id_ = snap.at("last_match_id").get<std::int64_t>();
    t->seq_ = snap.at("seq").get<std::uint64_t>();
    if (!snap.at("match").is_null()) {
      const auto& mj = snap.at("match");
      const auto options = mj.at("options").get<engine::match_options>();
      const auto& gj = mj.at("game");
      const auto v = options.game_variant;
      auto pos = engine::position_from_id(gj.at("position").get<std::string>(), v);
      if (!pos) return engine::make_error("bad_snapshot", pos.err().message);
      engine::game_phase gp = engine::game_phase::opening;
      const auto gphase = gj.at("phase").get<std::string>();
      if (gphase == "roll")
        gp = engine::game_phase::roll;
      else if (gphase == "move")
        gp = engine::game_phase::move;
      else if (gphase == "over")
        gp = engine::game_phase::over;
      else if (gphase != "opening")
        return engine::make_error("bad_snapshot", "bad game phase");
      std::optional<engine::game_result> result;
      if (!gj.at("result").is_null()) result = gj.at("result").get<engine::game_result>();
      const auto dice_json = gj.at("dice");
      auto g = engine::game::restore(
          v, gp, side_from(gj.at("turn")),
          engine::roll{dice_json.at(0).get<int>(), dice_json.at(1).get<int>()}, *pos,
          gj.at("turns").get<int>(), result);
      if (!g) return engine::make_error("bad_snapshot", g.err().message);
      engine::cube c;
      c.value = mj.at("cube").at("value").get<int>();
      c.owner = optional_side_from(mj.at("cube").at("owner"));
      c.offered_by = optional_side_from(mj.at("cube").at("offered_by"));
      std::optional<engine::resignation> pending;
      if (!mj.at("resignation").is_null()) {
        const auto& rj = mj.at("resignation");
        pending = engine::resignation{side_from(rj.at("by")), win_kind_from(rj.at("kind")),
                                      match_phase_from(rj.at("resume_phase").get<std::string>())};
      }
      t->match_.emplace(engine::match::restore(
          options, match_phase_from(mj.at("phase").get<std::string>()), std::move(*g), c,
          mj.at("score").get<std::array<int, 2>>(), mj.at("game_number").get<int>(),
          mj.at("crawford_game").get<bool>(), mj.at("crawford_done").get<bool>(), pending,
          mj.at("continuing").get<std::array<bool, 2>>(),
          mj.at("results").get<std::vector<engine::game_result>>()));
    }
    if (const auto it = snap.find("record"); it != snap.end() && !it->is_null()) {
      // Version 1: the whole record in the snapshot. The next save starts the journal.
      t->record_ = it->get<match_record>();
      t->reset_journal(t->record_);
    } else {
      for (const auto& entry : record_journal) replay(t->record_, entry);
    }
    if (t->in_match() && !t->record_)
      return engine::make_error("bad_snapshot", "a match is in progress without its record");
    // Nobody is present after a restart, and outside a match a seat is not kept for an
    // absent player (exit() would have freed it).
    // A rollback keeps the seats of those present, who are at the table still.
    for (auto& st : t->seats_) {
      if (st && !st->bot.empty()) {  // a computer player is always there
        st->present = true;
        continue;
      }
      const bool here = st && std::find(present.begin(), present.end(), st->name) != present.end();
      if (st) st->present = here;
      if (st && !here) st->absent_since_ms = t->now();  // the grace period starts again
      if (st && !here && !t->in_match()) st.reset();
    }
    if (!t->in_match() && !t->person_seated())
      for (auto& st : t->seats_) st.reset();  // no computer player sits alone
    for (const auto& who : present) {
      if (!t->seat_of(who)) t->spectators_.insert(who);
      t->arrived_[who] = ++t->arrivals_;
    }
    // A match saved before clocks and derived dice existed goes on with the idle limit
    // (no clock) and with dice derived from a seed drawn now; its record has no
    // commitment, so it is not called verifiable.
    if (t->in_match() && !t->clock_) {
      t->clock_ = match_clock::untimed(t->now());
      t->clock_->start(t->waiting_on(), t->now());
    }
    if (t->in_match() && !t->match_dice_ && t->hooks_.match_seed)
      t->match_dice_.emplace(t->hooks_.match_seed(t->name_, t->matches_started_++),
                             std::array<std::string, 2>{}, t->match_->game_number(), 0U);
    return t;
  } catch (const std::exception& e) {
    return engine::make_error("bad_snapshot",
                              std::string("the saved table is damaged: ") + e.what());
  }
}

}  // namespace bg::server
