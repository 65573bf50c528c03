// The chat-command grammar (seed 000's /join, /start, /option ...; PROTOCOL.md).
#include <catch2/catch.hpp>

#include "bg/i18n/catalogue.hpp"
#include "bg/protocol/codec.hpp"
#include "bg/protocol/command.hpp"

using namespace bg::protocol;
using bg::engine::match_kind;
using bg::engine::side;
using bg::engine::variant;
using bg::engine::win_kind;

namespace {
command ok(std::string_view line) {
  auto r = parse_line(line);
  INFO(line << " -> " << (r ? "" : r.err().message));
  REQUIRE(r.ok());
  return *r;
}
std::string code_of(std::string_view line) {
  auto r = parse_line(line);
  REQUIRE_FALSE(r.ok());
  return r.err().code;
}
}  // namespace

TEST_CASE("a line without a slash is chat, kept verbatim", "[protocol][command]") {
  const auto c = ok("hello there, 24/18 is nice");
  CHECK(c.kind == command_kind::chat);
  CHECK(c.text == "hello there, 24/18 is nice");
}

TEST_CASE("seed 000 table commands parse with their arguments", "[protocol][command]") {
  CHECK(ok("/join").kind == command_kind::join);
  CHECK_FALSE(ok("/join").seat.has_value());
  CHECK(ok("/join red").seat == side::red);
  CHECK(ok("/JOIN Black").seat == side::black);
  CHECK(ok("/leave").kind == command_kind::leave);
  CHECK(ok("/start").kind == command_kind::start);
  CHECK(ok("  /roll  ").kind == command_kind::roll);
  CHECK(ok("/double").kind == command_kind::double_offer);
  CHECK(ok("/take").kind == command_kind::take);
  CHECK(ok("/accept").kind == command_kind::accept);
  CHECK(ok("/drop").kind == command_kind::drop);
  CHECK(ok("/refuse").kind == command_kind::drop);
  CHECK(ok("/reject").kind == command_kind::reject);
  CHECK(ok("/continue").kind == command_kind::continue_session);
  CHECK(ok("/stop").kind == command_kind::stop_session);
  CHECK(ok("/board").kind == command_kind::board);
  CHECK(ok("/who").kind == command_kind::who);
  CHECK(ok("/tables").kind == command_kind::tables);
  CHECK(ok("/export").kind == command_kind::export_match);
}

TEST_CASE("/analysis takes an optional match id, a whole number from 1",
          "[protocol][command][analysis]") {
  CHECK(ok("/analysis").kind == command_kind::analysis);
  CHECK(ok("/analysis").text.empty());
  CHECK(ok("/ANALYSIS 12").text == "12");
  CHECK(ok("/analysis 123456789012345678").text == "123456789012345678");
  for (const char* bad : {"/analysis 0", "/analysis 012", "/analysis -3", "/analysis 1.5",
                          "/analysis twelve", "/analysis 1 2", "/analysis 1234567890123456789"}) {
    INFO(bad);
    CHECK(code_of(bad) == "bad_command");
  }
  CHECK(to_string(command_kind::analysis) == "analysis");
  CHECK(help_text("analysis")->find("/analysis [MATCH_ID]") != std::string::npos);
  CHECK(help_text("")->find("/analysis") != std::string::npos);
}

TEST_CASE("/move keeps the play text for the engine's notation parser", "[protocol][command]") {
  const auto c = ok("/move 24/18 13/11");
  CHECK(c.kind == command_kind::move);
  CHECK(c.text == "24/18 13/11");
  CHECK(ok("/move   bar/22   6/off ").text == "bar/22   6/off");
  CHECK(code_of("/move") == "bad_command");
}

TEST_CASE("R13 R16 R12 /option match takes N from 1 to 64, basis or off", "[protocol][command]") {
  auto m = ok("/option match 7");
  CHECK(m.kind == command_kind::option_match);
  CHECK(m.match.kind == match_kind::points);
  CHECK(m.match.length == 7);
  CHECK(ok("/option match 1").match.length == 1);
  CHECK(ok("/option match 64").match.length == 64);
  CHECK(ok("/option match basis").match.kind == match_kind::basis);
  CHECK(ok("/option match off").match.kind == match_kind::free_play);
  for (const char* bad : {"/option match 0x", "/option match 65", "/option match -1",
                          "/option match", "/option match 7 8", "/option match seven"}) {
    INFO(bad);
    CHECK(code_of(bad) == "bad_command");
  }
}

