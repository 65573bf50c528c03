// The rules of tournaments (RULES.md S6) without a server: a knockout's seeding and
// byes, Swiss pairings and standings on worked examples (computed by hand, in the
// comments), and an arena's scores and pairings.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "bg/server/tournament/tournament_rules.hpp"

using namespace bg::server;

namespace {

/// Players named A, B, C... rated 2000, 1900, 1800... (A the highest).
std::vector<entrant> field_of(std::size_t n) {
  std::vector<entrant> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(entrant{std::string(1, static_cast<char>('A' + i)),
                          2000.0 - 100.0 * static_cast<double>(i)});
  return out;
}

round_pairing game(const std::string& red, const std::string& black) {
  return {red, black};
}
round_pairing bye(const std::string& red) {
  return {red, std::nullopt};
}

/// The results of a round: `winners` in the order of the round's pairings (a bye's
/// entry is ignored).
void play(std::vector<swiss_result>& results, const std::vector<round_pairing>& round,
          const std::vector<std::string>& winners) {
  REQUIRE(winners.size() == round.size());
  for (std::size_t i = 0; i < round.size(); ++i)
    results.push_back(swiss_result{round[i].red, round[i].black,
                                   round[i].black ? std::optional(winners[i]) : std::nullopt});
}

std::vector<std::string> names_of(const std::vector<standing>& table) {
  std::vector<std::string> out;
  for (const auto& s : table) out.push_back(s.name);
  return out;
}

}  // namespace

TEST_CASE("S6 a knockout of 5 is seeded by rating with byes to the top 3 seeds",
          "[tournament][knockout][S6]") {
  auto field = field_of(5);
  std::swap(field[0], field[4]);  // any order in: seeded by rating
  const auto first = knockout_first_round(field);
  // A bracket of 8 in the order 1-8, 4-5, 2-7, 3-6: seeds 6, 7 and 8 do not exist.
  CHECK(first == std::vector<round_pairing>{bye("A"), game("D", "E"), bye("B"), bye("C")});
  CHECK(knockout_rounds(5) == 3);
  // Round 2: the winners of pairings 1 and 2 meet, then 3 and 4; then the final.
  const auto second = knockout_next_round({"A", "E", "B", "C"});
  CHECK(second == std::vector<round_pairing>{game("A", "E"), game("B", "C")});
  CHECK(knockout_next_round({"E", "B"}) == std::vector<round_pairing>{game("E", "B")});
  CHECK(knockout_next_round({"B"}).empty());
  CHECK_THROWS_AS(knockout_next_round({"A", "B", "C"}), std::invalid_argument);
  CHECK_THROWS_AS(knockout_first_round(field_of(1)), std::invalid_argument);
}

TEST_CASE("S6 a knockout of 13 has a bracket of 16, byes to seeds 1 to 3, and 4 rounds",
          "[tournament][knockout][S6]") {
  const auto first = knockout_first_round(field_of(13));
  // Bracket order of 16: 1-16, 8-9, 4-13, 5-12, 2-15, 7-10, 3-14, 6-11.
  CHECK(first == std::vector<round_pairing>{bye("A"), game("H", "I"), game("D", "M"),
                                            game("E", "L"), bye("B"), game("G", "J"), bye("C"),
                                            game("F", "K")});
  CHECK(knockout_rounds(13) == 4);
  CHECK(knockout_rounds(2) == 1);
  CHECK(knockout_rounds(16) == 4);
  CHECK(knockout_rounds(17) == 5);
  // Equal ratings are seeded by name.
  const auto tied = seeded({{"zoe", 1500}, {"amy", 1500}, {"max", 1600}});
  CHECK(tied[0].name == "max");
  CHECK(tied[1].name == "amy");
}

