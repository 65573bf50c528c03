/// @file table_snapshot.cpp
/// The snapshot written with every change (snapshot_text, version 2) and the table
/// rebuilt from it and the record journal after a restart or a rollback (restore).

#include <algorithm>
#include <stdexcept>

#include "bg/engine/position_id.hpp"
#include "bg/server/players/names.hpp"
#include "bg/server/records/record_json.hpp"
#include "bg/server/table/table.hpp"
#include "table_internal.hpp"

namespace bg::server {

using engine::side;
using nlohmann::json;
using writer = protocol::json_writer;
using table_detail::write_game_result;
using table_detail::write_side;

// ------------------------------------------------------------------------------------
// The snapshot

namespace {

/// `t`, or null.
void write_text_or_null(writer& w, const std::optional<std::string>& t) {
  if (t) {
    w.value(*t);
  } else {
    w.null();
  }
}

/// Match options as to_json(match_options) writes them: {"kind", "length", "variant"}.
void write_match_options(writer& w, const engine::match_options& o) {
  w.begin_object()
      .key("kind")
      .value(engine::to_string(o.kind))
      .key("length")
      .value(o.length)
      .key("variant")
      .value(engine::to_string(o.game_variant))
      .end_object();
}

/// The match's clocks (S2): both banks and the delay in ms, the delay the running
/// action has left, the running side, `since` (table_hooks::clock_ms time), `timed`.
void write_clock(writer& w, const match_clock& c) {
  w.begin_object()
      .key("bank")
      .begin_array()
      .value(c.bank(side::red))
      .value(c.bank(side::black))
      .end_array()
      .key("delay")
      .value(c.delay())
      .key("delay_left")
      .value(c.delay_left())
      .key("running");
  write_side(w, c.running());
  w.key("since").value(c.since()).key("timed").value(c.is_timed()).end_object();
}

/// The match's dice (S4): the game they roll for, the next roll's number, the players'
/// own seeds and the match's seed in hex (the snapshot is never shown to players).
void write_dice(writer& w, const derived_dice& d) {
  w.begin_object()
      .key("game")
      .value(d.game())
      .key("next_k")
      .value(d.next_k())
      .key("player_seeds")
      .begin_array();
  for (const auto& seed : d.player_seeds()) w.value(seed);
  w.end_array().key("seed").value(derived_dice::to_hex(d.seed())).end_object();
}

/// The game in play (game_json()): its dice, phase, Position ID, result, turn and the
/// number of turns played.
void write_game(writer& w, const engine::game& g) {
  w.begin_object();
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
    write_game_result(w, *g.result_of_game());
  } else {
    w.null();
  }
  w.key("turn").value(engine::to_string(g.turn()));
  w.key("turns").value(g.turn_number()).end_object();
}

/// The match: who continues (basis), the Crawford game, the cube, the game in play, the
/// options, the phase, a pending resignation, the results so far and the score.
void write_match(writer& w, const engine::match& m) {
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
  w.key("game");
  write_game(w, m.current_game());
  w.key("game_number").value(m.game_number());
  w.key("options");
  write_match_options(w, m.options());
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
  for (const auto& r : m.results()) write_game_result(w, r);
  w.end_array();
  w.key("score").begin_array().value(m.score()[0]).value(m.score()[1]).end_array();
  w.end_object();
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
  const auto bot_of = [](const std::optional<seat>& st) {
    return st && !st->bot.empty() ? std::optional<std::string>(st->bot) : std::nullopt;
  };
  const auto name_of = [](const std::optional<seat>& st) {
    return st ? std::optional<std::string>(st->name) : std::nullopt;
  };

  writer w(1024);
  w.begin_object();
  w.key("bots").begin_object().key("black");
  write_text_or_null(w, bot_of(seats_[1]));
  w.key("red");
  write_text_or_null(w, bot_of(seats_[0]));
  w.end_object();
  w.key("clock");
  if (clock_) {
    write_clock(w, *clock_);
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
    write_dice(w, *match_dice_);
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
    write_match(w, *match_);
  } else {
    w.null();
  }
  w.key("matches_started").value(matches_started_);
  w.key("name").value(name_);
  w.key("options");
  write_match_options(w, options_);
  w.key("owner").value(owner_);
  w.key("private").value(private_);
  w.key("seats").begin_array();
  for (const auto& st : seats_) write_text_or_null(w, name_of(st));
  w.end_array();
  w.key("seq").value(seq_);
  w.key("token_hashes").begin_array();
  for (const auto& t : token_hashes) write_text_or_null(w, t);
  w.end_array();
  w.key("tutor").value(tutor_);
  w.key("version").value(2);
  w.end_object();
  return w.release();
}

// ------------------------------------------------------------------------------------
// Restore

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

/// The game in play of variant `v` from the snapshot's `match.game` (write_game()); an
/// error "bad_snapshot" when its position or phase is not one. Throws (std::invalid_argument
/// or a json exception) when a field is missing or of the wrong type.
engine::result<engine::game> game_from(const json& gj, engine::variant v) {
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
  auto g =
      engine::game::restore(v, gp, side_from(gj.at("turn")),
                            engine::roll{dice_json.at(0).get<int>(), dice_json.at(1).get<int>()},
                            *pos, gj.at("turns").get<int>(), result);
  if (!g) return engine::make_error("bad_snapshot", g.err().message);
  return g;
}

/// The match from the snapshot's `match` (write_match()); an error "bad_snapshot" when
/// its game is not one. Throws when a field is missing or of the wrong type.
engine::result<engine::match> match_from(const json& mj) {
  const auto options = mj.at("options").get<engine::match_options>();
  auto g = game_from(mj.at("game"), options.game_variant);
  if (!g) return g.err();
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
  return engine::match::restore(options, match_phase_from(mj.at("phase").get<std::string>()),
                                std::move(*g), c, mj.at("score").get<std::array<int, 2>>(),
                                mj.at("game_number").get<int>(), mj.at("crawford_game").get<bool>(),
                                mj.at("crawford_done").get<bool>(), pending,
                                mj.at("continuing").get<std::array<bool, 2>>(),
                                mj.at("results").get<std::vector<engine::game_result>>());
}

}  // namespace

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
    if (auto refused = t->restore_moderation(snap)) return std::move(*refused);
    if (auto refused = t->restore_clock_and_dice(snap)) return std::move(*refused);
    t->restore_seats(snap);
    t->last_match_id_ = snap.at("last_match_id").get<std::int64_t>();
    t->seq_ = snap.at("seq").get<std::uint64_t>();
    if (!snap.at("match").is_null()) {
      auto m = match_from(snap.at("match"));
      if (!m) return m.err();
      t->match_.emplace(std::move(*m));
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
    t->restore_presence(present);
    t->complete_old_match();
    return t;
  } catch (const std::exception& e) {
    return engine::make_error("bad_snapshot",
                              std::string("the saved table is damaged: ") + e.what());
  }
}

