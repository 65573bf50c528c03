#pragma once
/// @file account.hpp
/// A registered account as the store keeps it: its name, how it logs in, and its
/// standing (RULES.md S1) in each variant.

#include <array>
#include <cstdint>
#include <string>

#include "bg/engine/variant.hpp"

namespace bg::server {

/// One registered name. Guests have no account.
struct account {
  /// How the account is used.
  enum class kind : unsigned char {
    player,  ///< a person: logs in with a password (password_hash is set)
    bot,     ///< a program seated by the server: holds a rating, never logs in (no hash)
  };
  /// The account's standing in one variant.
  struct standing {
    double rating = 1500.0;  ///< FIBS rating (S1); 1500.00 at the start
    int experience = 0;      ///< the sum of the lengths of its rated matches (S1)
    int played = 0;          ///< finished matches, sessions and free games it played
    int won = 0;             ///< of those, the ones it won
  };

  std::int64_t id = 0;  ///< the store's id (> 0)
  std::string key;      ///< the name's key (names.hpp name_key): unique
  std::string name;     ///< the name as it was registered
  kind what = kind::player;
  /// libsodium crypto_pwhash_str() text (Argon2id with its parameters and salt); empty
  /// for a bot. Never sent to a client nor logged.
  std::string password_hash;
  std::string created_at;               ///< ISO 8601 UTC
  std::string last_seen;                ///< ISO 8601 UTC of the last login or logout ("" : never)
  std::array<standing, 2> standings{};  ///< [standard, long]
  /// The player's language, a catalogue tag ("fr"), as /lang stored it; "" when none
  /// was chosen (the hello's or the browser's language applies).
  std::string lang;

  /// The standing in variant `v`.
  [[nodiscard]] const standing& in(engine::variant v) const noexcept {
    return standings[v == engine::variant::standard ? 0 : 1];
  }
};

/// "player" or "bot" (the store's spelling).
[[nodiscard]] constexpr const char* to_string(account::kind k) noexcept {
  return k == account::kind::bot ? "bot" : "player";
}

}  // namespace bg::server
