#pragma once
/// @file match_id.hpp
/// GNU Backgammon's Match ID (12 characters of Base64).

#include <array>
#include <string>
#include <string_view>

#include "bg/engine/error.hpp"

namespace bg::engine {

/// The fields of a Match ID, as gnubg 1.07 defines them. gnubg's "player 0" and
/// "player 1" are red and black here (index_of(side)).
struct match_id_fields {
  int cube = 1;            ///< cube value 1, 2, 4, ... 64 (R14.4)
  int cube_owner = -1;     ///< -1 centred, 0 red, 1 black
  int player_on_roll = 0;  ///< bit 7: the side on roll (who rolls or rolled)
  bool crawford = false;   ///< bit 8: this is the Crawford game (R15)
  int game_state = 1;      ///< 0 none, 1 playing, 2 over, 3 resigned, 4 dropped cube
  int turn = 0;            ///< bit 12: the side that must decide next
  bool double_offered = false;
  int resign = 0;                  ///< 0 none, 1 single, 2 gammon, 3 backgammon
  std::array<int, 2> dice{0, 0};   ///< 0,0 = not rolled; gnubg writes the higher first
  int match_length = 0;            ///< 0 = money / free play
  std::array<int, 2> score{0, 0};  ///< red, black
  bool jacoby = false;             ///< stored inverted in bit 67 ("not Jacoby"), as gnubg 1.07 does
  friend bool operator==(const match_id_fields&, const match_id_fields&) = default;
};

/// Encodes the fields: the 66 documented bits plus gnubg 1.07's bit 67 (set when
/// Jacoby is off), each field least-significant bit first, packed little-endian into
/// 9 bytes, Base64 (12 characters). Dice are written higher first, as gnubg does.
/// Fields out of range are clamped to their bit width (callers pass valid states).
[[nodiscard]] std::string match_id(const match_id_fields& f);

/// Decodes a Match ID. Errors (code "bad_match_id"): not 12 Base64 characters, a cube
/// owner of 2, a die of 7, or unused bits set.
[[nodiscard]] result<match_id_fields> match_id_from_string(std::string_view id);

}  // namespace bg::engine
