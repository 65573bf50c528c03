// Clocks, the idle limit and verifiable dice at a table with no sockets (issue 13;
// RULES.md S2, S3, S4). Time is a fake clock the test moves by hand: a 1-minute bank
// runs out without the test sleeping.
#include <catch2/catch.hpp>

#include <random>

#include <nlohmann/json.hpp>

#include "bg/protocol/command.hpp"
#include "bg/server/dice/derived_dice.hpp"
#include "bg/server/dice/dice_verdict.hpp"
#include "bg/server/records/record_json.hpp"
#include "bg/server/table/match_clock.hpp"
#include "bg/server/table/table.hpp"

using namespace bg::server;
using bg::engine::side;
using nlohmann::json;

namespace {

constexpr std::int64_t start_ms = 1'700'000'000'000;  // any epoch time

/// A table whose matches derive their dice from test seeds, with a clock the test moves.
struct clocked_table {
  std::int64_t now = start_ms;
  std::uint64_t dice_seed = 1;
  std::vector<match_record> archived;
  std::vector<json> journal;  ///< the record journal as a host keeps it
  std::unique_ptr<table> t = std::make_unique<table>("t1", hooks());

  table_hooks hooks() {
    table_hooks h{[] { return std::string("2026-11-23T00:00:00Z"); }, 500};
    h.clock_ms = [this] { return now; };
    h.match_seed = [this](const std::string& name, std::uint64_t n) {
      return derived_dice::test_seed(dice_seed, name, n);
    };
    return h;
  }
  /// Keeps what a host keeps of an outcome: the journal, the finished match; then gives
  /// a match just begun its id (1, 2, ...), as table_actor does after every call.
  table_outcome keep(table_outcome o) {
    if (o.record_reset) journal.clear();
    journal.insert(journal.end(), o.record_log.begin(), o.record_log.end());
    if (o.finished_match) archived.push_back(*o.finished_match);
    if (t->wants_match_id()) t->give_match_id(static_cast<std::int64_t>(archived.size()) + 1);
    return o;
  }
  table_outcome say(const std::string& who, const std::string& line) {
    auto c = bg::protocol::parse_line(line);
    REQUIRE(c.ok());
    return keep(t->handle(who, *c));
  }
  void ok(const std::string& who, const std::string& line) {
    const auto o = say(who, line);
    INFO(who << ": " << line << " -> " << (o.refused ? o.refused->message : ""));
    REQUIRE_FALSE(o.refused);
  }
  std::string refused(const std::string& who, const std::string& line) {
    const auto o = say(who, line);
    INFO(who << ": " << line);
    REQUIRE(o.refused);
    return o.refused->code;
  }
  /// alice red, bob black, the options set, /start (no opening roll yet).
  void start(const std::vector<std::string>& options) {
    keep(t->enter("alice"));
    keep(t->enter("bob"));
    ok("alice", "/join red");
    ok("bob", "/join black");
    for (const auto& o : options) ok("alice", o);
    ok("alice", "/start");
  }
  json state() const { return t->state(); }
  std::string name_of(const std::string& s) const {
    return state()["players"][s].get<std::string>();
  }
  /// The name of the player the table waits for.
  std::string to_act() const { return name_of(state()["to_act"].get<std::string>()); }
  /// Rolls (when the phase is roll) and plays the first legal play, as the side on turn.
  void play_turn() {
    if (state()["phase"] == "roll") ok(to_act(), "/roll");
    const auto st = state();
    if (st["phase"] != "move") return;
    ok(to_act(), "/move " + st["legal"][0].get<std::string>());
  }
};

/// The events named `name` in an outcome.
std::vector<json> events_named(const table_outcome& o, const std::string& name) {
  std::vector<json> out;
  for (const auto& d : o.out)
    if (d.message.value("event", "") == name) out.push_back(d.message);
  return out;
}

}  // namespace

// ------------------------------------------------------------------------------------
// S2 clocks

