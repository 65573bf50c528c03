// Moderation (issue 13 "Proof"): the real gammond on an ephemeral port with a temporary
// database, driven by WebSocket clients (bg::test::player): the table's owner (/kick and
// its bar, /option private, /invite, ownership passed on, all across a restart), /ignore
// (a guest's per session, an account's across sessions and a restart), the
// administrators' /ban (names, addresses, the end of a ban, a restart), /unban,
// /broadcast and /close (the match archived unfinished), the refusals of strangers, the
// moderation log in the database, and the table chat's rate.
#include <catch2/catch.hpp>

#include <algorithm>

#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bg/server/server_config.hpp"
#include "database_query.hpp"
#include "eventually.hpp"
#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "parse_flags.hpp"
#include "test_player.hpp"
#include "ws_client.hpp"

using bg::test::eventually;
using bg::test::gammond_process;
using bg::test::player;
using bg::test::seat;
using bg::test::ws_client;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// gammond flags for these tests: bg::test::gammond_flags (reproducible dice, a rate limit
/// a test never reaches) with root as an administrator, then `more`.
std::vector<std::string> flags(std::vector<std::string> more = {}) {
  more.insert(more.begin(), {"--admins", "root"});
  return bg::test::gammond_flags(13, std::move(more));
}

const std::string root_password = "correct horse battery";

/// The fields that turn the test player's hello into a registration.
json registering(const std::string& password) {
  return {{"type", "register"}, {"password", password}};
}

/// Says hello as `name` on a new connection (through a proxy as `forwarded_for` when not
/// empty) and returns the answer (welcome or error). `keep` takes the connection.
json hello_answer(const gammond_process& server, const std::string& name,
                  const std::string& forwarded_for = {}, ws_client* keep = nullptr) {
  ws_client own;
  ws_client& c = keep ? *keep : own;
  if (!forwarded_for.empty()) c.set_header("X-Forwarded-For", forwarded_for);
  c.connect("127.0.0.1", server.port());
  c.send_json({{"type", "hello"}, {"name", name}, {"id", "first"}});
  const auto answer =
      c.receive_until([](const json& m) { return m.value("re", json()) == "first"; });
  if (!answer) FAIL("no answer to the hello of " << name << "; gammond's log:\n" << server.log());
  return *answer;
}

/// `column` (an SQL expression) of every row of the moderation log, oldest first, joined
/// by commas (SQL that SQLite and PostgreSQL both run: no group_concat or string_agg).
std::string moderation_log(const gammond_process& server, const std::string& column) {
  std::string out;
  for (int row = 0;; ++row) {
    const auto value = bg::test::database_query(
        server,
        "SELECT " + column + " FROM moderation ORDER BY id LIMIT 1 OFFSET " + std::to_string(row));
    if (value.empty()) return out;
    out += (row > 0 ? "," : "") + value;
  }
}

/// True when `p` has read a chat line from `from` saying `text`.
bool heard(const player& p, const std::string& from, const std::string& text) {
  for (const auto& m : p.received())
    if (m.value("type", "") == "chat" && m.value("from", "") == from && m.value("text", "") == text)
      return true;
  return false;
}

/// The names of the tables /tables lists for `p`.
std::vector<std::string> listed(player& p) {
  const auto t = p.ok("", "/tables");
  std::vector<std::string> names;
  for (const auto& e : t["tables"]) names.push_back(e.value("name", ""));
  return names;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST_CASE("the moderation settings have flags and GAMMOND_ variables, with bounds",
          "[moderation][config]") {
  const auto parse = [](std::vector<std::string> args, std::map<std::string, std::string> env,
                        bg::server::server_config& c, std::string& err) {
    auto r = bg::test::parse_flags(std::move(args), std::move(env));
    c = std::move(r.config);
    err = std::move(r.err);
    return r.exit;
  };
  bg::server::server_config c;
  std::string err;
  REQUIRE_FALSE(parse({"--kick-bar", "30", "--max-kicked", "7", "--max-invited", "8",
                       "--table-chat-interval", "0", "--table-chat-per-minute", "9",
                       "--max-ignored", "10", "--max-bans", "11", "--remembered-addresses", "0"},
                      {{"GAMMOND_MAX_IGNORED", "99"}}, c, err));
  CHECK(c.kick_bar == 30s);
  CHECK(c.max_kicked == 7);
  CHECK(c.max_invited == 8);
  CHECK(c.table_chat_interval == 0s);
  CHECK(c.table_chat_per_minute == 9);
  CHECK(c.max_ignored == 10);  // the flag wins over the variable
  CHECK(c.max_bans == 11);
  CHECK(c.remembered_addresses == 0);
  bg::server::server_config e;
  REQUIRE_FALSE(parse({}, {{"GAMMOND_KICK_BAR", "5"}, {"GAMMOND_MAX_BANS", "3"}}, e, err));
  CHECK(e.kick_bar == 5s);
  CHECK(e.max_bans == 3);
  bg::server::server_config d;
  CHECK(d.kick_bar == 600s);
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--kick-bar", "0"},
                                                               {"--max-kicked", "0"},
                                                               {"--max-ignored", "0"},
                                                               {"--table-chat-per-minute", "0"},
                                                               {"--max-bans", "x"}}) {
    bg::server::server_config x;
    INFO(bad[0] << " " << bad[1]);
    CHECK(parse(bad, {}, x, err) == 2);
    CHECK_THAT(err, Catch::Contains(bad[0]));
  }
}

