/// @file position_id.cpp
/// libFuzzer target: engine::position_from_id and engine::position_id (gnubg's
/// Position ID, which players paste and the server publishes). Proves, for every input
/// and for both variants (standard, long nardy):
///  - decoding never crashes; a refusal has the code bad_position_id and a printable
///    message; nothing but 14 characters is ever accepted;
///  - a decoded position keeps the invariants (is_ok: 15 checkers a side, no shared
///    point, no bar in long nardy), its pip counts are within 0..375, and the ID is
///    canonical: position_id() of the result gives back exactly the input;
///  - the same position with the other side on roll encodes and decodes to itself;
///  - encoding direction: a position built from the input bytes (each byte places one
///    checker), when valid for the variant, encodes to 14 characters that decode to
///    the same position.
///
///   scripts/fuzz 60 position_id    # this target only, 60 s, in build-fuzz
///   build-fuzz/tests/fuzz/fuzz_position_id SCRATCH_DIR tests/fuzz/corpus/position_id   # by hand
///   build/tests/fuzz/position_id_replay tests/fuzz/corpus/position_id   # no libFuzzer

#include <cstddef>
#include <cstdint>
#include <string>

#include "bg/engine/position.hpp"
#include "bg/engine/position_id.hpp"
#include "bg/engine/variant.hpp"
#include "fuzz_check.hpp"

namespace {

using bg::engine::position;
using bg::engine::variant;

void check_round_trip(const position& p, variant v) {
  const std::string id = bg::engine::position_id(p);
  FUZZ_CHECK(id.size() == 14);
  const auto back = bg::engine::position_from_id(id, v);
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(*back == p);
}

/// Decoding direction: the input is an ID.
void check_decode(std::string_view id, variant v) {
  const auto r = bg::engine::position_from_id(id, v);
  if (!r) {
    FUZZ_CHECK(r.err().code == "bad_position_id");
    FUZZ_CHECK(!r.err().message.empty() && bg::fuzz::printable_ascii(r.err().message));
    return;
  }
  const position& p = *r;
  FUZZ_CHECK(id.size() == 14);
  FUZZ_CHECK(p.is_ok(v));
  FUZZ_CHECK(p.mover_pip_count() >= 0 && p.mover_pip_count() <= 15 * 25);
  FUZZ_CHECK(p.opponent_pip_count() >= 0 && p.opponent_pip_count() <= 15 * 25);
  FUZZ_CHECK(bg::engine::position_id(p) == id);
  FUZZ_CHECK(p.swapped().is_ok(v));
  check_round_trip(p.swapped(), v);
}

/// Encoding direction: byte i places checker i (mover: bytes 0..14, opponent: 15..29)
/// on index byte % 26 of its side (0 off, 1..24 points, 25 bar); missing bytes are 0.
void check_encode(const std::uint8_t* data, std::size_t size, variant v) {
  bg::engine::side_checkers mover{};
  bg::engine::side_checkers opponent{};
  for (std::size_t i = 0; i < 30; ++i) {
    const std::uint8_t b = i < size ? data[i] : 0;
    auto& s = i < 15 ? mover : opponent;
    const std::size_t index = b % 26u;
    if (index != 0) ++s[index];
  }
  const auto p = position::from_sides(mover, opponent, v);
  if (!p) return;
  FUZZ_CHECK(p->is_ok(v));
  check_round_trip(*p, v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto id = bg::fuzz::as_text(data, size);
  for (const variant v : {variant::standard, variant::long_nardy}) {
    check_decode(id, v);
    check_encode(data, size, v);
  }
  return 0;
}
