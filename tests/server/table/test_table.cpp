// The table with no sockets (DESIGN.md: "a table ... is tested without sockets"):
// seats, options, the whole command set of seed 000 through the engine's match layer,
// the state message of PROTOCOL.md, and snapshot/restore.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "bg/engine/dice_source.hpp"
#include "bg/i18n/catalogue.hpp"
#include "bg/protocol/command.hpp"
#include "bg/server/table/table.hpp"

using namespace bg::server;
using bg::engine::scripted_dice;
using bg::engine::seeded_dice;
using nlohmann::json;

namespace {

struct fixture {
  seeded_dice dice{7};
  std::vector<match_record> archived;
  table t{"t1", dice, hooks()};
  /// The record journal as a host keeps it (table_outcome::record_log, record_reset).
  std::vector<json> journal;

  table_hooks hooks() {
    return table_hooks{[] { return std::string("2026-11-23T00:00:00Z"); }, 500};
  }

  table_outcome say(const std::string& who, const std::string& line) {
    auto c = bg::protocol::parse_line(line);
    REQUIRE(c.ok());
    return keep(t.handle(who, *c));
  }
  /// Keeps what a host keeps of an outcome: the journal, the finished match; then gives
  /// a match just begun its id (1, 2, ...), as table_actor does after every call.
  table_outcome keep(table_outcome o) {
    if (o.record_reset) journal.clear();
    journal.insert(journal.end(), o.record_log.begin(), o.record_log.end());
    if (o.finished_match) archived.push_back(*o.finished_match);
    if (t.wants_match_id()) t.give_match_id(static_cast<std::int64_t>(archived.size()) + 1);
    return o;
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
  std::string name_of(const std::string& side) const {
    return t.state()["players"][side].get<std::string>();
  }
  /// The name of the player on turn / to act.
  std::string actor() const {
    const auto st = t.state();
    return st["players"][st["to_act"].get<std::string>()].get<std::string>();
  }
  void seat_both(const std::string& options = "") {
    t.enter("alice");
    t.enter("bob");
    ok("alice", "/join red");
    ok("bob", "/join black");
    if (!options.empty()) ok("alice", options);
    ok("alice", "/start");
    ok("bob", "/roll");  // either player rolls the opening
  }
  /// Plays the current turn with a random legal play (rolling first when needed).
  void play_turn(std::mt19937& rng) {
    auto st = t.state();
    if (st["phase"] == "roll") {
      ok(actor(), "/roll");
      st = t.state();
    }
    if (st["phase"] != "move") return;
    const auto legal = st["legal"].get<std::vector<std::string>>();
    REQUIRE_FALSE(legal.empty());
    std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
    ok(actor(), "/move " + legal[pick(rng)]);
  }
};

}  // namespace

TEST_CASE("seats: /join takes the free seat or the one named, /leave gives it up",
          "[server][table]") {
  fixture f;
  f.t.enter("alice");
  f.t.enter("bob");
  f.t.enter("carol");
  f.ok("alice", "/join");
  CHECK(f.name_of("red") == "alice");
  CHECK(f.refused("alice", "/join") == "already_seated");
  CHECK(f.refused("bob", "/join red") == "seat_taken");
  f.ok("bob", "/join");
  CHECK(f.name_of("black") == "bob");
  CHECK(f.refused("carol", "/join") == "table_full");
  CHECK(f.t.state()["spectators"] == json::array({"carol"}));
  f.ok("bob", "/leave");
  CHECK(f.t.state()["players"]["black"].is_null());
  CHECK(f.refused("bob", "/leave") == "not_seated");
}

TEST_CASE("seed 000: /start needs both seats, options only before /start", "[server][table]") {
  fixture f;
  f.t.enter("alice");
  f.t.enter("bob");
  f.ok("alice", "/join");
  CHECK(f.refused("alice", "/start") == "need_opponent");
  CHECK(f.refused("bob", "/option match 5") == "not_seated");
  f.ok("alice", "/option match 5");
  CHECK(f.t.state()["options"]["match"] == 5);
  CHECK(f.t.state()["phase"] == "waiting");
  f.ok("bob", "/join");
  f.ok("bob", "/start");
  CHECK(f.t.state()["phase"] == "opening");
  CHECK(f.refused("alice", "/option match 7") == "options_locked");
  CHECK(f.refused("alice", "/option variant long") == "options_locked");
  CHECK(f.refused("alice", "/start") == "already_started");
  CHECK(f.refused("alice", "/leave") == "in_match");
  f.ok("alice", "/option tutor on");  // R17 only changes the drawing
  CHECK(f.t.state()["options"]["tutor"] == true);
}

TEST_CASE("spectators can chat but not play, wrong phase and wrong side are refused",
          "[server][table]") {
  fixture f;
  f.t.enter("carol");
  f.seat_both("/option match 3");
  CHECK(f.refused("carol", "/roll") == "not_seated");
  CHECK(f.refused("carol", "/double") == "not_seated");
  const auto chat = f.say("carol", "nice roll");
  REQUIRE_FALSE(chat.refused);
  REQUIRE(chat.out.size() == 1);
  CHECK(chat.out[0].message["type"] == "chat");
  CHECK(chat.out[0].message["from"] == "carol");
  // After the opening roll the first mover must move: nobody may roll or double.
  const auto st = f.t.state();
  REQUIRE(st["phase"] == "move");
  const std::string mover = f.actor();
  const std::string other = mover == "alice" ? "bob" : "alice";
  CHECK(f.refused(mover, "/roll") == "wrong_phase");
  CHECK(f.refused(other, "/move 24/18") == "not_your_turn");
  CHECK(f.refused(mover, "/double") == "wrong_phase");
  CHECK(f.refused(mover, "/take") == "no_offer");
  CHECK(f.refused(mover, "/move 24/30") == "bad_notation");
  // A refused command changes nothing.
  CHECK(f.t.state() == st);
}

TEST_CASE("the state carries the whole truth a thin client needs", "[server][table]") {
  fixture f;
  f.seat_both("/option match 5");
  const auto st = f.t.state();
  CHECK(st["type"] == "state");
  CHECK(st["table"] == "t1");
  CHECK(st["variant"] == "standard");
  CHECK(st["board"]["points"].size() == 24);
  int red = 0;
  int black = 0;
  for (int n : st["board"]["points"]) (n > 0 ? red : black) += n > 0 ? n : -n;
  CHECK(red == 15);
  CHECK(black == 15);
  // R1.1 in board numbering: red 2 on board 1, black 2 on board 24, red 5 on 19 ...
  CHECK(st["board"]["points"][0] == 2);
  CHECK(st["board"]["points"][23] == -2);
  CHECK(st["board"]["points"][5] == -5);
  CHECK(st["board"]["points"][18] == 5);
  CHECK(st["pips"]["red"] == 167);
  CHECK(st["pips"]["black"] == 167);
  CHECK(st["cube"]["value"] == 1);
  CHECK(st["cube"]["owner"] == "center");
  CHECK(st["match_length"] == 5);
  CHECK(st["game_number"] == 1);
  CHECK(st["dice"].size() == 2);
  CHECK(st["position_id"] == "4HPwATDgc/ABMA");
  CHECK(st["match_id"].get<std::string>().size() == 12);
  CHECK_FALSE(st["legal"].empty());
  CHECK(st["seq"].get<std::uint64_t>() == f.t.seq());
}

TEST_CASE("R12 a free game is played to the end and scored by the loser's pip count",
          "[server][table]") {
  fixture f;
  f.seat_both();
  std::mt19937 rng(3);
  int pips_before_last = -1;
  for (int turn = 0; turn < 2000 && f.t.state()["phase"] != "match_over"; ++turn) {
    const auto st = f.t.state();
    pips_before_last = std::min(st["pips"]["red"].get<int>(), st["pips"]["black"].get<int>());
    f.play_turn(rng);
  }
  (void)pips_before_last;
  const auto st = f.t.state();
  REQUIRE(st["phase"] == "match_over");
  const auto& res = st["last_result"];
  const std::string winner = res["winner"];
  const std::string loser = winner == "red" ? "black" : "red";
  CHECK(res["points"] == st["pips"][loser]);
  CHECK(st["score"][winner] == st["pips"][loser]);
  CHECK(st["score"][loser] == 0);
  REQUIRE(f.archived.size() == 1);
  CHECK(f.archived[0].games.size() == 1);
  CHECK(f.archived[0].final_score[winner == "red" ? 0 : 1] == st["pips"][loser].get<int>());
  CHECK(f.refused("alice", "/double") == "no_cube");  // R12: free play has no cube
  // /export links to the archived match.
  const auto e = f.say("bob", "/export");
  REQUIRE_FALSE(e.refused);
  CHECK(e.out[0].message["data"]["url"] == "/matches/1.mat");
}

TEST_CASE("R14 R15 a match to 3: double, take, redouble, drop, and the Crawford game",
          "[server][table]") {
  fixture f;
  f.seat_both("/option match 3");
  std::mt19937 rng(11);
  CHECK(f.refused("alice", "/double") == "wrong_phase");  // the opening mover must move
  f.play_turn(rng);
  // Now the other side is to roll: double, take.
  REQUIRE(f.t.state()["phase"] == "roll");
  const std::string doubler = f.actor();
  const std::string taker = doubler == "alice" ? "bob" : "alice";
  CHECK(f.t.state()["may_double"] == true);
  f.ok(doubler, "/double");
  CHECK(f.t.state()["phase"] == "cube_offered");
  CHECK(f.refused(doubler, "/take") == "not_your_turn");
  f.ok(taker, "/take");
  auto st = f.t.state();
  CHECK(st["cube"]["value"] == 2);
  CHECK(st["cube"]["owner"] == (f.name_of("red") == taker ? "red" : "black"));
  // R14.3: the doubler may not double again; the taker may redouble on their turn.
  f.ok(doubler, "/roll");
  CHECK(f.refused(doubler, "/double") == "wrong_phase");
  f.play_turn(rng);
  REQUIRE(f.t.state()["phase"] == "roll");
  REQUIRE(f.actor() == taker);
  f.ok(taker, "/double");
  f.ok(doubler, "/drop");
  st = f.t.state();
  // The drop loses at the cube's value before the offer: 2 points for the taker.
  const std::string taker_side = f.name_of("red") == taker ? "red" : "black";
  CHECK(st["score"][taker_side] == 2);
  CHECK(st["game_number"] == 2);
  CHECK(st["phase"] == "opening");
  CHECK(st["crawford"] == true);  // R15: 2 = 3 - 1 reached for the first time
  f.ok("alice", "/roll");
  f.play_turn(rng);
  REQUIRE(f.t.state()["phase"] == "roll");
  CHECK(f.t.state()["may_double"] == false);
  CHECK(f.refused(f.actor(), "/double") == "crawford");
  // Play the Crawford game out with resignations accepted to keep the test short.
  const std::string resigner = f.actor();
  const std::string other = resigner == "alice" ? "bob" : "alice";
  f.ok(resigner, "/resign");
  CHECK(f.t.state()["phase"] == "resign_offered");
  f.ok(other, "/accept");
  st = f.t.state();
  if (st["phase"] != "match_over") {
    CHECK(st["crawford"] == false);  // post-Crawford
    CHECK(st["game_number"] == 3);
  }
}

TEST_CASE("R16 basis: /continue by both starts the next game, /stop ends the session",
          "[server][table]") {
  fixture f;
  f.seat_both("/option match basis");
  std::mt19937 rng(5);
  f.play_turn(rng);
  const std::string resigner = f.actor();
  const std::string other = resigner == "alice" ? "bob" : "alice";
  f.ok(resigner, "/resign gammon");
  f.ok(other, "/accept");
  auto st = f.t.state();
  CHECK(st["phase"] == "game_over");
  CHECK(st["last_result"]["points"] == 2);
  f.ok("alice", "/continue");
  CHECK(f.t.state()["phase"] == "game_over");
  CHECK(f.t.state()["continuing"][f.name_of("red") == "alice" ? "red" : "black"] == true);
  f.ok("bob", "/continue");
  st = f.t.state();
  CHECK(st["phase"] == "opening");
  CHECK(st["game_number"] == 2);
  f.ok("bob", "/roll");
  f.play_turn(rng);
  const std::string r2 = f.actor();
  f.ok(r2, "/resign");
  f.ok(r2 == "alice" ? "bob" : "alice", "/accept");
  f.ok("bob", "/stop");
  st = f.t.state();
  CHECK(st["phase"] == "match_over");
  REQUIRE(f.archived.size() == 1);
  CHECK(f.archived[0].games.size() == 2);
}

TEST_CASE("R18 a rejected resignation lets play go on where it was", "[server][table]") {
  fixture f;
  f.seat_both("/option match 3");
  const std::string mover = f.actor();
  const std::string other = mover == "alice" ? "bob" : "alice";
  f.ok(mover, "/resign backgammon");
  CHECK(f.refused(mover, "/accept") == "not_your_turn");
  CHECK(f.refused(mover, "/move 24/18") == "wrong_phase");
  f.ok(other, "/reject");
  const auto st = f.t.state();
  CHECK(st["phase"] == "move");
  CHECK(st["to_act"] == (f.name_of("red") == mover ? "red" : "black"));
}

TEST_CASE("every string in state.legal is accepted verbatim by /move", "[server][table]") {
  std::mt19937 rng(21);
  for (int g = 0; g < 3; ++g) {
    fixture f;
    f.seat_both();
    for (int turn = 0; turn < 300 && f.t.state()["phase"] != "match_over"; ++turn) {
      const auto st = f.t.state();
      if (st["phase"] == "move") {
        // Each legal string must be accepted; try them all on a restored copy.
        for (const auto& play : st["legal"]) {
          seeded_dice d(1);
          auto copy = table::restore(f.t.snapshot(), d, table_hooks{}, f.journal);
          REQUIRE(copy.ok());
          auto c = bg::protocol::parse_line("/move " + play.get<std::string>());
          REQUIRE(c.ok());
          const auto o = (*copy)->handle(f.actor(), *c);
          INFO(play);
          CHECK_FALSE(o.refused);
        }
      }
      f.play_turn(rng);
    }
  }
}

TEST_CASE("snapshot and restore give back the same table mid-game", "[server][table]") {
  fixture f;
  f.seat_both("/option match 7");
  std::mt19937 rng(9);
  for (int i = 0; i < 7; ++i) f.play_turn(rng);
  f.ok(f.actor(), "/roll");
  const auto before = f.t.state();
  const auto snap = f.t.snapshot();
  seeded_dice d(2);
  auto back = table::restore(json::parse(snap.dump()), d, table_hooks{}, f.journal);
  REQUIRE(back.ok());
  auto after = (*back)->state();
  // Nobody is present after a restart; everything else is identical.
  CHECK(after["present"]["red"] == false);
  after["present"] = before["present"];
  CHECK(after == before);
  CHECK_FALSE(table::restore(json{{"name", "x"}}, d, table_hooks{}).ok());
}

TEST_CASE("the record journal rebuilds the match record at every point of a match",
          "[server][table]") {
  fixture f;
  f.seat_both("/option match 3");
  std::mt19937 rng(5);
  int restored = 0;
  for (int turn = 0; turn < 2000 && f.t.state()["phase"] != "match_over"; ++turn) {
    auto st = f.t.state();
    if (st["phase"] == "opening") {  // either player rolls the opening
      f.ok(f.name_of("red"), "/roll");
      continue;
    }
    if (st["phase"] == "roll") {
      f.ok(f.actor(), "/roll");
      continue;
    }
    // Without /double or /resign a match to 3 is always in opening, roll or move.
    REQUIRE(st["phase"] == "move");
    const auto legal = st["legal"].get<std::vector<std::string>>();
    const auto play =
        "/move " + legal[std::uniform_int_distribution<std::size_t>(0, legal.size() - 1)(rng)];
    // A table restored from the snapshot and the journal plays the same move to the
    // same result; when it ends the match both archive the same record.
    seeded_dice d(3);
    std::vector<match_record> copy_archived;
    table_hooks hooks{[] { return std::string("2026-11-23T00:00:00Z"); }, 500};
    auto copy = table::restore(f.t.snapshot(), d, std::move(hooks), f.journal);
    REQUIRE(copy.ok());
    REQUIRE((*copy)->wants_match_id());  // a restored match is given its id anew
    (*copy)->give_match_id(1);
    ++restored;
    const auto mover = f.actor();
    (*copy)->enter(mover);
    auto c = bg::protocol::parse_line(play);
    REQUIRE(c.ok());
    const auto copy_outcome = (*copy)->handle(mover, *c);
    REQUIRE_FALSE(copy_outcome.refused);
    if (copy_outcome.finished_match) copy_archived.push_back(*copy_outcome.finished_match);
    f.ok(mover, play);
    REQUIRE(copy_archived.size() == (f.t.state()["phase"] == "match_over" ? 1u : 0u));
    if (!copy_archived.empty()) {
      // The match_over text gives the winner's score first.
      const auto& score = copy_archived[0].final_score;
      const bool red_won = score[0] > score[1];
      const std::string expected =
          (red_won ? f.name_of("red") + " (red)" : f.name_of("black") + " (black)") +
          " wins the match " + std::to_string(std::max(score[0], score[1])) + "-" +
          std::to_string(std::min(score[0], score[1]));
      bool announced = false;
      for (const auto& sent : copy_outcome.out)
        if (sent.message.value("event", "") == "match_over") {
          CHECK(sent.message["text"] == expected);
          announced = true;
        }
      CHECK(announced);
      REQUIRE(f.archived.size() == 1);
      CHECK(copy_archived[0] == f.archived[0]);
      CHECK(f.archived[0].games.size() >= 2);
    }
  }
  CHECK(f.t.state()["phase"] == "match_over");
  CHECK(restored > 20);
  // The archived match voids the journal.
  CHECK(f.journal.empty());
}

TEST_CASE("a version 1 snapshot (the whole record inside) restarts the journal with it",
          "[server][table]") {
  fixture f;
  f.seat_both("/option match 3");
  REQUIRE(f.journal.size() >= 3);  // begin, game, opening
  CHECK(f.journal[0]["op"] == "begin");
  json record = f.journal[0]["record"];
  record["games"].push_back(f.journal[1]["game"]);
  REQUIRE(f.journal[2]["op"] == "opening");
  record["games"][0]["first"] = f.journal[2]["first"];
  record["games"][0]["opening"] = f.journal[2]["dice"];
  json v1 = f.t.snapshot();
  v1["version"] = 1;
  v1["record"] = record;
  seeded_dice d(4);
  auto back = table::restore(v1, d, table_hooks{});
  REQUIRE(back.ok());
  const auto mover = f.actor();
  // The first change after the restore (here an entrance) restarts the journal.
  const auto entered = (*back)->enter(mover);
  REQUIRE(entered.changed);
  CHECK(entered.record_reset);
  REQUIRE(entered.record_log.size() == 1);
  CHECK(entered.record_log[0]["op"] == "begin");
  CHECK(entered.record_log[0]["record"] == record);
  const auto legal = f.t.state()["legal"];
  REQUIRE_FALSE(legal.empty());
  auto c = bg::protocol::parse_line("/move " + legal[0].get<std::string>());
  REQUIRE(c.ok());
  const auto o = (*back)->handle(mover, *c);
  REQUIRE(o.changed);
  CHECK_FALSE(o.record_reset);
  REQUIRE(o.record_log.size() == 1);
  CHECK(o.record_log[0]["op"] == "action");
  // A match in progress without its record is a damaged table.
  CHECK_FALSE(table::restore(f.t.snapshot(), d, table_hooks{}).ok());
}

TEST_CASE("an absent player keeps the seat and forfeits the game after the grace period",
          "[server][table]") {
  fixture f;
  f.seat_both("/option match 3");
  f.t.exit("bob");
  CHECK(f.t.state()["present"][f.name_of("red") == "bob" ? "red" : "black"] == false);
  const auto absent = f.t.absent_seats();
  REQUIRE(absent.size() == 1);
  f.t.enter("bob");
  CHECK(f.t.absent_seats().empty());
  f.t.exit("bob");
  const auto o = f.keep(f.t.forfeit(f.t.absent_seats()[0]));
  CHECK_FALSE(o.refused);
  const auto st = f.t.state();
  const std::string bob_side = f.name_of("red") == "bob" ? "red" : "black";
  const std::string alice_side = bob_side == "red" ? "black" : "red";
  CHECK(st["score"][alice_side] == 3);  // a backgammon x cube 1: the match is over
  CHECK(st["phase"] == "match_over");
  CHECK(f.archived.size() == 1);
}

TEST_CASE("opening roll: one die each, the higher plays both (R2)", "[server][table]") {
  scripted_dice dice({3, 3, 2, 5});  // a tie, then red 2, black 5
  table t("t2", dice, table_hooks{});
  for (const char* who : {"a", "b"}) t.enter(who);
  for (const char* line : {"/join red", "/join black", "/start"}) {
    auto c = bg::protocol::parse_line(line);
    REQUIRE(c.ok());
    REQUIRE_FALSE(t.handle(std::string(line) == "/join black" ? "b" : "a", *c).refused);
  }
  auto c = bg::protocol::parse_line("/roll");
  const auto o = t.handle("b", *c);
  REQUIRE_FALSE(o.refused);
  bool seen = false;
  for (const auto& d : o.out) {
    if (d.message.value("event", "") != "opening_roll") continue;
    seen = true;
    CHECK(d.message["ties"].size() == 1);
    CHECK(d.message["red_die"] == 2);
    CHECK(d.message["black_die"] == 5);
    CHECK(d.message["side"] == "black");
  }
  CHECK(seen);
  const auto st = t.state();
  CHECK(st["turn"] == "black");
  CHECK(st["dice"] == json::array({5, 2}));
}

TEST_CASE("issue 31: every sentence of a table is a table.* catalogue message",
          "[server][table][i18n]") {
  fixture f;
  std::vector<json> said;
  const auto keep = [&](const table_outcome& o) {
    for (const auto& d : o.out)
      if (d.message.value("type", "") != "chat") said.push_back(d.message);
  };
  keep(f.t.enter("alice"));
  keep(f.t.enter("bob"));
  keep(f.t.enter("carol"));
  for (const auto& [who, line] :
       std::vector<std::pair<std::string, std::string>>{{"alice", "/join red"},
                                                        {"bob", "/join black"},
                                                        {"alice", "/option match 3"},
                                                        {"alice", "/option tutor on"},
                                                        {"carol", "/who"},
                                                        {"carol", "/options"},
                                                        {"alice", "/start"},
                                                        {"bob", "/roll"}})
    keep(f.say(who, line));
  std::mt19937 rng(3);
  CHECK(said.size() >= 10);
  for (const auto& m : said) {
    INFO(m.dump());
    REQUIRE(m.contains("say"));
    const auto key = m["say"]["key"].get<std::string>();
    CHECK(key.rfind("table.", 0) == 0);
    CHECK(bg::i18n::catalogue::global().has("en", key));
    CHECK(bg::i18n::english(key, m["say"]["args"]) == m["text"].get<std::string>());
  }
  // The sentences as they read: the options in one sentence, the seat with its side.
  const auto said_text = [&](const std::string& text) {
    return std::any_of(said.begin(), said.end(), [&](const json& m) { return m["text"] == text; });
  };
  CHECK(said_text("alice sits down as red"));
  CHECK(said_text("alice sets match 3 points, variant standard, tutor off, no clock"));
  CHECK(said_text("alice turns the tutor on"));
  CHECK(said_text("red: alice, black: bob, watching: 1, owner: alice"));
  // A refusal says its sentence too.
  const auto o = f.say("carol", "/roll");
  REQUIRE(o.refused);
  CHECK(o.refused->key == "table.play_not_seated");
  CHECK(o.refused->message == "only the players can do that: /join to take a seat");
}
