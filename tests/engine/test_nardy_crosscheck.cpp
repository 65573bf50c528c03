// Proves the Long Nardy move generator (RULES.md L2-L6) against nardy-oracle, the
// independent brute-force Python generator that plays gnubg's part for long backgammon.
// The data, tests/engine/data/nardy_plays.txt, is the oracle's list of legal plays
// (nardy_moves --batch --notation, rule-book reading of the first-turn exception) for
// 3316 reachable positions: nardy-oracle's gen_positions stage mix (opening, middle,
// bear-off) with its top-ups (first-turn exception, six-point block, higher die, no
// move), further sets where the block rule, the higher-die rule, no move or partly
// playable doubles bind, and every first turn (the opening position and the 13
// positions after the opponent's first play, with all 21 rolls). scripts/regen-corpora made it with
// fixed seeds; data/README.md says how. The test reads only that file.
//
// Checked for every case: legal_plays(pos, roll, variant::long_nardy) gives exactly the
// oracle's set of final positions (Position IDs with the opponent on roll), and
// match_play() finds each play from the oracle's notation and from format_play()'s.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bg/engine/move_generator.hpp"
#include "bg/engine/notation.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/position_id.hpp"
#include "bg/engine/roll.hpp"
#include "bg/engine/variant.hpp"

