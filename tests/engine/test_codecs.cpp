// Proves the Position ID and Match ID codecs against gnubg-oracle's posid.py and
// matchid.py, which were themselves checked against GNU Backgammon 1.07
// (gnubg.positionid / positionfromid / matchid on thousands of states). The data in
// tests/engine/data was recorded from those tools by scripts/regen-corpora:
//   position_ids.txt          1988 boards (1000 from gen_positions, arbitrary ones with
//                             checkers on the bar and borne off, the start) and their IDs;
//   position_ids_invalid.txt  266 IDs and posid.py's verdict on each;
//   match_ids.txt             1000 Match ID field sets and matchid.py's IDs;
//   match_ids_invalid.txt     81 Match IDs that are no valid gnubg state.
// The test reads only those files.

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bg/engine/match_id.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/position_id.hpp"
#include "bg/engine/variant.hpp"

namespace {

using namespace bg::engine;

std::vector<std::string> split_fields(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

/// The tab-separated fields of every data line of a corpus file (comments skipped).
std::vector<std::vector<std::string>> read_rows(const std::string& name) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(std::string(BG_TEST_DATA_DIR) + "/" + name);
  std::string text;
  while (std::getline(in, text)) {
    if (!text.empty() && text[0] == '#') continue;
    if (text.empty()) continue;
    rows.push_back(split_fields(text, '\t'));
  }
  return rows;
}

side_checkers parse_side(const std::string& text) {
  side_checkers s{};
  std::istringstream in(text);
  for (auto& n : s) {
    int v = -1;
    in >> v;
    REQUIRE((v >= 0 && v <= 15));
    n = static_cast<std::uint8_t>(v);
  }
  return s;
}

}  // namespace

TEST_CASE("Position ID: the starting position is 4HPwATDgc/ABMA both ways", "[codecs]") {
  CHECK(position_id(position::starting(variant::standard)) == "4HPwATDgc/ABMA");
  const auto p = position_from_id("4HPwATDgc/ABMA");
  REQUIRE(p.ok());
  CHECK(*p == position::starting(variant::standard));
}

TEST_CASE("Position ID: encoding and decoding equal posid.py's on the recorded boards",
          "[codecs]") {
  const auto rows = read_rows("position_ids.txt");
  REQUIRE(rows.size() >= 1900);
  int with_bar = 0;
  int with_off = 0;
  for (const auto& row : rows) {
    REQUIRE(row.size() == 3);
    const std::string& id = row[0];
    const side_checkers mover = parse_side(row[1]);
    const side_checkers opponent = parse_side(row[2]);
    if (mover[bar_index] + opponent[bar_index] > 0) ++with_bar;
    if (mover[off_index] + opponent[off_index] > 0) ++with_off;
    INFO("position_ids.txt: " << id);
    // Given the board, when it is encoded, then the ID is posid.py's.
    const auto built = position::from_sides(mover, opponent, variant::standard);
    REQUIRE(built.has_value());
    CHECK(position_id(*built) == id);
    // Given the ID, when it is decoded, then both sides are posid.py's, off included.
    const auto decoded = position_from_id(id, variant::standard);
    REQUIRE(decoded.ok());
    CHECK(decoded->mover_side() == mover);
    CHECK(decoded->opponent_side() == opponent);
    // The opponent's view is the same checkers with the sides exchanged.
    const auto swapped = position_from_id(position_id(decoded->swapped()), variant::standard);
    REQUIRE(swapped.ok());
    CHECK(swapped->mover_side() == opponent);
  }
  CHECK(with_bar >= 300);
  CHECK(with_off >= 300);
}

TEST_CASE("Position ID: every ID posid.py rejects is rejected", "[codecs]") {
  // posid.py rejects: not 14 Base64 characters, more than 15 checkers a side (or too
  // few separators), a point held by both sides: gnubg refuses exactly these boards.
  // posid.py (like gnubg) ignores bits after the 80-bit key and after both sides; our
  // decoder refuses such non-canonical IDs on purpose (position_id.hpp), so for those
  // the canonical form posid.py gives must decode instead.
  const auto rows = read_rows("position_ids_invalid.txt");
  REQUIRE(rows.size() >= 250);
  int rejected = 0;
  int noncanonical = 0;
  for (const auto& row : rows) {
    REQUIRE(row.size() == 4);
    const std::string& id = row[0];
    const std::string& verdict = row[1];
    INFO("position_ids_invalid.txt: \"" << id << "\" (" << row[2] << "), posid.py: " << verdict
                                        << " " << row[3]);
    const auto decoded = position_from_id(id, variant::standard);
    if (verdict == "reject") {
      ++rejected;
      REQUIRE_FALSE(decoded.ok());
      CHECK(decoded.err().code == "bad_position_id");
      CHECK_FALSE(decoded.err().message.empty());
    } else {
      REQUIRE(verdict == "accept-noncanonical");
      ++noncanonical;
      CHECK_FALSE(decoded.ok());
      const auto canonical = position_from_id(row[3], variant::standard);
      REQUIRE(canonical.ok());
      CHECK(position_id(*canonical) == row[3]);
    }
  }
  CHECK(rejected >= 200);
  CHECK(noncanonical >= 10);
}

