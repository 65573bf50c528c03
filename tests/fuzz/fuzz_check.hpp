#pragma once
/// @file fuzz_check.hpp
/// FUZZ_CHECK for the fuzz targets: a property that must hold for every input. A
/// violation prints the property and where it is, then traps, so that libFuzzer (or
/// the corpus replay under CTest) reports a crash and keeps the input.

#include <cstdint>
#include <cstdio>
#include <string_view>

#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__, #cond); \
      std::fflush(stderr);                                                               \
      __builtin_trap();                                                                  \
    }                                                                                    \
  } while (false)

namespace bg::fuzz {

/// The fuzzer's bytes as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) noexcept {
  return {reinterpret_cast<const char*>(data), size};  // NOLINT(*-reinterpret-cast)
}

/// True when `s` is printable ASCII (what a sentence built from fixed words and
/// numbers may contain).
inline bool printable_ascii(std::string_view s) noexcept {
  for (const char c : s)
    if (c < 0x20 || c > 0x7E) return false;
  return true;
}

}  // namespace bg::fuzz
