/// @file notation.cpp
/// libFuzzer target: engine::parse_notation and engine::match_play, which read the play
/// a player types after /move. Input: byte 0 picks one of 16 fixed positions ('a'..'p':
/// 9 standard, 7 long nardy, see `positions`), bytes 1 and 2 are the dice ('1'..'6'),
/// the rest is the typed play, e.g. "a31 8/5 6/5". Proves, for every input:
///  - parse_notation never crashes; a refusal is bad_notation with a printable message;
///    accepted parts have 2+ points within 0..25, a hit mark per point (never on the
///    start), a repeat of 1..4, at most 4 checker moves in all; the parts written back
///    canonically ("13/7*/1(2)") and in upper case parse to the same parts;
///  - match_play never crashes; it refuses exactly what parse_notation refuses (with
///    the same error), else answers illegal_play or ambiguous_play with a printable
///    message, or the index of a legal play; legal_plays() empty means always refused;
///  - the play it picks, written by format_play(), is matched back to the same index;
///  - for every position and roll reached, every legal play written by format_play()
///    is matched back to itself (checked once per position and roll).
///
///   scripts/fuzz 60 notation    # this target only, 60 s, in build-fuzz
///   build-fuzz/tests/fuzz/fuzz_notation SCRATCH_DIR tests/fuzz/corpus/notation   # by hand
///   build/tests/fuzz/notation_replay tests/fuzz/corpus/notation   # no libFuzzer

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bg/engine/move_generator.hpp"
#include "bg/engine/notation.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/position_id.hpp"
#include "fuzz_check.hpp"

namespace {

using bg::engine::position;
using bg::engine::variant;
using bg::engine::written_move;

struct fixed_position {
  variant v;
  const char* id;  ///< a Position ID (tests/engine/data), or nullptr: the starting position
};

// From tests/engine/data/gnubg_plays.txt and nardy_plays.txt (the first line of each
// label); tests/fuzz/make_corpus.py uses the same list.
constexpr std::array<fixed_position, 16> positions{{
    {variant::standard, nullptr},             // a: start
    {variant::standard, "k3QwSSQiMF+CEw"},    // b: contact
    {variant::standard, "r2YCEBXBKFUkeA"},    // c: on the bar
    {variant::standard, "2lw1gQAuOwAAAA"},    // d: bear-off
    {variant::standard, "bHcbAQBaY3AAXA"},    // e: prime
    {variant::standard, "EMG2bSCmBgyKVg"},    // f: hit from the bar
    {variant::standard, "ThGVLRAkAAAAAA"},    // g: partial doubles
    {variant::standard, "FmY2hgH/DxAAAA"},    // h: the higher die must be played
    {variant::standard, "YxvMAgxREQCYAA"},    // i: no move with 1-1
    {variant::long_nardy, nullptr},           // j: start (first turn, head rule)
    {variant::long_nardy, "AACA/z8AAID/Pw"},  // k: first turn of the second player
    {variant::long_nardy, "/8JASAT/fQAQAA"},  // l: middle game
    {variant::long_nardy, "/22EAAAfAAAAAA"},  // m: bear-off
    {variant::long_nardy, "AKJQ4T8AoGrgPw"},  // n: six-point block rule
    {variant::long_nardy, "9wsgKCG/gwA4Aw"},  // o: the higher die
    {variant::long_nardy, "AEAg/j8AAID/Pw"},  // p: first-turn head exception with 3-3
}};

position position_at(std::size_t i) {
  const auto& f = positions[i];
  if (f.id == nullptr) return position::starting(f.v);
  const auto p = bg::engine::position_from_id(f.id, f.v);
  FUZZ_CHECK(p.ok());
  return *p;
}

bool clean_message(const bg::engine::error& e) {
  return !e.message.empty() && bg::fuzz::printable_ascii(e.message);
}

std::string point_text(int p) {
  if (p == 0) return "off";
  if (p == bg::engine::bar_index) return "bar";
  return std::to_string(p);
}

/// Parts written back in the grammar's canonical form.
std::string canonical(const std::vector<written_move>& parts) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += ' ';
    for (std::size_t k = 0; k < part.points.size(); ++k) {
      if (k) out += '/';
      out += point_text(part.points[k]);
      if (part.hits[k]) out += '*';
    }
    if (part.repeat != 1) out += "(" + std::to_string(part.repeat) + ")";
  }
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

