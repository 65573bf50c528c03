// Computer players have accounts and ratings (issue 14, "FIBS practice"; RULES.md S1):
// the real gammond with a temporary database, driven by WebSocket clients. The long
// nardy bot plays here (it needs no program); test_gnubg_bots.cpp has GNU Backgammon's.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "database_query.hpp"
#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "http_get.hpp"
#include "postgres_server.hpp"
#include "scripted_person.hpp"
#include "test_player.hpp"
#include "ws_client.hpp"

using bg::test::first_answer;
using bg::test::gammond_process;
using bg::test::player;
using bg::test::ws_client;
using nlohmann::json;

namespace {

/// gammond flags: bg::test::gammond_flags (reproducible dice, no rate limit in a test's
/// way) without GNU Backgammon (--gnubg pointing nowhere).
std::vector<std::string> flags() {
  return bg::test::gammond_flags(61, {"--gnubg", "/nonexistent/gnubg"});
}

/// `who` (seated red at `table`, a long nardy match to 1 against a computer player of
/// `level`) starts, waits for its turn and resigns a single game, which the bot
/// accepts. Returns the match_over event.
json resign_to_bot(player& who, const std::string& table, const std::string& level) {
  who.ok(table, "/join red");
  who.ok(table, "/option variant long");
  who.ok(table, "/option match 1");
  who.ok(table, "/bot " + level);
  who.ok(table, "/start");
  // The bot throws the opening roll (and plays, if it starts): wait for the person's turn.
  who.await_state(table, [](const json& st) {
    return st["to_act"] == "red" && bg::test::is_phase(st, {"roll", "move"});
  });
  who.ok(table, "/resign single");
  const auto over = who.await_event(table, "match_over");
  who.ok(table, "/leave");  // ready for the next match
  return over;
}

/// RULES.md S1 by hand: the points a match of length `n` moves when the favourite
/// (rated `fav`) beats the underdog (rated `dog`).
double favourite_wins(double fav, double dog, int n) {
  const double d = std::abs(fav - dog);
  const double upset = 1.0 / (std::pow(10.0, d * std::sqrt(n) / 2000.0) + 1.0);
  return 4.0 * std::sqrt(n) * upset;
}

double k_of(int experience) {
  return std::max(1.0, 5.0 - experience / 100.0);
}

}  // namespace

TEST_CASE("every computer player is an account of kind bot, without a password, made at start",
          "[bots][accounts][issue14]") {
  gammond_process server{flags()};
  for (const char* name :
       {"gnubg-beginner", "gnubg-expert", "gnubg-worldclass", "nardy-beginner",
        "nardy-intermediate", "nardy-advanced", "nardy-expert", "nardy-worldclass"}) {
    INFO(name);
    const std::string where = " FROM accounts WHERE name_key = '" + std::string(name) + "'";
    CHECK(bg::test::database_query(server, "SELECT kind" + where) == "bot");
    CHECK(bg::test::database_query(server, "SELECT coalesce(password_hash, 'NULL')" + where) ==
          "NULL");
  }
  CHECK(bg::test::database_query(server, "SELECT count(*) FROM accounts WHERE kind = 'bot'") ==
        "10");
  // A restart makes none twice.
  server.restart();
  CHECK(bg::test::database_query(server, "SELECT count(*) FROM accounts WHERE kind = 'bot'") ==
        "10");
  CHECK_THAT(server.log(), !Catch::Contains("is a person's account"));
}

TEST_CASE("the computer players' accounts do not count against --max-accounts",
          "[bots][accounts][issue14]") {
  auto f = flags();
  f.insert(f.end(), {"--max-accounts", "1"});
  gammond_process server{f};
  CHECK(bg::test::database_query(server, "SELECT count(*) FROM accounts WHERE kind = 'bot'") ==
        "10");
  const auto alice = first_answer(
      server, {{"type", "register"}, {"name", "alice"}, {"password", "long enough 1"}});
  CHECK(alice["type"] == "welcome");
  const auto bob =
      first_answer(server, {{"type", "register"}, {"name", "bob"}, {"password", "long enough 1"}});
  CHECK(bob["code"] == "too_many_accounts");
  CHECK(bg::test::database_query(server, "SELECT count(*) FROM accounts WHERE kind <> 'bot'") ==
        "1");
}

