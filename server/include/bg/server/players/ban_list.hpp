#pragma once
/// @file ban_list.hpp
/// The bans in force (/ban, issue 13), kept in memory so that every hello and login is
/// checked without a read of the store; the store keeps them across restarts.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "bg/server/store/ban.hpp"

namespace bg::server {

/// Bans by name key and by address. Not thread-safe: the game service's mutex guards
/// it. Times are ms since the Unix epoch.
class ban_list {
 public:
  /// What set() did.
  enum class outcome : unsigned char {
    set,   ///< the name's bans are now `bans`
    full,  ///< `capacity` bans are in force (after forgetting the ended ones): nothing set
  };

  /// No bans; at most `capacity` entries (names and addresses) at once.
  explicit ban_list(std::size_t capacity) : capacity_(capacity) {}

  /// Replaces every ban of the name of `bans` (all of one name key) with `bans`, at
  /// `now_ms`. An empty `bans` does nothing.
  outcome set(const std::vector<ban>& bans, std::int64_t now_ms);
  /// Lifts every ban of name key `name_key` (the name and its addresses); returns how
  /// many there were.
  std::size_t lift(const std::string& name_key);
  /// The ban in force at `now_ms` on the name of key `name_key`, if any.
  [[nodiscard]] std::optional<ban> of_name(const std::string& name_key, std::int64_t now_ms) const;
  /// The ban in force at `now_ms` on `address`, if any (the one ending last).
  [[nodiscard]] std::optional<ban> of_address(const std::string& address,
                                              std::int64_t now_ms) const;
  /// The resume token of the banned name of key `name_key` was revoked: `token_hash`
  /// (its SHA-256, 64 hex digits) is remembered while the name's bans are kept, so that
  /// a hello that shows the token (under any name) is refused as the banned name's.
  /// At most one token per banned name (the last one); no-op when the name has no ban.
  void revoke_token(const std::string& name_key, const std::string& token_hash);
  /// The key of the banned name whose revoked resume token has SHA-256 `token_hash`,
  /// or nullopt.
  [[nodiscard]] std::optional<std::string> name_of_token(const std::string& token_hash) const;
  /// Entries kept (names and addresses, ended ones not yet forgotten).
  [[nodiscard]] std::size_t size() const noexcept { return entries_; }

 private:
  /// Forgets the bans that ended by `now_ms`.
  void forget_ended(std::int64_t now_ms);

  std::size_t capacity_;
  std::size_t entries_ = 0;
  /// name key -> its bans (the name's own first when there is one)
  std::unordered_map<std::string, std::vector<ban>> by_name_;
  /// address -> the name keys banned with it
  std::unordered_map<std::string, std::vector<std::string>> by_address_;
  /// revoked token hash -> banned name key, and back (one per banned name at most)
  std::unordered_map<std::string, std::string> revoked_tokens_;
  std::unordered_map<std::string, std::string> revoked_token_of_;
};

}  // namespace bg::server
