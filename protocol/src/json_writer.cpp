#include "bg/protocol/json_writer.hpp"

#include <array>
#include <charconv>

#include <nlohmann/json.hpp>

#include "bg/protocol/codec.hpp"

namespace bg::protocol {

namespace {

/// plain_bytes[c]: byte c is copied into a JSON string as it is (printable ASCII other than
/// `"` and `\`); the other bytes are escaped or, above 0x7F, checked as UTF-8.
constexpr std::array<bool, 256> plain_bytes = [] {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x80; ++c) t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
  return t;
}();

}  // namespace

void json_writer::grow(std::size_t n) {
  std::size_t size = out_.size() * 2;
  if (size < used_ + n) size = used_ + n;
  out_.resize(size);
}

json_writer& json_writer::value(std::int64_t n) {
  separate();
  room(24);
  char* at = out_.data() + used_;
  used_ += static_cast<std::size_t>(std::to_chars(at, at + 24, n).ptr - at);
  return *this;
}

json_writer& json_writer::value(std::uint64_t n) {
  separate();
  room(24);
  char* at = out_.data() + used_;
  used_ += static_cast<std::size_t>(std::to_chars(at, at + 24, n).ptr - at);
  return *this;
}

json_writer& json_writer::value(double d) {
  separate();
  put(encode_by_nlohmann(nlohmann::json(d)));  // nlohmann's shortest form (null for NaN)
  return *this;
}

void json_writer::write_string(std::string_view s) {
  // Most strings (keys, names, notation, position ids) are printable ASCII with nothing
  // to escape: one pass over a table finds that out and they are copied as they are.
  // Checked while copied; on the first byte that is not plain the copy is dropped.
  room(s.size() + 2);
  char* const begin = out_.data() + used_;
  char* at = begin;
  *at++ = '"';
  bool plain = true;
  for (const char ch : s) {
    if (!plain_bytes[static_cast<unsigned char>(ch)]) {
      plain = false;
      break;
    }
    *at++ = ch;
  }
  if (plain) {
    *at++ = '"';
    used_ += static_cast<std::size_t>(at - begin);
    return;
  }
  if (!valid_utf8(s)) {  // replaced as encode() replaces it
    put(encode_by_nlohmann(nlohmann::json(std::string{s})));
    return;
  }
  put('"');
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    put(s.substr(start, i - start));
    start = i + 1;
    switch (c) {
      case '"':
        put(std::string_view{"\\\""});
        break;
      case '\\':
        put(std::string_view{"\\\\"});
        break;
      case '\b':
        put(std::string_view{"\\b"});
        break;
      case '\f':
        put(std::string_view{"\\f"});
        break;
      case '\n':
        put(std::string_view{"\\n"});
        break;
      case '\r':
        put(std::string_view{"\\r"});
        break;
      case '\t':
        put(std::string_view{"\\t"});
        break;
      default: {
        constexpr std::string_view hex = "0123456789abcdef";
        put(std::string_view{"\\u00"});
        put(hex[c >> 4U]);
        put(hex[c & 0x0FU]);
      }
    }
  }
  put(s.substr(start));
  put('"');
}

}  // namespace bg::protocol