TEST_CASE(
    "S6 a Swiss of 8 over 3 rounds: top half against bottom half within equal wins, "
    "standings by wins then Buchholz then rating",
    "[tournament][swiss][S6]") {
  const auto field = field_of(8);  // A 2000 ... H 1300
  std::vector<swiss_result> results;
  // Round 1: everyone on 0, by rating: A-E, B-F, C-G, D-H. F beats B.
  const auto r1 = swiss_round(field, results);
  REQUIRE(r1 == std::vector<round_pairing>{game("A", "E"), game("B", "F"), game("C", "G"),
                                           game("D", "H")});
  play(results, r1, {"A", "F", "C", "D"});
  // Round 2: 1 win: A C D F (Buchholz 0 each, by rating); 0 wins: B E G H (Buchholz 1
  // each). A-D, C-F; B-G, E-H. F and H win.
  const auto r2 = swiss_round(field, results);
  REQUIRE(r2 == std::vector<round_pairing>{game("A", "D"), game("C", "F"), game("B", "G"),
                                           game("E", "H")});
  play(results, r2, {"A", "F", "B", "H"});
  // After 2 rounds: A 2 (Buchholz E0+D1 = 1), F 2 (B1+C1 = 2), D 1 (H1+A2 = 3), B 1
  // (F2+G0 = 2), C 1 (G0+F2 = 2), H 1 (D1+E0 = 1), E 0 (A2+H1 = 3), G 0 (C1+B1 = 2).
  const auto table = swiss_standings(field, results);
  CHECK(names_of(table) == std::vector<std::string>{"F", "A", "D", "B", "C", "H", "E", "G"});
  CHECK(table[0].wins == 2);
  CHECK(table[0].points == 2);
  CHECK(table[0].buchholz == 2);
  CHECK(table[1].buchholz == 1);
  CHECK(table[2].buchholz == 3);
  CHECK(table[3].rank == 4);
  // Round 3: F-A; D-C (half the group below D), B-H; E-G.
  const auto r3 = swiss_round(field, results);
  CHECK(r3 ==
        std::vector<round_pairing>{game("F", "A"), game("D", "C"), game("B", "H"), game("E", "G")});
}

TEST_CASE(
    "S6 a Swiss of 7 over 3 rounds: the lowest-ranked player without a bye gets one, "
    "worth a win",
    "[tournament][swiss][S6]") {
  const auto field = field_of(7);  // A 2000 ... G 1400
  std::vector<swiss_result> results;
  // Round 1: G (last) has the bye; A-D, B-E, C-F. The favourites win.
  const auto r1 = swiss_round(field, results);
  REQUIRE(r1 ==
          std::vector<round_pairing>{game("A", "D"), game("B", "E"), game("C", "F"), bye("G")});
  play(results, r1, {"A", "B", "C", ""});
  // Round 2: 1 win: A B C G (the bye counts; Buchholz 0 each, by rating); 0: D E F.
  // F, the lowest without a bye, has it; A-C, B-G; D-E. G and D win.
  const auto r2 = swiss_round(field, results);
  REQUIRE(r2 ==
          std::vector<round_pairing>{game("A", "C"), game("B", "G"), game("D", "E"), bye("F")});
  play(results, r2, {"A", "G", "D", ""});
  // After 2: A 2 (D1+C1 = 2), G 2 (B1 = 1), C 1 (F1+A2 = 3), B 1 (E0+G2 = 2), D 1 (A2+E0
  // = 2), F 1 (C1 = 1), E 0. E has the bye; A-G; C-D; B-F.
  const auto table = swiss_standings(field, results);
  CHECK(names_of(table) == std::vector<std::string>{"A", "G", "C", "B", "D", "F", "E"});
  const auto r3 = swiss_round(field, results);
  CHECK(r3 == std::vector<round_pairing>{game("A", "G"), game("C", "D"), game("B", "F"), bye("E")});
}

