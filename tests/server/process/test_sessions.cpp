// Remembered sign-ins (issue 27, item 1): a login or registration with `remember` gets a
// session credential in its welcome, a later hello with it logs in without the password,
// /sessions lists them, /signout ends one or all, and /password ends them all. The real
// gammond on an ephemeral port with a temporary database (PostgreSQL in the pg stage),
// driven by WebSocket clients; the store's own rules (expiry, the bound per account)
// against both stores in test_store_conformance.cpp.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "bg/server/players/resume_tokens.hpp"
#include "database_query.hpp"
#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "test_player.hpp"
#include "ws_client.hpp"

using bg::test::first_answer;
using bg::test::gammond_process;
using bg::test::no_command_limit;
using bg::test::player;
using bg::test::ws_client;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// A hello that logs in to `name` with the session credential `credential`.
json with_session(const std::string& name, const std::string& credential) {
  return {{"type", "hello"}, {"name", name}, {"session", credential}};
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// How many sessions the database keeps for account `name_key`.
std::string stored_sessions(const gammond_process& server, const std::string& name_key) {
  return bg::test::database_query(server,
                                  "SELECT count(*) FROM sessions s JOIN accounts a ON a.id = "
                                  "s.account_id WHERE a.name_key = '" +
                                      name_key + "'");
}

}  // namespace

TEST_CASE(
    "a registration or login with remember gets a session credential that logs in without the "
    "password on a new connection, it is stored only hashed",
    "[accounts][sessions][gammond]") {
  gammond_process server{no_command_limit()};
  std::string credential;
  {
    // Given alice registers from a browser and asks to stay signed in
    player alice(server.port(), "alice", {},
                 {{"type", "register"},
                  {"password", "correct horse"},
                  {"remember", true},
                  {"label", "browser"}});
    // Then the welcome carries a credential of 64 hex digits that ends in 30 days
    credential = alice.welcome().value("session", "");
    REQUIRE(credential.size() == 64);
    CHECK(alice.welcome()["session_id"].get<std::int64_t>() > 0);
    const auto expires = alice.welcome()["session_expires_ms"].get<std::int64_t>();
    CHECK(expires > now_ms() + 29LL * 86'400'000);
    CHECK(expires < now_ms() + 31LL * 86'400'000);
    // And the database holds its SHA-256, never the credential itself
    CHECK(stored_sessions(server, "alice") == "1");
    CHECK(bg::test::database_query(server, "SELECT count(*) FROM sessions WHERE token_hash = '" +
                                               credential + "'") == "0");
    CHECK(bg::test::database_query(server, "SELECT count(*) FROM sessions WHERE token_hash = '" +
                                               bg::server::resume_tokens::hash_hex(credential) +
                                               "'") == "1");
  }
  // When a new connection (a reload, a new day) says hello with it, without a password
  const auto again = first_answer(server, with_session("Alice", credential));
  // Then it is logged in to the account, and keeps the same credential
  REQUIRE(again["type"] == "welcome");
  CHECK(again["name"] == "alice");
  CHECK(again["account"]["registered"] == true);
  CHECK(again["session"] == credential);
  // And a login with the password and no remember starts none
  const auto plain =
      first_answer(server, {{"type", "hello"}, {"name", "alice"}, {"password", "correct horse"}});
  REQUIRE(plain["type"] == "welcome");
  CHECK_FALSE(plain.contains("session"));
  CHECK(stored_sessions(server, "alice") == "1");
  // A login with remember starts a second one
  const auto second = first_answer(server, {{"type", "hello"},
                                            {"name", "alice"},
                                            {"password", "correct horse"},
                                            {"remember", true},
                                            {"label", "gammon-term"}});
  REQUIRE(second["type"] == "welcome");
  CHECK(second["session"] != credential);
  CHECK(stored_sessions(server, "alice") == "2");
}

TEST_CASE(
    "a wrong, malformed or other account's session credential is bad_session and logs in nobody, a "
    "credential with a password is a bad_message",
    "[accounts][sessions][gammond]") {
  gammond_process server{no_command_limit()};
  std::string credential;
  {
    player alice(server.port(), "alice", {},
                 {{"type", "register"}, {"password", "correct horse"}, {"remember", true}});
    credential = alice.welcome()["session"];
  }
  { player bob(server.port(), "bob", {}, {{"type", "register"}, {"password", "battery staple"}}); }
  std::string wrong = credential;
  wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
  CHECK(first_answer(server, with_session("alice", wrong))["code"] == "bad_session");
  CHECK(first_answer(server, with_session("alice", "not a credential"))["code"] == "bad_session");
  CHECK(first_answer(server, with_session("bob", credential))["code"] == "bad_session");
  CHECK(first_answer(server, with_session("carol", credential))["code"] == "bad_session");
  const auto both = first_answer(server, {{"type", "hello"},
                                          {"name", "alice"},
                                          {"password", "correct horse"},
                                          {"session", credential}});
  CHECK(both["code"] == "bad_message");
  CHECK(first_answer(server, {{"type", "hello"},
                              {"name", "alice"},
                              {"password", "x"},
                              {"remember", "yes"}})["code"] == "bad_message");
  // The credential itself is in no log line
  CHECK(server.log().find(credential) == std::string::npos);
  // And it still works for alice
  CHECK(first_answer(server, with_session("alice", credential))["type"] == "welcome");
}

