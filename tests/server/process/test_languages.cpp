// The player's language (issue 31): a hello's `lang` chooses the language of every
// sentence the server says to that session (errors and answers carry `say` and are
// rendered in it), /lang changes it for the session and a registered player's account,
// and a later login without `lang` takes the account's. The real gammond on an
// ephemeral port with a temporary database (PostgreSQL in the pg stage), driven by
// WebSocket clients.
#include <catch2/catch.hpp>

#include <string>

#include "database_query.hpp"
#include "eventually.hpp"
#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "test_player.hpp"

using bg::test::first_answer;
using bg::test::gammond_process;
using bg::test::no_command_limit;
using bg::test::player;
using nlohmann::json;

namespace {

/// A hello as `name` in language `lang`.
json hello_in(const std::string& name, const std::string& lang) {
  return {{"type", "hello"}, {"name", name}, {"lang", lang}};
}

/// The answer of `p` to `line` in the lobby, which must be an error of `code`.
json refusal(player& p, const std::string& line, const std::string& code) {
  auto m = p.say("", line);
  REQUIRE(m["type"] == "error");
  CHECK(m["code"] == code);
  return m;
}

}  // namespace

TEST_CASE("a client that says lang fr gets errors and events in French", "[i18n][lang][gammond]") {
  gammond_process server{no_command_limit()};
  // Given alice says hello in French
  player alice(server.port(), "alice", {}, {{"lang", "fr"}});
  // Then the welcome says so
  CHECK(alice.welcome()["lang"] == "fr");
  // And a refusal of the command grammar is in French, its key and arguments beside it
  const auto unknown = refusal(alice, "/nosuch", "unknown_command");
  CHECK(unknown["message"] == "/nosuch n’est pas une commande\u00a0: tapez /help");
  CHECK(unknown["say"]["key"] == "protocol.unknown_command");
  CHECK(unknown["say"]["args"]["command"] == "nosuch");
  // And so is an answer of the server
  const auto who = alice.ok("", "/who");
  CHECK(who["text"] == "1 en ligne\u00a0: alice");
  CHECK(who["say"]["key"] == "service.who_online_names");
  // And a table's event is in French: dave, second to sit, takes black
  alice.ok("t1", "/join");
  player dave(server.port(), "dave");
  dave.ok("t1", "/join");
  const auto joined = alice.await_event("t1", "joined");
  CHECK(joined["text"] == "dave s’assoit côté noir");
  CHECK(joined["say"]["key"] == "table.joined");
  CHECK(joined["name"] == "dave");
  // And a refused login says why in French too
  const auto bad = first_answer(
      server, {{"type", "hello"}, {"name", "bob"}, {"password", "nope nope"}, {"lang", "fr-CH"}});
  CHECK(bad["code"] == "bad_login");
  CHECK(bad["message"] == "nom ou mot de passe incorrect");
}

TEST_CASE("a client that says lang ru gets errors and events in Russian", "[i18n][lang][gammond]") {
  gammond_process server{no_command_limit()};
  // Given alice says hello in Russian (a regional tag is its language)
  player alice(server.port(), "alice", {}, {{"lang", "ru-RU"}});
  CHECK(alice.welcome()["lang"] == "ru");
  // Then refusals and answers are in Russian
  CHECK(refusal(alice, "/nosuch", "unknown_command")["message"] ==
        "/nosuch — не команда: наберите /help");
  CHECK(alice.ok("", "/who")["text"] == "в сети: 1: alice");
  // And so is a table's event: dave, second to sit, takes black
  alice.ok("t1", "/join");
  player dave(server.port(), "dave");
  dave.ok("t1", "/join");
  const auto joined = alice.await_event("t1", "joined");
  CHECK(joined["text"] == "dave садится за чёрных");
  CHECK(joined["say"]["key"] == "table.joined");
  const auto bad = first_answer(
      server, {{"type", "hello"}, {"name", "bob"}, {"password", "nope nope"}, {"lang", "ru"}});
  CHECK(bad["code"] == "bad_login");
  CHECK(bad["message"] == "неверное имя или пароль");
  // And a hello in no language of the server is in English
  const auto none = first_answer(server, hello_in("carol", "xx"));
  REQUIRE(none["type"] == "welcome");
  CHECK(none["lang"] == "en");
}

