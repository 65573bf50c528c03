// The message catalogues (i18n/lang/<tag>/*.json, compiled in) and their rendering with
// ICU: plural forms, arguments, fallbacks, and the choice of a player's language.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

#include <unicode/fmtable.h>
#include <unicode/locid.h>
#include <unicode/msgfmt.h>
#include <unicode/unistr.h>
#include <nlohmann/json.hpp>

#include "bg/i18n/catalogue.hpp"

using bg::i18n::catalogue;
using nlohmann::json;

namespace catalogue_tests {

/// A catalogue holding one test message per language, as a host's would.
catalogue& points_catalogue() {
  static catalogue* c = [] {
    auto* made = new catalogue();
    made->add("en", R"({"points": "{count, plural, one {# point} other {# points}}",
                        "hello": "{name} comes to the table"})");
    made->add(
        "ru",
        R"({"points": "{count, plural, one {# очко} few {# очка} many {# очков} other {# очка}}"})");
    made->add("fr", R"({"points": "{count, plural, one {# point} other {# points}}"})");
    return made;
  }();
  return *c;
}

}  // namespace catalogue_tests

using catalogue_tests::points_catalogue;

TEST_CASE("Russian plural forms: 1 and 21 take one, 2 takes few, 5 takes many") {
  const auto& c = points_catalogue();
  CHECK(c.render("ru", "points", json{{"count", 1}}) == "1 очко");
  CHECK(c.render("ru", "points", json{{"count", 2}}) == "2 очка");
  CHECK(c.render("ru", "points", json{{"count", 5}}) == "5 очков");
  CHECK(c.render("ru", "points", json{{"count", 21}}) == "21 очко");
}

TEST_CASE("French counts 0 and 1 as one and English only 1") {
  const auto& c = points_catalogue();
  CHECK(c.render("fr", "points", json{{"count", 0}}) == "0 point");
  CHECK(c.render("en", "points", json{{"count", 0}}) == "0 points");
  CHECK(c.render("en", "points", json{{"count", 1}}) == "1 point");
}

TEST_CASE("A key a language lacks is said in English, and a key English lacks is shown as it is") {
  const auto& c = points_catalogue();
  CHECK(c.render("ru", "hello", json{{"name", "alice"}}) == "alice comes to the table");
  CHECK(c.render("de", "hello", json{{"name", "bob"}}) == "bob comes to the table");
  CHECK(c.render("ru", "no.such.key") == "no.such.key");
}

TEST_CASE("Names are never formatted: a name made of digits stays as written") {
  const auto& c = points_catalogue();
  CHECK(c.render("en", "hello", json{{"name", "1234"}}) == "1234 comes to the table");
}

TEST_CASE("A language is chosen from Accept-Language by quality, then by its primary tag") {
  const auto& c = catalogue::global();
  CHECK(c.pick("fr-CH, fr;q=0.9, en;q=0.8") == "fr");
  CHECK(c.pick("es, de;q=0.5, ru;q=0.7") == "ru");
  CHECK(c.pick("ru_RU.UTF-8") == "ru");
  CHECK(c.pick("xx, *;q=0.1") == "en");
  CHECK(c.pick("") == "en");
  CHECK(c.pick(";;;q=,,,,") == "en");
  CHECK(c.supported("DE-at") == "de");
  CHECK(c.supported("pt") == "");
}

TEST_CASE("English, French, German and Russian are compiled in, each with its own name") {
  const auto& c = catalogue::global();
  const auto tags = c.languages();
  REQUIRE(tags.size() >= 4);
  CHECK(tags.front() == "en");
  for (const char* tag : {"fr", "de", "ru"}) {
    CHECK(std::find(tags.begin(), tags.end(), tag) != tags.end());
    CHECK(c.has(tag, "lang.name"));
  }
  CHECK(c.render("ru", "lang.name") == "Русский");
}

TEST_CASE("Every message of every language parses with ICU and uses only English's arguments") {
  const auto& c = catalogue::global();
  for (const auto& tag : c.languages()) {
    for (const auto& key : c.keys(tag)) {
      INFO(tag << " " << key);
      CHECK(c.problem(tag, key).empty());
      CHECK(c.has("en", key));
    }
  }
}

TEST_CASE(
    "Every message of every language renders as ICU's MessageFormat renders it, the simple "
    "ones without ICU") {
  // Each argument a message names gets, in turn, a name, a small number, a number ICU
  // writes with a separator, a play, a name with an accent, a name made of digits and
  // select keywords:
  // the sentences cut at {name} (catalogue.cpp) must say exactly what ICU says.
  // Some values are the keywords of selects ("red", "on", "long", "match", "points").
  const std::vector<json> values{"alice", 7,       1500, "24/18 13/11", "Zoë",   "0042",   -3,
                                 "red",   "black", "on", "long",        "match", "points", "x y"};
  const auto& c = catalogue::global();
  std::size_t checked = 0;
  for (const auto& tag : c.languages()) {
    for (const auto& key : c.keys(tag)) {
      const std::string& text = *c.message(tag, key);
      std::set<std::string> names;
      // Each "{" followed by a word names an argument (std::regex is not used: GCC 12
      // warns inside it under the sanitizers).
      for (std::size_t at = text.find('{'); at != std::string::npos; at = text.find('{', at + 1)) {
        std::size_t i = at + 1;
        while (i < text.size() && text[i] == ' ') ++i;
        std::size_t end = i;
        while (end < text.size() &&
               (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_'))
          ++end;
        if (end > i) names.insert(text.substr(i, end - i));
      }
      for (std::size_t shift = 0; shift < values.size(); ++shift) {
        json args = json::object();
        std::vector<icu::UnicodeString> icu_names;
        std::vector<icu::Formattable> icu_values;
        std::size_t k = shift;
        for (const auto& n : names) {
          const json& v = values[k++ % values.size()];
          args[n] = v;
          icu_names.push_back(icu::UnicodeString::fromUTF8(n));
          icu_values.push_back(
              v.is_string() ? icu::Formattable(icu::UnicodeString::fromUTF8(v.get<std::string>()))
                            : icu::Formattable(static_cast<int64_t>(v.get<std::int64_t>())));
        }
        UErrorCode status = U_ZERO_ERROR;
        icu::MessageFormat f(icu::UnicodeString::fromUTF8(text), icu::Locale(tag.c_str()), status);
        REQUIRE(U_SUCCESS(status));
        icu::UnicodeString out;
        f.format(icu_names.data(), icu_values.data(), static_cast<int32_t>(icu_names.size()), out,
                 status);
        std::string expected;
        if (U_SUCCESS(status)) {
          out.toUTF8String(expected);
        } else {
          expected = text;  // what the catalogue says when ICU refuses the arguments
        }
        INFO(tag << " " << key << " " << args.dump());
        CHECK(c.render(tag, key, args) == expected);
        ++checked;
      }
    }
  }
  CHECK(checked > 1000);
}

TEST_CASE("A message with say is rendered in the reader's language and one without is left alone") {
  json m{{"type", "event"}, {"event", "entered"}, {"name", "alice"}};
  bg::i18n::with_say(m, "lang.name");
  CHECK(m["text"] == "English");
  CHECK(bg::i18n::say_in(m, "de"));
  CHECK(m["text"] == "Deutsch");
  json error{
      {"type", "error"}, {"code", "x"}, {"message", "m"}, {"say", bg::i18n::say("lang.name")}};
  CHECK(bg::i18n::say_in(error, "fr"));
  CHECK(error["message"] == "Français");
  json plain{{"type", "chat"}, {"text", "hello"}};
  CHECK_FALSE(bg::i18n::say_in(plain, "ru"));
  CHECK(plain["text"] == "hello");
}

TEST_CASE("A sentence inside a sentence's args is rendered first, in the reader's language") {
  catalogue c;
  c.add(
      "en",
      R"({"outer": "{name} cannot play: {reason}", "inner": "{count, plural, one {# point} other {# points}} left"})");
  c.add(
      "fr",
      R"({"outer": "{name} ne peut pas jouer : {reason}", "inner": "{count, plural, one {# point restant} other {# points restants}}"})");
  const json args{{"name", "gnubg"}, {"reason", {{"key", "inner"}, {"args", {{"count", 2}}}}}};
  CHECK(c.render("en", "outer", args) == "gnubg cannot play: 2 points left");
  CHECK(c.render("fr", "outer", args) == "gnubg ne peut pas jouer : 2 points restants");
  // A reason that is plain text (a system's words) stays as it is.
  CHECK(c.render("fr", "outer", {{"name", "gnubg"}, {"reason", "exit code 1"}}) ==
        "gnubg ne peut pas jouer : exit code 1");

  // The same through say_in(), with the compiled-in catalogues: a bot gives up because
  // GNU Backgammon did not answer; the inner sentence follows the reader's language.
  json e{{"type", "event"}, {"event", "bot_failed"}};
  bg::i18n::with_say(
      e, "table.bot_gave_up",
      {{"name", "gnubg-expert"},
       {"why", "error"},
       {"reason", bg::i18n::say("table.bot_no_answer",
                                {{"count", 2}, {"why", "timeout"}, {"detail", "30000"}})},
       {"what", "roll"}});
  CHECK(e["text"] ==
        "gnubg-expert cannot answer (GNU Backgammon did not answer (2 attempts, the last one did "
        "not answer within 30000 ms)): it rolls without doubling");
  CHECK(bg::i18n::say_in(e, "ru"));
  const auto ru = e["text"].get<std::string>();
  CHECK(ru.find("2 попытки") != std::string::npos);
  CHECK(ru.find("30000 мс") != std::string::npos);
}

TEST_CASE("A catalogue that is not an object of strings is refused") {
  catalogue c;
  CHECK_THROWS_AS(c.add("en", "[1, 2]"), std::invalid_argument);
  CHECK_THROWS_AS(c.add("en", R"({"a": 3})"), std::invalid_argument);
  CHECK_THROWS_AS(c.add("../x", R"({"a": "b"})"), std::invalid_argument);
}
