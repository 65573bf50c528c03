/// @file command_grammar.cpp
/// libFuzzer target: protocol::parse_line on arbitrary bytes (the text of a `line`
/// message, which a client controls completely). Proves the properties listed in
/// command_properties.hpp: no crash or exception for any bytes; documented error
/// codes with clean messages; blanks and ASCII case of commands do not matter; the
/// canonical spelling of every parsed command parses back to the same command.
///
///   scripts/fuzz 60 command_grammar    # this target only, 60 s, in build-fuzz
///   build-fuzz/tests/fuzz/fuzz_command_grammar SCRATCH_DIR tests/fuzz/corpus/command_grammar
///   build/tests/fuzz/command_grammar_replay tests/fuzz/corpus/command_grammar  # no libFuzzer

#include <cstddef>
#include <cstdint>

#include "command_properties.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bg::fuzz::check_command_line(bg::fuzz::as_text(data, size));
  return 0;
}