TEST_CASE("R17 /option tutor on and off, variant standard or long", "[protocol][command]") {
  CHECK(ok("/option tutor").flag);
  CHECK(ok("/option tutor on").flag);
  CHECK_FALSE(ok("/option tutor off").flag);
  CHECK(code_of("/option tutor maybe") == "bad_command");
  CHECK(ok("/option variant long").game_variant == variant::long_nardy);
  CHECK(ok("/option variant standard").game_variant == variant::standard);
  CHECK(code_of("/option variant hyper") == "bad_command");
  CHECK(ok("/option").kind == command_kind::option_show);
  CHECK(code_of("/option colour blue") == "bad_command");
}

TEST_CASE("S2 /option clock takes a bank of 1-240 minutes and a delay of 0-120 seconds, or off",
          "[protocol][command][clock]") {
  // Given a bank and a delay, a bank alone (the delay defaults to 12 s), and off.
  const auto both = ok("/option clock 5 12");
  CHECK(both.kind == command_kind::option_clock);
  CHECK(both.clock == clock_option{5, 12});
  CHECK(ok("/option clock 3").clock == clock_option{3, default_clock_delay_seconds});
  CHECK(ok("/option clock 1 0").clock == clock_option{1, 0});
  CHECK(ok("/option clock 240 120").clock == clock_option{240, 120});
  CHECK(ok("/OPTIONS Clock OFF").clock.minutes == 0);
  CHECK(ok("/option clock 0").clock.minutes == 0);
  // Then anything out of bounds or malformed is refused with the bounds in words.
  for (const char* bad :
       {"/option clock", "/option clock 241", "/option clock 5 121", "/option clock -1",
        "/option clock 5 -1", "/option clock five", "/option clock 5 12 3", "/option clock 0 5",
        "/option clock 1.5", "/option clock 0005", "/option clock off 12"}) {
    INFO(bad);
    const auto r = parse_line(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.err().code == "bad_command");
    CHECK(r.err().message.find("1 to 240") != std::string::npos);
  }
}

TEST_CASE("S4 /seed keeps the player's text as typed, /claim takes no arguments",
          "[protocol][command][dice]") {
  const auto s = ok("/seed   My Lucky  Words ");
  CHECK(s.kind == command_kind::seed);
  CHECK(s.text == "My Lucky  Words");
  CHECK(ok("/SEED x").text == "x");
  CHECK(code_of("/seed") == "bad_command");
  CHECK(ok("/claim").kind == command_kind::claim);
  CHECK(code_of("/claim now") == "bad_command");
  CHECK(help_text("seed")->find("/seed TEXT") != std::string::npos);
  CHECK(help_text("claim")->find("/claim") != std::string::npos);
  CHECK(help_text("option clock")->find("/option clock MINUTES") != std::string::npos);
}

TEST_CASE("R18 /resign takes single, gammon or backgammon", "[protocol][command]") {
  CHECK(ok("/resign").resign_kind == win_kind::single);
  CHECK(ok("/resign gammon").resign_kind == win_kind::gammon);
  CHECK(ok("/resign backgammon").resign_kind == win_kind::backgammon);
  CHECK(code_of("/resign everything") == "bad_command");
}

TEST_CASE("unknown and malformed commands are errors with a sentence", "[protocol][command]") {
  CHECK(code_of("/jion") == "unknown_command");
  CHECK(code_of("/") == "unknown_command");
  CHECK(code_of("/roll now") == "bad_command");
  CHECK(code_of("/join green") == "bad_command");
  CHECK(code_of("   ") == "empty_line");
  auto r = parse_line("/jion");
  CHECK(r.err().message.find("/help") != std::string::npos);
}

TEST_CASE("/help lists every command and explains one", "[protocol][command]") {
  const auto all = help_text("");
  REQUIRE(all);
  for (const char* name : {"/join", "/start", "/roll", "/move", "/double", "/take", "/drop",
                           "/resign", "/continue", "/tables"}) {
    INFO(name);
    CHECK(all->find(name) != std::string::npos);
  }
  const auto move = help_text("/move");
  REQUIRE(move);
  CHECK(move->find("24/18") != std::string::npos);
  CHECK(help_text("option")->find("basis") != std::string::npos);
  CHECK_FALSE(help_text("nonsense").has_value());
  CHECK(ok("/help move").text == "move");
}

