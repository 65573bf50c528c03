#pragma once
/// @file derived_dice.hpp
/// Verifiable dice (RULES.md S4): every roll of a match derived from a secret seed
/// committed at /start and revealed at the end, never drawn.
///
/// Roll k of game g (protocol/PROTOCOL.md "Verifiable dice" is the specification):
///
///     msg   = "gammond-dice-v1" || u32be(len R) || R || u32be(len B) || B
///             || u32be(g) || u32be(k)
///     block = HMAC-SHA256(key = match seed (32 bytes), msg)          (block 0)
///             HMAC-SHA256(key = match seed, msg || u32be(j))          (block j >= 1)
///
/// R and B are red's and black's /seed texts (UTF-8 bytes, empty when none), g the
/// game number (1 for the first game), k the roll's number within its game from 0. The
/// bytes of block 0, then block 1, ... are read in order; a byte b < 252 gives the die
/// (b mod 6) + 1 and a byte >= 252 is skipped (rejection sampling: 252 = 42 x 6, so no
/// face is favoured). The first two dice are the roll (die1, die2).
///
/// Every throw of the opening roll (R2) is one roll: die1 is red's die and die2
/// black's; a tie is thrown again as the next k. Every /roll after it is the next k.
///
/// The engine asks a dice_source for one die at a time and always for two in a row
/// (an opening throw or a roll), so roll_die() derives roll k on its first call and
/// hands out die2 on the next. The cryptography is libsodium's (SHA-256, HMAC-SHA256,
/// random bytes); the engine stays free of it.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bg/engine/dice_source.hpp"
#include "bg/engine/roll.hpp"
#include "bg/engine/side.hpp"
#include "bg/server/records/match_record.hpp"

namespace bg::server {

/// The dice of one match, derived from its seed and the players' seeds (S4).
class derived_dice final : public engine::dice_source {
 public:
  /// A match seed: 256 bits.
  using seed_bytes = std::array<unsigned char, 32>;

  /// Dice for the match with `seed`, at roll `next_k` of game `game` (a new match:
  /// game 1, roll 0), with the players' seeds [red, black].
  explicit derived_dice(const seed_bytes& seed, std::array<std::string, 2> player_seeds = {},
                        int game = 1, std::uint32_t next_k = 0);

  /// 256 random bits from the operating system (libsodium randombytes_buf). Throws
  /// std::runtime_error when libsodium cannot be initialised.
  [[nodiscard]] static seed_bytes random_seed();
  /// The seed of match number `match_number` (0 for a table's first) at table `table`
  /// under `--dice-seed n` (tests only): SHA-256 of the UTF-8 text
  /// "gammond-test-seed:<n>:<table>:<match_number>" (numbers in decimal).
  [[nodiscard]] static seed_bytes test_seed(std::uint64_t n, std::string_view table,
                                            std::uint64_t match_number);
  /// The commitment to `seed`: SHA-256(seed) as 64 lower-case hex digits.
  [[nodiscard]] static std::string commitment_of(const seed_bytes& seed);
  /// Roll `k` of game `game` (the formula above). Never fails.
  [[nodiscard]] static engine::roll derive(const seed_bytes& seed, std::string_view red_seed,
                                           std::string_view black_seed, std::uint32_t game,
                                           std::uint32_t k);
  /// `bytes` as lower-case hex.
  [[nodiscard]] static std::string to_hex(const seed_bytes& bytes);
  /// 64 hex digits (either case) as a seed; nullopt for anything else.
  [[nodiscard]] static std::optional<seed_bytes> seed_from_hex(std::string_view hex);

  /// One die (engine::dice_source): die1 of the next roll, then its die2.
  int roll_die() override;

  /// The game whose rolls come next is `game` (1-based): the roll number starts again
  /// at 0 when the game changes. The table calls it before every roll.
  void at_game(int game);
  /// Sets side `s`'s own seed (UTF-8 text, S4). Only meaningful before the first roll.
  void set_player_seed(engine::side s, std::string text);
  /// The rolls derived since the last call, in order, for the match record.
  [[nodiscard]] std::vector<dice_roll_record> take_rolls();

  /// True once any roll of the match has been derived (player seeds are then final).
  [[nodiscard]] bool rolling() const noexcept { return game_ > 1 || next_k_ > 0; }
  [[nodiscard]] const seed_bytes& seed() const noexcept { return seed_; }
  /// The commitment to seed() (commitment_of()).
  [[nodiscard]] const std::string& commitment() const noexcept { return commitment_; }
  /// The players' seeds, [red, black].
  [[nodiscard]] const std::array<std::string, 2>& player_seeds() const noexcept {
    return player_seeds_;
  }
  /// The game of the next roll (1-based).
  [[nodiscard]] int game() const noexcept { return game_; }
  /// The number of the next roll within game() (from 0): the roll counter.
  [[nodiscard]] std::uint32_t next_k() const noexcept { return next_k_; }

 private:
  seed_bytes seed_;
  std::string commitment_;
  std::array<std::string, 2> player_seeds_;
  int game_ = 1;
  std::uint32_t next_k_ = 0;
  std::optional<int> pending_die_;  ///< die2 of the roll whose die1 was handed out
  std::vector<dice_roll_record> rolls_;
};

}  // namespace bg::server