TEST_CASE("nobody registers, logs in or says hello as a computer player",
          "[bots][accounts][issue14]") {
  gammond_process server{flags()};
  for (const char* name : {"nardy-expert", "Gnubg-Expert", "gnubg-worldclass", "NARDY"}) {
    INFO(name);
    const auto reg =
        first_answer(server, {{"type", "register"}, {"name", name}, {"password", "long enough 1"}});
    CHECK(reg["code"] == "reserved_name");
    CHECK_THAT(reg["message"].get<std::string>(), Catch::Contains("computer player"));
    const auto login =
        first_answer(server, {{"type", "hello"}, {"name", name}, {"password", "long enough 1"}});
    CHECK(login["code"] == "reserved_name");
    const auto guest = first_answer(server, {{"type", "hello"}, {"name", name}});
    CHECK(guest["code"] == "reserved_name");
  }
  // "nardy-" and more is kept for the computer players too; a name that only starts
  // with the letters of a bot's is a person's.
  const auto kept = first_answer(
      server, {{"type", "register"}, {"name", "nardy-fan"}, {"password", "long enough 1"}});
  CHECK(kept["code"] == "reserved_name");
  const auto fan = first_answer(
      server, {{"type", "register"}, {"name", "nardyfan"}, {"password", "long enough 1"}});
  CHECK(fan["type"] == "welcome");
}

TEST_CASE(
    "S1: a registered player's 1-point matches against a bot are rated by the formula, and the "
    "bot's rating shows everywhere",
    "[bots][accounts][issue14]") {
  gammond_process server{flags()};
  player alice(server.port(), "alice", {}, {{"type", "register"}, {"password", "alice's secret"}});
  REQUIRE(alice.welcome()["account"]["registered"] == true);

  // First match: both new (1500, experience 0): D = 0, P_upset = 1/2, points = 2, K = 5.
  const auto first = resign_to_bot(alice, "r1", "expert");
  INFO(first.dump());
  REQUIRE(first.contains("ratings"));
  CHECK(first["winner"] == "black");
  const auto& bot1 = first["ratings"]["black"];
  const auto& alice1 = first["ratings"]["red"];
  CHECK(bot1["name"] == "nardy-expert");
  CHECK(bot1["before"].get<double>() == Approx(1500.0));
  CHECK(bot1["after"].get<double>() == Approx(1510.0));
  CHECK(bot1["experience_after"] == 1);
  CHECK(alice1["after"].get<double>() == Approx(1490.0));
  CHECK(alice1["experience_after"] == 1);

  // Second match: the bot is the favourite by 20 and wins again; both K = 4.99.
  const double points = favourite_wins(1510.0, 1490.0, 1);
  const auto second = resign_to_bot(alice, "r2", "expert");
  REQUIRE(second.contains("ratings"));
  CHECK(second["ratings"]["black"]["after"].get<double>() ==
        Approx(1510.0 + points * k_of(1)).epsilon(1e-9));
  CHECK(second["ratings"]["red"]["after"].get<double>() ==
        Approx(1490.0 - points * k_of(1)).epsilon(1e-9));
  CHECK(second["ratings"]["black"]["experience_after"] == 2);
  const double bot_now = 1510.0 + points * k_of(1);

  // /whois: a bot, online (it can sit down), its long rating and experience.
  const auto whois = alice.ok("", "/whois nardy-expert");
  CHECK(whois["data"]["bot"] == true);
  CHECK(whois["data"]["online"] == true);
  CHECK(whois["data"]["ratings"]["long"]["rating"].get<double>() == Approx(bot_now));
  CHECK(whois["data"]["ratings"]["long"]["experience"] == 2);
  CHECK(whois["data"]["ratings"]["long"]["won"] == 2);
  CHECK(whois["data"]["ratings"]["standard"]["experience"] == 0);
  CHECK_THAT(whois["text"].get<std::string>(), Catch::Contains("(a bot)"));
  // gnubg-expert is a bot too, offline on a server without GNU Backgammon.
  const auto gnubg = alice.ok("", "/whois gnubg-expert");
  CHECK(gnubg["data"]["bot"] == true);
  CHECK(gnubg["data"]["online"] == false);
  CHECK(alice.ok("", "/whois alice")["data"]["bot"] == false);
  // /ratings long lists the bot first, marked as a bot.
  const auto ratings = alice.ok("", "/ratings long");
  const auto& list = ratings["data"]["players"];
  REQUIRE(list.size() == 2);
  CHECK(list[0]["name"] == "nardy-expert");
  CHECK(list[0]["bot"] == true);
  CHECK(list[1]["name"] == "alice");
  CHECK(list[1]["bot"] == false);
  CHECK_THAT(ratings["text"].get<std::string>(), Catch::Contains("nardy-expert (a bot)"));
  // The HTTP API: the profile, the ratings list and the bot's history.
  const auto api = server.get("/api/players/nardy-expert");
  REQUIRE(api.status == 200);
  const auto profile = json::parse(api.body);
  CHECK(profile["bot"] == true);
  CHECK(profile["ratings"]["long"]["rating"].get<double>() == Approx(bot_now));
  const auto api_list = json::parse(server.get("/api/ratings?variant=long").body);
  CHECK(api_list["players"][0]["bot"] == true);
  const auto history = json::parse(server.get("/api/players/nardy-expert/matches").body);
  REQUIRE(history["matches"].size() == 2);
  CHECK(history["matches"][0]["opponent"] == "alice");
  CHECK(history["matches"][0]["won"] == true);
  CHECK(history["matches"][0]["rating"]["after"].get<double>() == Approx(bot_now));
  // The bot's rating is next to its name at a table and in the lobby.
  alice.ok("r3", "/join red");
  alice.ok("r3", "/option variant long");
  const auto st = alice.ok("r3", "/bot");
  CHECK(st["ratings"]["nardy-expert"].get<double>() == Approx(bot_now));
  CHECK(st["ratings"]["alice"].get<double>() == Approx(1490.0 - points * k_of(1)));
  const auto tables = alice.say("", "/tables");
  bool listed = false;
  for (const auto& t : tables["tables"]) {
    if (t["name"] != "r3") continue;
    listed = true;
    CHECK(t["ratings"]["black"].get<double>() == Approx(bot_now));
  }
  CHECK(listed);
  // And after a restart, the same.
  server.restart();
  player carol(server.port(), "carol");
  CHECK(carol.ok("", "/whois nardy-expert")["data"]["ratings"]["long"]["rating"].get<double>() ==
        Approx(bot_now));
  carol.ok("r4", "/join red");
  carol.ok("r4", "/option variant long");
  CHECK(carol.ok("r4", "/bot")["ratings"]["nardy-expert"].get<double>() == Approx(bot_now));
}