TEST_CASE("S2 a stalled player loses the match on time with a 1-minute bank and a 2 s delay",
          "[server][table][clock]") {
  // Given a match to 3 with a 1-minute bank and a 2-second delay, after the opening roll.
  clocked_table f;
  f.start({"/option match 3", "/option clock 1 2"});
  auto st = f.state();
  CHECK(st["options"]["clock"] == json({{"minutes", 1}, {"delay", 2}}));
  CHECK(st["clock"]["running"].is_null());  // the opening roll: either player may roll
  CHECK(st["clock"]["red"] == 60'000);
  CHECK(st["clock"]["black"] == 60'000);
  f.ok("bob", "/roll");
  st = f.state();
  const std::string stalled = st["turn"].get<std::string>();
  const std::string other = stalled == "red" ? "black" : "red";
  CHECK(st["clock"]["running"] == stalled);
  CHECK(st["clock"]["since"] == start_ms);
  CHECK(st["clock"]["delay_ms"] == 2'000);
  REQUIRE(f.t->clock_expiry() == start_ms + 2'000 + 60'000);

  // When the player on turn does nothing for 61.999 s, nothing happens yet...
  f.now = start_ms + 61'999;
  const auto early = f.keep(f.t->check_clock());
  CHECK_FALSE(early.changed);
  CHECK(f.state()["phase"] == "move");

  // ...and at 62 s (the delay, then the whole bank) the bank is empty.
  f.now = start_ms + 62'000;
  const auto late = f.keep(f.t->check_clock());

  // Then that player loses the match on time (S2): recorded as a loss on time.
  REQUIRE(late.changed);
  const auto out = events_named(late, "out_of_time");
  REQUIRE(out.size() == 1);
  CHECK(out[0]["side"] == stalled);
  const auto over = events_named(late, "game_over");
  REQUIRE(over.size() == 1);
  CHECK(over[0]["reason"] == "time");
  CHECK(over[0]["winner"] == other);
  CHECK(over[0]["kind"] == "backgammon");  // S3 scoring: no checker borne off
  const auto match_over = events_named(late, "match_over");
  REQUIRE(match_over.size() == 1);
  CHECK(match_over[0]["winner"] == other);
  st = f.state();
  CHECK(st["phase"] == "match_over");
  CHECK(st["last_result"]["reason"] == "time");
  CHECK(st["clock"][stalled] == 0);
  CHECK(st["clock"][other] == 60'000);
  CHECK(st["clock"]["running"].is_null());
  REQUIRE(f.archived.size() == 1);
  CHECK(f.archived[0].games.back().result->reason == bg::engine::end_reason::time);
  CHECK_FALSE(f.t->clock_expiry());
}

TEST_CASE("S2 the delay is spent before the bank, and unused delay is lost",
          "[server][table][clock]") {
  // Given a free game with a 1-minute bank and a 12-second delay, after the opening roll.
  clocked_table f;
  f.start({"/option clock 1 12"});
  f.ok("alice", "/roll");
  const std::string first = f.state()["turn"].get<std::string>();
  const std::string second = first == "red" ? "black" : "red";

  // When the first player plays within the delay (10 s), the bank is untouched and the
  // 2 s of delay left are not banked.
  f.now += 10'000;
  f.play_turn();
  auto st = f.state();
  CHECK(st["clock"][first] == 60'000);
  CHECK(st["clock"]["running"] == second);
  CHECK(st["clock"]["since"] == f.now);

  // When the second player takes 15 s to roll, 3 s come out of the bank; the play
  // after it is a new action with a fresh delay: 5 s more cost nothing.
  f.now += 15'000;
  f.ok(f.to_act(), "/roll");
  st = f.state();
  REQUIRE(st["phase"] == "move");  // these dice (test seed 1) give a play
  CHECK(st["clock"][second] == 57'000);
  CHECK(st["clock"]["running"] == second);
  CHECK(st["clock"]["delay_ms"] == 12'000);
  f.now += 5'000;
  f.ok(f.to_act(), "/move " + st["legal"][0].get<std::string>());
  st = f.state();
  // Then the second player's bank lost exactly the 3 s past the first delay.
  CHECK(st["clock"][second] == 57'000);
  CHECK(st["clock"][first] == 60'000);

  // And a chat line or a spectator does not give the running side a new delay.
  f.keep(f.t->enter("carol"));
  f.now += 20'000;
  f.ok("carol", "hello");
  CHECK(f.t->clock_expiry() == f.state()["clock"]["since"].get<std::int64_t>() + 12'000 +
                                   f.state()["clock"][first].get<std::int64_t>());
}

TEST_CASE("S2 a restore charges no downtime, a graceful stop keeps the time used until then",
          "[server][table][clock]") {
  clocked_table f;
  f.start({"/option match 5", "/option clock 1 2"});
  f.ok("bob", "/roll");
  const std::string running = f.state()["turn"].get<std::string>();

  SECTION("kill -9: the time since the last written change is not charged") {
    // Given the snapshot of the last change, written at start_ms.
    const json snap = f.t->snapshot();
    // When the server comes back an hour later.
    f.now = start_ms + 3'600'000;
    auto back = table::restore(snap, f.hooks(), f.journal);
    REQUIRE(back.ok());
    (*back)->resume_clock();
    // Then the running side has the whole bank and a fresh delay from now.
    const auto st = (*back)->state();
    CHECK(st["clock"]["running"] == running);
    CHECK(st["clock"][running] == 60'000);
    CHECK(st["clock"]["since"] == f.now);
    CHECK((*back)->clock_expiry() == f.now + 2'000 + 60'000);
  }
  SECTION("a graceful stop: the 20 s used before it are kept, the downtime is not charged") {
    // Given 20 s spent (2 s of delay, 18 s of bank), then a graceful stop.
    f.now = start_ms + 20'000;
    REQUIRE(f.t->pause_clock());
    const json snap = f.t->snapshot();
    // When the server comes back 10 minutes later.
    f.now = start_ms + 620'000;
    auto back = table::restore(snap, f.hooks(), f.journal);
    REQUIRE(back.ok());
    (*back)->resume_clock();
    // Then the bank is 42 s, with no delay left for this action, running from now.
    const auto st = (*back)->state();
    CHECK(st["clock"][running] == 42'000);
    CHECK(st["clock"]["delay_ms"] == 0);
    CHECK(st["clock"]["since"] == f.now);
    CHECK((*back)->clock_expiry() == f.now + 42'000);
  }
  SECTION("a rollback to the last written state keeps the clock running as saved") {
    const json snap = f.t->snapshot();
    f.now = start_ms + 30'000;
    auto back = table::restore(snap, f.hooks(), f.journal, {"alice", "bob"});
    REQUIRE(back.ok());
    CHECK((*back)->clock_expiry() == start_ms + 62'000);
  }
}

TEST_CASE("S2 a command that arrives after the bank ran out finds the match lost on time",
          "[server][table][clock]") {
  clocked_table f;
  f.start({"/option match 3", "/option clock 1 0"});
  f.ok("alice", "/roll");
  const auto st = f.state();
  const std::string late = f.to_act();
  // When the player plays 61 s later (the host's timer has not fired yet).
  f.now += 61'000;
  const auto o = f.say(late, "/move " + st["legal"][0].get<std::string>());
  // Then the loss on time comes first, and the play is refused to its sender alone.
  REQUIRE_FALSE(o.refused);
  REQUIRE(o.changed);
  CHECK(events_named(o, "out_of_time").size() == 1);
  bool refused_to_actor = false;
  for (const auto& d : o.out)
    if (d.to == delivery::audience::actor && d.message["type"] == "error")
      refused_to_actor = d.message["code"] == "wrong_phase";
  CHECK(refused_to_actor);
  CHECK(f.state()["phase"] == "match_over");
}

TEST_CASE("S2 in free play and basis an empty bank loses the game (S3 scoring)",
          "[server][table][clock]") {
  clocked_table f;
  SECTION("free play: the loser's pip count") {
    f.start({"/option clock 1 0"});
    f.ok("alice", "/roll");
    const std::string loser = f.state()["turn"].get<std::string>();
    const int pips = f.state()["pips"][loser].get<int>();
    f.now += 60'000;
    const auto o = f.keep(f.t->check_clock());
    const auto over = events_named(o, "game_over");
    REQUIRE(over.size() == 1);
    CHECK(over[0]["reason"] == "time");
    CHECK(over[0]["points"] == pips);
    CHECK(f.state()["phase"] == "match_over");
  }
  SECTION("basis: between games the clock runs for the one who has not said /continue") {
    f.start({"/option match basis", "/option clock 1 0"});
    f.ok("alice", "/roll");
    f.ok(f.to_act(), "/resign");
    f.ok(f.to_act(), "/accept");
    REQUIRE(f.state()["phase"] == "game_over");
    CHECK(f.state()["clock"]["running"].is_null());  // nobody has answered yet
    f.ok("alice", "/continue");
    CHECK(f.state()["clock"]["running"] == "black");
    f.now += 60'000;
    const auto o = f.keep(f.t->check_clock());
    CHECK(events_named(o, "out_of_time").size() == 1);
    CHECK(events_named(o, "stopped").size() == 1);
    CHECK(f.state()["phase"] == "match_over");
  }
}

TEST_CASE("S2 /option clock: seated players before /start, shown in options and /option",
          "[server][table][clock]") {
  clocked_table f;
  f.keep(f.t->enter("alice"));
  f.keep(f.t->enter("bob"));
  f.keep(f.t->enter("carol"));
  f.ok("alice", "/join");
  f.ok("bob", "/join");
  CHECK(f.refused("carol", "/option clock 5") == "not_seated");
  CHECK(f.state()["clock"].is_null());
  f.ok("alice", "/option clock 5");
  const auto st = f.state();
  CHECK(st["options"]["clock"] == json({{"minutes", 5}, {"delay", 12}}));
  CHECK(st["clock"]["red"] == 300'000);
  CHECK(st["clock"]["delay_ms"] == 12'000);
  const auto shown = f.say("carol", "/option");
  REQUIRE(shown.out.size() == 1);
  CHECK(shown.out[0].message["text"].get<std::string>().find("clock 5 min + 12 s delay") !=
        std::string::npos);
  CHECK(shown.out[0].message["data"]["clock"]["minutes"] == 5);
  f.ok("alice", "/option clock off");
  CHECK(f.state()["options"]["clock"].is_null());
  f.ok("alice", "/option clock 2 5");
  f.ok("alice", "/start");
  CHECK(f.refused("bob", "/option clock off") == "options_locked");
  CHECK(f.state()["options"]["clock"]["minutes"] == 2);
}

TEST_CASE("match_clock: left() counts the delay first, expiry() is since + delay + bank",
          "[server][clock]") {
  auto c = match_clock::timed(60'000, 5'000, 0);
  CHECK_FALSE(c.expiry());
  c.start(side::red, 1'000);
  CHECK(c.left(side::red, 5'000) == 60'000);
  CHECK(c.left(side::red, 16'000) == 50'000);
  CHECK(c.left(side::black, 16'000) == 60'000);
  CHECK(c.expiry() == 66'000);
  CHECK_FALSE(c.expired(65'999));
  CHECK(c.expired(66'000));
  c.start(side::black, 16'000);  // red charged 10 s
  CHECK(c.bank(side::red) == 50'000);
  CHECK(c.left(side::red, 100'000) == 50'000);
  CHECK(c.waited(20'000) == 4'000);
  auto idle = match_clock::untimed(0);
  idle.start(side::red, 10);
  CHECK(idle.waited(1'010) == 1'000);
  CHECK_FALSE(idle.expiry());
}

// ------------------------------------------------------------------------------------
// S3 idle limit and /claim

TEST_CASE("S3 /claim: after the idle limit without a clock, the idle player forfeits",
          "[server][table][claim]") {
  clocked_table f;
  f.keep(f.t->enter("carol"));
  f.start({"/option match 3"});
  CHECK(f.refused("carol", "/claim") == "not_seated");
  CHECK(f.refused("alice", "/claim") == "nothing_to_claim");  // opening: nobody waited for
  f.ok("bob", "/roll");
  const std::string idle = f.to_act();
  const std::string claimer = idle == "alice" ? "bob" : "alice";
  CHECK(f.refused(idle, "/claim") == "nothing_to_claim");  // it is their own turn

  // When the player to act has done nothing for 9:59, a claim is too early.
  f.now += 599'000;
  CHECK(f.refused(claimer, "/claim") == "claim_too_early");
  const auto too_early = f.say(claimer, "/claim");
  CHECK(too_early.refused->message.find("10 min") != std::string::npos);

  // When the idle limit (10 minutes) is reached, the opponent's claim wins the match.
  f.now += 1'000;
  const auto o = f.say(claimer, "/claim");
  REQUIRE_FALSE(o.refused);
  const auto forfeit = events_named(o, "forfeit");
  REQUIRE(forfeit.size() == 1);
  CHECK(forfeit[0]["why"] == "idle");
  CHECK(f.state()["phase"] == "match_over");
  CHECK(f.state()["last_result"]["reason"] == "forfeit");
  CHECK(f.name_of(events_named(o, "match_over")[0]["winner"].get<std::string>()) == claimer);
  CHECK(f.refused(claimer, "/claim") == "nothing_to_claim");  // no match any more
}

TEST_CASE("S3 /claim against an absent player works after the grace period, not with a clock",
          "[server][table][claim]") {
  clocked_table f;
  SECTION("absent") {
    f.start({"/option match 3"});
    f.ok("alice", "/roll");
    f.keep(f.t->exit("bob"));
    f.now += 299'000;
    CHECK(f.refused("alice", "/claim") == "claim_too_early");
    f.now += 1'000;
    const auto o = f.say("alice", "/claim");
    REQUIRE_FALSE(o.refused);
    CHECK(events_named(o, "forfeit")[0]["why"] == "absent");
    CHECK(f.state()["phase"] == "match_over");
  }
  SECTION("a clock makes the idle limit moot: the bank runs out instead") {
    f.start({"/option clock 1 0"});
    f.ok("alice", "/roll");
    const std::string idle = f.to_act();
    f.now += 59'000;
    CHECK(f.refused(idle == "alice" ? "bob" : "alice", "/claim") == "nothing_to_claim");
  }
}

// ------------------------------------------------------------------------------------
// S4 verifiable dice

TEST_CASE("S4 the dice are committed at /start, derived roll by roll, and revealed at the end",
          "[server][table][dice]") {
  clocked_table f;
  f.start({"/option match 1"});
  const auto st = f.state();
  const auto seed = derived_dice::test_seed(1, "t1", 0);
  // The commitment is SHA-256 of the seed, in state and in the started event.
  CHECK(st["dice_commitment"] == derived_dice::commitment_of(seed));
  CHECK(st["dice_commitment"].get<std::string>().size() == 64);
  // The seed itself is in no frame before the end (only the database's snapshot).
  CHECK(st.dump().find(derived_dice::to_hex(seed)) == std::string::npos);
  CHECK(f.t->snapshot()["dice"]["seed"] == derived_dice::to_hex(seed));

  f.ok("alice", "/roll");
  // The opening throw is roll k = 0 (with ties, k = 1, 2, ...).
  const auto first = derived_dice::derive(seed, "", "", 1, 0);
  REQUIRE(first.die1 != first.die2);  // no tie with test seed 1
  CHECK(f.state()["dice"] ==
        json::array({std::max(first.die1, first.die2), std::min(first.die1, first.die2)}));
  CHECK(f.state()["turn"] == (first.die1 > first.die2 ? "red" : "black"));
  for (int i = 0; i < 2000 && f.state()["phase"] != "match_over"; ++i) f.play_turn();
  REQUIRE(f.state()["phase"] == "match_over");
  REQUIRE(f.archived.size() == 1);
  const auto& record = f.archived[0];
  CHECK(record.dice.seed == derived_dice::to_hex(seed));
  CHECK(record.dice.commitment == derived_dice::commitment_of(seed));
  CHECK(record.dice.rolls.size() > 10);
  const auto verdict = verify_dice(record);
  INFO(verdict.problem);
  CHECK(verdict.verified);
  CHECK(verdict.rolls == record.dice.rolls.size());

  SECTION("a tampered roll is found, with the roll and why") {
    auto tampered = record;
    auto& r = tampered.dice.rolls[3];
    r.dice.die1 = r.dice.die1 % 6 + 1;
    const auto v = verify_dice(tampered);
    CHECK_FALSE(v.verified);
    CHECK(v.rolls == 3);
    CHECK(v.problem.find("roll 4 (game 1, k 3)") != std::string::npos);
    CHECK(v.problem.find("the seed gives") != std::string::npos);
  }
  SECTION("a play's dice changed in the game record are found") {
    auto tampered = record;
    for (auto& a : tampered.games[0].actions) {
      if (a.what != record_action::kind::play) continue;
      a.dice = bg::engine::roll{a.dice.die1 % 6 + 1, a.dice.die2};
    }
    const auto v = verify_dice(tampered);
    CHECK_FALSE(v.verified);
    CHECK(v.problem.find("game 1") != std::string::npos);
  }
  SECTION("another seed does not match the commitment") {
    auto tampered = record;
    tampered.dice.seed = derived_dice::to_hex(derived_dice::test_seed(2, "t1", 0));
    const auto v = verify_dice(tampered);
    CHECK_FALSE(v.verified);
    CHECK(v.problem.find("does not match the commitment") != std::string::npos);
  }
  SECTION("the record survives its JSON (GET /api/matches/ID) and still verifies") {
    const auto again = bg::server::match_record_from_json_text(to_json_text(record));
    CHECK(again == record);
    CHECK(verify_dice(again).verified);
  }
}

TEST_CASE("S4 /seed: each player's text changes the dice, only before the first roll",
          "[server][table][dice]") {
  clocked_table f;
  f.start({});
  CHECK(f.refused("alice", "/seed " + std::string(65, 'x')) == "too_long");
  f.ok("alice", "/seed alice's lucky words");
  f.ok("bob", "/seed Bob");
  const auto seed = derived_dice::test_seed(1, "t1", 0);
  f.ok("bob", "/roll");
  const auto with = derived_dice::derive(seed, "alice's lucky words", "Bob", 1, 0);
  const auto without = derived_dice::derive(seed, "", "", 1, 0);
  CHECK(with != without);
  CHECK(f.refused("alice", "/seed again") == "seed_locked");
  // The opening used the seeded derivation (ties aside, the first throw decides).
  REQUIRE(with.die1 != with.die2);  // no tie with these seeds
  CHECK(f.state()["dice"] ==
        json::array({std::max(with.die1, with.die2), std::min(with.die1, with.die2)}));
}

TEST_CASE("S4 a restored table goes on with the same dice: no crash re-rolls a die",
          "[server][table][dice]") {
  clocked_table f;
  f.start({"/option match 3"});
  f.ok("alice", "/roll");
  f.play_turn();
  const json snap = f.t->snapshot();
  const auto journal = f.journal;
  // Two restores of the same written state roll the same next dice.
  std::vector<json> next;
  for (int i = 0; i < 2; ++i) {
    auto back = table::restore(snap, f.hooks(), journal);
    REQUIRE(back.ok());
    auto c = bg::protocol::parse_line("/roll");
    const auto who = (*back)->state()["players"][(*back)->state()["turn"].get<std::string>()];
    const auto o = (*back)->handle(who.get<std::string>(), *c);
    REQUIRE_FALSE(o.refused);
    next.push_back((*back)->state()["dice"]);
  }
  CHECK(next[0] == next[1]);
  CHECK_FALSE(next[0].empty());
}

TEST_CASE("a match saved before clocks and derived dice goes on: idle limit, dice from a new seed",
          "[server][table][dice][clock]") {
  clocked_table f;
  f.start({"/option match 3"});
  f.ok("alice", "/roll");
  f.play_turn();
  // Given a snapshot as an older gammond wrote it (no clock option, clock or dice).
  json old = f.t->snapshot();
  for (const char* key : {"clock_option", "clock", "dice", "matches_started"}) old.erase(key);
  auto back = table::restore(old, f.hooks(), f.journal);
  REQUIRE(back.ok());
  (*back)->resume_clock();
  // Then the next roll works, the match has a commitment from now on, and the idle
  // limit runs for the side to act.
  const auto st = (*back)->state();
  CHECK(st["clock"].is_null());
  CHECK(st["dice_commitment"].get<std::string>().size() == 64);
  const std::string who = st["players"][st["to_act"].get<std::string>()];
  const auto o = (*back)->handle(who, *bg::protocol::parse_line("/roll"));
  CHECK_FALSE(o.refused);
  f.now += 600'000;
  const std::string other = who == "alice" ? "bob" : "alice";
  const auto claimed = (*back)->handle(other, *bg::protocol::parse_line("/claim"));
  CHECK_FALSE(claimed.refused);
  CHECK((*back)->state()["phase"] == "match_over");
}

TEST_CASE("S4 derivation: the PROTOCOL.md example and rejection of bytes 252..255",
          "[server][dice]") {
  // A fixed seed of 32 bytes 0x00..0x1f: the values PROTOCOL.md quotes.
  derived_dice::seed_bytes seed{};
  for (std::size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<unsigned char>(i);
  CHECK(derived_dice::commitment_of(seed) ==
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd");
  // Values computed independently (Python's hashlib and hmac) for PROTOCOL.md's example.
  using bg::engine::roll;
  CHECK(derived_dice::derive(seed, "", "", 1, 0) == roll{1, 4});
  CHECK(derived_dice::derive(seed, "", "", 1, 1) == roll{3, 3});
  CHECK(derived_dice::derive(seed, "", "", 1, 2) == roll{3, 5});
  CHECK(derived_dice::derive(seed, "alice", "bob", 1, 0) == roll{3, 6});
  // k = 42: the HMAC starts c8 ff 93: 0xc8 = 200 gives 3, 0xff = 255 is rejected, 0x93 =
  // 147 gives 4.
  CHECK(derived_dice::derive(seed, "", "", 1, 42) == roll{3, 4});
  // Every roll is two dice of 1..6, and a long run shows every face.
  std::array<int, 7> faces{};
  for (std::uint32_t k = 0; k < 600; ++k) {
    const auto r = derived_dice::derive(seed, "", "", 1, k);
    REQUIRE(r.valid());
    ++faces[static_cast<std::size_t>(r.die1)];
    ++faces[static_cast<std::size_t>(r.die2)];
  }
  for (int face = 1; face <= 6; ++face) CHECK(faces[static_cast<std::size_t>(face)] > 120);
  CHECK(derived_dice::seed_from_hex(derived_dice::to_hex(seed)) == seed);
  CHECK_FALSE(derived_dice::seed_from_hex("zz"));
}
