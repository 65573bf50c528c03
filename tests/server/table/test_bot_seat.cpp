// issue 14: a computer player is a seat. The table with no sockets: /bot, the seat in
// state and snapshot, what the bot is asked (next_bot_turn), and its commands going
// through the same table::handle as a person's.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "bg/engine/dice_source.hpp"
#include "bg/protocol/command.hpp"
#include "bg/server/records/record_json.hpp"
#include "bg/server/table/bot_turn.hpp"
#include "bg/server/table/table.hpp"

using namespace bg::server;
using bg::bots::question;
using bg::engine::scripted_dice;
using bg::engine::side;
using nlohmann::json;

namespace {

/// The computer players a host offers in these tests: gnubg's names, standard only.
bg::engine::result<std::string> test_bots(const std::string& level, bg::engine::variant v) {
  if (v != bg::engine::variant::standard)
    return bg::engine::make_error("bot_variant", "standard backgammon only");
  return "gnubg-" + level;
}

table_hooks hooks_with_bots() {
  table_hooks h;
  h.now = [] { return std::string("2026-11-24T00:00:00Z"); };
  h.bot = test_bots;
  return h;
}

bg::protocol::command line(const std::string& text) {
  auto c = bg::protocol::parse_line(text);
  REQUIRE(c.ok());
  return *c;
}

void ok(table& t, const std::string& who, const std::string& text) {
  const auto o = t.handle(who, line(text));
  INFO(who << ": " << text << " -> " << (o.refused ? o.refused->message : ""));
  REQUIRE_FALSE(o.refused);
}

std::string refused(table& t, const std::string& who, const std::string& text) {
  const auto o = t.handle(who, line(text));
  INFO(who << ": " << text);
  REQUIRE(o.refused);
  return o.refused->code;
}

}  // namespace

TEST_CASE("/bot seats the computer opposite the person who asks", "[table][bots]") {
  scripted_dice dice{{6, 1}};
  table t{"t", dice, hooks_with_bots()};
  t.enter("alice");
  CHECK(refused(t, "alice", "/bot") == "not_seated");
  ok(t, "alice", "/join black");
  const auto o = t.handle("alice", line("/bot worldclass"));
  REQUIRE_FALSE(o.refused);
  const auto joined = o.out.front().message;
  CHECK(joined["event"] == "joined");
  CHECK(joined["name"] == "gnubg-worldclass");
  CHECK(joined["side"] == "red");
  CHECK(joined["bot"] == "worldclass");
  const auto st = t.state();
  CHECK(st["players"]["red"] == "gnubg-worldclass");
  CHECK(st["bots"] == json{{"red", "worldclass"}, {"black", nullptr}});
  CHECK(st["present"]["red"] == true);
  CHECK(t.summary()["bots"]["red"] == "worldclass");
  CHECK(t.bot_level(side::red) == "worldclass");
  CHECK_FALSE(t.bot_level(side::black));
  CHECK(refused(t, "alice", "/bot") == "table_full");
  CHECK(refused(t, "alice", "/option variant long") == "bot_variant");
}

TEST_CASE(
    "/option variant gives a computer player's seat to the computer player of that variant at its "
    "level",
    "[table][bots]") {
  scripted_dice dice{{6, 1}};
  table_hooks h = hooks_with_bots();
  h.bot = [](const std::string& level, bg::engine::variant v) -> bg::engine::result<std::string> {
    return (v == bg::engine::variant::standard ? "gnubg-" : "nardy-") + level;
  };
  table t{"t", dice, h};
  t.enter("alice");
  ok(t, "alice", "/join red");
  ok(t, "alice", "/bot advanced");
  const auto o = t.handle("alice", line("/option variant long"));
  REQUIRE_FALSE(o.refused);
  // The bot leaves, its namesake sits down, then the option is announced.
  std::vector<std::string> events;
  for (const auto& d : o.out)
    if (d.message.value("type", "") == "event") events.push_back(d.message["event"]);
  CHECK(events == std::vector<std::string>{"left", "joined", "option"});
  CHECK(o.out[0].message["name"] == "gnubg-advanced");
  CHECK(o.out[1].message["name"] == "nardy-advanced");
  CHECK(o.out[1].message["bot"] == "advanced");
  CHECK(o.out[1].message["side"] == "black");
  auto st = t.state();
  CHECK(st["players"]["black"] == "nardy-advanced");
  CHECK(st["bots"]["black"] == "advanced");
  CHECK(st["options"]["variant"] == "long");
  // The same variant again changes no seat; back to standard brings gnubg back.
  const auto same = t.handle("alice", line("/option variant long"));
  REQUIRE_FALSE(same.refused);
  CHECK(same.out.front().message["event"] == "option");
  ok(t, "alice", "/option variant standard");
  CHECK(t.state()["players"]["black"] == "gnubg-advanced");
  // A person's seat is never touched.
  CHECK(t.state()["players"]["red"] == "alice");
}

