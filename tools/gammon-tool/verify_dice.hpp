#pragma once
/// @file verify_dice.hpp
/// `gammon-tool verify-dice FILE`: re-derives every roll of a finished match from its
/// revealed seed (RULES.md S4; PROTOCOL.md "Verifiable dice").

#include <istream>
#include <ostream>

namespace bg::tool {

/// Reads a match record (the JSON that GET /api/matches/ID answers) from `in` and
/// checks its dice with bg::server::verify_dice(). Prints `verified: N rolls` to `out`
/// and returns 0, or prints `not verified: <the first difference and why>` to `out`
/// and returns 1. Input that is not such a record: a sentence on `err`, returns 2.
int run_verify_dice(std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace bg::tool
