// Names and their keys (server/src/players/names.cpp).
#include <string>

#include <catch2/catch.hpp>

#include "bg/server/players/names.hpp"

using bg::server::name_key;
using bg::server::name_lookalike_key;
using bg::server::name_problem;
using bg::server::reserved_name_problem;

namespace {

/// True when `a` and `b` are one name for a newcomer: the same key or the same
/// lookalike key (as the game's players compare them).
bool collide(const std::string& a, const std::string& b) {
  return name_key(a) == name_key(b) || name_lookalike_key(a) == name_lookalike_key(b);
}

}  // namespace

TEST_CASE("names: the key folds ASCII, Latin, Greek and Cyrillic capitals and nothing else",
          "[server][names][issue15]") {
  // ASCII (the fast path, issue 15): capitals folded, digits and _ - . kept.
  CHECK(name_key("Alice") == "alice");
  CHECK(name_key("ALICE_2-b.C") == "alice_2-b.c");
  CHECK(name_key("bob") == "bob");
  CHECK(name_key("") == "");
  // Beyond ASCII: decoded and folded letter by letter, ASCII letters among them too.
  CHECK(name_key("ZOË") == "zoë");
  CHECK(name_key("Ärger") == "ärger");
  CHECK(name_key("ΩMEGA") == "ωmega");  // Greek capital omega, Latin capitals
  CHECK(name_key("ДМИТРИЙ") == "дмитрий");
  CHECK(name_key("Ёж") == "ёж");
  CHECK(name_key("李白") == "李白");
  // Not UTF-8 (never a valid name): kept as it is rather than guessed at.
  CHECK(name_key("A\xff") == "A\xff");
}

TEST_CASE("names: the key is Unicode's full case folding, beyond the letters a table listed",
          "[server][names]") {
  // Capitals whose small letters the old tables missed (Latin Extended-A's end and B,
  // accented Greek, Cyrillic beyond the basic block).
  CHECK(name_key("Žan") == name_key("žan"));
  CHECK(name_key("Żaneta") == name_key("żaneta"));
  CHECK(name_key("Ÿves") == name_key("ÿves"));
  CHECK(name_key("Ǆemal") == name_key("ǆemal"));
  CHECK(name_key("ǅemal") == name_key("ǆemal"));  // the title-case digraph too
  CHECK(name_key("Άννα") == name_key("άννα"));
  CHECK(name_key("Ґалина") == name_key("ґалина"));
  // Full folding: one letter may fold to two, and a final sigma is a sigma.
  CHECK(name_key("STRASSE") == name_key("straße"));
  CHECK(name_key("ΟΔΥΣΣΕΥΣ") == name_key("οδυσσευς"));
  // Different names stay different.
  CHECK(name_key("žan") != name_key("zan"));
  CHECK(name_key("ґалина") != name_key("галина"));
}

TEST_CASE("names: lookalike names (UTS 39 confusables) share a lookalike key", "[server][names]") {
  for (const char* n : {"alice", "аӏісе", "alıce", "aIice", "AIice"}) {
    INFO(n);
    CHECK(name_problem(n, 64) == std::nullopt);  // each is a valid name on its own
    CHECK(name_lookalike_key(n) == name_lookalike_key("alice"));
    CHECK(collide(n, "alice"));
  }
  // The case pairs of issue 25 collide, by key or by lookalike key.
  for (const auto& [a, b] : {std::pair{"Žan", "žan"},
                             {"Ÿves", "ÿves"},
                             {"Ǆemal", "ǆemal"},
                             {"Άννα", "άννα"},
                             {"Ґалина", "ґалина"},
                             {"Żaneta", "żaneta"}}) {
    INFO(a << " / " << b);
    CHECK(collide(a, b));
  }
  // Names that do not look alike stay apart.
  CHECK_FALSE(collide("alice", "alicia"));
  CHECK_FALSE(collide("bob", "rob"));
  CHECK_FALSE(collide("žan", "zan"));
}

TEST_CASE("names: gnubg and nardy followed by a non-letter are kept for the computer players",
          "[server][names]") {
  for (const char* n : {"gnubg", "gnubg_expert", "gnubg.expert", "Gnubg-x", "GNUBG2",
                        "nardy-expert2", "nardy_1", "Nardy", "nardy.x"}) {
    INFO(n);
    CHECK(reserved_name_problem(n).has_value());
  }
  for (const char* n : {"gnubgfan", "nardyman", "alice", "gnu_bg", "my_gnubg", "nard"}) {
    INFO(n);
    CHECK_FALSE(reserved_name_problem(n).has_value());
  }
  CHECK(reserved_name_problem("gnubg_expert")->find("computer players") != std::string::npos);
}