TEST_CASE("the owner kicks a spectator, who may come back once the bar ends",
          "[moderation][gammond]") {
  gammond_process server{flags({"--kick-bar", "1"})};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  // Given alice comes first to t1, she owns it; bob watches
  CHECK(alice.ok("t1", "/board")["owner"] == "alice");
  CHECK(bob.ok("t1", "/board")["owner"] == "alice");
  // When bob, who is not the owner, tries to kick, he is refused
  bob.refused("t1", "/kick alice", "not_owner");
  bob.refused("t1", "/option private on", "not_owner");
  bob.refused("t1", "/invite carol", "not_owner");
  alice.refused("t1", "/kick nobody", "not_here");
  alice.refused("t1", "/kick " + std::string(40, 'a'), "bad_name");  // too long a name
  // When alice kicks bob, he hears it and is no longer at the table
  alice.ok("t1", "/kick bob");
  const auto kicked = bob.await_event("t1", "kicked");
  CHECK(kicked["name"] == "bob");
  CHECK(kicked["by"] == "alice");
  CHECK(bob.socket().is_open());  // left the table, not the server
  CHECK(alice.ok("t1", "/who")["data"]["spectators"] == json::array({"alice"}));
  // and he may not come back at once
  bob.refused("t1", "/board", "kicked");
  // but once the bar (1 s here) ends, he may
  CHECK(eventually([&] { return bob.say("t1", "/board").value("type", "") == "state"; }));
  CHECK(
      bg::test::database_query(server,
                               "SELECT actor || ' ' || target || ' ' || table_name FROM moderation "
                               "WHERE action = 'kick'") == "alice bob t1");
}

TEST_CASE(
    "a private table is not listed and admits only invited names, and ownership passes on and "
    "survives a restart with the invitations and kicks",
    "[moderation][gammond]") {
  gammond_process server{flags()};
  std::string alice_token;
  {
    player alice(server.port(), "alice");
    player bob(server.port(), "bob");
    player carol(server.port(), "carol");
    player erin(server.port(), "erin");
    seat(alice, bob, "t1");
    erin.ok("t1", "/board");
    CHECK(contains(listed(carol), "t1"));
    // The owner makes the table private: it leaves the list, erin (already there) stays
    alice.ok("t1", "/option private on");
    CHECK(alice.ok("t1", "/board")["options"]["private"] == true);
    CHECK_FALSE(contains(listed(carol), "t1"));
    carol.refused("t1", "/board", "private_table");
    // An invitation lets carol in, and tells her
    alice.ok("t1", "/invite carol");
    const auto note =
        carol.await([](const json& m) { return m.value("topic", "") == "invitation"; });
    CHECK(note["data"]["table"] == "t1");
    CHECK(carol.ok("t1", "/board")["invited"] == json::array({"carol"}));
    // A kick of the spectator erin, with the default 10-minute bar
    alice.ok("t1", "/kick erin");
    erin.refused("t1", "/board", "kicked");
    // The seated player cannot be kicked during a match (seat() started it)
    alice.refused("t1", "/kick bob", "in_match");
    alice_token = alice.token();
  }
  // After a restart, the owner, privacy, invitation and kick are still in force
  server.restart();
  player alice(server.port(), "alice", alice_token);
  const auto st = alice.ok("t1", "/board");
  CHECK(st["owner"] == "alice");
  CHECK(st["options"]["private"] == true);
  CHECK(st["invited"] == json::array({"carol"}));
  player erin(server.port(), "erin");
  erin.refused("t1", "/board", "kicked");
  player frank(server.port(), "frank");
  frank.refused("t1", "/board", "private_table");
  CHECK_FALSE(contains(listed(frank), "t1"));
  player carol(server.port(), "carol");
  carol.ok("t1", "/board");
  // An owner who steps away during the match keeps her seat, and the table
  alice.send_message({{"type", "exit"}, {"table", "t1"}});
  CHECK(carol.await_event("t1", "absent")["name"] == "alice");
  CHECK(carol.ok("t1", "/board")["owner"] == "alice");
}

