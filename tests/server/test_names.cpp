// Names and their keys (server/src/game/names.cpp).
#include <string>

#include <catch2/catch.hpp>

#include "bg/server/game/names.hpp"

using bg::server::name_key;

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
