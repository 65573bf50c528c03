#pragma once
/// @file ignore_list.hpp
/// The names one player ignores (/ignore, issue 13): their chat, at tables and in the
/// lobby, is not delivered to that player.

#include <cstddef>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace bg::server {

/// A bounded list of ignored names, in the order they were ignored, compared by their
/// keys (names.hpp name_key). Thread-safe: a table's strand reads it for every chat
/// line while the player's own commands change it.
class ignore_list {
 public:
  /// What add() did.
  enum class added : unsigned char {
    yes,      ///< the name is ignored from now on
    already,  ///< it was ignored already (nothing changed)
    full,     ///< the list holds `capacity` names: nothing changed
  };

  /// An empty list of at most `capacity` names.
  explicit ignore_list(std::size_t capacity) : capacity_(capacity) {}

  /// Ignores `name` (key `key`).
  added add(const std::string& key, const std::string& name);
  /// No longer ignores the name of key `key`; false when it was not ignored.
  bool remove(const std::string& key);
  /// True when the name of key `key` is ignored.
  [[nodiscard]] bool ignores(const std::string& key) const;
  /// The names ignored, as they were typed, oldest first.
  [[nodiscard]] std::vector<std::string> names() const;
  /// Replaces the whole list with `names` ((key, name) pairs, oldest first; those past
  /// the capacity are left out): an account's list read from the store at login.
  void replace(const std::vector<std::pair<std::string, std::string>>& names);
  /// The most names the list holds.
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, std::string>> entries_;  // (key, name), oldest first
  std::size_t capacity_;
};

}  // namespace bg::server