TEST_CASE(
    "when the owner leaves, ownership passes to the person seated, else the person present the "
    "longest",
    "[moderation][gammond]") {
  gammond_process server{flags()};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  player carol(server.port(), "carol");
  alice.ok("t1", "/board");
  bob.ok("t1", "/board");
  carol.ok("t1", "/join");
  alice.send_message({{"type", "exit"}, {"table", "t1"}});
  const auto owner = bob.await_event("t1", "owner");
  CHECK(owner["name"] == "carol");  // seated beats present longer
  carol.ok("t1", "/leave");
  carol.send_message({{"type", "exit"}, {"table", "t1"}});
  CHECK(bob.await_event("t1", "owner")["name"] == "bob");
  CHECK(bob.ok("t1", "/board")["owner"] == "bob");
}

TEST_CASE(
    "/ignore hides a name's chat, per session for a guest and per account across sessions and a "
    "restart",
    "[moderation][gammond]") {
  gammond_process server{flags({"--max-ignored", "2", "--lobby-chat-interval", "0"})};
  player bob(server.port(), "bob");
  player carol(server.port(), "carol");
  {
    player alice(server.port(), "alice");
    alice.ok("t1", "/board");
    bob.ok("t1", "/board");
    carol.ok("t1", "/board");
    alice.refused("", "/ignore alice", "bad_command");
    alice.refused("", "/unignore bob", "not_ignored");
    CHECK(alice.ok("", "/ignore bob")["data"]["ignored"] == json::array({"bob"}));
    alice.ok("t1", "/ignore dave");
    alice.refused("", "/ignore erin", "too_many_ignored");
    // bob's lines (table and lobby) do not reach alice; carol's do, and reach bob's
    // listeners
    bob.ok("t1", "hello from bob");
    bob.send("", "lobby line from bob");
    bob.await([](const json& m) { return m.value("text", "") == "lobby line from bob"; });
    carol.ok("t1", "hello from carol");
    carol.send("", "lobby line from carol");
    alice.await([](const json& m) {
      return m.value("type", "") == "chat" && m.value("text", "") == "lobby line from carol";
    });
    CHECK(heard(alice, "carol", "hello from carol"));
    CHECK_FALSE(heard(alice, "bob", "hello from bob"));
    CHECK_FALSE(heard(alice, "bob", "lobby line from bob"));
    CHECK(eventually([&] {
      carol.ok("", "/tables");
      return heard(carol, "bob", "hello from bob");
    }));
  }
  // A guest's list ends with the session (once the server has seen the connection
  // close, which the client does not wait for: until then the name is in use)
  CHECK(eventually([&] {
    const auto online = bob.ok("", "/who")["data"]["online"];
    return std::find(online.begin(), online.end(), json("alice")) == online.end();
  }));
  {
    player alice(server.port(), "alice");
    CHECK(alice.ok("", "/ignore")["data"]["ignored"] == json::array());
  }
  // An account's list is kept across sessions and a restart
  {
    player reg(server.port(), "reggie", {}, registering("a long password"));
    reg.ok("", "/ignore bob");
  }
  {
    player reg(server.port(), "reggie", {}, json{{"password", "a long password"}});
    CHECK(reg.ok("", "/ignore")["data"]["ignored"] == json::array({"bob"}));
  }
  server.restart();
  player reg(server.port(), "reggie", {}, json{{"password", "a long password"}});
  CHECK(reg.ok("", "/ignore")["data"]["ignored"] == json::array({"bob"}));
  reg.ok("", "/unignore bob");
  CHECK(reg.ok("", "/ignore")["data"]["ignored"] == json::array());
}