TEST_CASE("without a host's computer players /bot answers no_bot", "[table][bots]") {
  scripted_dice dice{{6, 1}};
  table t{"t", dice, table_hooks{}};
  t.enter("alice");
  ok(t, "alice", "/join");
  CHECK(refused(t, "alice", "/bot") == "no_bot");
}

TEST_CASE("a computer player leaves when the last person does, outside a match", "[table][bots]") {
  scripted_dice dice{{6, 1}};
  table t{"t", dice, hooks_with_bots()};
  t.enter("alice");
  ok(t, "alice", "/join");
  ok(t, "alice", "/bot");
  const auto o = t.exit("alice");  // the connection drops before /start
  CHECK_FALSE(t.seats()[0]);
  CHECK_FALSE(t.seats()[1]);
  CHECK(t.idle());
  bool bot_left = false;
  for (const auto& d : o.out)
    bot_left |= d.message.value("event", "") == "left" && d.message["name"] == "gnubg-expert";
  CHECK(bot_left);
}

TEST_CASE("the bot rolls the opening (R2) and is asked its play with the dice only",
          "[table][bots]") {
  // Opening: red 6, black 1 -> red (the bot) plays 6-1.
  scripted_dice dice{{6, 1}};
  table t{"t", dice, hooks_with_bots()};
  t.enter("alice");
  ok(t, "alice", "/join black");
  ok(t, "alice", "/bot");
  ok(t, "alice", "/option match 5");
  ok(t, "alice", "/start");
  auto turn = next_bot_turn(t);
  REQUIRE(turn);
  CHECK(turn->name == "gnubg-expert");
  CHECK(turn->side == side::red);
  REQUIRE(turn->now);
  CHECK(turn->now->kind == bg::protocol::command_kind::roll);
  ok(t, turn->name, "/roll");  // the bot's roll goes through the same handle()

  turn = next_bot_turn(t);
  REQUIRE(turn);
  REQUIRE(turn->ask);
  const auto& s = turn->ask.value();
  CHECK(s.asked == question::play);
  CHECK(s.bot == side::red);
  CHECK(s.on_roll == side::red);
  CHECK(s.dice.high() == 6);
  CHECK(s.dice.low() == 1);
  CHECK(s.match_length == 5);
  CHECK(s.kind == bg::engine::match_kind::points);
  CHECK(s.position == bg::engine::position::starting(bg::engine::variant::standard));
  CHECK(s.legal == t.state()["legal"].get<std::vector<std::string>>());
  // An illegal answer is refused like a person's; a legal one is played.
  CHECK(refused(t, turn->name, "/move 24/17") == "illegal_play");
  ok(t, turn->name, "/move " + s.legal.front());
  CHECK_FALSE(next_bot_turn(t));  // the person's turn now
}

TEST_CASE("the bot is asked to double (R14), to take, and to answer a resignation (R18)",
          "[table][bots]") {
  // Opening: red 1, black 6 -> black (the person) plays 6-1; then red rolls 3-2.
  scripted_dice dice{{1, 6, 3, 2}};
  table t{"t", dice, hooks_with_bots()};
  t.enter("alice");
  ok(t, "alice", "/join black");
  ok(t, "alice", "/bot");
  ok(t, "alice", "/option match 5");
  ok(t, "alice", "/start");
  ok(t, "gnubg-expert", "/roll");
  CHECK_FALSE(next_bot_turn(t));
  ok(t, "alice", "/move 13/7 8/7");
  // The bot's turn before rolling, with a centred cube: double or roll?
  auto turn = next_bot_turn(t);
  REQUIRE(turn);
  REQUIRE(turn->ask);
  CHECK(turn->ask->asked == question::double_or_roll);
  CHECK(turn->ask->position.swapped().mover(7) == 2);  // the person's new 7 point
  ok(t, "gnubg-expert", "/roll");
  ok(t, "gnubg-expert", "/move " + t.state()["legal"][0].get<std::string>());
  // The person doubles: the bot is asked its take, on the person's turn.
  ok(t, "alice", "/double");
  turn = next_bot_turn(t);
  REQUIRE(turn);
  REQUIRE(turn->ask);
  CHECK(turn->ask->asked == question::take_or_drop);
  CHECK(turn->ask->on_roll == side::black);
  CHECK(turn->ask->cube.offered_by == side::black);
  ok(t, "gnubg-expert", "/take");
  // The bot owns the cube at 2; the person resigns a gammon: accept or reject?
  ok(t, "alice", "/resign gammon");
  turn = next_bot_turn(t);
  REQUIRE(turn);
  REQUIRE(turn->ask);
  CHECK(turn->ask->asked == question::accept_or_reject);
  CHECK(turn->ask->resign_kind == bg::engine::win_kind::gammon);
  CHECK(turn->ask->cube.value == 2);
  CHECK(turn->ask->cube.owner == side::red);
  ok(t, "gnubg-expert", "/reject");
}

