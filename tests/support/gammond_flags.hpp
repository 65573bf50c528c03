#pragma once
/// @file gammond_flags.hpp
/// The flags the tests that start the real gammond give it, beside those gammond_process
/// adds itself (port, database, log level, ...): one place instead of a copy per file.
///
/// Usage:
/// @code
///   bg::test::gammond_process server{bg::test::gammond_flags(7)};
///   bg::test::gammond_process other{bg::test::gammond_flags(7, {"--max-tables", "3"})};
///   bg::test::gammond_process unseeded{bg::test::no_command_limit({"--session-days", "0"})};
/// @endcode
/// A file whose gammond needs more every time (an administrator, a gnubg binary, match
/// analysis on) keeps a `flags()` of its own built on these.

#include <string>
#include <vector>

namespace bg::test {

/// `--commands-per-second 100000 --command-burst 100000`, then `more`: a command rate
/// limit that no test client reaches, though it sends a command per step as fast as it
/// can. The dice come from the operating system. (The tests of the rate limit itself
/// give gammond their own limit instead.)
[[nodiscard]] std::vector<std::string> no_command_limit(std::vector<std::string> more = {});

/// `--dice-seed DICE_SEED`, then no_command_limit(more): reproducible dice as well, the
/// same games for the same seed and the same plays.
[[nodiscard]] std::vector<std::string> gammond_flags(int dice_seed,
                                                     std::vector<std::string> more = {});

}  // namespace bg::test