TEST_CASE("administrators ban and unban names and addresses, strangers are refused",
          "[moderation][gammond]") {
  gammond_process server{flags({"--trusted-proxy", "127.0.0.1"})};
  server.create_admin("root", root_password);  // an --admins name is made on the host
  player root(server.port(), "root", {}, json{{"password", root_password}});
  CHECK(root.welcome()["account"]["admin"] == true);
  player mallory(server.port(), "mallory");
  // Strangers are refused
  mallory.refused("", "/ban root", "not_admin");
  mallory.refused("", "/unban root", "not_admin");
  mallory.refused("", "/broadcast hi", "not_admin");
  mallory.refused("", "/close t1", "not_admin");
  root.refused("", "/ban root", "bad_command");
  root.refused("", "/unban nobody", "not_banned");
  // A guest from 10.0.0.7 through the proxy is banned: the connection is closed (1008)
  ws_client troll;
  REQUIRE(hello_answer(server, "troll", "10.0.0.7", &troll)["type"] == "welcome");
  const auto ban = root.ok("", "/ban troll 2");
  CHECK(ban["data"]["sessions_closed"] == 1);
  REQUIRE(troll.wait_closed());
  CHECK(troll.close_code() == 1008);
  CHECK(troll.close_reason() == "banned");
  // the name cannot say hello, from anywhere, and its address cannot either
  const auto again = hello_answer(server, "troll");
  CHECK(again["code"] == "banned");
  CHECK(again["seconds"].get<int>() > 7000);
  CHECK(again["seconds"].get<int>() <= 7200);
  CHECK(hello_answer(server, "newname", "10.0.0.7")["code"] == "banned");
  CHECK(hello_answer(server, "newname", "10.0.0.8")["type"] == "welcome");
  {  // nor register a new account from the banned address
    ws_client c;
    c.set_header("X-Forwarded-For", "10.0.0.7");
    c.connect("127.0.0.1", server.port());
    c.send_json(
        {{"type", "register"}, {"name", "fresh"}, {"password", "a long password"}, {"id", "r"}});
    const auto r = c.receive_until([](const json& m) { return m.value("re", json()) == "r"; });
    REQUIRE(r);
    CHECK((*r)["code"] == "banned");
  }
  // a ban survives a restart
  server.restart();
  player root2(server.port(), "root", {}, json{{"password", root_password}});
  CHECK(hello_answer(server, "troll")["code"] == "banned");
  // an unban lifts the name's and its addresses' bans
  root2.ok("", "/unban Troll");
  CHECK(hello_answer(server, "troll", "10.0.0.7")["type"] == "welcome");
  // a short ban ends by itself (0.0003 h is about a second)
  root2.ok("", "/ban shorty 0.0003");
  CHECK(hello_answer(server, "shorty")["code"] == "banned");
  CHECK(eventually([&] { return hello_answer(server, "shorty")["type"] == "welcome"; }));
  CHECK(moderation_log(server, "action || ':' || target") == "ban:troll,unban:Troll,ban:shorty");
  CHECK(bg::test::database_query(server, "SELECT count(*) FROM bans WHERE name_key = 'troll'") ==
        "0");
}

TEST_CASE("/broadcast reaches every session and /close ends the match unfinished",
          "[moderation][gammond]") {
  gammond_process server{flags()};
  server.create_admin("root", root_password);  // an --admins name is made on the host
  player root(server.port(), "root", {}, json{{"password", root_password}});
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  player carol(server.port(), "carol");
  seat(alice, bob, "t1", "/option match 3");
  carol.ok("t1", "/board");
  const auto sent = root.ok("", "/broadcast The server restarts at 18:00 UTC");
  CHECK(sent["type"] == "broadcast");
  for (player* p : {&alice, &bob, &carol}) {
    const auto b = p->await([](const json& m) { return m.value("type", "") == "broadcast"; });
    CHECK(b["from"] == "root");
    CHECK(b["text"] == "The server restarts at 18:00 UTC");
  }
  root.refused("", "/close nowhere", "no_such_table");
  const auto closed = root.ok("", "/close t1");
  CHECK(closed["data"]["table"] == "t1");
  const auto e = alice.await_event("t1", "closed");
  CHECK(e["by"] == "root");
  const auto id = e["match_id"].get<std::int64_t>();
  CHECK(carol.await_event("t1", "closed")["match_id"] == id);
  CHECK(bg::test::database_query(
            server, "SELECT CASE WHEN unfinished THEN 1 ELSE 0 END FROM matches WHERE id = " +
                        std::to_string(id)) == "1");
  CHECK(moderation_log(server, "action") == "broadcast,close");
  // The table is gone: /tables does not list it, and a new t1 is a fresh table
  CHECK_FALSE(contains(listed(carol), "t1"));
  const auto fresh = carol.ok("t1", "/board");
  CHECK(fresh["owner"] == "carol");
  CHECK(fresh["players"]["red"].is_null());
}