TEST_CASE("S6 no two Swiss players meet twice when another pairing avoids it",
          "[tournament][swiss][S6]") {
  const auto field = field_of(4);
  std::vector<swiss_result> results;
  const auto r1 = swiss_round(field, results);
  REQUIRE(r1 == std::vector<round_pairing>{game("A", "C"), game("B", "D")});
  play(results, r1, {"A", "B"});
  const auto r2 = swiss_round(field, results);
  REQUIRE(r2 == std::vector<round_pairing>{game("A", "B"), game("C", "D")});
  play(results, r2, {"A", "C"});
  // A (2) has met B and C: A-D, and so B-C, though A-B would be top against next.
  const auto r3 = swiss_round(field, results);
  CHECK(r3 == std::vector<round_pairing>{game("A", "D"), game("B", "C")});
  play(results, r3, {"A", "B"});
  // Everyone has met everyone: a fourth round must repeat a pairing, and does.
  const auto r4 = swiss_round(field, results);
  CHECK(r4.size() == 2);
}

TEST_CASE(
    "S6 an arena scores 2 a win, 3 a gammon, 4 a backgammon, doubled after two wins in a "
    "row until a loss",
    "[tournament][arena][S6]") {
  arena_score s;
  CHECK(s.add(true) == 2);
  CHECK_FALSE(s.on_fire());
  CHECK(s.add(true, win_kind::gammon) == 3);
  CHECK(s.on_fire());
  CHECK(s.add(true) == 4);                        // doubled
  CHECK(s.add(true, win_kind::backgammon) == 8);  // still doubled
  CHECK(s.add(false) == 0);                       // the streak ends
  CHECK_FALSE(s.on_fire());
  CHECK(s.add(true) == 2);
  CHECK(s.points == 19);
  CHECK(s.wins == 5);
}

TEST_CASE(
    "S6 an arena pairs the longest waiting with the nearest score, not the last opponent "
    "while another waits",
    "[tournament][arena][S6]") {
  std::vector<arena_waiting> pool{
      {"amy", 10, 3, ""}, {"bob", 4, 1, "cat"}, {"cat", 5, 2, "bob"}, {"dan", 11, 4, ""}};
  // bob waited longest. The nearest score, cat's (1 away), is his last opponent's while
  // others wait; then amy (6 away) before dan (7): bob-amy. Then cat-dan.
  const auto pairs = arena_pairs(pool);
  REQUIRE(pairs.size() == 2);
  CHECK(pairs[0] == std::pair<std::size_t, std::size_t>{1, 0});
  CHECK(pairs[1] == std::pair<std::size_t, std::size_t>{2, 3});
  // Alone together, last opponents play again; an odd one waits on.
  std::vector<arena_waiting> two{{"bob", 4, 1, "cat"}, {"cat", 5, 2, "bob"}, {"eve", 0, 9, ""}};
  const auto again = arena_pairs({two[0], two[1]});
  REQUIRE(again.size() == 1);
  CHECK(again[0] == std::pair<std::size_t, std::size_t>{0, 1});
  const auto three = arena_pairs(two);
  REQUIRE(three.size() == 1);
  CHECK(three[0] == std::pair<std::size_t, std::size_t>{0, 2});  // bob-eve; cat waits
}

TEST_CASE("S6 a Swiss round of 256 players pairs everyone once, with no rematch",
          "[tournament][swiss][S6]") {
  std::vector<entrant> field;
  for (int i = 0; i < 256; ++i)
    field.push_back(entrant{"p" + std::to_string(i), 1200.0 + static_cast<double>((i * 37) % 800)});
  std::vector<swiss_result> results;
  for (int round = 0; round < 5; ++round) {
    const auto pairs = swiss_round(field, results);
    REQUIRE(pairs.size() == 128);
    std::set<std::string> seen;
    for (const auto& p : pairs) {
      REQUIRE(p.black);
      CHECK(seen.insert(p.red).second);
      CHECK(seen.insert(*p.black).second);
      for (const auto& r : results)
        CHECK_FALSE(((r.red == p.red && r.black == p.black) ||
                     (r.red == *p.black && r.black == std::optional(p.red))));
    }
    std::vector<std::string> winners;
    for (std::size_t i = 0; i < pairs.size(); ++i)
      winners.push_back(i % 3 == 0 ? *pairs[i].black : pairs[i].red);
    play(results, pairs, winners);
  }
}