std::optional<engine::error> table::restore_moderation(const json& snap) {
  // Written since moderation (issue 13; absent in older snapshots: no owner yet, the
  // first person back becomes it).
  owner_ = snap.value("owner", std::string{});
  private_ = snap.value("private", false);
  const auto max_name = hooks_.max_name_bytes;
  const auto valid = [max_name](const std::string& n) { return !name_problem(n, max_name); };
  if (!owner_.empty() && !valid(owner_))
    return engine::make_error("bad_snapshot", "the saved owner is not a name");
  if (const auto it = snap.find("invited"); it != snap.end() && it->is_array())
    for (const auto& n : *it) {
      const auto guest = n.get<std::string>();
      if (!valid(guest))
        return engine::make_error("bad_snapshot", "a saved invitation is not a name");
      invited_[name_key(guest)] = guest;
    }
  if (const auto it = snap.find("kicked"); it != snap.end() && it->is_array())
    for (const auto& k : *it) {
      const auto barred = k.at("name").get<std::string>();
      if (!valid(barred)) return engine::make_error("bad_snapshot", "a saved kick is not a name");
      kicked_[name_key(barred)] = kick_bar{barred, k.at("until_ms").get<std::int64_t>()};
    }
  return std::nullopt;
}

std::optional<engine::error> table::restore_clock_and_dice(const json& snap) {
  if (const auto it = snap.find("clock"); it != snap.end() && !it->is_null()) {
    const auto& cj = *it;
    clock_ = match_clock::restore(
        cj.at("timed").get<bool>(), cj.at("bank").get<std::array<std::int64_t, 2>>(),
        cj.at("delay").get<std::int64_t>(), cj.at("delay_left").get<std::int64_t>(),
        optional_side_from(cj.at("running")), cj.at("since").get<std::int64_t>());
  }
  if (const auto it = snap.find("dice"); it != snap.end() && !it->is_null()) {
    const auto& dj = *it;
    const auto seed = derived_dice::seed_from_hex(dj.at("seed").get<std::string>());
    if (!seed) return engine::make_error("bad_snapshot", "the saved dice seed is damaged");
    match_dice_.emplace(*seed, dj.at("player_seeds").get<std::array<std::string, 2>>(),
                        dj.at("game").get<int>(), dj.at("next_k").get<std::uint32_t>());
  }
  return std::nullopt;
}

void table::restore_seats(const json& snap) {
  const auto& seats = snap.at("seats");
  for (std::size_t i = 0; i < 2; ++i)
    if (!seats.at(i).is_null()) seats_[i] = seat{seats.at(i).get<std::string>(), false, 0, {}};
  if (const auto b = snap.find("bots"); b != snap.end() && b->is_object()) {
    // issue 14: a computer player's seat and level survive a restart.
    for (side s : {side::red, side::black}) {
      const auto& level = b->at(engine::to_string(s));
      auto& st = seats_[static_cast<std::size_t>(engine::index_of(s))];
      if (!level.is_null() && st) st->bot = level.get<std::string>();
    }
  }
}

void table::restore_presence(const std::vector<std::string>& present) {
  // Nobody is present after a restart, and outside a match a seat is not kept for an
  // absent player (exit() would have freed it).
  // A rollback keeps the seats of those present, who are at the table still.
  for (auto& st : seats_) {
    if (st && !st->bot.empty()) {  // a computer player is always there
      st->present = true;
      continue;
    }
    const bool here = st && std::find(present.begin(), present.end(), st->name) != present.end();
    if (st) st->present = here;
    if (st && !here) st->absent_since_ms = now();  // the grace period starts again
    if (st && !here && !in_match()) st.reset();
  }
  if (!in_match() && !person_seated())
    for (auto& st : seats_) st.reset();  // no computer player sits alone
  for (const auto& who : present) {
    if (!seat_of(who)) spectators_.insert(who);
    arrived_[who] = ++arrivals_;
  }
}

void table::complete_old_match() {
  // A match saved before clocks and derived dice existed goes on with the idle limit
  // (no clock) and with dice derived from a seed drawn now; its record has no
  // commitment, so it is not called verifiable.
  if (in_match() && !clock_) {
    clock_ = match_clock::untimed(now());
    clock_->start(waiting_on(), now());
  }
  if (in_match() && !match_dice_ && hooks_.match_seed)
    match_dice_.emplace(hooks_.match_seed(name_, matches_started_++), std::array<std::string, 2>{},
                        match_->game_number(), 0U);
}

}  // namespace bg::server