TEST_CASE("/whois, /ratings, /history and /password parse with their arguments",
          "[protocol][command][accounts]") {
  // Names keep the case they were typed in (the server compares them by their key).
  CHECK(ok("/whois Alice").kind == command_kind::whois);
  CHECK(ok("/WHOIS Alice").text == "Alice");
  CHECK(code_of("/whois") == "bad_command");
  CHECK(code_of("/whois a b") == "bad_command");
  CHECK(ok("/history").kind == command_kind::history);
  CHECK(ok("/history").text.empty());
  CHECK(ok("/history Bob").text == "Bob");
  CHECK(code_of("/history a b") == "bad_command");
  // /ratings names a variant; none means standard.
  CHECK(ok("/ratings").kind == command_kind::ratings);
  CHECK(ok("/ratings").text.empty());
  CHECK(ok("/ratings").game_variant == variant::standard);
  CHECK(ok("/ratings LONG").game_variant == variant::long_nardy);
  CHECK(ok("/ratings nardy").text == "long");
  CHECK(ok("/ratings standard").text == "standard");
  CHECK(code_of("/ratings backgammon") == "bad_command");
  CHECK_FALSE(ok("/ratings").with_pr);
  CHECK_FALSE(ok("/ratings").by_pr);
  // /password keeps both words exactly; a refusal never repeats them.
  const auto p = ok("/password Old-Secret NEW-secret-2");
  CHECK(p.kind == command_kind::password);
  CHECK(p.text == "Old-Secret");
  CHECK(p.new_password == "NEW-secret-2");
  for (const char* line : {"/password onlyone", "/password a b c", "/password"}) {
    auto r = parse_line(line);
    REQUIRE_FALSE(r.ok());
    CHECK(r.err().code == "bad_command");
    CHECK(r.err().message.find("onlyone") == std::string::npos);
  }
  // Each has its help.
  for (const char* topic : {"whois", "ratings", "history", "password"}) {
    INFO(topic);
    const auto help = help_text(topic);
    REQUIRE(help);
    CHECK(help->find(std::string("/") + topic) == 0);
    CHECK(help_text("")->find(std::string("/") + topic) != std::string::npos);
  }
}

TEST_CASE("S7 /ratings asks for the PR column with pr and for the PR order with by pr",
          "[protocol][command][accounts][S7]") {
  // pr adds the column, after a variant or alone,
  CHECK(ok("/ratings pr").with_pr);
  CHECK_FALSE(ok("/ratings pr").by_pr);
  CHECK(ok("/ratings pr").game_variant == variant::standard);
  CHECK(ok("/ratings LONG PR").with_pr);
  CHECK(ok("/ratings long pr").text == "long");
  // by pr sorts by it (and shows it); by rating is the default order,
  const auto by = ok("/ratings standard by pr");
  CHECK(by.by_pr);
  CHECK(by.with_pr);
  CHECK(by.text == "standard");
  CHECK(ok("/ratings By PR").by_pr);
  CHECK_FALSE(ok("/ratings by rating").by_pr);
  CHECK_FALSE(ok("/ratings by rating").with_pr);
  // anything else is refused with what it takes.
  for (const char* line : {"/ratings by", "/ratings by name", "/ratings pr long", "/ratings pr pr",
                           "/ratings standard long", "/ratings pr by pr"})
    CHECK(code_of(line) == "bad_command");
}

TEST_CASE("/bot takes one of gnubg's levels, expert by default", "[protocol][command]") {
  CHECK(ok("/bot").kind == command_kind::bot);
  CHECK(ok("/bot").text == "expert");
  for (const auto level : bot_levels) CHECK(ok("/bot " + std::string(level)).text == level);
  CHECK(ok("/BOT WorldClass").text == "worldclass");
  for (const char* bad : {"/bot grandmaster", "/bot expert expert", "/bot 3"}) {
    INFO(bad);
    CHECK(code_of(bad) == "bad_command");
  }
}