void check_parse(std::string_view text) {
  const auto r = bg::engine::parse_notation(text);
  const auto r_upper = bg::engine::parse_notation(upper(text));
  FUZZ_CHECK(r.ok() == r_upper.ok());
  if (!r) {
    FUZZ_CHECK(r.err().code == "bad_notation");
    FUZZ_CHECK(clean_message(r.err()));
    return;
  }
  FUZZ_CHECK(*r == *r_upper);
  const auto& parts = *r;
  FUZZ_CHECK(!parts.empty());
  int checker_moves = 0;
  for (const auto& part : parts) {
    FUZZ_CHECK(part.points.size() >= 2);
    FUZZ_CHECK(part.hits.size() == part.points.size());
    FUZZ_CHECK(!part.hits[0]);
    FUZZ_CHECK(part.repeat >= 1 && part.repeat <= 4);
    for (const int p : part.points) FUZZ_CHECK(p >= 0 && p <= bg::engine::bar_index);
    checker_moves += part.repeat * static_cast<int>(part.points.size() - 1);
  }
  FUZZ_CHECK(checker_moves >= 1 && checker_moves <= 4);
  const auto again = bg::engine::parse_notation(canonical(parts));
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == parts);
}

/// Every legal play, written by format_play(), is matched back to itself.
void check_every_legal_play(const position& before, bg::engine::roll r, variant v,
                            const bg::engine::play_list& legal) {
  for (std::size_t i = 0; i < legal.size(); ++i) {
    const std::string written = bg::engine::format_play(before, legal[i], v);
    const auto m = bg::engine::match_play(before, r, v, legal, written);
    if (!m.ok())
      std::fprintf(stderr, "legal play \"%s\" refused: %s\n", written.c_str(),
                   m.err().message.c_str());
    FUZZ_CHECK(m.ok());
    FUZZ_CHECK(*m == static_cast<int>(i));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) {
    check_parse(bg::fuzz::as_text(data, size));
    return 0;
  }
  const std::size_t which = static_cast<std::uint8_t>(data[0] - 'a') % positions.size();
  const int die1 = static_cast<std::uint8_t>(data[1] - '1') % 6 + 1;
  const int die2 = static_cast<std::uint8_t>(data[2] - '1') % 6 + 1;
  const auto text = bg::fuzz::as_text(data + 3, size - 3);
  check_parse(text);

  const variant v = positions[which].v;
  const position before = position_at(which);
  const bg::engine::roll r{die1, die2};
  const auto legal = bg::engine::legal_plays(before, r, v);

  static std::bitset<positions.size() * 36> checked;
  const std::size_t key = which * 36 + static_cast<std::size_t>((die1 - 1) * 6 + die2 - 1);
  if (!checked[key]) {
    check_every_legal_play(before, r, v, legal);
    checked[key] = true;
  }

  const auto m = bg::engine::match_play(before, r, v, legal, text);
  const auto parsed = bg::engine::parse_notation(text);
  if (!parsed) {
    FUZZ_CHECK(!m.ok());
    FUZZ_CHECK(m.err().code == parsed.err().code && m.err().message == parsed.err().message);
    return 0;
  }
  if (!m) {
    FUZZ_CHECK(m.err().code == "illegal_play" || m.err().code == "ambiguous_play");
    FUZZ_CHECK(clean_message(m.err()));
    return 0;
  }
  FUZZ_CHECK(!legal.empty());
  FUZZ_CHECK(*m >= 0 && static_cast<std::size_t>(*m) < legal.size());
  const auto& chosen = legal[static_cast<std::size_t>(*m)];
  FUZZ_CHECK(chosen.result.is_ok(v));
  const std::string written = bg::engine::format_play(before, chosen, v);
  const auto again = bg::engine::match_play(before, r, v, legal, written);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == *m);
  return 0;
}
