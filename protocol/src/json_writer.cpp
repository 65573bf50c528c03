#include "bg/protocol/json_writer.hpp"

#include <array>
#include <charconv>

#include <nlohmann/json.hpp>

#include "bg/protocol/codec.hpp"

namespace bg::protocol {

json_writer& json_writer::value(std::int64_t n) {
  separate();
  std::array<char, 24> buf{};
  const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), n).ptr;
  out_.append(buf.data(), end);
  return *this;
}

json_writer& json_writer::value(std::uint64_t n) {
  separate();
  std::array<char, 24> buf{};
  const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), n).ptr;
  out_.append(buf.data(), end);
  return *this;
}

json_writer& json_writer::value(double d) {
  separate();
  out_ += encode(nlohmann::json(d));  // nlohmann's own shortest form (and null for NaN)
  return *this;
}

void json_writer::write_string(std::string_view s) {
  // Most strings (names, notation, position ids) are printable ASCII with nothing to
  // escape: one pass finds that out and they are copied as they are.
  bool plain = true;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') {
      plain = false;
      break;
    }
  }
  if (plain) {
    out_ += '"';
    out_ += s;
    out_ += '"';
    return;
  }
  if (!valid_utf8(s)) {  // replaced as encode() replaces it
    out_ += encode(nlohmann::json(std::string{s}));
    return;
  }
  out_ += '"';
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out_.append(s.data() + start, i - start);
    start = i + 1;
    switch (c) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\b':
        out_ += "\\b";
        break;
      case '\f':
        out_ += "\\f";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\r':
        out_ += "\\r";
        break;
      case '\t':
        out_ += "\\t";
        break;
      default: {
        constexpr std::string_view hex = "0123456789abcdef";
        out_ += "\\u00";
        out_ += hex[c >> 4U];
        out_ += hex[c & 0x0FU];
      }
    }
  }
  out_.append(s.data() + start, s.size() - start);
  out_ += '"';
}

}  // namespace bg::protocol
