// Proves the standard-backgammon move generator (RULES.md R4-R10) and the move notation
// against GNU Backgammon 1.07. The data, tests/engine/data/gnubg_plays.txt, is gnubg's own
// list of legal plays (one line per position and roll: every distinct final position with
// gnubg's FormatMove string) for 4059 positions made by gnubg-oracle's gen_positions:
// the category mix (contact, race, bearoff, bar, closed, prime, blocked, endgame, random,
// opening, hdr) and targeted sets where a rule binds (higher-die rule, doubles partly
// playable, one die only, no move, bar, bear-off with a larger die, hit).
// scripts/regen-corpora made it with fixed seeds; data/README.md says how. The test
// reads only that file.
//
// Checked for every case: legal_plays() gives exactly gnubg's set of final positions
// (compared as Position IDs with the opponent on roll); format_play() writes each play
// as gnubg does; match_play() finds the play from gnubg's string and from ours.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "bg/engine/move_generator.hpp"
#include "bg/engine/notation.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/position_id.hpp"
#include "bg/engine/roll.hpp"
#include "bg/engine/variant.hpp"

namespace {

using namespace bg::engine;

struct oracle_play {
  std::string id;    // final position, opponent on roll
  std::string move;  // gnubg's FormatMove string
};

struct oracle_case {
  int line = 0;
  std::string posid;
  roll dice;
  std::string label;  // how the case was made: "mix:bar", "require:no_move", ...
  std::vector<oracle_play> plays;
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

/// Reads the corpus once: `POSID D1 D2 LABEL<TAB>RESULT_ID MOVE<TAB>...`.
const std::vector<oracle_case>& corpus() {
  static const std::vector<oracle_case> cases = [] {
    std::vector<oracle_case> out;
    std::ifstream in(BG_TEST_DATA_DIR "/gnubg_plays.txt");
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
      out.push_back(std::move(c));
    }
    return out;
  }();
  return cases;
}

std::string describe(const oracle_case& c) {
  return "gnubg_plays.txt line " + std::to_string(c.line) + " (" + c.label + "): " + c.posid + " " +
         std::to_string(c.dice.die1) + "-" + std::to_string(c.dice.die2);
}

std::string join(const std::set<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : " ") + id;
  return out.empty() ? "(none)" : out;
}

/// Checks that legal_plays() equals gnubg's set on every case whose label starts with
/// `prefix` ("" = all); returns how many cases were checked.
int check_legal_play_sets(std::string_view prefix) {
  int checked = 0;
  int mismatches = 0;
  play_list legal;
  for (const auto& c : corpus()) {
    if (c.label.rfind(prefix, 0) != 0) continue;
    ++checked;
    const auto before = position_from_id(c.posid, variant::standard);
    if (!before) {
      FAIL_CHECK(describe(c) << ": our decoder rejects gnubg's ID: " << before.err().message);
      ++mismatches;
      continue;
    }
    legal_plays(*before, c.dice, variant::standard, legal);
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
      FAIL_CHECK(describe(c) << "\n  missing (gnubg has, we lack): " << join(missing)
                             << "\n  extra (we have, gnubg lacks): " << join(extra)
                             << "\n  duplicates in our list: " << legal.size() - ours.size());
  }
  INFO(mismatches << " of " << checked << " cases differ from gnubg");
  CHECK(mismatches == 0);
  return checked;
}

}  // namespace

TEST_CASE("The recorded GNU Backgammon corpus is complete and covers every category",
          "[crosscheck]") {
  const auto& cases = corpus();
  REQUIRE(cases.size() >= 4000);
  std::map<std::string, int> by_label;
  std::size_t plays = 0;
  for (const auto& c : cases) {
    ++by_label[c.label];
    plays += c.plays.size();
  }
  CHECK(plays > 80000);
  for (const char* label :
       {"mix:contact", "mix:race", "mix:bearoff", "mix:bar", "mix:closed", "mix:prime",
        "mix:blocked", "mix:endgame", "mix:random", "mix:opening", "mix:hdr",
        "require:higher_die_rule_binding", "require:partial_doubles", "require:one_die_only",
        "require:no_move", "require:bar", "require:bearoff_with_larger_die", "require:hit"}) {
    INFO(label);
    CHECK(by_label[label] >= 10);
  }
}

TEST_CASE("R4-R10 legal plays equal GNU Backgammon's on the recorded corpus", "[crosscheck]") {
  CHECK(check_legal_play_sets("") >= 4000);
}

TEST_CASE("R6.2 the higher die is played when only one die can be, as GNU Backgammon does",
          "[crosscheck]") {
  CHECK(check_legal_play_sets("require:higher_die_rule_binding") >= 100);
  CHECK(check_legal_play_sets("require:one_die_only") >= 100);
}

