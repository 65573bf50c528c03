#include "bg/server/players/names.hpp"

#include "bg/protocol/codec.hpp"
#include "players/name_errors.hpp"

#include <unicode/unistr.h>
#include <unicode/uspoof.h>

#include <cstdint>
#include <memory>
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
      return "latin";
    case script::greek:
      return "greek";
    case script::cyrillic:
      return "cyrillic";
    case script::cjk:
      return "cjk";
    case script::none:
      break;
  }
  return "no";
}

/// `name` (valid UTF-8) as ICU's UTF-16 string.
icu::UnicodeString utf16(std::string_view name) {
  return icu::UnicodeString::fromUTF8(
      icu::StringPiece(name.data(), static_cast<std::int32_t>(name.size())));
}

std::string utf8(const icu::UnicodeString& s) {
  std::string out;
  s.toUTF8String(out);
  return out;
}

/// ICU's spoof checker, made once (thread-safe to use from many threads once made:
/// getting a skeleton does not change it). Null when ICU cannot open its data.
const USpoofChecker* spoof_checker() {
  static const std::unique_ptr<USpoofChecker, void (*)(USpoofChecker*)> checker = [] {
    UErrorCode status = U_ZERO_ERROR;
    USpoofChecker* sc = uspoof_open(&status);
    if (U_FAILURE(status)) {
      if (sc != nullptr) uspoof_close(sc);
      sc = nullptr;
    }
    return std::unique_ptr<USpoofChecker, void (*)(USpoofChecker*)>(sc, uspoof_close);
  }();
  return checker.get();
}

/// The UTS #39 skeleton of `s` (`s` itself when ICU fails).
icu::UnicodeString skeleton(const icu::UnicodeString& s) {
  const USpoofChecker* sc = spoof_checker();
  if (sc == nullptr) return s;
  UErrorCode status = U_ZERO_ERROR;
  icu::UnicodeString out;
  uspoof_getSkeletonUnicodeString(sc, 0, s, out, &status);
  return U_FAILURE(status) ? s : out;
}

/// True when the key `folded` starts with `prefix` followed by nothing or a character
/// that is not a letter (ASCII letters and every non-ASCII character, which in a valid
/// name is a letter, count as letters).
bool has_reserved_prefix(std::string_view folded, std::string_view prefix) {
  if (folded.substr(0, prefix.size()) != prefix) return false;
  if (folded.size() == prefix.size()) return true;
  const auto next = static_cast<unsigned char>(folded[prefix.size()]);
  return !((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') || next >= 0x80);
}

}  // namespace

namespace {
/// The key of `use`'s sentence among the four (own, player, table, tournament).
const char* key_for(name_use use, const char* own, const char* player, const char* table,
                    const char* tournament) {
  switch (use) {
    case name_use::player:
      return player;
    case name_use::table:
      return table;
    case name_use::tournament:
      return tournament;
    case name_use::own:
      break;
  }
  return own;
}
}  // namespace

std::optional<engine::error> name_error(std::string_view name, std::size_t max_bytes,
                                        std::string code, name_use use) {
  const nlohmann::json max{{"max", static_cast<std::int64_t>(max_bytes)}};
  if (name.empty() || name.size() > max_bytes)
    return protocol::said_error(
        std::move(code),
        key_for(use, "service.name_limits", "service.not_player_name_limits",
                "service.bad_table_name_limits", "tournament.bad_name_limits"),
        max);
  const auto points = decode(name);
  if (!points)
    return protocol::said_error(
        std::move(code),
        key_for(use, "service.name_not_utf8", "service.not_player_name_utf8",
                "service.bad_table_name_utf8", "tournament.bad_name_utf8"),
        max);
  script seen = script::none;
  for (const char32_t c : *points) {
    const auto s = script_of(c);
    if (!s)
      return protocol::said_error(
          std::move(code),
          key_for(use, "service.name_bad_characters", "service.not_player_name_characters",
                  "service.bad_table_name_characters", "tournament.bad_name_characters"),
          max);
    if (*s == script::none) continue;
    if (seen != script::none && *s != seen)
      return protocol::said_error(
          std::move(code),
          key_for(use, "service.name_mixed_scripts", "service.not_player_name_scripts",
                  "service.bad_table_name_scripts", "tournament.bad_name_scripts"),
          {{"first", script_name(seen)}, {"second", script_name(*s)}});
    seen = *s;
  }
  return std::nullopt;
}

std::optional<std::string> name_problem(std::string_view name, std::size_t max_bytes) {
  if (auto e = name_error(name, max_bytes)) return std::move(e->message);
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
  // Beyond ASCII: Unicode's full case folding (CaseFolding.txt, C + F), so that "Ǆemal"
  // and "ǆemal", "Άννα" and "άννα", "STRASSE" and "straße" are one name.
  if (!decode(name)) return std::string(name);
  return utf8(utf16(name).foldCase(U_FOLD_CASE_DEFAULT));
}

std::string name_lookalike_key(std::string_view name) {
  if (!decode(name)) return std::string(name);
  // The skeleton of the name as written first (so that a capital I, drawn as an l in
  // many fonts, is an l), then case-folded, then the skeleton again (so that the folded
  // letters' lookalikes meet too).
  // ICU's data maps the capital palochka "Ӏ" to l but the small one "ӏ" to i: both are
  // a bar like l, so the small one is taken as its capital.
  auto s = utf16(name);
  s.findAndReplace(icu::UnicodeString(static_cast<UChar>(0x04CF)),
                   icu::UnicodeString(static_cast<UChar>(0x04C0)));
  s = skeleton(s);
  s.foldCase(U_FOLD_CASE_DEFAULT);
  return utf8(skeleton(s));
}

std::optional<engine::error> reserved_name_error(std::string_view name) {
  static constexpr std::string_view prefixes[] = {"gnubg", "nardy"};
  const std::string folded = name_key(name);
  const std::string lookalike = name_lookalike_key(name);
  for (const auto prefix : prefixes)
    if (has_reserved_prefix(folded, prefix) || has_reserved_prefix(lookalike, prefix))
      return protocol::said_error("reserved_name", "service.name_reserved_prefix",
                                  {{"prefix", std::string(prefix)}});
  return std::nullopt;
}

std::optional<std::string> reserved_name_problem(std::string_view name) {
  if (auto e = reserved_name_error(name)) return std::move(e->message);
  return std::nullopt;
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
