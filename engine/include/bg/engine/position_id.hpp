#pragma once
/// @file position_id.hpp
/// GNU Backgammon's Position ID (14 characters of Base64).

#include <string>
#include <string_view>

#include "bg/engine/error.hpp"
#include "bg/engine/position.hpp"

namespace bg::engine {

/// Encodes `p` as gnubg does: an 80-bit key, first the side NOT on roll (our
/// opponent), then the side on roll (our mover); for each side, in its own numbering,
/// points 1..24 then the bar, one 1 bit per checker followed by a 0; packed
/// little-endian into 10 bytes; Base64 without the trailing "==". The starting
/// position is "4HPwATDgc/ABMA". Long nardy positions use the same bit layout, each
/// side in its own numbering (issue 7).
[[nodiscard]] std::string position_id(const position& p);

/// Decodes a Position ID into a position seen from the side on roll, validated for
/// variant v. Errors (code "bad_position_id"): not 14 Base64 characters, more than 15
/// checkers on a side, unused trailing bits set, or a point held by both sides.
[[nodiscard]] result<position> position_from_id(std::string_view id, variant v = variant::standard);

}  // namespace bg::engine