TEST_CASE("/play bot takes a level, a variant and a match in any order", "[protocol][command]") {
  const auto plain = ok("/play bot");
  CHECK(plain.kind == command_kind::play_bot);
  CHECK(plain.text == "expert");
  CHECK(plain.game_variant == variant::standard);
  CHECK(plain.match.kind == match_kind::free_play);

  const auto full = ok("/play bot beginner standard match 5");
  CHECK(full.text == "beginner");
  CHECK(full.match.kind == match_kind::points);
  CHECK(full.match.length == 5);

  const auto shuffled = ok("/play bot match basis long advanced");
  CHECK(shuffled.text == "advanced");
  CHECK(shuffled.game_variant == variant::long_nardy);
  CHECK(shuffled.match.kind == match_kind::basis);
  CHECK_FALSE(shuffled.flag);  // watchable unless private (issue 27)

  const auto hidden = ok("/play bot private beginner");
  CHECK(hidden.flag);
  CHECK(hidden.text == "beginner");

  for (const char* bad :
       {"/play", "/play chess", "/play bot expert expert", "/play bot match", "/play bot match 65",
        "/play bot standard long", "/play bot rubbish", "/play bot private private"}) {
    INFO(bad);
    CHECK(code_of(bad) == "bad_command");
  }
}

TEST_CASE(
    "S5 /seek takes a variant, match lengths, a clock and a computer player's wait in any "
    "order",
    "[protocol][command][S5]") {
  const auto plain = ok("/seek");
  CHECK(plain.kind == command_kind::seek);
  CHECK(bg::protocol::place_of(plain.kind) == bg::protocol::command_place::lobby);
  CHECK(plain.game_variant == variant::standard);
  CHECK(plain.lengths.empty());  // the server's default set
  CHECK(plain.any_clock);
  CHECK(plain.bot_after_seconds == 0);

  const auto full = ok("/seek long match 3,5,7 clock 5 20 bot after 60");
  CHECK(full.game_variant == variant::long_nardy);
  CHECK(full.lengths == std::vector<int>{3, 5, 7});
  CHECK_FALSE(full.any_clock);
  CHECK(full.clock == bg::protocol::clock_option{5, 20});
  CHECK(full.bot_after_seconds == 60);

  const auto shuffled = ok("/SEEK bot after 30 clock 3 match 7");
  CHECK(shuffled.lengths == std::vector<int>{7});
  CHECK(shuffled.clock == bg::protocol::clock_option{3, 12});  // the default delay
  CHECK(shuffled.bot_after_seconds == 30);
  CHECK(ok("/seek clock any").any_clock);
  const auto untimed = ok("/seek clock off");
  CHECK_FALSE(untimed.any_clock);
  CHECK(untimed.clock.minutes == 0);
  CHECK(ok("/seek match 1,2,3,4,5,6,7,8").lengths.size() == 8);

  CHECK(ok("/unseek").kind == command_kind::unseek);
  for (const char* bad :
       {"/seek chess", "/seek match", "/seek match 0", "/seek match 65", "/seek match 5,5",
        "/seek match 5,", "/seek match 1,2,3,4,5,6,7,8,9", "/seek clock", "/seek clock 0",
        "/seek clock 241", "/seek clock 5 121", "/seek standard long", "/seek match 5 match 7",
        "/seek bot after 0", "/seek bot after 3601", "/seek bot 30", "/seek clock any clock 5",
        "/unseek now"}) {
    INFO(bad);
    CHECK(code_of(bad) == "bad_command");
  }
}