TEST_CASE("table chat has a rate of its own", "[moderation][gammond]") {
  gammond_process server{flags({"--table-chat-interval", "600", "--table-chat-per-minute", "3"})};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  player carol(server.port(), "carol");
  player dave(server.port(), "dave");
  alice.ok("t1", "first line");
  alice.refused("t1", "second line", "chat_throttled");  // one line per 600 s each
  bob.ok("t1", "bob's line");
  carol.ok("t1", "carol's line");
  dave.refused("t1", "dave's line", "chat_throttled");  // 3 a minute at the table
  dave.ok("t2", "dave at another table");               // other tables are not held up
}

TEST_CASE("a ban holds against the name a resume token resumes, and revokes the name's token",
          "[moderation][gammond][ban]") {
  gammond_process server{flags({"--trusted-proxy", "127.0.0.1"})};
  server.create_admin("root", root_password);  // an --admins name is made on the host
  player root(server.port(), "root", {}, json{{"password", root_password}});
  player troll(server.port(), "troll");
  player bob(server.port(), "bob");
  seat(troll, bob, "t1", "/option match 3");
  const std::string token = troll.token();
  REQUIRE_FALSE(token.empty());
  // The connection of a resume from a new address, with `name` (may be empty).
  const auto resume = [&](const std::string& name, const std::string& address) {
    ws_client c;
    c.set_header("X-Forwarded-For", address);
    c.connect("127.0.0.1", server.port());
    json hello{{"type", "hello"}, {"resume", token}, {"id", "first"}};
    if (!name.empty()) hello["name"] = name;
    c.send_json(hello);
    const auto answer =
        c.receive_until([](const json& m) { return m.value("re", json()) == "first"; });
    if (!answer) FAIL("no answer to a resume; gammond's log:\n" << server.log());
    return *answer;
  };
  const auto ban = root.ok("", "/ban troll");
  CHECK(ban["data"]["sessions_closed"] == 1);
  // The token with another name, from another address: refused as troll's.
  const auto back = resume("innocent", "10.0.0.9");
  CHECK(back["code"] == "banned");
  CHECK(back.value("name", "") != "troll");
  CHECK(resume("", "10.0.0.10")["code"] == "banned");
  // Lifted, the ban leaves the token revoked: it resumes nothing.
  root.ok("", "/unban troll");
  CHECK(resume("", "10.0.0.11")["code"] == "bad_resume");
  const auto other = resume("innocent", "10.0.0.12");
  CHECK(other["type"] == "welcome");
  CHECK(other["name"] == "innocent");
  CHECK(other["resumed"] == false);
  // After a restart the table gives the seat its token back (from its snapshot): the
  // ban, kept in the database, still holds against the name that token resumes.
  player rogue(server.port(), "rogue");
  player carol(server.port(), "carol");
  seat(rogue, carol, "t2", "/option match 3");
  const std::string rogue_token = rogue.token();
  root.ok("", "/ban rogue");
  server.restart();
  ws_client c;
  c.set_header("X-Forwarded-For", "10.0.0.13");
  c.connect("127.0.0.1", server.port());
  c.send_json({{"type", "hello"}, {"name", "innocent2"}, {"resume", rogue_token}, {"id", "r"}});
  const auto after = c.receive_until([](const json& m) { return m.value("re", json()) == "r"; });
  REQUIRE(after);
  CHECK((*after)["code"] == "banned");
}

TEST_CASE(
    "an invitation from a name the invitee /ignores is not delivered, and the owner is "
    "told the same as for anyone",
    "[moderation][gammond]") {
  gammond_process server{flags()};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  player carol(server.port(), "carol");
  bob.ok("", "/ignore alice");
  alice.ok("t1", "/option private on");
  const auto to_bob = alice.ok("t1", "/invite bob");
  const auto to_carol = alice.ok("t1", "/invite carol");
  // The owner's answers differ only in the name: ignoring is not revealed.
  CHECK(to_bob["type"] == to_carol["type"]);
  CHECK(to_bob["invited"] == json::array({"bob"}));
  CHECK(to_carol["invited"] == json::array({"bob", "carol"}));
  // carol (who ignores nobody) is told; bob is not. The notices are sent before the
  // owner's answer, so bob's answer to a later command comes after any notice to him.
  carol.await([](const json& m) { return m.value("topic", "") == "invitation"; });
  bob.ok("", "/who");
  for (const auto& m : bob.received()) CHECK(m.value("topic", "") != "invitation");
  // The invitation itself stands: bob may still enter the private table.
  bob.ok("t1", "/board");
}

