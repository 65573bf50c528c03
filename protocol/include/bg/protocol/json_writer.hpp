#pragma once
/// @file json_writer.hpp
/// Compact JSON text written straight into a string, for the server's hot messages
/// (issue 15: the `state` of every change), with no tree built and freed on the way.

#include <cstdint>
#include <cstring>
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
  explicit json_writer(std::size_t reserve = 0) { out_.resize(reserve < 64 ? 64 : reserve); }

  json_writer& begin_object() {
    separate();
    put('{');
    push();
    return *this;
  }
  json_writer& end_object() {
    put('}');
    pop();
    return *this;
  }
  json_writer& begin_array() {
    separate();
    put('[');
    push();
    return *this;
  }
  json_writer& end_array() {
    put(']');
    pop();
    return *this;
  }
  /// The key of the next member of the current object (escaped as a string value is).
  json_writer& key(std::string_view k) {
    separate();
    write_string(k);
    put(':');
    after_key_ = true;
    return *this;
  }
  /// A key written in the program as a string literal (issue 33: most of a state's
  /// keys): the check for bytes to escape sees the literal once inlined and is folded
  /// away, and the name is copied as a block of known size. One that needs escaping
  /// goes through key(view).
  template <std::size_t N>
  json_writer& key(const char (&k)[N]) {
    for (std::size_t i = 0; i + 1 < N; ++i)
      if (static_cast<unsigned char>(k[i]) < 0x20 || static_cast<unsigned char>(k[i]) >= 0x7F ||
          k[i] == '"' || k[i] == '\\')
        return key(std::string_view{k, N - 1});
    separate();
    room(N + 2);
    char* at = out_.data() + used_;
    at[0] = '"';
    std::memcpy(at + 1, k, N - 1);
    at[N] = '"';
    at[N + 1] = ':';
    used_ += N + 2;
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
    put(b ? std::string_view{"true"} : std::string_view{"false"});
    return *this;
  }
  json_writer& value(std::int64_t n);
  json_writer& value(std::uint64_t n);
  json_writer& value(int n) { return value(static_cast<std::int64_t>(n)); }
  json_writer& value(unsigned n) { return value(static_cast<std::uint64_t>(n)); }
  json_writer& value(double d);
  json_writer& null() {
    separate();
    put(std::string_view{"null"});
    return *this;
  }
  /// A value that is already JSON text (e.g. encode() of a small tree).
  json_writer& raw(std::string_view json) {
    separate();
    put(json);
    return *this;
  }

  /// The bytes written so far.
  [[nodiscard]] std::size_t size() const noexcept { return used_; }
  /// The text so far (valid until the next call that writes).
  [[nodiscard]] std::string_view text() const noexcept { return {out_.data(), used_}; }
  /// Takes the text out (the writer is empty afterwards).
  [[nodiscard]] std::string release() noexcept {
    out_.resize(used_);
    used_ = 0;
    return std::move(out_);
  }

 private:
  // The text is out_[0, used_); out_'s size beyond that is room already allocated, so
  // a character or a short piece is copied in without std::string's own checks
  // (issue 33: appends were a tenth of a state's cost).
  void room(std::size_t n) {
    if (out_.size() - used_ < n) grow(n);
  }
  void grow(std::size_t n);
  void put(char c) {
    room(1);
    out_[used_++] = c;
  }
  void put(std::string_view s) {
    room(s.size());
    s.copy(out_.data() + used_, s.size());
    used_ += s.size();
  }
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (depth_ == 0) return;
    const std::uint64_t bit = std::uint64_t{1} << (depth_ - 1);
    if ((written_ & bit) != 0) put(',');
    written_ |= bit;
  }
  void push() {
    ++depth_;
    written_ &= ~(std::uint64_t{1} << (depth_ - 1));
  }
  void pop() { --depth_; }
  void write_string(std::string_view s);

  std::string out_;
  std::size_t used_ = 0;       // bytes of out_ written
  std::uint64_t written_ = 0;  // bit d-1: the container at depth d has a member already
  unsigned depth_ = 0;
  bool after_key_ = false;
};

}  // namespace bg::protocol