TEST_CASE("/lang ru changes the sentences of the session", "[i18n][lang][gammond]") {
  gammond_process server{no_command_limit()};
  // Given alice says hello without a language: English
  player alice(server.port(), "alice");
  CHECK(alice.welcome()["lang"] == "en");
  CHECK(refusal(alice, "/nosuch", "unknown_command")["message"] ==
        "/nosuch is not a command: type /help");
  // When she asks which language she has
  const auto asked = alice.ok("", "/lang");
  CHECK(asked["topic"] == "lang");
  CHECK(asked["data"]["lang"] == "en");
  CHECK(asked["text"] ==
        "your language is English; the languages here: en, de, fr, ru (/lang TAG changes it)");
  // And changes it to Russian
  const auto set = alice.ok("", "/lang ru");
  // Then the answer is already in Russian, with the new language in its data
  CHECK(set["topic"] == "lang");
  CHECK(set["data"]["lang"] == "ru");
  CHECK(set["text"] == "теперь ваш язык: русский");
  // And what follows is in Russian
  CHECK(refusal(alice, "/nosuch", "unknown_command")["message"] ==
        "/nosuch — не команда: наберите /help");
  CHECK(alice.ok("", "/who")["text"] == "в сети: 1: alice");
  // And at a table too
  CHECK(alice.say("t1", "/lang en")["text"] == "your language is now English");
}

TEST_CASE("a registered player's /lang is kept for the next login", "[i18n][lang][gammond]") {
  gammond_process server{no_command_limit()};
  {
    // Given alice registers and chooses French
    player alice(server.port(), "alice", {}, {{"type", "register"}, {"password", "correct horse"}});
    CHECK(alice.welcome()["lang"] == "en");
    CHECK(alice.ok("", "/lang fr")["text"] == "votre langue est maintenant le français");
  }
  // Then the account keeps it (written by the storage thread, after the answer)
  CHECK(bg::test::eventually([&] {
    return bg::test::database_query(server, "SELECT lang FROM accounts WHERE name_key = 'alice'") ==
           "fr";
  }));
  // When she logs in again without saying a language
  {
    player alice(server.port(), "alice", {}, {{"password", "correct horse"}});
    // Then the session is in French
    CHECK(alice.welcome()["lang"] == "fr");
    CHECK(refusal(alice, "/nosuch", "unknown_command")["message"] ==
          "/nosuch n’est pas une commande\u00a0: tapez /help");
  }
  // But a hello that names a language wins, without changing the account's
  const auto english = first_answer(
      server,
      {{"type", "hello"}, {"name", "alice"}, {"password", "correct horse"}, {"lang", "en"}});
  REQUIRE(english["type"] == "welcome");
  CHECK(english["lang"] == "en");
  CHECK(bg::test::database_query(server, "SELECT lang FROM accounts WHERE name_key = 'alice'") ==
        "fr");
  // And a guest's /lang changes only its session
  player guest(server.port(), "bob");
  CHECK(guest.ok("", "/lang de")["data"]["lang"] == "de");
  CHECK(bg::test::database_query(server, "SELECT count(*) FROM accounts WHERE lang = 'de'") == "0");
}

TEST_CASE("an unknown /lang is refused with unknown_lang", "[i18n][lang][gammond]") {
  gammond_process server{no_command_limit()};
  player alice(server.port(), "alice", {}, {{"lang", "fr"}});
  // When alice asks for a language the server does not have
  const auto refused = refusal(alice, "/lang xx", "unknown_lang");
  // Then she is told which there are, in her language
  CHECK(refused["message"] ==
        "xx n’est pas une langue de ce serveur\u00a0: les langues disponibles sont en, de, "
        "fr, ru");
  CHECK(refused["say"]["key"] == "service.unknown_lang");
  // And her language is unchanged
  CHECK(alice.ok("", "/lang")["data"]["lang"] == "fr");
  // And /lang takes one tag at most
  CHECK(refusal(alice, "/lang fr de", "bad_command")["say"]["key"] == "protocol.lang_usage");
}
