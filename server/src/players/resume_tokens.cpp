#include "bg/server/players/resume_tokens.hpp"

#include <sodium.h>

#include <cstring>
#include <stdexcept>

namespace bg::server {

namespace {

constexpr std::size_t token_bytes = 16;  // 128 bits

std::string to_hex(const unsigned char* data, std::size_t n) {
  std::string out(n * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), data, n);
  out.pop_back();
  return out;
}

}  // namespace

resume_tokens::resume_tokens() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
}

resume_tokens::digest resume_tokens::hash(std::string_view token) {
  digest d{};
  crypto_hash_sha256(d.data(), reinterpret_cast<const unsigned char*>(token.data()), token.size());
  return d;
}

std::uint64_t resume_tokens::selector(const digest& d) {
  std::uint64_t s = 0;
  std::memcpy(&s, d.data(), sizeof s);
  return s;
}

std::string resume_tokens::hash_hex(std::string_view token) {
  const digest d = hash(token);
  return to_hex(d.data(), d.size());
}

void resume_tokens::insert(const std::string& key, const std::string& name, const digest& d) {
  drop(key);
  const std::uint64_t sel = selector(d);
  by_selector_[sel] = entry{d, holder{key, name}};
  by_key_[key] = sel;
}

std::string resume_tokens::issue(const std::string& key, const std::string& name) {
  for (;;) {
    unsigned char raw[token_bytes];
    randombytes_buf(raw, sizeof raw);
    std::string token = to_hex(raw, sizeof raw);
    const digest d = hash(token);
    // A 64-bit selector shared by two live tokens is astronomically unlikely; draw
    // again rather than let one token shadow another.
    const auto it = by_selector_.find(selector(d));
    if (it != by_selector_.end() && it->second.who.key != key) continue;
    insert(key, name, d);
    return token;
  }
}

std::optional<resume_tokens::holder> resume_tokens::find(std::string_view token) const {
  if (token.size() != token_bytes * 2) return std::nullopt;
  const digest d = hash(token);
  const auto it = by_selector_.find(selector(d));
  if (it == by_selector_.end()) return std::nullopt;
  if (sodium_memcmp(it->second.hash.data(), d.data(), d.size()) != 0) return std::nullopt;
  return it->second.who;
}

void resume_tokens::drop(const std::string& key) {
  const auto it = by_key_.find(key);
  if (it == by_key_.end()) return;
  by_selector_.erase(it->second);
  by_key_.erase(it);
}

std::optional<std::string> resume_tokens::hash_of(const std::string& key) const {
  const auto it = by_key_.find(key);
  if (it == by_key_.end()) return std::nullopt;
  const auto& d = by_selector_.at(it->second).hash;
  return to_hex(d.data(), d.size());
}

std::optional<resume_tokens::holder> resume_tokens::holder_of(const std::string& key) const {
  const auto it = by_key_.find(key);
  if (it == by_key_.end()) return std::nullopt;
  return by_selector_.at(it->second).who;
}

bool resume_tokens::adopt(const std::string& key, const std::string& name,
                          std::string_view hash_hex_text) {
  digest d{};
  std::size_t len = 0;
  if (hash_hex_text.size() != d.size() * 2 ||
      sodium_hex2bin(d.data(), d.size(), hash_hex_text.data(), hash_hex_text.size(), nullptr, &len,
                     nullptr) != 0 ||
      len != d.size())
    return false;
  insert(key, name, d);
  return true;
}

}  // namespace bg::server
