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
};

}  // namespace bg::server
