#pragma once
/// @file json_writer.hpp
/// Compact JSON text written straight into a string, for the server's hot messages
/// (issue 15: the `state` of every change), with no tree built and freed on the way.

#include <cstdint>
#include <string>
#include <string_view>

namespace bg::protocol {

/// Writes one JSON value as compact text, exactly as encode() (nlohmann's dump) would
/// write the same tree: no spaces, strings escaped the same way (`"`, `\`, and the
/// control characters U+0000..U+001F as \b \f \n \r \t or \u00xx; everything else as
/// it is, UTF-8 included), integers in decimal, floating-point numbers in nlohmann's
/// shortest form. Keys are written in the order given: a caller that wants encode()'s
/// text writes them in its order (sorted, as nlohmann's std::map keeps them).
///
/// The caller nests begin_/end_ calls correctly and gives every member of an object a
/// key() first; commas are the writer's. Invalid UTF-8 (which should never reach here)
/// is replaced by U+FFFD, as encode() does. At most 64 levels of nesting.
class json_writer {
 public:
  /// Starts writing; `reserve` bytes are reserved up front.
  explicit json_writer(std::size_t reserve = 0) { out_.reserve(reserve); }

  json_writer& begin_object() {
    separate();
    out_ += '{';
    push();
    return *this;
  }
  json_writer& end_object() {
    out_ += '}';
    pop();
    return *this;
  }
  json_writer& begin_array() {
    separate();
    out_ += '[';
    push();
    return *this;
  }
  json_writer& end_array() {
    out_ += ']';
    pop();
    return *this;
  }
  /// The key of the next member of the current object (escaped as a string value is).
  json_writer& key(std::string_view k) {
    separate();
    write_string(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  json_writer& value(std::string_view s) {
    separate();
    write_string(s);
    return *this;
  }
  json_writer& value(const char* s) { return value(std::string_view{s}); }
  json_writer& value(const std::string& s) { return value(std::string_view{s}); }
  json_writer& value(bool b) {
    separate();
    out_ += b ? "true" : "false";
    return *this;
  }
  json_writer& value(std::int64_t n);
  json_writer& value(std::uint64_t n);
  json_writer& value(int n) { return value(static_cast<std::int64_t>(n)); }
  json_writer& value(unsigned n) { return value(static_cast<std::uint64_t>(n)); }
  json_writer& value(double d);
  json_writer& null() {
    separate();
    out_ += "null";
    return *this;
  }
  /// A value that is already JSON text (e.g. encode() of a small tree).
  json_writer& raw(std::string_view json) {
    separate();
    out_ += json;
    return *this;
  }

  /// The text so far.
  [[nodiscard]] const std::string& text() const noexcept { return out_; }
  /// Takes the text out (the writer is empty afterwards).
  [[nodiscard]] std::string release() noexcept { return std::move(out_); }

 private:
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (depth_ == 0) return;
    const std::uint64_t bit = std::uint64_t{1} << (depth_ - 1);
    if ((written_ & bit) != 0) out_ += ',';
    written_ |= bit;
  }
  void push() {
    ++depth_;
    written_ &= ~(std::uint64_t{1} << (depth_ - 1));
  }
  void pop() { --depth_; }
  void write_string(std::string_view s);

  std::string out_;
  std::uint64_t written_ = 0;  // bit d-1: the container at depth d has a member already
  unsigned depth_ = 0;
  bool after_key_ = false;
};

}  // namespace bg::protocol
