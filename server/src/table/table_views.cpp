/// @file table_views.cpp
/// What the table shows: the `state` message every change sends (state_text), the
/// lobby's summary of the table, and the answers to the questions that change nothing
/// (/board, /who, /help, /options, /export, /analysis).

#include <algorithm>
#include <string_view>

#include "bg/engine/board.hpp"
#include "bg/engine/notation.hpp"
#include "bg/engine/position_id.hpp"
#include "bg/protocol/help_pages.hpp"
#include "bg/server/table/table.hpp"
#include "table_internal.hpp"

namespace bg::server {

using engine::side;
using nlohmann::json;
using writer = protocol::json_writer;
using table_detail::write_game_result;
using table_detail::write_side;

namespace {

/// options_json() with `private` (as `state` and the lobby's summary carry it), written
/// straight into `w` in nlohmann's key order.
void write_options(writer& w, const engine::match_options& o, bool is_private, bool tutor,
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

/// {"black": black, "red": red}: the state's pairs by side, in nlohmann's key order.
template <typename Black, typename Red>
void write_red_black(writer& w, const Black& black, const Red& red) {
  w.begin_object().key("black").value(black).key("red").value(red).end_object();
}

/// The name of the player on a seat, or null for a free seat.
void write_seat_name(writer& w, const std::optional<seat>& st) {
  if (st) {
    w.value(st->name);
  } else {
    w.null();
  }
}

/// The level of the computer player on a seat ("expert"), or null (a person, or free).
void write_seat_bot(writer& w, const std::optional<seat>& st) {
  if (st && !st->bot.empty()) {
    w.value(st->bot);
  } else {
    w.null();
  }
}

/// {"black": ..., "red": ...}: `write_one` writes what each seat shows (write_seat_name,
/// write_seat_bot).
template <typename WriteOne>
void write_by_seat(writer& w, const std::array<std::optional<seat>, 2>& seats, WriteOne write_one) {
  w.begin_object().key("black");
  write_one(w, seats[1]);
  w.key("red");
  write_one(w, seats[0]);
  w.end_object();
}

/// `text`, or null when it is empty (the owner before anybody came).
void write_text_or_null(writer& w, const std::string& text) {
  if (text.empty()) {
    w.null();
  } else {
    w.value(text);
  }
}

/// `state.board`: the checkers on the bar, borne off and on each of the 24 points.
void write_board(writer& w, const engine::board_view& b) {
  w.key("board").begin_object();
  w.key("bar");
  write_red_black(w, b.bar[1], b.bar[0]);
  w.key("off");
  write_red_black(w, b.off[1], b.off[0]);
  w.key("points").begin_array();
  for (const int n : b.points) w.value(n);
  w.end_array().end_object();
}

/// `state.legal` (each legal play in the variant's notation) and `state.legal_moves`
/// (each play's moves as {"from", "hit", "to"}, board points, "bar" or "off"), both
/// empty unless `listed`.
void write_legal_plays(writer& w, const engine::game& g, engine::variant v, bool listed) {
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
}

/// `state.resign`: the resignation pending in match `m` {"by", "kind"}, or null (none, or
/// no match).
void write_resignation(writer& w, const std::optional<engine::match>& m) {
  w.key("resign");
  if (m && m->pending_resignation()) {
    const auto& r = *m->pending_resignation();
    w.begin_object()
        .key("by")
        .value(engine::to_string(r.by))
        .key("kind")
        .value(engine::to_string(r.kind))
        .end_object();
  } else {
    w.null();
  }
}

}  // namespace

// ------------------------------------------------------------------------------------
// The state

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
  return write_state(with_legal, nullptr);
}

std::pair<std::string, std::string> table::state_texts() const {
  std::pair<std::size_t, std::size_t> legal;
  std::string full = write_state(true, &legal);
  if (!lists_legal()) return {full, full};  // the same text: nothing listed, or one forced play
  std::string lean;
  lean.reserve(full.size());
  lean.append(full, 0, legal.first);
  lean += R"(,"legal":[],"legal_moves":[])";
  lean.append(full, legal.second);
  return {std::move(full), std::move(lean)};
}

std::string table::write_state(bool with_legal, std::pair<std::size_t, std::size_t>* legal) const {
  const auto& opts = match_ ? match_->options() : options_;
  const engine::variant v = opts.game_variant;
  std::optional<engine::game> fresh;  // the board before a match (issue 33: only then)
  if (!match_) fresh.emplace(v);
  const engine::game& g = match_ ? match_->current_game() : *fresh;
  const bool playing = match_.has_value();
  const auto phase = playing ? match_->phase() : engine::match_phase::opening;
  const bool has_turn = playing && phase != engine::match_phase::opening &&
                        phase != engine::match_phase::match_over &&
                        phase != engine::match_phase::game_over;
  const bool moving = playing && phase == engine::match_phase::move;
  const bool listed = moving && (with_legal || g.legal().size() == 1);

  writer w(listed ? 8192 : 2048);
  w.begin_object();
  const auto b = g.board();
  write_board(w, b);
  w.key("bot_thinking").value(bot_thinking());
  w.key("bots");
  write_by_seat(w, seats_, write_seat_bot);
  write_clock_state(w);
  write_cube_and_dice(w, g, phase, moving);
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
    write_game_result(w, match_->results().back());
  }
  if (legal) legal->first = w.size();  // before the comma ahead of "legal"
  write_legal_plays(w, g, v, listed);
  if (legal) legal->second = w.size();
  w.key("match_id").value(playing ? match_->id() : std::string{});
  w.key("match_length").value(opts.kind == engine::match_kind::points ? opts.length : 0);
  w.key("may_double").value(playing && has_turn && match_->may_double(g.turn()));
  w.key("options");
  write_options(w, options_, private_, tutor_, clock_option_);
  w.key("owner");  // issue 13
  write_text_or_null(w, owner_);
  w.key("phase").value(playing ? engine::to_string(phase) : std::string_view{"waiting"});
  w.key("pips");
  write_red_black(w, b.pips[1], b.pips[0]);
  w.key("players");
  write_by_seat(w, seats_, write_seat_name);
  w.key("position_id").value(engine::position_id(g.current()));
  w.key("present");
  write_red_black(w, seats_[1] && seats_[1]->present, seats_[0] && seats_[0]->present);
  write_ratings(w, v);
  write_resignation(w, match_);
  const auto score = playing ? match_->score() : std::array<int, 2>{0, 0};
  w.key("score");
  write_red_black(w, score[1], score[0]);
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

void table::write_clock_state(protocol::json_writer& w) const {
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
}

void table::write_cube_and_dice(protocol::json_writer& w, const engine::game& g,
                                engine::match_phase phase, bool moving) const {
  const bool playing = match_.has_value();
  const auto& opts = playing ? match_->options() : options_;
  if (playing && phase == engine::match_phase::game_over) {
    w.key("continuing");
    write_red_black(w, match_->continuing()[1], match_->continuing()[0]);
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
}

void table::write_ratings(protocol::json_writer& w, engine::variant v) const {
  // issue 12: the ratings of the registered names here, in the table's variant, by name
  // (sorted, each once, as a json object keeps them).
  w.key("ratings").begin_object();
  if (hooks_.rating_of) {
    // Issue 33: looked up again only when a rating or the names here may have changed:
    // a lookup folds the name's case and takes the ratings' lock, per name per change.
    const std::uint64_t version = hooks_.ratings_version ? hooks_.ratings_version() : 0;
    const auto same_names = [&](const std::vector<std::string>& names) {
      std::size_t i = 0;
      for (const auto& st : seats_) {
        if (!st) continue;
        if (i >= names.size() || names[i] != st->name) return false;
        ++i;
      }
      for (const auto& who : spectators_) {
        if (i >= names.size() || names[i] != who) return false;
        ++i;
      }
      return i == names.size();
    };
    if (!hooks_.ratings_version || !ratings_seen_ || ratings_seen_->version != version ||
        ratings_seen_->game_variant != v || !same_names(ratings_seen_->names)) {
      ratings_seen seen{version, v, {}, {}};
      const auto add = [&](const std::string& who) {
        seen.names.push_back(who);
        if (const auto r = hooks_.rating_of(who, v)) seen.ratings.emplace_back(who, *r);
      };
      for (const auto& st : seats_)
        if (st) add(st->name);
      for (const auto& who : spectators_) add(who);
      std::stable_sort(seen.ratings.begin(), seen.ratings.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      seen.ratings.erase(
          std::unique(seen.ratings.begin(), seen.ratings.end(),
                      [](const auto& x, const auto& y) { return x.first == y.first; }),
          seen.ratings.end());
      ratings_seen_ = std::move(seen);
    }
    for (const auto& [who, rating] : ratings_seen_->ratings) w.key(who).value(rating);
  }
  w.end_object();
}

// ------------------------------------------------------------------------------------
// The lobby's summary

json table::summary() const {
  return json::parse(summary_text());
}

std::string table::summary_text() const {
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
  write_text_or_null(w, owner_);
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
// Questions that change nothing

table_outcome table::query(const protocol::command& c) {
  using k = protocol::command_kind;
  table_outcome o;
  switch (c.kind) {
    case k::board:
      o.out.push_back(delivery{delivery::audience::actor, state()});
      return o;
    case k::who: {
      json data{
          {"red", seats_[0] ? json(seats_[0]->name) : json(nullptr)},
          {"black", seats_[1] ? json(seats_[1]->name) : json(nullptr)},
          {"bots", bots_json()},
          {"spectators", json(std::vector<std::string>(spectators_.begin(), spectators_.end()))}};
      // Who sits there: "free", "bot" (a computer player) or "person".
      const auto seated = [](const std::optional<seat>& st) {
        if (!st) return "free";
        return st->bot.empty() ? "person" : "bot";
      };
      data["owner"] = owner_.empty() ? json(nullptr) : json(owner_);
      json args{{"red", seats_[0] ? seats_[0]->name : std::string()},
                {"red_seat", seated(seats_[0])},
                {"black", seats_[1] ? seats_[1]->name : std::string()},
                {"black_seat", seated(seats_[1])},
                {"count", static_cast<std::int64_t>(spectators_.size())},
                {"owner", owner_},
                {"has_owner", owner_.empty() ? "no" : "yes"}};
      said_info(o, "who", "table.who", std::move(args), data);
      return o;
    }
    case k::help: {
      const auto key = protocol::help_key(c.text);
      if (!key)
        return refuse("unknown_command", "table.no_help", {{"topic", c.text.substr(0, 20)}});
      said_info(o, "help", std::string(*key), json::object());
      return o;
    }
    case k::option_show:
      said_info(o, "options", "table.options", options_args(""),
                table_detail::options_json(options_, tutor_, clock_option_));
      return o;
    case k::export_match: {
      if (last_match_id_ == 0) return refuse("no_match", "table.no_match", json::object());
      const std::string url = "/matches/" + std::to_string(last_match_id_) + ".mat";
      said_info(o, "export", "table.export", {{"url", url}},
                json{{"match_id", last_match_id_}, {"url", url}});
      return o;
    }
    case k::analysis: {
      // Issue 14: the analysis lives in storage; the host reads it and answers.
      std::int64_t id = last_match_id_;
      if (!c.text.empty()) id = std::stoll(c.text);  // the grammar allows 1..18 digits
      if (id == 0) return refuse("no_match", "table.no_match_analysis", json::object());
      o.analysis_of = id;
      return o;
    }
    case k::tables:
      return refuse("wrong_place", "table.tables_in_lobby", json::object());
    default:
      return o;  // not a question: handle_impl sends none here
  }
}

}  // namespace bg::server