TEST_CASE("the moderation commands parse with their arguments", "[protocol][command][moderation]") {
  // Names keep the case they were typed in (the server compares them by their key).
  CHECK(ok("/kick Mallory").kind == command_kind::kick);
  CHECK(ok("/KICK Mallory").text == "Mallory");
  CHECK(ok("/invite Carol").kind == command_kind::invite);
  CHECK(ok("/uninvite Carol").kind == command_kind::uninvite);
  CHECK(ok("/unignore Mallory").kind == command_kind::unignore);
  CHECK(ok("/unban Mallory").kind == command_kind::unban);
  CHECK(ok("/close T1").kind == command_kind::close_table);
  CHECK(ok("/close T1").text == "T1");
  for (const char* bad : {"/kick", "/kick a b", "/invite", "/uninvite a b", "/unignore", "/unban",
                          "/close", "/close a b"}) {
    INFO(bad);
    CHECK(code_of(bad) == "bad_command");
  }
  // /ignore alone lists; with a name it ignores it
  CHECK(ok("/ignore").kind == command_kind::ignore);
  CHECK(ok("/ignore").text.empty());
  CHECK(ok("/ignore Mallory").text == "Mallory");
  CHECK(code_of("/ignore a b") == "bad_command");
  // /option private on|off
  CHECK(ok("/option private on").kind == command_kind::option_private);
  CHECK(ok("/option private ON").flag);
  CHECK_FALSE(ok("/options private off").flag);
  for (const char* bad : {"/option private", "/option private yes", "/option private on off"}) {
    INFO(bad);
    CHECK(code_of(bad) == "bad_command");
  }
  // /ban NAME [HOURS]: no hours is until /unban (0); decimals allowed; nothing else
  const auto forever = ok("/ban mallory");
  CHECK(forever.kind == command_kind::ban);
  CHECK(forever.text == "mallory");
  CHECK(forever.ban_hours == 0.0);
  CHECK(ok("/ban mallory 24").ban_hours == 24.0);
  CHECK(ok("/ban mallory 0.5").ban_hours == 0.5);
  CHECK(ok("/ban mallory 87600").ban_hours == 87600.0);
  for (const char* bad :
       {"/ban", "/ban a 1 2", "/ban a 0", "/ban a -1", "/ban a 1e3", "/ban a .5", "/ban a 5.",
        "/ban a 1.2.3", "/ban a inf", "/ban a nan", "/ban a 87601", "/ban a 0.0"}) {
    INFO(bad);
    CHECK(code_of(bad) == "bad_command");
  }
  // /broadcast keeps the rest of the line as typed
  const auto b = ok("/broadcast  Back in  5 minutes!");
  CHECK(b.kind == command_kind::broadcast);
  CHECK(b.text == "Back in  5 minutes!");
  CHECK(code_of("/broadcast") == "bad_command");
  CHECK(code_of("/broadcast   ") == "bad_command");
  // Each has its help, listed in /help
  for (const char* topic :
       {"kick", "invite", "uninvite", "ignore", "unignore", "ban", "unban", "broadcast", "close"}) {
    INFO(topic);
    const auto help = help_text(topic);
    REQUIRE(help);
    CHECK(help->find(std::string("/") + topic) == 0);
    CHECK(help_text("")->find(std::string("/") + topic + " ") != std::string::npos);
  }
  CHECK(help_text("option private")->find("invite") != std::string::npos);
}

TEST_CASE(
    "S6 /tournament create takes a name, a kind and its terms in any order, names keep their "
    "case",
    "[protocol][command][S6]") {
  const auto plain = ok("/tournament create Spring swiss");
  CHECK(plain.kind == command_kind::tournament);
  CHECK(bg::protocol::place_of(plain.kind) == bg::protocol::command_place::lobby);
  REQUIRE(plain.tournament);
  CHECK(plain.tournament->action == tournament_action::create);
  CHECK(plain.tournament->name == "Spring");
  CHECK(plain.tournament->kind == "swiss");
  CHECK(plain.tournament->rounds == 0);  // the server's default
  CHECK_FALSE(plain.tournament->clock);

  const auto full = ok(
      "/Tournament CREATE cup KNOCKOUT max 16 unrated clock 3 8 variant long match 5 start 20:30 "
      "min 4");
  const auto& t = *full.tournament;
  CHECK(t.kind == "knockout");
  CHECK(t.max_players == 16);
  CHECK(t.min_players == 4);
  CHECK(t.unrated);
  CHECK(t.clock == std::pair{3, 8});
  CHECK(t.game_variant == variant::long_nardy);
  CHECK(t.match_length == 5);
  CHECK(t.start_at_minute == 20 * 60 + 30);
  CHECK_FALSE(t.start_in_seconds);
  CHECK(ok("/tournament create a arena minutes 90 start +600").tournament->start_in_seconds == 600);
  CHECK(ok("/tournament create a arena minutes 90").tournament->minutes == 90);
  CHECK(ok("/tournament create s swiss rounds 7").tournament->rounds == 7);

  for (const char* line :
       {"/tournament", "/tournament create", "/tournament create x", "/tournament create x chess",
        "/tournament create x swiss rounds 21", "/tournament create x swiss rounds 2 rounds 3",
        "/tournament create x knockout rounds 3", "/tournament create x swiss minutes 5",
        "/tournament create x arena clock 5", "/tournament create x swiss clock 0 5",
        "/tournament create x swiss start 7:5", "/tournament create x swiss start +9999999",
        "/tournament create x swiss max 1", "/tournament create x swiss min 8 max 4",
        "/tournament create x swiss match 26", "/tournament create x swiss colour red",
        "/tournament cancel", "/tournament adjudicate x t1 bob", "/tournament a b"})
    CHECK(code_of(line) == "bad_command");
}

