/// @file table_play.cpp
/// The match through the engine: the game commands (/roll, /move, /double, /take,
/// /drop, /resign, /accept, /reject, /continue, /stop), what follows the end of a game
/// or a match, the dice (S4: /seed, the rolls derived for the record) and the record
/// journal every change hands to its host.

#include "bg/server/table/table.hpp"

#include <stdexcept>
#include <utility>

#include "bg/i18n/catalogue.hpp"
#include "bg/server/records/record_json.hpp"
#include "table_internal.hpp"

namespace bg::server {

using engine::side;
using nlohmann::json;

namespace {

/// `s` as "red"/"black", or null.
json side_json(std::optional<side> s) {
  return s ? json(engine::to_string(*s)) : json(nullptr);
}

/// A roll as the events' sentences write it, the higher die first: "6-3".
std::string roll_text(engine::roll r) {
  return std::to_string(r.high()) + "-" + std::to_string(r.low());
}

/// How a game was won, as table.game_over's `how` selects it: "free" (free play),
/// "single", "gammon", "backgammon" or "dropped" (the double was dropped).
std::string how_won(engine::match_kind kind, const engine::game_result& res) {
  if (res.reason == engine::end_reason::dropped) return "dropped";
  if (kind == engine::match_kind::free_play) return "free";
  return std::string(engine::to_string(res.kind));
}

/// A score as text, `first` then `second`: "5-2".
std::string score_text(int first, int second) {
  return std::to_string(first) + "-" + std::to_string(second);
}

}  // namespace

// ------------------------------------------------------------------------------------
// The record journal

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
// Game commands

table_outcome table::game_command(side s, const protocol::command& c) {
  using k = protocol::command_kind;
  switch (c.kind) {
    case k::roll:
      if (match_->phase() == engine::match_phase::opening) return opening_roll();
      return roll(s);
    case k::move:
      return play(s, c.text);
    case k::double_offer:
      return offer_double(s);
    case k::take:
    case k::accept:
    case k::drop:
    case k::reject: {
      const bool yes = c.kind == k::take || c.kind == k::accept;
      if (match_->phase() == engine::match_phase::resign_offered &&
          (c.kind == k::accept || c.kind == k::reject))
        return answer_resignation(s, yes);
      if (match_->phase() != engine::match_phase::cube_offered &&
          (c.kind == k::accept || c.kind == k::reject))
        return refuse("no_offer", "table.no_offer", json::object());
      return yes ? take(s) : drop(s);
    }
    case k::resign:
      return offer_resignation(s, c.resign_kind);
    case k::continue_session:
      return continue_session(s);
    case k::stop_session:
      return stop_session(s);
    default:
      return refuse("unknown_command", "table.unknown_command", json::object());
  }
}

table_outcome table::opening_roll() {
  auto& m = *match_;
  auto r = m.roll_opening(dice_for_roll());
  if (!r) return refuse(r.err());
  record_rolls();
  if (record_ && !record_->games.empty()) {
    record_->games.back().first = r->first;
    record_->games.back().opening = m.current_game().dice();
    journal({{"op", "opening"}, {"first", r->first}, {"dice", record_->games.back().opening}});
  }
  json ties = json::array();
  for (const auto& t : r->ties) ties.push_back({t.die1, t.die2});
  const std::string first(engine::to_string(r->first));
  table_outcome o;
  event(o,
        {{"event", "opening_roll"},
         {"red_die", r->red_die},
         {"black_die", r->black_die},
         {"ties", ties},
         {"side", first},
         {"dice", {m.current_game().dice().die1, m.current_game().dice().die2}}},
        "table.opening_roll",
        {{"red_die", std::to_string(r->red_die)},
         {"black_die", std::to_string(r->black_die)},
         {"ties", static_cast<std::int64_t>(r->ties.size())},
         {"name", player_name(r->first)},
         {"side", first},
         {"dice", roll_text(m.current_game().dice())}});
  return o;
}

table_outcome table::roll(side s) {
  const std::string me = player_name(s);
  const std::string colour(engine::to_string(s));
  auto r = match_->roll_dice(s, dice_for_roll());
  if (!r) return refuse(r.err());
  record_rolls();
  table_outcome o;
  event(o, {{"event", "rolled"}, {"side", colour}, {"dice", {r->dice.die1, r->dice.die2}}},
        "table.rolled", {{"name", me}, {"side", colour}, {"dice", roll_text(r->dice)}});
  if (r->passed) {
    record({record_action::kind::pass, s, r->dice, {}, 0, engine::win_kind::single});
    event(o, {{"event", "passed"}, {"side", colour}, {"dice", {r->dice.die1, r->dice.die2}}},
          "table.passed", {{"name", me}, {"dice", roll_text(r->dice)}});
  }
  return o;
}

table_outcome table::play(side s, const std::string& text) {
  auto& m = *match_;
  const std::string me = player_name(s);
  const std::string colour(engine::to_string(s));
  const engine::roll dice = m.current_game().dice();
  auto r = m.make_play(s, text);
  if (!r) return refuse(r.err());
  record({record_action::kind::play, s, dice, r->notation, 0, engine::win_kind::single});
  table_outcome o;
  event(o,
        {{"event", "moved"},
         {"side", colour},
         {"dice", {dice.die1, dice.die2}},
         {"play", r->notation}},
        "table.moved", {{"name", me}, {"side", colour}, {"play", r->notation}});
  if (r->game_over) {
    const auto& res = m.results().back();
    engine::game_end end{res, m.score(), m.phase() == engine::match_phase::match_over,
                         m.is_crawford_game()};
    after_game(o, end);
  }
  return o;
}

table_outcome table::offer_double(side s) {
  const std::string me = player_name(s);
  const std::string colour(engine::to_string(s));
  auto r = match_->offer_double(s);
  if (!r) return refuse(r.err());
  record({record_action::kind::double_offer, s, {}, {}, *r, engine::win_kind::single});
  table_outcome o;
  event(o, {{"event", "doubled"}, {"side", colour}, {"value", *r}}, "table.doubled",
        {{"name", me}, {"side", colour}, {"value", std::to_string(*r)}});
  return o;
}

table_outcome table::take(side s) {
  const std::string me = player_name(s);
  const std::string colour(engine::to_string(s));
  auto r = match_->take(s);
  if (!r) return refuse(r.err());
  record({record_action::kind::take, s, {}, {}, *r, engine::win_kind::single});
  table_outcome o;
  event(o, {{"event", "took"}, {"side", colour}, {"value", *r}}, "table.took",
        {{"name", me}, {"side", colour}, {"value", std::to_string(*r)}});
  return o;
}

table_outcome table::drop(side s) {
  const std::string me = player_name(s);
  const std::string colour(engine::to_string(s));
  auto r = match_->drop(s);
  if (!r) return refuse(r.err());
  record({record_action::kind::drop, s, {}, {}, 0, engine::win_kind::single});
  table_outcome o;
  event(o, {{"event", "dropped"}, {"side", colour}}, "table.dropped",
        {{"name", me}, {"side", colour}});
  after_game(o, *r);
  return o;
}

table_outcome table::offer_resignation(side s, engine::win_kind kind) {
  const std::string me = player_name(s);
  const std::string colour(engine::to_string(s));
  auto r = match_->offer_resignation(s, kind);
  if (!r) return refuse(r.err());
  record({record_action::kind::resign_offer, s, {}, {}, 0, kind});
  const std::string kind_name(engine::to_string(kind));
  table_outcome o;
  event(o, {{"event", "resign_offered"}, {"side", colour}, {"kind", kind_name}},
        "table.resign_offered",
        {{"name", me},
         {"side", colour},
         {"kind", kind_name},
         {"variant", engine::to_string(match_->options().game_variant)}});
  return o;
}

table_outcome table::answer_resignation(side s, bool accept) {
  auto& m = *match_;
  const std::string me = player_name(s);
  const std::string colour(engine::to_string(s));
  table_outcome o;
  if (accept) {
    const auto kind = m.pending_resignation()->kind;
    auto r = m.accept_resignation(s);
    if (!r) return refuse(r.err());
    record({record_action::kind::resign_accept, s, {}, {}, 0, kind});
    event(o, {{"event", "resign_accepted"}, {"side", colour}}, "table.resign_accepted",
          {{"name", me}});
    after_game(o, *r);
  } else {
    auto r = m.reject_resignation(s);
    if (!r) return refuse(r.err());
    record({record_action::kind::resign_reject, s, {}, {}, 0, r->kind});
    event(o, {{"event", "resign_rejected"}, {"side", colour}}, "table.resign_rejected",
          {{"name", me}});
  }
  return o;
}

table_outcome table::continue_session(side s) {
  auto& m = *match_;
  auto r = m.continue_session(s);
  if (!r) return refuse(r.err());
  table_outcome o;
  event(o, {{"event", "continued"}, {"side", engine::to_string(s)}}, "table.continued",
        {{"name", player_name(s)}});
  if (*r) {
    begin_game_record();
    // The same fields as every other game_started (PROTOCOL.md): a basis session
    // has no Crawford game, but the field is part of the event's contract.
    event(o,
          {{"event", "game_started"},
           {"game_number", m.game_number()},
           {"crawford", m.is_crawford_game()}},
          "table.game_started", {{"number", m.game_number()}, {"crawford", "no"}});
  }
  return o;
}

table_outcome table::stop_session(side s) {
  auto& m = *match_;
  const std::string me = player_name(s);
  auto r = m.stop_session(s);
  if (!r) return refuse(r.err());
  table_outcome o;
  session_stopped(o, s, "table.stopped", {{"name", me}});
  return o;
}

void table::session_stopped(table_outcome& o, side s, std::string key, json args) {
  auto& m = *match_;
  event(o, {{"event", "stopped"}, {"side", engine::to_string(s)}}, std::move(key), std::move(args));
  engine::game_end end{m.results().empty() ? engine::game_result{} : m.results().back(), m.score(),
                       true, false};
  after_game(o, end);  // only closes the match (no new game result)
}

// ------------------------------------------------------------------------------------
// After a game, after a match

void table::after_game(table_outcome& o, const engine::game_end& end) {
  auto& m = *match_;
  // A game result is announced unless this is a basis /stop (no new game ended).
  const bool new_result =
      record_ && !record_->games.empty() && !record_->games.back().result && !m.results().empty();
  if (new_result) announce_result(o, end);
  if (m.phase() == engine::match_phase::match_over) {
    finish_match(o);
  } else if (m.phase() == engine::match_phase::opening) {
    begin_game_record();
    event(o,
          {{"event", "game_started"},
           {"game_number", m.game_number()},
           {"crawford", m.is_crawford_game()}},
          "table.game_started",
          {{"number", m.game_number()}, {"crawford", m.is_crawford_game() ? "yes" : "no"}});
  } else if (m.phase() == engine::match_phase::game_over) {
    event(o, {{"event", "continue_question"}}, "table.continue_question", json::object());
  }
}

void table::announce_result(table_outcome& o, const engine::game_end& end) {
  const auto& m = *match_;
  const auto& res = m.results().back();
  record_->games.back().result = res;
  journal({{"op", "result"}, {"result", res}});
  const std::string winner(engine::to_string(res.winner));
  event(o,
        {{"event", "game_over"},
         {"winner", winner},
         {"kind", engine::to_string(res.kind)},
         {"reason", engine::to_string(res.reason)},
         {"points", res.points},
         {"score", {{"red", m.score()[0]}, {"black", m.score()[1]}}}},
        "table.game_over",
        {{"name", player_name(res.winner)},
         {"side", winner},
         {"how", how_won(m.options().kind, res)},
         {"reason", engine::to_string(res.reason)},
         {"points", res.points},
         {"variant", engine::to_string(m.options().game_variant)}});
  if (end.crawford_next) event(o, {{"event", "crawford"}}, "table.crawford_next", json::object());
}

std::int64_t table::archive_match(table_outcome& o) {
  record_->final_score = match_->score();
  record_->ended_at = hooks_.now ? hooks_.now() : std::string{};
  // S4: the match is over, so its seed is revealed (record, event, .mat header).
  if (match_dice_) {
    record_->dice.seed = derived_dice::to_hex(match_dice_->seed());
    record_->dice.player_seeds = match_dice_->player_seeds();
  }
  const std::int64_t id = std::exchange(match_id_, 0);  // the id the host gave
  record_->private_table = private_;  // read by its players and administrators only
  last_match_id_ = id;
  if (id > 0) {  // stored by the host with this change's snapshot
    o.finished_match = *record_;
    o.finished_match->id = id;
  }
  return id;
}

void table::finish_match(table_outcome& o) {
  const auto& m = *match_;
  const std::int64_t id = archive_match(o);
  const auto winner = m.match_winner();
  json e{{"event", "match_over"},
         {"winner", side_json(winner)},
         {"score", {{"red", m.score()[0]}, {"black", m.score()[1]}}}};
  // The winner's score first ("alice (black) wins the match 5-2"); a basis
  // session that ends gives red's first.
  if (winner) {
    const auto w = static_cast<std::size_t>(engine::index_of(*winner));
    i18n::with_say(e, "table.match_won",
                   {{"name", player_name(*winner)},
                    {"side", engine::to_string(*winner)},
                    {"score", score_text(m.score()[w], m.score()[1 - w])}});
  } else {
    i18n::with_say(e, "table.session_ended", {{"score", score_text(m.score()[0], m.score()[1])}});
  }
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
  free_absent_seats(o);
}

void table::free_absent_seats(table_outcome& o) {
  // S3: the seats of a finished match are free again for those who are not here.
  for (side s : {side::red, side::black}) {
    auto& st = seats_[static_cast<std::size_t>(engine::index_of(s))];
    if (!st || st->present) continue;
    const std::string gone = st->name;
    st.reset();
    event(o, {{"event", "left"}, {"name", gone}, {"side", engine::to_string(s)}},
          "table.seat_freed", {{"name", gone}, {"side", engine::to_string(s)}});
  }
}

// ------------------------------------------------------------------------------------
// The dice (S4)

table_outcome table::seed(side s, const std::string& text) {
  if (!in_match() || !match_dice_)
    return refuse("wrong_phase", "table.seed_wrong_phase", json::object());
  if (match_dice_->rolling()) return refuse("seed_locked", "table.seed_locked", json::object());
  if (text.size() > hooks_.max_seed_bytes)
    return refuse("too_long", "table.seed_too_long",
                  {{"count", static_cast<std::int64_t>(hooks_.max_seed_bytes)}});
  match_dice_->set_player_seed(s, text);
  if (record_) record_->dice.player_seeds[static_cast<std::size_t>(engine::index_of(s))] = text;
  journal({{"op", "seed"}, {"side", s}, {"text", text}});
  table_outcome o;
  event(o, {{"event", "seeded"}, {"side", engine::to_string(s)}, {"seed", text}}, "table.seeded",
        {{"name", player_name(s)}, {"side", engine::to_string(s)}, {"seed", text}});
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

}  // namespace bg::server
