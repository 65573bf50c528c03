#pragma once
/// @file password_hash.hpp
/// Account passwords, kept only as libsodium Argon2id hashes (crypto_pwhash_str with
/// crypto_pwhash_OPSLIMIT_INTERACTIVE and crypto_pwhash_MEMLIMIT_INTERACTIVE: about
/// 64 MiB and a fraction of a second each). Slow on purpose: call these on the auth pool
/// (auth_pool.hpp), never on an I/O thread nor under the game service's mutex.

#include <string>
#include <string_view>

namespace bg::server {

/// A new hash of `password`: crypto_pwhash_str's text ("$argon2id$v=19$m=...$salt$hash",
/// a fresh random salt each time). Throws std::runtime_error when libsodium cannot
/// (out of memory).
[[nodiscard]] std::string hash_password(std::string_view password);

/// True when `password` matches `hash` (crypto_pwhash_str_verify; the comparison is
/// libsodium's, in constant time). False for any hash that is not such a text (an
/// empty one: a bot, which has no password).
[[nodiscard]] bool verify_password(const std::string& hash, std::string_view password);

/// True when `hash` was made with other parameters than hash_password() uses today
/// (crypto_pwhash_str_needs_rehash): the password is then hashed again at its next
/// successful login.
[[nodiscard]] bool password_needs_rehash(const std::string& hash);

/// A hash of a password nobody has, made once: a login for an unknown name verifies
/// against it, so that it costs the same time as a wrong password (the two answers are
/// the same `bad_login`).
[[nodiscard]] const std::string& decoy_password_hash();

}  // namespace bg::server
