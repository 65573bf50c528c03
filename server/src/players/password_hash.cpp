#include "bg/server/players/password_hash.hpp"

#include <sodium.h>

#include <stdexcept>

namespace bg::server {

namespace {

void ensure_sodium() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
}

}  // namespace

std::string hash_password(std::string_view password) {
  ensure_sodium();
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str(out, password.data(), password.size(), crypto_pwhash_OPSLIMIT_INTERACTIVE,
                        crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0)
    throw std::runtime_error("cannot hash a password (out of memory)");
  return out;
}

bool verify_password(const std::string& hash, std::string_view password) {
  ensure_sodium();
  if (hash.empty() || hash.size() >= crypto_pwhash_STRBYTES) return false;
  return crypto_pwhash_str_verify(hash.c_str(), password.data(), password.size()) == 0;
}

bool password_needs_rehash(const std::string& hash) {
  ensure_sodium();
  if (hash.empty() || hash.size() >= crypto_pwhash_STRBYTES) return true;
  return crypto_pwhash_str_needs_rehash(hash.c_str(), crypto_pwhash_OPSLIMIT_INTERACTIVE,
                                        crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0;
}

const std::string& decoy_password_hash() {
  // A random password, never kept: nothing verifies against this hash.
  static const std::string decoy = [] {
    ensure_sodium();
    unsigned char secret[32];
    randombytes_buf(secret, sizeof secret);
    return hash_password(std::string_view(reinterpret_cast<const char*>(secret), sizeof secret));
  }();
  return decoy;
}

}  // namespace bg::server
