/// @file match_id.cpp
/// libFuzzer target: engine::match_id_from_string and engine::match_id (gnubg's Match
/// ID). Proves, for every input:
///  - decoding never crashes; a refusal has the code bad_match_id and a printable
///    message; nothing but 12 characters is ever accepted;
///  - decoded fields are within their documented ranges (cube a power of two, owner
///    -1/0/1, game state 0..4, resign 0..3, dice both 0 or both 1..6, 15-bit length
///    and scores);
///  - re-encoding gives 12 characters, exactly the input when the dice were written
///    higher first (as gnubg writes them), and decoding that again gives the same
///    fields (the dice higher first);
///  - encoding direction: fields built from the input bytes, within their ranges,
///    encode and decode back to themselves.
///
///   scripts/fuzz 60 match_id    # this target only, 60 s, in build-fuzz
///   build-fuzz/tests/fuzz/fuzz_match_id SCRATCH_DIR tests/fuzz/corpus/match_id   # by hand
///   build/tests/fuzz/match_id_replay tests/fuzz/corpus/match_id   # no libFuzzer

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "bg/engine/match_id.hpp"
#include "fuzz_check.hpp"

namespace {

using bg::engine::match_id_fields;

match_id_fields higher_die_first(match_id_fields f) {
  if (f.dice[0] < f.dice[1]) std::swap(f.dice[0], f.dice[1]);
  return f;
}

bool in_ranges(const match_id_fields& f) {
  const bool power_of_two = f.cube >= 1 && f.cube <= (1 << 15) && (f.cube & (f.cube - 1)) == 0;
  const bool dice = (f.dice[0] == 0 && f.dice[1] == 0) ||
                    (f.dice[0] >= 1 && f.dice[0] <= 6 && f.dice[1] >= 1 && f.dice[1] <= 6);
  constexpr int max15 = (1 << 15) - 1;
  return power_of_two && f.cube_owner >= -1 && f.cube_owner <= 1 &&
         (f.player_on_roll == 0 || f.player_on_roll == 1) && f.game_state >= 0 &&
         f.game_state <= 4 && (f.turn == 0 || f.turn == 1) && f.resign >= 0 && f.resign <= 3 &&
         dice && f.match_length >= 0 && f.match_length <= max15 && f.score[0] >= 0 &&
         f.score[0] <= max15 && f.score[1] >= 0 && f.score[1] <= max15;
}

void check_decode(std::string_view id) {
  const auto r = bg::engine::match_id_from_string(id);
  if (!r) {
    FUZZ_CHECK(r.err().code == "bad_match_id");
    FUZZ_CHECK(!r.err().message.empty() && bg::fuzz::printable_ascii(r.err().message));
    return;
  }
  const match_id_fields& f = *r;
  FUZZ_CHECK(id.size() == 12);
  FUZZ_CHECK(in_ranges(f));
  const std::string again = bg::engine::match_id(f);
  FUZZ_CHECK(again.size() == 12);
  if (f.dice[0] >= f.dice[1]) FUZZ_CHECK(again == id);
  const auto r2 = bg::engine::match_id_from_string(again);
  FUZZ_CHECK(r2.ok());
  FUZZ_CHECK(*r2 == higher_die_first(f));
  FUZZ_CHECK(bg::engine::match_id(*r2) == again);
}

/// Reads bits from the input, least significant first; zeros once it runs out.
struct bit_source {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t bit = 0;
  int get(int width) {
    int v = 0;
    for (int i = 0; i < width; ++i, ++bit) {
      const std::size_t byte = bit / 8;
      if (byte < size && ((data[byte] >> (bit % 8)) & 1)) v |= 1 << i;
    }
    return v;
  }
};

void check_encode(const std::uint8_t* data, std::size_t size) {
  bit_source in{data, size};
  match_id_fields f;
  f.cube = 1 << in.get(4);
  f.cube_owner = in.get(2) % 3 - 1;
  f.player_on_roll = in.get(1);
  f.crawford = in.get(1) != 0;
  f.game_state = in.get(3) % 5;
  f.turn = in.get(1);
  f.double_offered = in.get(1) != 0;
  f.resign = in.get(2);
  const int d0 = in.get(3) % 7;
  const int d1 = in.get(3) % 7;
  f.dice = d0 == 0 || d1 == 0 ? std::array<int, 2>{0, 0} : std::array<int, 2>{d0, d1};
  f.match_length = in.get(15);
  f.score = {in.get(15), in.get(15)};
  f.jacoby = in.get(1) != 0;
  FUZZ_CHECK(in_ranges(f));
  const std::string id = bg::engine::match_id(f);
  FUZZ_CHECK(id.size() == 12);
  const auto back = bg::engine::match_id_from_string(id);
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(*back == higher_die_first(f));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_decode(bg::fuzz::as_text(data, size));
  check_encode(data, size);
  return 0;
}
