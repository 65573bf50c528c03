// A player's language through the real gammond (issue 31): the catalogues it serves to
// the web client (/i18n/languages.json, /i18n/<tag>.json), the language a hello asks
// for (welcome.lang, and the sentences of events then said in it), and a language a
// host adds with --lang-dir without rebuilding.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "test_player.hpp"

using bg::test::gammond_process;
using bg::test::no_command_limit;
using bg::test::player;
using nlohmann::json;

namespace languages_gammond_tests {

/// A directory holding one Spanish catalogue file, removed at the end.
struct spanish_dir {
  std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("gammond-lang-" + std::to_string(::getpid()));
  spanish_dir() {
    std::filesystem::create_directories(root / "es");
    std::ofstream(root / "es" / "server.json")
        << R"({"lang.name": "Español", "table.entered": "{name} llega a la mesa"})";
  }
  ~spanish_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(root, ignored);
  }
};

}  // namespace languages_gammond_tests

using languages_gammond_tests::spanish_dir;

TEST_CASE(
    "gammond serves the list of languages and each language's whole catalogue to the web client",
    "[i18n][gammond]") {
  gammond_process server{no_command_limit()};
  const auto list = server.get("/i18n/languages.json");
  REQUIRE(list.status == 200);
  const auto languages = json::parse(list.body);
  REQUIRE(languages.is_array());
  REQUIRE(languages.size() >= 4);
  CHECK(languages[0] == json{{"tag", "en"}, {"name", "English"}});
  CHECK(languages.dump().find(R"({"name":"Русский","tag":"ru"})") != std::string::npos);
  const auto french = server.get("/i18n/fr.json");
  REQUIRE(french.status == 200);
  CHECK(json::parse(french.body).value("lang.name", "") == "Français");
  // An unknown or malformed language is a JSON 404, not a file from the disk
  CHECK(server.get("/i18n/xx.json").status == 404);
  CHECK(server.get("/i18n/../index.html").status != 200);
  CHECK(server.get("/i18n/fr").status == 404);
}

TEST_CASE("a hello's lang chooses the player's language, from a tag or a preference list",
          "[i18n][gammond]") {
  gammond_process server{no_command_limit()};
  player anna(server.port(), "anna", {}, {{"lang", "ru-RU, en;q=0.5"}});
  CHECK(anna.welcome()["lang"] == "ru");
  player bernd(server.port(), "bernd", {}, {{"lang", "de"}});
  CHECK(bernd.welcome()["lang"] == "de");
  // A language gammond does not have falls back to English, and is no error
  player carl(server.port(), "carl", {}, {{"lang", "tlh"}});
  CHECK(carl.welcome()["lang"] == "en");
  player dora(server.port(), "dora");
  CHECK(dora.welcome()["lang"] == "en");
}

TEST_CASE(
    "a language added with --lang-dir is offered and says its sentences to those who ask for it",
    "[i18n][gammond]") {
  spanish_dir dir;
  gammond_process server{no_command_limit({"--lang-dir", dir.root.string()})};
  const auto languages = json::parse(server.get("/i18n/languages.json").body);
  CHECK(languages.dump().find(R"({"name":"Español","tag":"es"})") != std::string::npos);
  // Given a Spanish and an English player at one table
  player elena(server.port(), "elena", {}, {{"lang", "es"}});
  CHECK(elena.welcome()["lang"] == "es");
  player frank(server.port(), "frank");
  elena.ok("t1", "/join");
  // When Frank comes to the table
  frank.ok("t1", "/join");
  // Then the same event is said to each in their language, with the same fields
  elena.await_event("t1", "joined");
  player gina(server.port(), "gina");
  gina.send_message({{"type", "enter"}, {"table", "t1"}});
  const auto to_elena = elena.await_event("t1", "entered");
  const auto to_frank = frank.await_event("t1", "entered");
  CHECK(to_elena["text"] == "gina llega a la mesa");
  CHECK(to_frank["text"] == "gina comes to the table");
  CHECK(to_elena["say"] == to_frank["say"]);
  CHECK(to_elena["say"]["key"] == "table.entered");
  CHECK(to_elena["name"] == "gina");
}

TEST_CASE("gammond refuses to start on a --lang-dir catalogue that is not JSON, naming the file",
          "[i18n][gammond]") {
  spanish_dir dir;
  std::ofstream(dir.root / "es" / "web.json") << "{not json";
  const auto run = bg::test::run_gammond(
      {"--port", "0", "--db", (dir.root / "x.db").string(), "--lang-dir", dir.root.string()});
  CHECK(run.exit_code == 2);
  CHECK(run.output.find("web.json") != std::string::npos);
}
