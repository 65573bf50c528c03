/// @file table_clock.cpp
/// The clocks (RULES.md S2: banks, the delay, a loss on time), the side the match waits
/// for, and abandonment (S3: the grace period of an absent player, the idle limit,
/// /claim and the forfeits they lead to).

#include "bg/server/table/table.hpp"
#include "table_internal.hpp"

namespace bg::server {

using engine::side;
using nlohmann::json;
using table_detail::add_duration_args;
using table_detail::what_is_lost;

// ------------------------------------------------------------------------------------
// The clocks (S2)

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
  event(o, {{"event", "out_of_time"}, {"side", colour}, {"name", player_name(s)}},
        "table.out_of_time", {{"name", player_name(s)}, {"side", colour}, {"lost", lost}});
  if (m.phase() == engine::match_phase::game_over) {
    // Between basis games: the one the session waited for ends it.
    (void)m.stop_session(s);
    session_stopped(o, s, "table.session_out_of_time", {{"name", player_name(s)}});
    return o;
  }
  auto r = m.forfeit(s, engine::end_reason::time);
  if (!r) return o;
  record({record_action::kind::forfeit, s, {}, {}, 0, r->result.kind});
  after_game(o, *r);
  return o;
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
// Abandonment (S3)

table_outcome table::claim(side claimer) {
  if (!in_match()) return refuse("nothing_to_claim", "table.nothing_to_claim", json::object());
  const side them = engine::opponent_of(claimer);
  const auto& st = seats_[static_cast<std::size_t>(engine::index_of(them))];
  const std::string name = player_name(them);
  const std::string lost = what_is_lost(match_->options().kind);
  const std::int64_t t = now();
  // A computer player is never claimed against (issue 25): it is present, and a slow
  // answer is the server's load (its queue), not the bot leaving the game.
  if (st && !st->bot.empty())
    return refuse("bot_thinking", "table.bot_not_claimable", {{"name", name}});
  if (st && !st->present) {
    const std::int64_t away = t - st->absent_since_ms;
    if (away < hooks_.grace_period_ms) {
      json args{{"name", name}};
      add_duration_args(args, "away", away);
      add_duration_args(args, "grace", hooks_.grace_period_ms);
      return refuse("claim_too_early", "table.claim_too_early_absent", args);
    }
    return forfeit_impl(them, "absent", "table.forfeit_absent", {{"name", name}, {"lost", lost}});
  }
  if (clock_ && clock_->is_timed())
    return refuse("nothing_to_claim", "table.claim_clock_running", {{"name", name}});
  if (waiting_on() != them)
    return refuse("nothing_to_claim",
                  waiting_on() == claimer ? "table.claim_your_turn" : "table.claim_not_waited",
                  {{"name", name}});
  const std::int64_t waited = clock_ ? clock_->waited(t) : 0;
  json args{{"name", name}};
  add_duration_args(args, "waited", waited);
  if (waited < hooks_.idle_limit_ms) {
    add_duration_args(args, "limit", hooks_.idle_limit_ms);
    return refuse("claim_too_early", "table.claim_too_early_idle", args);
  }
  args["claimer"] = player_name(claimer);
  args["lost"] = lost;
  return forfeit_impl(them, "idle", "table.forfeit_idle", std::move(args));
}

table_outcome table::forfeit_impl(side s, const std::string& why, const std::string& key,
                                  const json& args) {
  table_outcome o;
  if (!in_match()) return o;
  auto& m = *match_;
  if (m.phase() == engine::match_phase::game_over) {
    // Between basis games a player who is gone (or idle) ends the session.
    (void)m.stop_session(s);
    session_stopped(o, s, key, args);
    return o;
  }
  auto r = m.forfeit(s);
  if (!r) return o;
  record({record_action::kind::forfeit, s, {}, {}, 0, r->result.kind});
  event(o, {{"event", "forfeit"}, {"side", engine::to_string(s)}, {"why", why}}, key, args);
  after_game(o, *r);
  return o;
}

}  // namespace bg::server
