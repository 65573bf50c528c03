#pragma once
/// @file resume_tokens.hpp
/// Resume tokens: the secret a client sends back in `hello` to get its name (and its
/// seats) again after a reconnect. Only their SHA-256 is kept, in memory and in the
/// tables' snapshots; the token itself is known to its client alone.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace bg::server {

/// The resume tokens of the names in use: at most one per name (a name's key, see
/// names.hpp). A token is 128 random bits from the operating system (libsodium's
/// randombytes, i.e. getrandom) written as 32 lowercase hex digits. Each is found by
/// its SHA-256 (the first 8 bytes index a hash map: no scan) and then compared in
/// constant time over all 32 bytes (sodium_memcmp). Not thread-safe: the game
/// service's mutex guards it.
class resume_tokens {
 public:
  /// The holder of a token: the name's key and the name as its player wrote it.
  struct holder {
    std::string key;
    std::string name;
  };

  /// Initialises libsodium. Throws std::runtime_error when it cannot.
  resume_tokens();

  /// A new token for `key` (display name `name`); the name's previous token, if any,
  /// stops working (rotation).
  [[nodiscard]] std::string issue(const std::string& key, const std::string& name);
  /// The holder of `token`, or nullopt when the token is unknown or malformed.
  [[nodiscard]] std::optional<holder> find(std::string_view token) const;
  /// Forgets the token of `key` (no-op when it has none).
  void drop(const std::string& key);
  /// True when `key` has a token.
  [[nodiscard]] bool has(const std::string& key) const { return by_key_.count(key) != 0; }
  /// The SHA-256 of `key`'s token as 64 hex digits (what snapshots store), or nullopt.
  [[nodiscard]] std::optional<std::string> hash_of(const std::string& key) const;
  /// Adopts a stored token hash (64 hex digits) for `key` after a restart. Returns
  /// false (and changes nothing) when the text is not such a hash.
  bool adopt(const std::string& key, const std::string& name, std::string_view hash_hex);
  /// The SHA-256 of `token` as 64 hex digits (to migrate snapshots that stored tokens).
  [[nodiscard]] static std::string hash_hex(std::string_view token);
  /// The holder (key and name as written) of `key`'s token, or nullopt when it has none.
  [[nodiscard]] std::optional<holder> holder_of(const std::string& key) const;
  /// How many tokens are held.
  [[nodiscard]] std::size_t size() const noexcept { return by_key_.size(); }

 private:
  using digest = std::array<unsigned char, 32>;
  struct entry {
    digest hash;
    holder who;
  };
  static digest hash(std::string_view token);
  static std::uint64_t selector(const digest& d);
  void insert(const std::string& key, const std::string& name, const digest& d);

  std::unordered_map<std::uint64_t, entry> by_selector_;
  std::unordered_map<std::string, std::uint64_t> by_key_;
};

}  // namespace bg::server
