#include "bg/server/dice/derived_dice.hpp"

#include <sodium.h>

#include <stdexcept>

namespace bg::server {

namespace {

/// The domain tag that starts every message (PROTOCOL.md "Verifiable dice").
constexpr std::string_view dice_tag = "gammond-dice-v1";
/// Bytes below this give a die (b mod 6) + 1; the others are skipped: 252 = 42 x 6.
constexpr unsigned rejection_limit = 252;

void init_sodium() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
}

void append_u32be(std::string& out, std::uint32_t v) {
  out += static_cast<char>((v >> 24) & 0xFFu);
  out += static_cast<char>((v >> 16) & 0xFFu);
  out += static_cast<char>((v >> 8) & 0xFFu);
  out += static_cast<char>(v & 0xFFu);
}

}  // namespace

derived_dice::derived_dice(const seed_bytes& seed, std::array<std::string, 2> player_seeds,
                           int game, std::uint32_t next_k)
    : seed_(seed),
      commitment_(commitment_of(seed)),
      player_seeds_(std::move(player_seeds)),
      game_(game < 1 ? 1 : game),
      next_k_(next_k) {}

derived_dice::seed_bytes derived_dice::random_seed() {
  init_sodium();
  seed_bytes s{};
  randombytes_buf(s.data(), s.size());
  return s;
}

derived_dice::seed_bytes derived_dice::test_seed(std::uint64_t n, std::string_view table,
                                                 std::uint64_t match_number) {
  init_sodium();
  const std::string text = "gammond-test-seed:" + std::to_string(n) + ":" + std::string(table) +
                           ":" + std::to_string(match_number);
  seed_bytes s{};
  crypto_hash_sha256(s.data(), reinterpret_cast<const unsigned char*>(text.data()), text.size());
  return s;
}

std::string derived_dice::to_hex(const seed_bytes& bytes) {
  std::string out(bytes.size() * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), bytes.data(), bytes.size());
  out.pop_back();
  return out;
}

std::optional<derived_dice::seed_bytes> derived_dice::seed_from_hex(std::string_view hex) {
  seed_bytes s{};
  if (hex.size() != s.size() * 2) return std::nullopt;
  std::size_t len = 0;
  const char* end = nullptr;
  if (sodium_hex2bin(s.data(), s.size(), hex.data(), hex.size(), nullptr, &len, &end) != 0 ||
      len != s.size() || end != hex.data() + hex.size())
    return std::nullopt;
  return s;
}

std::string derived_dice::commitment_of(const seed_bytes& seed) {
  init_sodium();
  seed_bytes digest{};
  static_assert(crypto_hash_sha256_BYTES == 32);
  crypto_hash_sha256(digest.data(), seed.data(), seed.size());
  return to_hex(digest);
}

engine::roll derived_dice::derive(const seed_bytes& seed, std::string_view red_seed,
                                  std::string_view black_seed, std::uint32_t game,
                                  std::uint32_t k) {
  init_sodium();
  std::string msg(dice_tag);
  append_u32be(msg, static_cast<std::uint32_t>(red_seed.size()));
  msg += red_seed;
  append_u32be(msg, static_cast<std::uint32_t>(black_seed.size()));
  msg += black_seed;
  append_u32be(msg, game);
  append_u32be(msg, k);
  static_assert(crypto_auth_hmacsha256_KEYBYTES == 32);
  std::array<int, 2> dice{};
  std::size_t found = 0;
  for (std::uint32_t block = 0; found < 2; ++block) {
    std::string input = msg;
    if (block > 0) append_u32be(input, block);
    std::array<unsigned char, crypto_auth_hmacsha256_BYTES> mac{};
    crypto_auth_hmacsha256(mac.data(), reinterpret_cast<const unsigned char*>(input.data()),
                           input.size(), seed.data());
    for (const unsigned char b : mac) {
      if (b >= rejection_limit) continue;
      dice[found++] = static_cast<int>(b % 6u) + 1;
      if (found == 2) break;
    }
  }
  return engine::roll{dice[0], dice[1]};
}

int derived_dice::roll_die() {
  if (pending_die_) {
    const int d = *pending_die_;
    pending_die_.reset();
    return d;
  }
  const std::uint32_t k = next_k_++;
  const engine::roll r =
      derive(seed_, player_seeds_[0], player_seeds_[1], static_cast<std::uint32_t>(game_), k);
  rolls_.push_back(dice_roll_record{game_, k, r});
  pending_die_ = r.die2;
  return r.die1;
}

void derived_dice::at_game(int game) {
  if (game == game_) return;
  game_ = game < 1 ? 1 : game;
  next_k_ = 0;
  pending_die_.reset();
}

void derived_dice::set_player_seed(engine::side s, std::string text) {
  player_seeds_[static_cast<std::size_t>(engine::index_of(s))] = std::move(text);
}

std::vector<dice_roll_record> derived_dice::take_rolls() {
  std::vector<dice_roll_record> out;
  out.swap(rolls_);
  return out;
}

}  // namespace bg::server