TEST_CASE("S1: a guest's match against a bot leaves the bot's rating as it was",
          "[bots][accounts][issue14]") {
  gammond_process server{flags()};
  player guest(server.port(), "guest");
  const auto over = resign_to_bot(guest, "g1", "beginner");
  CHECK(over["winner"] == "black");
  CHECK_FALSE(over.contains("ratings"));
  const auto whois = guest.ok("", "/whois nardy-beginner");
  CHECK(whois["data"]["ratings"]["long"]["rating"].get<double>() == Approx(1500.0));
  CHECK(whois["data"]["ratings"]["long"]["experience"] == 0);
  // The match is in the bot's record all the same, unrated.
  CHECK(whois["data"]["ratings"]["long"]["played"] == 1);
  const auto history = guest.ok("", "/history nardy-beginner");
  REQUIRE(history["data"]["matches"].size() == 1);
  CHECK(history["data"]["matches"][0]["rating"].is_null());
  // Nobody rated yet: the bot is not on the list.
  CHECK(guest.ok("", "/ratings long")["data"]["players"].empty());
}

TEST_CASE(
    "a person's account that took a bot's name before bots had accounts stays the person's, and "
    "that bot plays unrated",
    "[bots][accounts][issue14]") {
  gammond_process server{flags()};
  REQUIRE(server.stop() == 0);
  // As a database of an older gammond may be: nardy-expert registered by a person.
  bg::test::database_query(
      server,
      "UPDATE accounts SET kind = 'player', password_hash = "
      "'$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$aGFzaA' WHERE name_key = 'nardy-expert'");
  REQUIRE(bg::test::database_query(
              server, "SELECT kind FROM accounts WHERE name_key = 'nardy-expert'") == "player");
  server.restart();
  CHECK_THAT(server.log(), Catch::Contains("the name nardy-expert is a person's account"));
  CHECK(bg::test::database_query(
            server, "SELECT kind FROM accounts WHERE name_key = 'nardy-expert'") == "player");
  player alice(server.port(), "alice", {}, {{"type", "register"}, {"password", "alice's secret"}});
  const auto over = resign_to_bot(alice, "u1", "expert");
  CHECK(over["winner"] == "black");
  CHECK_FALSE(over.contains("ratings"));  // the bot has no account of its own to rate
  CHECK(bg::test::database_query(
            server,
            "SELECT count(*) FROM account_matches JOIN accounts ON accounts.id = account_id "
            "WHERE name_key = 'nardy-expert'") == "0");
  // The other bots are rated as ever.
  const auto rated = resign_to_bot(alice, "u2", "advanced");
  CHECK(rated.contains("ratings"));
}
