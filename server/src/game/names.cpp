#include "bg/server/game/names.hpp"

#include <cstdint>
#include <vector>

namespace bg::server {

namespace {

enum class script : unsigned char { none, latin, greek, cyrillic, cjk };

/// Decodes `s` as UTF-8 into code points; nullopt when it is not valid UTF-8 (overlong
/// forms, surrogates and values above U+10FFFF included).
std::optional<std::vector<char32_t>> decode(std::string_view s) {
  std::vector<char32_t> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    int extra = 0;
    char32_t cp = 0;
    if (b0 < 0x80) {
      cp = b0;
    } else if ((b0 & 0xE0) == 0xC0) {
      extra = 1;
      cp = b0 & 0x1F;
    } else if ((b0 & 0xF0) == 0xE0) {
      extra = 2;
      cp = b0 & 0x0F;
    } else if ((b0 & 0xF8) == 0xF0) {
      extra = 3;
      cp = b0 & 0x07;
    } else {
      return std::nullopt;
    }
    if (extra > 0 && i + static_cast<std::size_t>(extra) >= s.size()) return std::nullopt;
    for (int k = 1; k <= extra; ++k) {
      const auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((b & 0xC0) != 0x80) return std::nullopt;
      cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr char32_t min_of[] = {0, 0x80, 0x800, 0x10000};
    if (cp < min_of[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
    out.push_back(cp);
    i += static_cast<std::size_t>(extra) + 1;
  }
  return out;
}

/// The script of a letter, `none` for the neutral characters (digits, `_-.`), and
/// nullopt for a character no name may hold.
std::optional<script> script_of(char32_t c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return script::latin;
  if ((c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.') return script::none;
  if (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7) return script::latin;
  if (c >= 0x386 && c <= 0x3FF && c != 0x387 && c != 0x3F6) return script::greek;
  if (c >= 0x400 && c <= 0x481) return script::cyrillic;
  if (c >= 0x48A && c <= 0x52F) return script::cyrillic;
  if (c >= 0x3041 && c <= 0x30FF && c != 0x30A0 && c != 0x30FB) return script::cjk;  // kana
  if (c >= 0x4E00 && c <= 0x9FFF) return script::cjk;                                // Han
  if (c >= 0xAC00 && c <= 0xD7A3) return script::cjk;  // Hangul syllables
  return std::nullopt;
}

const char* script_name(script s) {
  switch (s) {
    case script::latin:
      return "Latin";
    case script::greek:
      return "Greek";
    case script::cyrillic:
      return "Cyrillic";
    case script::cjk:
      return "Chinese/Japanese/Korean";
    case script::none:
      break;
  }
  return "no";
}

char32_t fold(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 0x20;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 0x20;
  if (c >= 0x100 && c <= 0x137 && c % 2 == 0) return c + 1;
  if (c >= 0x139 && c <= 0x148 && c % 2 == 1) return c + 1;
  if (c >= 0x14A && c <= 0x177 && c % 2 == 0) return c + 1;
  if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 0x20;
  if (c >= 0x410 && c <= 0x42F) return c + 0x20;
  if (c >= 0x400 && c <= 0x40F) return c + 0x50;
  return c;
}

void encode(char32_t c, std::string& out) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

}  // namespace

std::optional<std::string> name_problem(std::string_view name, std::size_t max_bytes) {
  const std::string limits = "a name is 1 to " + std::to_string(max_bytes) +
                             " bytes of letters and digits of one script, with _ - . allowed";
  if (name.empty() || name.size() > max_bytes) return limits;
  const auto points = decode(name);
  if (!points) return "a name must be valid UTF-8: " + limits;
  script seen = script::none;
  for (const char32_t c : *points) {
    const auto s = script_of(c);
    if (!s) return "a name may not hold spaces, control, invisible or symbol characters: " + limits;
    if (*s == script::none) continue;
    if (seen != script::none && *s != seen)
      return std::string("a name may not mix ") + script_name(seen) + " and " + script_name(*s) +
             " letters (lookalike names are refused)";
    seen = *s;
  }
  return std::nullopt;
}

std::string name_key(std::string_view name) {
  // Most names are ASCII: folded in place, without decoding (issue 15: the state and the
  // lobby summary look up every member's rating by key on each change).
  std::string out(name);
  bool ascii = true;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      ascii = false;
      break;
    }
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 0x20);
  }
  if (ascii) return out;
  const auto points = decode(name);
  if (!points) return std::string(name);
  out.clear();
  for (const char32_t c : *points) encode(fold(c), out);
  return out;
}

std::string strip_invisible(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto b = [&](std::size_t k) {
      return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0U;
    };
    // Every character stripped is two (U+061C) or three bytes long in UTF-8.
    if (b(0) == 0xD8 && b(1) == 0x9C) {  // U+061C arabic letter mark
      i += 2;
      continue;
    }
    if (b(0) == 0xE2 && b(1) == 0x80 &&
        ((b(2) >= 0x8B && b(2) <= 0x8F) || (b(2) >= 0xAA && b(2) <= 0xAE))) {
      i += 3;  // U+200B..U+200F, U+202A..U+202E
      continue;
    }
    if (b(0) == 0xE2 && b(1) == 0x81 && (b(2) == 0xA0 || (b(2) >= 0xA6 && b(2) <= 0xA9))) {
      i += 3;  // U+2060, U+2066..U+2069
      continue;
    }
    if (b(0) == 0xEF && b(1) == 0xBB && b(2) == 0xBF) {  // U+FEFF
      i += 3;
      continue;
    }
    out += text[i++];
  }
  return out;
}

bool blank(std::string_view text) noexcept {
  return text.find_first_not_of(" \t") == std::string_view::npos;
}

}  // namespace bg::server
