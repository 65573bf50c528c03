// The lobby without a server: its list of tables, page by page, and the bounds on its
// chat (server/src/lobby/). The same list and chat through a real gammond are in
// process/ (test_hardening.cpp, test_moderation.cpp) and cluster/test_cluster_lobby.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "../../engine/position_builder.hpp"
#include "bg/engine/dice_source.hpp"
#include "bg/engine/match.hpp"
#include "bg/engine/match_id.hpp"
#include "bg/engine/notation.hpp"
#include "bg/engine/position_id.hpp"
#include "bg/i18n/catalogue.hpp"
#include "bg/protocol/codec.hpp"
#include "bg/protocol/command.hpp"
#include "bg/protocol/help_pages.hpp"
#include "bg/protocol/tournament_command.hpp"
#include "bg/server/lobby/lobby.hpp"

using bg::server::lobby;
using bg::server::lobby_entry;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// A table's summary text as a table writes it (only its name matters here).
lobby_entry summary(const std::string& table, bool listed = true) {
  return lobby_entry{json{{"name", table}, {"players", json::object()}}.dump(), listed};
}

std::vector<std::string> names_on(const json& page) {
  std::vector<std::string> out;
  for (const auto& t : page.at("tables")) out.push_back(t.at("name").get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("the lobby lists tables in name order, a page at a time, the page clamped to the list",
          "[lobby]") {
  lobby l;
  for (const char* t : {"delta", "alpha", "echo", "charlie", "bravo"}) l.set(t, summary(t));
  const json first = l.page(1, 2);
  CHECK(first.at("type") == "tables");
  CHECK(names_on(first) == std::vector<std::string>{"alpha", "bravo"});
  CHECK(first.at("page") == 1);
  CHECK(first.at("pages") == 3);
  CHECK(first.at("total") == 5);
  CHECK(names_on(l.page(3, 2)) == std::vector<std::string>{"echo"});
  // A page past the last is the last; page 0 is the first.
  CHECK(l.page(99, 2).at("page") == 3);
  CHECK(names_on(l.page(99, 2)) == std::vector<std::string>{"echo"});
  CHECK(names_on(l.page(0, 2)) == std::vector<std::string>{"alpha", "bravo"});
}

TEST_CASE("an empty lobby is one empty page", "[lobby]") {
  const lobby l;
  const json p = l.page(5, 20);
  CHECK(p.at("tables").empty());
  CHECK(p.at("page") == 1);
  CHECK(p.at("pages") == 1);
  CHECK(p.at("total") == 0);
}

TEST_CASE("a table's newer summary replaces its older one, and a private table leaves the list",
          "[lobby]") {
  lobby l;
  l.set("alpha", summary("alpha"));
  l.set("bravo", summary("bravo"));
  l.set("alpha", lobby_entry{json{{"name", "alpha"}, {"seq", 9}}.dump(), true});
  CHECK(l.entries().size() == 2);
  CHECK(json::parse(l.entries().at("alpha")).at("seq") == 9);
  l.set("bravo", summary("bravo", /*listed=*/false));  // made private
  CHECK(names_on(l.page(1, 10)) == std::vector<std::string>{"alpha"});
  l.erase("alpha");
  l.erase("never-listed");  // erasing a table the lobby does not hold changes nothing
  CHECK(l.page(1, 10).at("total") == 0);
}

TEST_CASE("a player's lobby chat lines are an interval apart at least", "[lobby][chat]") {
  lobby l;
  const auto t0 = lobby::clock_type::time_point{} + 1h;
  lobby::clock_type::time_point alice{};
  lobby::clock_type::time_point bob{};
  CHECK_FALSE(l.allow_chat(alice, t0, 2s, 100));
  CHECK(alice == t0);
  const auto refused = l.allow_chat(alice, t0 + 1s, 2s, 100);
  REQUIRE(refused);
  CHECK(refused->code == "chat_throttled");
  CHECK(refused->message == "one lobby line every 2 s: wait a moment");
  CHECK(refused->key == "lobby.chat_interval");
  CHECK(alice == t0);                                // a refused line does not restart the interval
  CHECK_FALSE(l.allow_chat(bob, t0 + 1s, 2s, 100));  // another player is not held back
  CHECK_FALSE(l.allow_chat(alice, t0 + 2s, 2s, 100));
}

TEST_CASE("the lobby chat passes a bounded number of lines a minute from everyone together",
          "[lobby][chat]") {
  lobby l;
  const auto t0 = lobby::clock_type::time_point{} + 1h;
  std::vector<lobby::clock_type::time_point> last(4);
  for (std::size_t i = 0; i < 3; ++i) CHECK_FALSE(l.allow_chat(last[i], t0, 0s, 3));
  const auto busy = l.allow_chat(last[3], t0 + 30s, 0s, 3);
  REQUIRE(busy);
  CHECK(busy->message == "the lobby chat is busy: wait a moment and try again");
  CHECK(last[3] == lobby::clock_type::time_point{});  // refused: nothing recorded
  // A minute after the window began, lines pass again.
  CHECK_FALSE(l.allow_chat(last[3], t0 + 60s, 0s, 3));
}

// ------------------------------------------------------------------------------------
// The sentences of the lobby's pages and of the engine's refusals come from the message
// catalogues (i18n/lang/en/lobby.json, engine.json): each English catalogue message is
// the sentence the code says.

namespace {

/// REQUIREs that `e` names a catalogue message whose English is its message.
void check_said(const bg::engine::error& e) {
  INFO("code " << e.code << ": " << e.message);
  REQUIRE_FALSE(e.key.empty());
  REQUIRE(bg::i18n::catalogue::global().has("en", e.key));
  CHECK(bg::i18n::english(e.key, bg::protocol::sentence_args(e.args)) == e.message);
}

/// check_said() of match_play's refusal of `text` with roll `r` in `before`.
void check_refusal(const bg::engine::position& before, bg::engine::roll r, std::string_view text,
                   bg::engine::variant v = bg::engine::variant::standard) {
  INFO("play " << text);
  const auto plays = bg::engine::legal_plays(before, r, v);
  const auto m = bg::engine::match_play(before, r, v, plays, text);
  REQUIRE_FALSE(m.ok());
  check_said(m.err());
}

}  // namespace

TEST_CASE("every /help page is a catalogue message, the same as help_text()", "[lobby][i18n]") {
  const auto& cat = bg::i18n::catalogue::global();
  CHECK(bg::protocol::help_key("") == std::optional<std::string_view>("help.commands"));
  CHECK(bg::i18n::english("help.commands") == *bg::protocol::help_text(""));
  int pages = 0;
  for (const auto& key : cat.keys("en")) {
    if (key.rfind("help.", 0) != 0 || key == "help.commands" || key == "help.no_help_lobby")
      continue;
    std::string topic = key.substr(5);
    std::replace(topic.begin(), topic.end(), '_', ' ');
    INFO("topic " << topic);
    CHECK(bg::protocol::help_key(topic) == std::optional<std::string_view>(key));
    const auto text = bg::protocol::help_text(topic);
    REQUIRE(text);
    CHECK(bg::i18n::english(key) == *text);
    ++pages;
  }
  CHECK(pages > 40);
  CHECK(bg::protocol::help_key("/Refuse") == std::optional<std::string_view>("help.drop"));
  CHECK(bg::protocol::help_key("rules") == std::optional<std::string_view>("rules.standard"));
  CHECK(bg::protocol::help_key("rules long") == std::optional<std::string_view>("rules.long"));
  CHECK_FALSE(bg::protocol::help_key("nonsense"));
  for (const char* k : {"rules.standard", "rules.long"}) CHECK(cat.has("en", k));
}

TEST_CASE("the engine's refusals are catalogue messages", "[lobby][i18n][engine]") {
  using namespace bg::engine;
  const position start = position::starting(variant::standard);
  for (const char* text : {"17/11 13/8", "24/18", "24/20", "18/24", "off/20", "x", "24/", "24",
                           "24/18(5)", "24/18abc", "", "24/23/22/21/20/19", "13/7 13/8 6/1"})
    check_refusal(start, roll{6, 5}, text);
  check_refusal(start, roll{6, 6}, "24/18(2)");
  check_refusal(start, roll{3, 3}, "24/15");
  // The opponent holds its 20 = the mover's 5 with two checkers.
  check_refusal(bg::test::build("mover: 24:2 13:5 8:3 6:5 | opponent: 24:2 20:2 13:5 8:3 6:3"),
                roll{3, 1}, "8/5 24/23");
  check_refusal(bg::test::build("mover: 24:1 1:14 | opponent: 8:2 19:13"), roll{6, 1}, "24/23");
  check_refusal(bg::test::build("mover: bar:1 6:14 | opponent: 12:15"), roll{3, 1}, "6/3 6/5");
  check_refusal(bg::test::build("mover: 9:1 1:14 | opponent: 12:15"), roll{2, 1}, "9/7 1/off");
  check_refusal(bg::test::build("mover: bar:1 6:14 | opponent: 12:15"), roll{3, 1},
                "bar/22 bar/24");
  const position long_start = position::starting(variant::long_nardy);
  check_refusal(long_start, roll{6, 5}, "24/18 24/19", variant::long_nardy);

  for (const char* id : {"abc", "!!!!!!!!!!!!!!", "//////////////"})
    if (const auto p = position_from_id(id, variant::standard); !p) check_said(p.err());
  for (const char* id : {"abc", "!!!!!!!!!!!!", "////////////"})
    if (const auto m = match_id_from_string(id); !m) check_said(m.err());

  match free_play(match_options{});
  check_said(free_play.offer_double(side::red).err());
  check_said(free_play.take(side::red).err());
  check_said(free_play.accept_resignation(side::red).err());
  check_said(free_play.continue_session(side::red).err());
  match_options long_points{variant::long_nardy, match_kind::points, 3};
  check_said(match::check(match_options{variant::standard, match_kind::points, 99}).err());
  match long_match(long_points);
  seeded_dice dice(1);
  check_said(long_match.roll_dice(side::red, dice).err());
}

TEST_CASE("the /tournament grammar's refusals are catalogue messages",
          "[lobby][i18n][tournament]") {
  for (const char* text :
       {"", "create x", "create x league", "create x swiss rounds 2 rounds 3",
        "create x arena minutes 2000", "create x swiss variant chess", "create x swiss clock 5",
        "create x swiss start +9999999", "create x swiss start 25:00", "create x swiss bogus",
        "create x knockout rounds 3", "create x swiss minutes 30", "create x swiss min 8 max 4",
        "cancel", "show a b", "adjudicate x t1", "a b c"}) {
    INFO("/tournament " << text);
    const auto t = bg::protocol::parse_tournament(text);
    REQUIRE_FALSE(t.ok());
    check_said(t.err());
  }
  const auto long_reason =
      bg::protocol::parse_tournament("adjudicate x t1 alice " + std::string(400, 'r'));
  REQUIRE_FALSE(long_reason.ok());
  check_said(long_reason.err());
}