// Named, so that its helpers and the standard crosscheck's can share a unity build.
namespace nardy_crosscheck {

namespace {

using namespace bg::engine;

struct oracle_play {
  std::string id;    // final position, opponent on roll
  std::string move;  // the oracle's notation: "24/18 24/18", "24/13", "6/off"
};

struct oracle_case {
  int line = 0;
  std::string posid;
  roll dice;
  std::string label;  // "opening", "middle", "bearoff", "topup:block_rule", "require:..."
  std::vector<oracle_play> plays;
  position before;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

/// Reads the corpus once: `POSID D1 D2 LABEL<TAB>RESULT_ID MOVE<TAB>...`. Every ID must
/// decode as a long nardy position (checked in the first test case).
const std::vector<oracle_case>& corpus() {
  static const std::vector<oracle_case> cases = [] {
    std::vector<oracle_case> out;
    std::ifstream in(BG_TEST_DATA_DIR "/nardy_plays.txt");
    std::string text;
    int line = 0;
    while (std::getline(in, text)) {
      ++line;
      if (text.empty() || text[0] == '#') continue;
      const auto fields = split(text, '\t');
      oracle_case c;
      c.line = line;
      std::istringstream head(fields[0]);
      head >> c.posid >> c.dice.die1 >> c.dice.die2 >> c.label;
      for (std::size_t i = 1; i < fields.size(); ++i) {
        const std::size_t space = fields[i].find(' ');
        c.plays.push_back({fields[i].substr(0, space), fields[i].substr(space + 1)});
      }
      const auto decoded = position_from_id(c.posid, variant::long_nardy);
      if (decoded.ok()) c.before = *decoded;
      out.push_back(std::move(c));
    }
    return out;
  }();
  return cases;
}

std::string describe(const oracle_case& c) {
  return "nardy_plays.txt line " + std::to_string(c.line) + " (" + c.label + "): " + c.posid + " " +
         std::to_string(c.dice.die1) + "-" + std::to_string(c.dice.die2);
}

std::string join(const std::set<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : " ") + id;
  return out.empty() ? "(none)" : out;
}

/// The side's first turn: all 15 checkers still on its head (L3).
bool first_turn(const oracle_case& c) {
  return c.before.mover(24) == checkers_per_side;
}

/// Checks that legal_plays() equals the oracle's set on every case `wanted` selects;
/// returns how many cases were checked.
int check_legal_play_sets(const std::function<bool(const oracle_case&)>& wanted) {
  int checked = 0;
  int mismatches = 0;
  play_list legal;
  for (const auto& c : corpus()) {
    if (!wanted(c)) continue;
    ++checked;
    legal_plays(c.before, c.dice, variant::long_nardy, legal);
    std::set<std::string> ours;
    for (const auto& p : legal) ours.insert(position_id(p.result.swapped()));
    std::set<std::string> theirs;
    for (const auto& p : c.plays) theirs.insert(p.id);
    if (ours == theirs && ours.size() == legal.size()) continue;
    std::set<std::string> missing;
    std::set<std::string> extra;
    std::set_difference(theirs.begin(), theirs.end(), ours.begin(), ours.end(),
                        std::inserter(missing, missing.end()));
    std::set_difference(ours.begin(), ours.end(), theirs.begin(), theirs.end(),
                        std::inserter(extra, extra.end()));
    if (++mismatches <= 20)
      FAIL_CHECK(describe(c) << "\n  missing (oracle has, we lack): " << join(missing)
                             << "\n  extra (we have, oracle lacks): " << join(extra)
                             << "\n  duplicates in our list: " << legal.size() - ours.size());
  }
  INFO(mismatches << " of " << checked << " cases differ from nardy-oracle");
  CHECK(mismatches == 0);
  return checked;
}

}  // namespace

TEST_CASE("The recorded Long Nardy corpus is complete and covers every rule",
          "[crosscheck][long]") {
  const auto& cases = corpus();
  REQUIRE(cases.size() >= 3000);
  std::map<std::string, int> by_label;
  std::size_t plays = 0;
  for (const auto& c : cases) {
    INFO(describe(c));
    REQUIRE(position_from_id(c.posid, variant::long_nardy).ok());
    ++by_label[c.label];
    plays += c.plays.size();
  }
  CHECK(plays > 25000);
  for (const char* label :
       {"opening", "middle", "bearoff", "first-turn", "topup:first_turn_exception",
        "topup:block_rule", "topup:higher_die", "topup:no_move", "require:block_rule",
        "require:higher_die", "require:no_move", "require:partial_doubles"}) {
    INFO(label);
    CHECK(by_label[label] >= 30);
  }
}

TEST_CASE("L2-L6 legal plays equal nardy-oracle's on the recorded corpus", "[crosscheck][long]") {
  CHECK(check_legal_play_sets([](const oracle_case&) { return true; }) >= 3000);
}

TEST_CASE("L3 one checker leaves the head, two on a first 6-6, 4-4 or 3-3, as nardy-oracle says",
          "[crosscheck][long]") {
  // All 42 first-turn-exception (position, roll) pairs of the game are in the corpus.
  std::set<std::string> exception_pairs;
  for (const auto& c : corpus()) {
    const bool special =
        c.dice.is_double() && (c.dice.die1 == 6 || c.dice.die1 == 4 || c.dice.die1 == 3);
    if (first_turn(c) && special)
      exception_pairs.insert(c.posid + " " + std::to_string(c.dice.die1));
  }
  CHECK(exception_pairs.size() == 42);
  CHECK(check_legal_play_sets(first_turn) >= 200);
  CHECK(check_legal_play_sets(
            [](const oracle_case& c) { return c.before.mover(24) > 1 && !first_turn(c); }) >= 500);
}

TEST_CASE("L5 no six-point block with every opposing checker behind it, as nardy-oracle says",
          "[crosscheck][long]") {
  CHECK(check_legal_play_sets([](const oracle_case& c) {
          return c.label == "require:block_rule" || c.label == "topup:block_rule";
        }) >= 150);
}

TEST_CASE(
    "L4 both dice are played if they can be, else the higher, doubles as far as they go, as "
    "nardy-oracle says",
    "[crosscheck][long]") {
  CHECK(check_legal_play_sets([](const oracle_case& c) {
          return c.label == "require:higher_die" || c.label == "topup:higher_die";
        }) >= 150);
  CHECK(check_legal_play_sets(
            [](const oracle_case& c) { return c.label == "require:partial_doubles"; }) >= 50);
  CHECK(check_legal_play_sets([](const oracle_case& c) { return c.plays.empty(); }) >= 100);
}

TEST_CASE("L6 bearing off follows R10.1-R10.3, as nardy-oracle says", "[crosscheck][long]") {
  CHECK(check_legal_play_sets([](const oracle_case& c) { return c.label == "bearoff"; }) >= 500);
}

TEST_CASE("Notation: match_play finds every Long Nardy play from nardy-oracle's notation and ours",
          "[crosscheck][long][notation]") {
  int plays = 0;
  int failures = 0;
  play_list legal;
  for (const auto& c : corpus()) {
    legal_plays(c.before, c.dice, variant::long_nardy, legal);
    std::map<std::string, int> by_id;
    for (std::size_t i = 0; i < legal.size(); ++i)
      by_id[position_id(legal[i].result.swapped())] = static_cast<int>(i);
    for (const auto& expected : c.plays) {
      const auto it = by_id.find(expected.id);
      if (it == by_id.end()) continue;  // a set difference: reported above
      ++plays;
      // The oracle's string, and ours (which merges repeats as "(2)", as gnubg does).
      const std::string ours =
          format_play(c.before, legal[static_cast<std::size_t>(it->second)], variant::long_nardy);
      for (const std::string& text : {expected.move, ours}) {
        const auto found = match_play(c.before, c.dice, variant::long_nardy, legal, text);
        if (found.ok() && *found == it->second) continue;
        if (++failures <= 20)
          FAIL_CHECK(describe(c) << " play " << expected.id << " written \"" << text << "\": "
                                 << (found.ok() ? "matched play " + std::to_string(*found) +
                                                      ", expected " + std::to_string(it->second)
                                                : found.err().code + ": " + found.err().message));
      }
    }
  }
  INFO(failures << " of " << 2 * plays << " strings not matched to their play");
  CHECK(failures == 0);
  CHECK(plays > 25000);
}

}  // namespace nardy_crosscheck
