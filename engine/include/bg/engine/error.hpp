#pragma once
/// @file error.hpp
/// Expected failures as values: a machine code and a sentence a player can read.

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace bg::engine {

/// One named parameter of a sentence: a text (a name, a notation) or a whole number
/// (a point, a count: it chooses the plural form in the player's language).
struct sentence_arg {
  std::string name;
  std::variant<std::string, std::int64_t> value;
};

/// Why an engine operation was refused. `code` is stable and machine-readable
/// (e.g. "illegal_play", "bad_notation", "bad_position_id"); `message` is the English
/// sentence for people ("no checker on 17", "point 5 is blocked", "6 must be played").
/// `key` and `args`, when `key` is set, name the same sentence in the message
/// catalogues (i18n/lang/<tag>/*.json), so that a server can say it in the player's
/// language; the English catalogue's message equals `message`.
struct error {
  std::string code;
  std::string message;
  std::string key = {};
  std::vector<sentence_arg> args = {};
};

/// Either a value or an error (a small stand-in for C++23 std::expected).
template <typename T>
class result {
 public:
  result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  result(error e) : v_(std::move(e)) {}      // NOLINT(google-explicit-constructor)
  /// True when a value is held.
  [[nodiscard]] bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  /// The value; undefined behaviour-free: throws std::bad_variant_access when an error is held.
  [[nodiscard]] const T& value() const& { return std::get<0>(v_); }
  [[nodiscard]] T& value() & { return std::get<0>(v_); }
  [[nodiscard]] T&& value() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  /// The error; throws std::bad_variant_access when a value is held.
  [[nodiscard]] const error& err() const { return std::get<1>(v_); }

 private:
  std::variant<T, error> v_;
};

/// Builds an error value.
inline error make_error(std::string code, std::string message) {
  return error{std::move(code), std::move(message), {}, {}};
}

/// Builds an error whose sentence is catalogue message `key` with `args` (English
/// `message` kept for logs and tools that have no catalogue).
inline error make_error(std::string code, std::string message, std::string key,
                        std::vector<sentence_arg> args = {}) {
  return error{std::move(code), std::move(message), std::move(key), std::move(args)};
}

}  // namespace bg::engine