TEST_CASE("Position ID: malformed IDs are rejected with a reason", "[codecs]") {
  const auto start = position::starting(variant::standard);
  auto refused = [](const std::string& id) {
    const auto r = position_from_id(id);
    return !r.ok() && r.err().code == "bad_position_id";
  };
  SECTION("wrong length") {
    CHECK(refused(""));
    CHECK(refused("4HPwATDgc/ABM"));
    CHECK(refused("4HPwATDgc/ABMAA"));
    CHECK(refused("4HPwATDgc/ABMA=="));
  }
  SECTION("characters outside Base64") {
    CHECK(refused("4HPwATDgc-ABMA"));
    CHECK(refused("4HPwATDgc ABMA"));
    CHECK(refused("4HPwATDgc/ABM="));
  }
  SECTION("more than 15 checkers on a side") {
    // The side on roll with 16 checkers (6 on its 6 point), the other with 13 on board,
    // so that the 79 bits still fit the 80-bit key.
    position p = start;
    p.raw_opponent()[24] = 0;
    p.raw_mover()[6] = 6;  // is_ok() fails; the encoder writes the bits regardless
    CHECK(refused(position_id(p)));
    p = start;
    p.raw_mover()[24] = 0;
    p.raw_opponent()[6] = 6;  // the side not on roll with 16
    CHECK(refused(position_id(p)));
  }
  SECTION("a point held by both sides") {
    position p = start;
    p.raw_mover()[6] = 4;
    p.raw_mover()[19] = 1;  // the opponent's 6 point holds 5 of its checkers
    CHECK(refused(position_id(p)));
  }
}

TEST_CASE("Match ID: encoding and decoding equal matchid.py's on the recorded field sets",
          "[codecs]") {
  const auto rows = read_rows("match_ids.txt");
  REQUIRE(rows.size() >= 1000);
  int pending_double = 0;
  int resigned = 0;
  int crawford = 0;
  int jacoby = 0;
  int money = 0;
  for (const auto& row : rows) {
    REQUIRE(row.size() == 2);
    std::istringstream in(row[1]);
    match_id_fields f;
    int crawford_flag = 0;
    int double_flag = 0;
    int jacoby_flag = 0;
    in >> f.cube >> f.cube_owner >> f.player_on_roll >> crawford_flag >> f.game_state >> f.turn >>
        double_flag >> f.resign >> f.dice[0] >> f.dice[1] >> f.match_length >> f.score[0] >>
        f.score[1] >> jacoby_flag;
    REQUIRE(in);
    f.crawford = crawford_flag != 0;
    f.double_offered = double_flag != 0;
    f.jacoby = jacoby_flag != 0;
    pending_double += f.double_offered ? 1 : 0;
    resigned += f.resign != 0 ? 1 : 0;
    crawford += f.crawford ? 1 : 0;
    jacoby += f.jacoby ? 1 : 0;
    money += f.match_length == 0 ? 1 : 0;
    INFO("match_ids.txt: " << row[0] << " fields " << row[1]);
    // When the fields are encoded, the ID is matchid.py's (higher die first whatever
    // the order given).
    CHECK(match_id(f) == row[0]);
    // When the ID is decoded, the fields come back with the higher die first.
    const auto decoded = match_id_from_string(row[0]);
    REQUIRE(decoded.ok());
    match_id_fields expected = f;
    if (expected.dice[0] < expected.dice[1]) std::swap(expected.dice[0], expected.dice[1]);
    CHECK(*decoded == expected);
  }
  CHECK(pending_double >= 50);
  CHECK(resigned >= 50);
  CHECK(crawford >= 50);
  CHECK(jacoby >= 50);
  CHECK(money >= 50);
}

TEST_CASE("Match ID: IDs that are no valid gnubg state are rejected", "[codecs]") {
  // matchid.py raises on a wrong length or a character outside Base64, and decodes the
  // rest as-is while flagging the bad field (a cube owner of 2, a game state above 4,
  // a die of 7, one die without the other, unused bits set).
  const auto rows = read_rows("match_ids_invalid.txt");
  REQUIRE(rows.size() >= 70);
  for (const auto& row : rows) {
    REQUIRE(row.size() == 3);
    INFO("match_ids_invalid.txt: \"" << row[0] << "\" (" << row[1] << "), matchid.py: " << row[2]);
    const auto decoded = match_id_from_string(row[0]);
    REQUIRE_FALSE(decoded.ok());
    CHECK(decoded.err().code == "bad_match_id");
  }
}

TEST_CASE("Match ID: red is gnubg's player 0 and black its player 1", "[codecs]") {
  // gnubg-oracle README: "matchid encode --cube 2 --owner 0 --on-roll 1 --dice 5 2
  // --length 9 --score 2 4" gives QYkqASAAIAAE: player 0 (red) owns the cube and has 2.
  match_id_fields f;
  f.cube = 2;
  f.cube_owner = 0;
  f.player_on_roll = 1;
  f.turn = 1;
  f.dice = {5, 2};
  f.match_length = 9;
  f.score = {2, 4};
  CHECK(match_id(f) == "QYkqASAAIAAE");
}
