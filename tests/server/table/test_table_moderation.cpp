// Moderation at a table with no sockets (issue 13): the owner, /kick and its bar,
// /option private with /invite and /uninvite, the table's chat rate, an administrator's
// /close, and all of it through a snapshot and a restore. A fake clock: no test waits.
#include <catch2/catch.hpp>

#include <algorithm>

#include "bg/protocol/command.hpp"
#include "bg/server/table/table.hpp"

using namespace bg::server;
using nlohmann::json;

// Named, so that these helpers and another file's of the same name share a unity
// build (CMAKE_UNITY_BUILD).
namespace table_moderation_tests {

namespace {

constexpr std::int64_t start_ms = 1'764'000'000'000;

struct moderated_table {
  std::int64_t now = start_ms;
  std::vector<match_record> archived;
  std::vector<json> journal;  ///< the record journal as a host keeps it
  std::unique_ptr<table> t = std::make_unique<table>("t1", hooks());

  table_hooks hooks() {
    table_hooks h{[] { return std::string("2026-11-23T00:00:00Z"); }, 500};
    h.clock_ms = [this] { return now; };
    h.match_seed = [](const std::string& name, std::uint64_t n) {
      return derived_dice::test_seed(3, name, n);
    };
    h.kick_bar_ms = 60'000;
    h.max_invited = 3;
    h.max_kicked = 2;
    h.chat_interval_ms = 1000;
    h.chat_per_minute = 5;
    return h;
  }
  table_outcome say(const std::string& who, const std::string& line) {
    auto c = bg::protocol::parse_line(line);
    REQUIRE(c.ok());
    return keep(t->handle(who, *c));
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
  table_outcome ok(const std::string& who, const std::string& line) {
    auto o = say(who, line);
    INFO(who << ": " << line << " -> " << (o.refused ? o.refused->message : ""));
    REQUIRE_FALSE(o.refused);
    return o;
  }
  std::string refused(const std::string& who, const std::string& line) {
    const auto o = say(who, line);
    INFO(who << ": " << line);
    REQUIRE(o.refused);
    return o.refused->code;
  }
  std::string refused_entry(const std::string& who) {
    const auto o = t->enter(who);
    INFO(who << " enters");
    REQUIRE(o.refused);
    return o.refused->code;
  }
  json state() const { return t->state(); }
};

/// The event named `name` among `o`'s deliveries (null when none).
json event_of(const table_outcome& o, const std::string& name) {
  for (const auto& d : o.out)
    if (d.message.value("event", "") == name) return d.message;
  return nullptr;
}

}  // namespace

TEST_CASE("the first person at a table owns it and only the owner moderates",
          "[server][table][moderation]") {
  moderated_table f;
  // Given alice comes first, then bob and carol
  const auto first = f.t->enter("alice");
  CHECK(event_of(first, "owner")["name"] == "alice");
  f.t->enter("bob");
  f.t->enter("carol");
  // Then alice owns the table, and the state and the lobby's summary say so
  CHECK(f.state()["owner"] == "alice");
  CHECK(f.t->summary()["owner"] == "alice");
  CHECK(f.state()["options"]["private"] == false);
  // and nobody else may kick, invite or make it private
  for (const char* line : {"/kick carol", "/invite dave", "/uninvite dave", "/option private on"}) {
    INFO(line);
    CHECK(f.refused("bob", line) == "not_owner");
  }
  const auto o = f.say("bob", "/kick carol");
  CHECK(o.refused->message.find("alice") != std::string::npos);
  // /who names the owner too
  const auto who = f.ok("carol", "/who");
  CHECK(who.out.at(0).message["data"]["owner"] == "alice");
}

TEST_CASE(
    "ownership passes to a seated player, else to the person here the longest, but not while the "
    "owner's seat is kept in a match",
    "[server][table][moderation]") {
  moderated_table f;
  f.t->enter("alice");
  f.t->enter("carol");  // carol came before dave
  f.t->enter("dave");
  f.t->enter("bob");
  f.ok("bob", "/join black");
  // When alice (a spectator) leaves, bob (seated) owns the table
  auto o = f.t->exit("alice");
  CHECK(event_of(o, "owner")["name"] == "bob");
  CHECK(f.state()["owner"] == "bob");
  // When bob leaves too (outside a match his seat is not kept), carol, here the longest
  o = f.t->exit("bob");
  CHECK(f.state()["owner"] == "carol");
  CHECK(event_of(o, "owner")["text"] == "carol owns the table now (bob left it)");
  // A seated owner who loses the connection during a match keeps the table
  f.ok("carol", "/join red");
  f.t->enter("bob");
  f.ok("bob", "/join black");
  f.ok("carol", "/start");
  o = f.t->exit("carol");
  CHECK(event_of(o, "absent")["name"] == "carol");
  CHECK(f.state()["owner"] == "carol");
  CHECK(f.refused("bob", "/kick dave") == "not_owner");
  // and has it on coming back
  f.t->enter("carol");
  CHECK(f.state()["owner"] == "carol");
}

TEST_CASE(
    "the owner kicks a spectator, who leaves with an event and may not come back before the bar "
    "ends",
    "[server][table][moderation]") {
  moderated_table f;
  f.t->enter("alice");
  f.t->enter("Mallory");
  f.t->enter("carol");
  // When alice kicks mallory (any letter case)
  const auto o = f.ok("alice", "/kick MALLORY");
  // Then mallory's connection leaves the table with the event and its sentence
  CHECK(o.changed);
  CHECK(o.removed == std::vector<std::string>{"Mallory"});
  const auto kicked = event_of(o, "kicked");
  CHECK(kicked["name"] == "Mallory");
  CHECK(kicked["by"] == "alice");
  CHECK(kicked["seconds"] == 60);
  CHECK(kicked["text"] ==
        "alice sends Mallory away from the table; Mallory may come back in 1 min");
  CHECK(f.state()["spectators"] == json::array({"alice", "carol"}));
  // and the action is for the moderation log
  REQUIRE(o.moderation.size() == 1);
  CHECK(o.moderation[0].action == "kick");
  CHECK(o.moderation[0].actor == "alice");
  CHECK(o.moderation[0].target == "Mallory");
  CHECK(o.moderation[0].table == "t1");
  // mallory cannot come back for the bar's length, with the time left
  f.now += 30'000;
  const auto back = f.t->enter("mallory");
  REQUIRE(back.refused);
  CHECK(back.refused->code == "kicked");
  CHECK(back.refused->message.find("30 s") != std::string::npos);
  // and can once it has passed
  f.now += 30'000;
  CHECK_FALSE(f.t->enter("mallory").refused);
  // Misuse changes nothing
  CHECK(f.refused("alice", "/kick alice") == "bad_command");
  CHECK(f.refused("alice", "/kick nobody") == "not_here");
  CHECK(f.refused("alice", "/kick bad/name") == "bad_name");
}

TEST_CASE(
    "the owner may kick the other seat before /start, never a player in a match, and the kicked "
    "names are bounded",
    "[server][table][moderation]") {
  moderated_table f;
  f.t->enter("alice");
  f.t->enter("bob");
  f.ok("alice", "/join red");
  f.ok("bob", "/join black");
  // Before /start: bob's seat is free again and bob is gone
  auto o = f.ok("alice", "/kick bob");
  CHECK(event_of(o, "kicked")["side"] == "black");
  CHECK(f.state()["players"]["black"].is_null());
  CHECK(f.refused_entry("bob") == "kicked");
  // During a match: refused, and the other player stays
  f.t->enter("carol");
  f.ok("carol", "/join black");
  f.ok("alice", "/start");
  CHECK(f.refused("alice", "/kick carol") == "in_match");
  CHECK(f.state()["players"]["black"] == "carol");
  // At most max_kicked (2) bars are kept: the one ending first is forgotten
  f.t->enter("dave");
  f.t->enter("eve");
  f.now += 1000;
  f.ok("alice", "/kick dave");
  f.now += 1000;
  f.ok("alice", "/kick eve");
  CHECK_FALSE(f.t->enter("bob").refused);  // bob's bar, the oldest, was forgotten
  CHECK(f.refused_entry("dave") == "kicked");
  CHECK(f.refused_entry("eve") == "kicked");
}

TEST_CASE(
    "a private table is not listed and admits its owner and the names invited, and those already "
    "there stay",
    "[server][table][moderation]") {
  moderated_table f;
  f.t->enter("alice");
  f.t->enter("bob");
  // When alice makes the table private
  auto o = f.ok("alice", "/option private on");
  CHECK(event_of(o, "option")["option"] == "private");
  CHECK(event_of(o, "option")["value"] == true);
  REQUIRE(o.moderation.size() == 1);
  CHECK(o.moderation[0].detail == "on");
  // Then the state and the summary say so, bob stays, a stranger is refused
  CHECK(f.state()["options"]["private"] == true);
  CHECK(f.t->summary()["options"]["private"] == true);
  CHECK(f.state()["spectators"] == json::array({"alice", "bob"}));
  CHECK(f.refused_entry("carol") == "private_table");
  // When alice invites carol: an event, and a notice for carol wherever she is
  o = f.ok("alice", "/invite Carol");
  CHECK(event_of(o, "invited")["name"] == "Carol");
  REQUIRE(o.notices.size() == 1);
  CHECK(o.notices[0].first == "Carol");
  CHECK(o.notices[0].second["topic"] == "invitation");
  CHECK(o.notices[0].second["data"]["table"] == "t1");
  CHECK(f.state()["invited"] == json::array({"Carol"}));
  // Then carol (in any case) may enter
  CHECK_FALSE(f.t->enter("carol").refused);
  // The owner always may come back
  f.t->exit("bob");  // bob leaves and is not invited: he may not come back
  CHECK(f.refused_entry("bob") == "private_table");
  // An invitation taken back: carol (here) stays; unknown ones are refused
  f.ok("alice", "/uninvite carol");
  CHECK(f.state()["invited"] == json::array());
  CHECK(f.state()["spectators"] == json::array({"alice", "carol"}));
  CHECK(f.refused("alice", "/uninvite carol") == "not_invited");
  CHECK(f.refused("alice", "/invite alice") == "bad_command");
  // Invitations are bounded (max_invited 3)
  f.ok("alice", "/invite d1");
  f.ok("alice", "/invite d2");
  f.ok("alice", "/invite d3");
  f.ok("alice", "/invite D3");  // the same name again is no new invitation
  CHECK(f.refused("alice", "/invite d4") == "too_many_invited");
  // Public again: anyone may enter
  f.ok("alice", "/option private off");
  CHECK_FALSE(f.t->enter("bob").refused);
  CHECK(f.t->summary()["options"]["private"] == false);
}

TEST_CASE("an invitation lets a kicked name back at once", "[server][table][moderation]") {
  moderated_table f;
  f.t->enter("alice");
  f.t->enter("bob");
  f.ok("alice", "/kick bob");
  CHECK(f.refused_entry("bob") == "kicked");
  f.ok("alice", "/invite bob");
  CHECK_FALSE(f.t->enter("bob").refused);
}

TEST_CASE("the owner, privacy, invitations and kicks survive a snapshot and a restore",
          "[server][table][moderation]") {
  moderated_table f;
  f.t->enter("alice");
  f.t->enter("bob");
  f.t->enter("mallory");
  f.ok("alice", "/join red");
  f.ok("bob", "/join black");
  f.ok("alice", "/option private on");
  f.ok("alice", "/invite carol");
  f.ok("alice", "/kick mallory");
  f.ok("alice", "/start");
  // When the table is restored from its snapshot (a restart: nobody present)
  auto restored = table::restore(f.t->snapshot(), f.hooks(), f.journal);
  INFO((restored ? "" : restored.err().message));
  REQUIRE(restored);
  // Then everything is as it was
  const auto st = (*restored)->state();
  CHECK(st["owner"] == "alice");
  CHECK(st["options"]["private"] == true);
  CHECK(st["invited"] == json::array({"carol"}));
  CHECK((*restored)->enter("mallory").refused->code == "kicked");
  CHECK((*restored)->enter("dave").refused->code == "private_table");
  CHECK_FALSE((*restored)->enter("carol").refused);
  CHECK_FALSE((*restored)->enter("alice").refused);
  CHECK((*restored)->state()["owner"] == "alice");
  // An older snapshot has no owner: the first person back gets the table
  auto old = f.t->snapshot();
  old.erase("owner");
  old.erase("private");
  old.erase("invited");
  old.erase("kicked");
  auto older = table::restore(old, f.hooks(), f.journal);
  REQUIRE(older);
  CHECK((*older)->state()["owner"].is_null());
  (*older)->enter("bob");
  CHECK((*older)->state()["owner"] == "bob");
}

TEST_CASE("chat at a table has a rate of its own: per person and for the table",
          "[server][table][moderation]") {
  moderated_table f;
  for (const char* who : {"alice", "bob", "carol", "dave", "eve", "fred"}) f.t->enter(who);
  // A line carries its sender, so that those who ignore it can be left out
  auto o = f.ok("alice", "hello");
  REQUIRE(o.out.size() == 1);
  CHECK(o.out[0].sender == "alice");
  CHECK_FALSE(o.changed);
  // A second line within the interval is refused, with a sentence
  const auto fast = f.say("alice", "again");
  REQUIRE(fast.refused);
  CHECK(fast.refused->code == "chat_throttled");
  CHECK(fast.refused->message.find("1 s") != std::string::npos);
  f.now += 1000;
  f.ok("alice", "again");
  // The table passes on chat_per_minute (5) lines a minute from everyone together
  f.ok("bob", "one");
  f.ok("carol", "two");
  f.ok("dave", "three");
  CHECK(f.refused("eve", "four") == "chat_throttled");
  f.now += 60'000;
  f.ok("eve", "four");
}

TEST_CASE(
    "an administrator closes a table: the match ends unfinished and archived, everyone leaves, the "
    "table is empty",
    "[server][table][moderation]") {
  moderated_table f;
  f.t->enter("alice");
  f.t->enter("bob");
  f.t->enter("carol");
  f.ok("alice", "/join red");
  f.ok("bob", "/join black");
  f.ok("alice", "/option match 5");
  f.ok("alice", "/start");
  f.ok("alice", "/roll");
  f.ok("alice", "/option private on");
  // When an administrator closes it
  const auto o = f.keep(f.t->close("admin"));
  // Then the match is archived as unfinished with its seed revealed, never rated
  REQUIRE(o.finished_match);
  CHECK(o.finished_match->unfinished);
  CHECK(o.finished_match->closed_by == "admin");
  CHECK(o.finished_match->id == 1);
  CHECK(o.finished_match->dice.seed.size() == 64);
  CHECK_FALSE(o.finished_match->dice.rolls.empty());
  REQUIRE(f.archived.size() == 1);
  // everyone present leaves with the event, and the table is empty and ownerless
  const auto closed = event_of(o, "closed");
  CHECK(closed["by"] == "admin");
  CHECK(closed["match_id"] == 1);
  auto removed = o.removed;
  std::sort(removed.begin(), removed.end());
  CHECK(removed == std::vector<std::string>{"alice", "bob", "carol"});
  CHECK(f.t->idle());
  CHECK_FALSE(f.t->in_match());
  CHECK(f.t->held_seats().empty());
  CHECK(f.state()["owner"].is_null());
  CHECK(f.state()["options"]["private"] == false);
  REQUIRE(o.moderation.size() == 1);
  CHECK(o.moderation[0].action == "close");
  CHECK(o.moderation[0].detail == "match 1");
  // A table with no match closes without archiving anything
  moderated_table g;
  g.t->enter("dave");
  const auto quiet = g.keep(g.t->close("admin"));
  CHECK_FALSE(quiet.finished_match);
  CHECK(quiet.removed == std::vector<std::string>{"dave"});
  CHECK(g.t->idle());
}

TEST_CASE(
    "S2 a kick handled as a bank runs out keeps its removal, its moderation row and the "
    "loss on time's journal in one change",
    "[server][table][moderation][clock]") {
  // Given alice (the owner) and bob in a 1-point match with a 1-minute bank and no delay,
  // past the opening roll, and mallory watching.
  moderated_table f;
  f.t->enter("alice");
  f.t->enter("bob");
  f.t->enter("mallory");
  f.ok("alice", "/join red");
  f.ok("bob", "/join black");
  f.ok("alice", "/option match 1");
  f.ok("alice", "/option clock 1 0");
  f.ok("alice", "/start");
  f.ok("alice", "/roll");
  const std::string stalled = f.state()["turn"].get<std::string>();
  REQUIRE(f.t->clock_expiry() == start_ms + 60'000);

  // When the player on turn stalls past the bank and the owner's /kick is the first
  // command the table handles after it.
  f.now = start_ms + 60'001;
  const auto o = f.ok("alice", "/kick mallory");

  // Then the one change has the loss on time and the finished match...
  REQUIRE(o.changed);
  CHECK(event_of(o, "out_of_time")["side"] == stalled);
  REQUIRE(o.finished_match);
  CHECK(f.state()["phase"] != "move");
  // ...and the kick: mallory's connection leaves, with the event and the moderation row.
  CHECK(event_of(o, "kicked")["name"] == "mallory");
  CHECK(o.removed == std::vector<std::string>{"mallory"});
  REQUIRE(o.moderation.size() == 1);
  CHECK(o.moderation[0].action == "kick");
  CHECK(o.moderation[0].target == "mallory");
  // ...and the finished match goes to the archive whole, with the game's result, while
  // the journal of the match in play is reset (nothing of it is left to replay).
  CHECK(o.record_reset);
  CHECK(f.journal.empty());
  REQUIRE_FALSE(o.finished_match->games.empty());
  CHECK(o.finished_match->games.back().result.has_value());
  CHECK(f.state()["spectators"].dump().find("mallory") == std::string::npos);
}

TEST_CASE("table_outcome::append keeps every part of the second outcome", "[server][table]") {
  table_outcome first;
  first.changed = true;
  first.record_log.push_back(json{{"op", "action"}});
  first.removed.push_back("carol");
  table_outcome then;
  then.out.push_back(delivery{delivery::audience::everyone, json{{"event", "kicked"}}});
  then.record_log.push_back(json{{"op", "result"}});
  then.removed.push_back("mallory");
  then.moderation.push_back(moderation_action{});
  then.moderation.back().action = "kick";
  then.notices.emplace_back("dave", json{{"type", "invitation"}});
  then.analysis_of = 7;
  first.append(std::move(then));
  CHECK(first.changed);
  CHECK(first.out.size() == 1);
  CHECK(first.record_log == std::vector<json>{json{{"op", "action"}}, json{{"op", "result"}}});
  CHECK(first.removed == std::vector<std::string>{"carol", "mallory"});
  REQUIRE(first.moderation.size() == 1);
  CHECK(first.moderation[0].action == "kick");
  REQUIRE(first.notices.size() == 1);
  CHECK(first.notices[0].first == "dave");
  CHECK(first.analysis_of == 7);

  // A second outcome that began a match replaces the journal instead of following it.
  table_outcome began;
  began.record_reset = true;
  began.record_log.push_back(json{{"op", "begin"}});
  first.append(std::move(began));
  CHECK(first.record_reset);
  CHECK(first.record_log == std::vector<json>{json{{"op", "begin"}}});
}

}  // namespace table_moderation_tests
