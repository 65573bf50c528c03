#pragma once
// The value of a numeric command-line flag, for the load and cluster drivers
// (bench/loadgen, tests/cluster/cluster_driver): header-only, no library to link.

#include <charconv>
#include <cstdlib>
#include <iostream>
#include <string_view>
#include <system_error>

namespace bg::test {

/// `text`, the value given to flag `flag` of program `program`, read whole as a number
/// (std::from_chars: decimal, optional sign, fraction and exponent). When it is not one,
/// prints "PROGRAM: FLAG expects a number, not 'TEXT'" to stderr and exits with 2 (bad
/// usage), as both drivers' other usage errors do.
inline double number_flag(std::string_view program, std::string_view flag, std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) {
    std::cerr << program << ": " << flag << " expects a number, not '" << text << "'\n";
    std::exit(2);  // NOLINT(concurrency-mt-unsafe): only while parsing the command line
  }
  return value;
}

}  // namespace bg::test