TEST_CASE(
    "/sessions lists the account's sign-ins, /signout ends this one, /signout ID another, /signout "
    "all every one and closes the account's other connections",
    "[accounts][sessions][gammond]") {
  gammond_process server{no_command_limit()};
  std::string first;
  {
    player alice(server.port(), "alice", {},
                 {{"type", "register"},
                  {"password", "correct horse"},
                  {"remember", true},
                  {"label", "browser"}});
    first = alice.welcome()["session"];
  }
  player alice(server.port(), "alice", {},
               {{"password", "correct horse"}, {"remember", true}, {"label", "gammon-term"}});
  const std::string second = alice.welcome()["session"];
  const auto second_id = alice.welcome()["session_id"].get<std::int64_t>();
  // /sessions: both, the newest first, this one marked
  const auto listed = alice.ok("", "/sessions");
  REQUIRE(listed["topic"] == "sessions");
  const auto& items = listed["data"]["sessions"];
  REQUIRE(items.size() == 2);
  CHECK(items[0]["id"] == second_id);
  CHECK(items[0]["label"] == "gammon-term");
  CHECK(items[0]["current"] == true);
  CHECK(items[1]["label"] == "browser");
  CHECK(items[1]["current"] == false);
  CHECK(listed["text"].get<std::string>().find("(this one)") != std::string::npos);
  const auto first_id = items[1]["id"].get<std::int64_t>();
  // A guest has no sign-ins; a bad id is refused with a sentence
  player guest(server.port(), "guest1");
  guest.refused("", "/sessions", "not_registered");
  alice.refused("", "/signout 999999", "no_session");
  alice.refused("", "/signout now", "bad_command");
  // /signout ID ends the browser's: its credential logs in nobody now
  const auto one = alice.ok("", "/signout " + std::to_string(first_id));
  CHECK(one["topic"] == "signout");
  CHECK(one["data"]["ended"] == 1);
  CHECK(first_answer(server, with_session("alice", first))["code"] == "bad_session");
  // /signout ends this one
  const auto mine = alice.ok("", "/signout");
  CHECK(mine["data"]["current"] == true);
  CHECK(first_answer(server, with_session("alice", second))["code"] == "bad_session");
  alice.refused("", "/signout", "no_session");  // nothing left to end here
  CHECK(stored_sessions(server, "alice") == "0");
  // /signout all: two more sign-ins end, and the other connection of alice closes
  std::string third;
  {
    const auto w = first_answer(
        server,
        {{"type", "hello"}, {"name", "alice"}, {"password", "correct horse"}, {"remember", true}});
    third = w["session"];
  }
  player phone(server.port(), "alice", {}, {{"session", third}});
  const auto all = phone.ok("", "/signout all");
  CHECK(all["data"]["all"] == true);
  CHECK(all["data"]["ended"].get<int>() >= 1);
  CHECK(all["data"]["resume"].get<std::string>().size() == 32);
  CHECK(first_answer(server, with_session("alice", third))["code"] == "bad_session");
  CHECK(stored_sessions(server, "alice") == "0");
}

TEST_CASE(
    "/password ends every remembered sign-in of the account and gives the connection that had one "
    "a new credential",
    "[accounts][sessions][gammond]") {
  gammond_process server{no_command_limit()};
  std::string old_one;
  {
    player alice(server.port(), "alice", {},
                 {{"type", "register"}, {"password", "correct-horse"}, {"remember", true}});
    old_one = alice.welcome()["session"];
  }
  std::string other;
  {
    const auto w = first_answer(
        server,
        {{"type", "hello"}, {"name", "alice"}, {"password", "correct-horse"}, {"remember", true}});
    other = w["session"];
  }
  player alice(server.port(), "alice", {}, {{"session", old_one}});
  const auto answer = alice.ok("", "/password correct-horse battery-staple");
  CHECK(answer["topic"] == "password");
  const std::string fresh = answer["data"].value("session", "");
  REQUIRE(fresh.size() == 64);
  CHECK(fresh != old_one);
  CHECK(first_answer(server, with_session("alice", old_one))["code"] == "bad_session");
  CHECK(first_answer(server, with_session("alice", other))["code"] == "bad_session");
  CHECK(stored_sessions(server, "alice") == "1");
}

TEST_CASE("with --session-days 0 nobody stays signed in: remember is ignored",
          "[accounts][sessions][gammond]") {
  gammond_process server{no_command_limit({"--session-days", "0"})};
  player alice(server.port(), "alice", {},
               {{"type", "register"}, {"password", "correct horse"}, {"remember", true}});
  CHECK_FALSE(alice.welcome().contains("session"));
  CHECK(stored_sessions(server, "alice") == "0");
}