TEST_CASE(
    "S6 /tournament shows, cancels and adjudicates with a reason kept as typed, and /register, "
    "/withdraw and /tournaments",
    "[protocol][command][S6]") {
  CHECK(ok("/tournament Spring").tournament->action == tournament_action::show);
  CHECK(ok("/tournament Spring").tournament->name == "Spring");
  CHECK(ok("/tournament show Spring").tournament->action == tournament_action::show);
  CHECK(ok("/tournament cancel Spring").tournament->action == tournament_action::cancel);
  const auto adj = ok("/tournament adjudicate Spring spring-r2-1 Bob  the clock  froze");
  CHECK(adj.tournament->action == tournament_action::adjudicate);
  CHECK(adj.tournament->table == "spring-r2-1");
  CHECK(adj.tournament->winner == "Bob");
  CHECK(adj.tournament->reason == "the clock  froze");
  CHECK(ok("/register Spring").kind == command_kind::register_tournament);
  CHECK(ok("/register Spring").text == "Spring");
  CHECK(code_of("/register") == "bad_command");
  CHECK(ok("/withdraw").text.empty());
  CHECK(ok("/withdraw Spring").text == "Spring");
  CHECK(code_of("/withdraw a b") == "bad_command");
  CHECK(ok("/tournaments").kind == command_kind::tournaments);
  CHECK(code_of("/tournaments now") == "bad_command");
}

TEST_CASE("/tell takes a name and the message as typed, and is answered by the service",
          "[command]") {
  const auto t = ok("/TELL Bob  see you  at t1 ");
  CHECK(t.kind == command_kind::tell);
  CHECK(t.text == "Bob");                // the name as typed: the server folds it
  CHECK(t.message == "see you  at t1");  // the words as typed, blanks within kept
  CHECK(code_of("/tell") == "bad_command");
  CHECK(code_of("/tell bob") == "bad_command");
  CHECK(place_of(command_kind::tell) == command_place::service);
  CHECK(to_string(command_kind::tell) == "tell");
  CHECK(help_text("tell").has_value());
}

TEST_CASE("/lang takes one language tag, alone it asks, and is answered by the service",
          "[command][i18n]") {
  const auto ask = ok("/lang");
  CHECK(ask.kind == command_kind::lang);
  CHECK(ask.text.empty());
  const auto set = ok("/LANG FR");
  CHECK(set.kind == command_kind::lang);
  CHECK(set.text == "fr");  // the server checks the tag
  CHECK(ok("/lang xx").text == "xx");
  CHECK(code_of("/lang fr de") == "bad_command");
  CHECK(place_of(command_kind::lang) == command_place::service);
  CHECK(to_string(command_kind::lang) == "lang");
  CHECK(help_text("lang").has_value());
}

TEST_CASE(
    "every refusal of the command grammar names its catalogue sentence, and the English "
    "catalogue says what the message says",
    "[command][i18n]") {
  for (const std::string_view line : {"",
                                      "/",
                                      "/nosuch",
                                      "/join red black",
                                      "/join blue",
                                      "/tables 0",
                                      "/start now",
                                      "/seek match 1,1",
                                      "/seek bot after 9999",
                                      "/seek sideways",
                                      "/option clock 999",
                                      "/option foo",
                                      "/ban mallory -1",
                                      "/lang fr de",
                                      "/kick",
                                      "/ratings sideways",
                                      "/play bot sideways",
                                      "/signout maybe",
                                      "/password one",
                                      "/tell bob"}) {
    const auto r = parse_line(line);
    REQUIRE_FALSE(r.ok());
    INFO(line);
    const auto& e = r.err();
    CHECK_FALSE(e.key.empty());
    CHECK(bg::i18n::catalogue::global().has("en", e.key));
    CHECK(bg::i18n::english(e.key, sentence_args(e.args)) == e.message);
  }
}