TEST_CASE("a bot that may not double just rolls (R12), and continues a basis session (R16)",
          "[table][bots]") {
  scripted_dice dice{{6, 1}};
  table t{"t", dice, hooks_with_bots()};
  t.enter("alice");
  ok(t, "alice", "/join black");
  ok(t, "alice", "/bot");
  ok(t, "alice", "/start");  // free play: no cube
  ok(t, "gnubg-expert", "/roll");
  ok(t, "gnubg-expert", "/move " + t.state()["legal"][0].get<std::string>());
  ok(t, "alice", "/roll");
  ok(t, "alice", "/move " + t.state()["legal"][0].get<std::string>());
  const auto turn = next_bot_turn(t);
  REQUIRE(turn);
  REQUIRE(turn->now);
  CHECK(turn->now->kind == bg::protocol::command_kind::roll);

  scripted_dice dice2{{6, 1}};
  table basis{"b", dice2, hooks_with_bots()};
  basis.enter("alice");
  ok(basis, "alice", "/join black");
  ok(basis, "alice", "/bot");
  ok(basis, "alice", "/option match basis");
  ok(basis, "alice", "/start");
  ok(basis, "gnubg-expert", "/roll");
  ok(basis, "alice", "/resign");
  ok(basis, "gnubg-expert", "/accept");
  REQUIRE(basis.state()["phase"] == "game_over");
  const auto cont = next_bot_turn(basis);
  REQUIRE(cont);
  REQUIRE(cont->now);
  CHECK(cont->now->kind == bg::protocol::command_kind::continue_session);
  ok(basis, "gnubg-expert", "/continue");
  CHECK_FALSE(next_bot_turn(basis));  // waits for the person to continue or stop
  ok(basis, "alice", "/stop");
  CHECK(basis.state()["phase"] == "match_over");
  CHECK_FALSE(next_bot_turn(basis));
}

TEST_CASE("the bot's seat and level survive a snapshot, it holds no name", "[table][bots]") {
  scripted_dice dice{{6, 1}};
  table t{"t", dice, hooks_with_bots()};
  t.enter("alice");
  ok(t, "alice", "/join black");
  ok(t, "alice", "/bot advanced");
  ok(t, "alice", "/option match 3");
  ok(t, "alice", "/start");
  CHECK(t.held_seats() == std::vector<std::string>{"alice"});  // people only
  const auto snap = t.snapshot();
  CHECK(snap["bots"]["red"] == "advanced");
  // The text stored with each change (issue 15) is the same snapshot, byte for byte.
  auto with_tokens = snap;
  with_tokens["token_hashes"] = json::array({nullptr, "h"});
  CHECK(t.snapshot_text({std::nullopt, "h"}) == with_tokens.dump());
  CHECK(t.summary_text() == t.summary().dump());  // the lobby's entry names the bot too
  std::vector<json> journal;                      // the record is not what this test is about
  journal.push_back(json{{"op", "begin"}, {"record", json(match_record{})}});
  auto back = table::restore(snap, dice, hooks_with_bots(), journal);
  REQUIRE(back);
  const auto st = (*back)->state();
  CHECK(st["players"]["red"] == "gnubg-advanced");
  CHECK(st["bots"]["red"] == "advanced");
  CHECK(st["present"]["red"] == true);     // the computer is always there
  CHECK(st["present"]["black"] == false);  // the person comes back by resuming
  CHECK((*back)->absent_seats() == std::vector<side>{side::black});
  const auto turn = next_bot_turn(**back);
  REQUIRE(turn);  // the opening: it rolls as soon as the table is back
  CHECK(turn->now->kind == bg::protocol::command_kind::roll);
}

TEST_CASE("outside a match a restored computer player does not sit alone", "[table][bots]") {
  scripted_dice dice{{6, 1}};
  table t{"t", dice, hooks_with_bots()};
  t.enter("alice");
  ok(t, "alice", "/join black");
  ok(t, "alice", "/bot");
  auto back = table::restore(t.snapshot(), dice, hooks_with_bots());
  REQUIRE(back);
  CHECK((*back)->idle());
}