TEST_CASE(
    "chat lines lose bidirectional overrides and zero-width characters, a line of "
    "nothing else is refused (empty_line)",
    "[moderation][gammond]") {
  gammond_process server{flags({"--lobby-chat-interval", "0", "--table-chat-interval", "0"})};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  alice.ok("t1", "/board");
  bob.ok("t1", "/board");
  // RLO ... PDF, an LRI/PDI pair, a zero-width space, joiner, word joiner, BOM, ALM.
  const std::string tricky =
      "pay \u202Egnp.exe\u202C to \u2066me\u2069\u200B\u200D\u2060\uFEFF\u061C\u200E now";
  const std::string clean = "pay gnp.exe to me now";
  alice.ok("t1", tricky);
  alice.send("", tricky);
  bob.await([&](const json& m) {
    return m.value("type", "") == "chat" && !m.contains("table") && m.value("text", "") == clean;
  });
  CHECK(heard(bob, "alice", clean));
  for (const auto& m : bob.received())
    if (m.value("type", "") == "chat") CHECK(m.value("text", "") == clean);
  alice.refused("t1", "\u202E\u200B", "empty_line");
  alice.refused("", "\u2066 \uFEFF", "empty_line");
  // Other scripts, right-to-left ones included, pass untouched.
  alice.ok("t1", "\u05E9\u05DC\u05D5\u05DD \u0645\u0631\u062D\u0628\u0627");
  CHECK(eventually([&] {
    bob.ok("", "/who");
    return heard(bob, "alice", "\u05E9\u05DC\u05D5\u05DD \u0645\u0631\u062D\u0628\u0627");
  }));
}

TEST_CASE("a private table's finished match is read only by its players and administrators",
          "[moderation][gammond]") {
  gammond_process server{flags()};
  server.create_admin("root", root_password);  // an --admins name is made on the host
  player root(server.port(), "root", {}, json{{"password", root_password}});
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  player carol(server.port(), "carol");
  alice.ok("t1", "/option private on");
  alice.ok("t1", "/invite bob");
  seat(alice, bob, "t1", "/option match 1");
  // The player to move resigns a single game; the other accepts: the match is over.
  alice.say("t1", "/roll");  // the opening roll decides who moves
  const std::string turn = alice.ok("t1", "/board")["turn"];
  player& mover = turn == "red" ? alice : bob;
  player& other = turn == "red" ? bob : alice;
  mover.ok("t1", "/resign");
  other.ok("t1", "/accept");
  const auto over = alice.await_event("t1", "match_over");
  REQUIRE(over["match_id"].is_number_integer());
  const std::string id = std::to_string(over["match_id"].get<std::int64_t>());
  for (const std::string& route :
       {"/matches/" + id + ".mat", "/api/matches/" + id, "/api/matches/" + id + "/analysis"}) {
    INFO(route);
    // Nobody's, a stranger's token: not found, as if there were no such match.
    CHECK(server.get(route).status == 404);
    CHECK(server.get(route + "?token=" + carol.token()).status == 404);
    CHECK(server.get(route + "?token=0123456789abcdef0123456789abcdef").status == 404);
    // Its players and an administrator read it.
    CHECK(server.get(route + "?token=" + alice.token()).status == 200);
    CHECK(server.get(route + "?token=" + bob.token()).status == 200);
    CHECK(server.get(route + "?token=" + root.token()).status == 200);
  }
  // Over the WebSocket, /analysis likewise.
  carol.refused("", "/analysis " + id, "unknown_match");
  alice.ok("", "/analysis " + id);
  root.ok("", "/analysis " + id);
  // A public table's match is anyone's (unchanged).
  player dave(server.port(), "dave");
  player erin(server.port(), "erin");
  seat(dave, erin, "t2", "/option match 1");
  dave.say("t2", "/roll");
  const std::string turn2 = dave.ok("t2", "/board")["turn"];
  player& mover2 = turn2 == "red" ? dave : erin;
  player& other2 = turn2 == "red" ? erin : dave;
  mover2.ok("t2", "/resign");
  other2.ok("t2", "/accept");
  const auto over2 = dave.await_event("t2", "match_over");
  CHECK(server.get("/matches/" + std::to_string(over2["match_id"].get<std::int64_t>()) + ".mat")
            .status == 200);
}
