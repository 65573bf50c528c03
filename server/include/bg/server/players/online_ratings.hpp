#pragma once
/// @file online_ratings.hpp
/// The ratings of the registered names in use (connected, or holding a seat), for the
/// `state` and lobby messages: read by table actors on their strands without a read
/// from the database nor the game service's mutex.

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "bg/engine/variant.hpp"

namespace bg::server {

/// Ratings by name key, [standard, long]. Thread-safe (its own mutex, held briefly). Its
/// size is bounded by the names in use: an entry is set at a login, a registration or
/// an account's resume, and forgotten when the name is free again.
class online_ratings {
 public:
  /// Records the ratings of account `key` ([standard, long]).
  void set(const std::string& key, const std::array<double, 2>& ratings);
  /// After a rated match: account `key`'s rating in `v` is now `rating`, if `key` is held.
  void update(const std::string& key, engine::variant v, double rating);
  /// Forgets `key` (its name is free again).
  void forget(const std::string& key);
  /// The rating in `v` of the player called `name` (any letter case), or nullopt for a
  /// guest (or a name not in use).
  [[nodiscard]] std::optional<double> of(const std::string& name, engine::variant v) const;
  /// Entries held (for tests).
  [[nodiscard]] std::size_t size() const;
  /// A number that changes whenever an entry is set, updated or forgotten (never
  /// otherwise): a reader that keeps what of() answered may keep it while this stays
  /// the same (a table's state, issue 33). An atomic read; no lock.
  [[nodiscard]] std::uint64_t version() const noexcept {
    return version_.load(std::memory_order_acquire);
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::array<double, 2>> by_key_;
  std::atomic<std::uint64_t> version_{0};  // bumped under mutex_ after each change
};

}  // namespace bg::server
