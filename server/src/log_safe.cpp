#include "bg/server/log_safe.hpp"

#include <algorithm>

namespace bg::server {

std::string log_safe(std::string_view text, std::size_t max_bytes) {
  static constexpr std::string_view hex = "0123456789abcdef";
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 3);
  for (const char c : text.substr(0, max_bytes)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f && c != '"' && c != '\\') {
      out += c;
    } else {
      out += "\\x";
      out += hex[byte >> 4U];
      out += hex[byte & 0xFU];
    }
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

}  // namespace bg::server