TEST_CASE("R6.3 doubles play as many moves as possible, as GNU Backgammon does", "[crosscheck]") {
  CHECK(check_legal_play_sets("require:partial_doubles") >= 100);
}

TEST_CASE("R6.4 and R9 a roll with no legal move is lost, as GNU Backgammon finds",
          "[crosscheck]") {
  CHECK(check_legal_play_sets("require:no_move") >= 100);
  CHECK(check_legal_play_sets("mix:closed") >= 30);
}

TEST_CASE("R7 and R8 hits and entering from the bar agree with GNU Backgammon", "[crosscheck]") {
  CHECK(check_legal_play_sets("require:hit") >= 100);
  CHECK(check_legal_play_sets("require:bar") >= 100);
  CHECK(check_legal_play_sets("mix:bar") >= 100);
}

TEST_CASE("R10 bearing off, with a larger die from the highest point, agrees with GNU Backgammon",
          "[crosscheck]") {
  CHECK(check_legal_play_sets("require:bearoff_with_larger_die") >= 100);
  CHECK(check_legal_play_sets("mix:bearoff") >= 100);
}

TEST_CASE("R1.1 and R2 every opening roll gives GNU Backgammon's plays", "[crosscheck]") {
  // The opening position with all 36 dice orders (some recorded under mix:opening).
  int opening = 0;
  for (const auto& c : corpus())
    if (c.posid == "4HPwATDgc/ABMA") ++opening;
  CHECK(opening == 36);
  CHECK(check_legal_play_sets("opening-position") > 0);
}

TEST_CASE("Notation: format_play writes every legal play as GNU Backgammon's FormatMove does",
          "[crosscheck][notation]") {
  int plays = 0;
  int mismatches = 0;
  play_list legal;
  for (const auto& c : corpus()) {
    const auto before = position_from_id(c.posid, variant::standard);
    REQUIRE(before.ok());
    legal_plays(*before, c.dice, variant::standard, legal);
    std::map<std::string, std::size_t> by_id;
    for (std::size_t i = 0; i < legal.size(); ++i)
      by_id[position_id(legal[i].result.swapped())] = i;
    for (const auto& expected : c.plays) {
      const auto it = by_id.find(expected.id);
      if (it == by_id.end()) continue;  // a set difference: reported by the test above
      ++plays;
      const std::string ours = format_play(*before, legal[it->second], variant::standard);
      if (ours == expected.move) continue;
      if (++mismatches <= 20)
        FAIL_CHECK(describe(c) << " play " << expected.id << ": gnubg writes \"" << expected.move
                               << "\", we write \"" << ours << "\"");
    }
  }
  INFO(mismatches << " of " << plays << " plays written differently from gnubg");
  CHECK(mismatches == 0);
  CHECK(plays > 80000);
}

TEST_CASE("Notation: match_play finds every legal play from GNU Backgammon's string and ours",
          "[crosscheck][notation]") {
  int plays = 0;
  int failures = 0;
  play_list legal;
  for (const auto& c : corpus()) {
    const auto before = position_from_id(c.posid, variant::standard);
    REQUIRE(before.ok());
    legal_plays(*before, c.dice, variant::standard, legal);
    std::map<std::string, int> by_id;
    for (std::size_t i = 0; i < legal.size(); ++i)
      by_id[position_id(legal[i].result.swapped())] = static_cast<int>(i);
    for (const auto& expected : c.plays) {
      const auto it = by_id.find(expected.id);
      if (it == by_id.end()) continue;
      ++plays;
      const std::string ours =
          format_play(*before, legal[static_cast<std::size_t>(it->second)], variant::standard);
      for (const std::string& text : {expected.move, ours}) {
        const auto found = match_play(*before, c.dice, variant::standard, legal, text);
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
  CHECK(plays > 80000);
}

TEST_CASE("Notation: match_play refuses every roll of the no-move cases",
          "[crosscheck][notation]") {
  // R6.4: with no legal play, any written play is refused, and the list is empty.
  int checked = 0;
  play_list legal;
  for (const auto& c : corpus()) {
    if (!c.plays.empty()) continue;
    const auto before = position_from_id(c.posid, variant::standard);
    REQUIRE(before.ok());
    legal_plays(*before, c.dice, variant::standard, legal);
    INFO(describe(c));
    CHECK(legal.dice_used() == 0);
    const auto found = match_play(*before, c.dice, variant::standard, legal, "24/18");
    CHECK_FALSE(found.ok());
    ++checked;
  }
  CHECK(checked >= 150);
}
