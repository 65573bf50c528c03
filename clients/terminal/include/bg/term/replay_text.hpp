#pragma once
/// @file replay_text.hpp
/// `/replay MATCH [STEP]` in gammon-term (issue 27, item 5): a finished match read from
/// `GET /api/matches/MATCH/replay` (PROTOCOL.md "Match replay": the server's positions,
/// no rule here) and printed as text, in both modes:
///
///   REPLAY <id> <red>-<black> steps=N games=G variant=V length=L score=R-B
///   STEP <k> game=<g> <what the step did>          (every step, k from 1, without STEP)
///   AT <k> game=<g> <what the step did>            the step drawn (STEP's, or the last)
///     <the text board after that step, lines indented by two spaces>
///   END REPLAY <id>
///
/// With STEP (1..N) only that step is listed (AT) and drawn; without it every step is
/// listed and the last drawn.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "bg/term/board_view.hpp"

namespace bg::term {

/// The body of an HTTP GET of `target` (e.g. "/api/matches/12/replay?token=...") from
/// host:port, when it answers 200; else nullopt with `error` set to a sentence (the
/// server's `message` when its answer is JSON, e.g. "there is no match 99"). A second
/// connection of its own (the WebSocket's is not used); waits at most 10 s. Asks for
/// language `lang` (Accept-Language), in which `error` is written.
std::optional<std::string> http_get(const std::string& host, const std::string& port,
                                    const std::string& target, std::string& error,
                                    std::string_view lang = "en");

/// What a replay step did, in words: "alice 31: 8/5 6/5", "bob doubles to 2", "alice
/// starts with 42"; `players` is the replay's match.players {red, black}; in language
/// `lang`.
[[nodiscard]] std::string replay_step_text(const nlohmann::json& step,
                                           const nlohmann::json& players,
                                           std::string_view lang = "en");

/// The lines (each ending in '\n') of replay `replay` (the route's JSON) for match `id`,
/// as the file comment shows: every step and the last drawn, or only step `step`
/// (1-based) drawn; a step past the end is an "ERROR bad_step: ..." line. `board` draws
/// the positions (seen by its viewer when they played), in its language, which the
/// steps' words are also in.
[[nodiscard]] std::string replay_lines(std::int64_t id, const nlohmann::json& replay,
                                       std::optional<std::size_t> step, const board_view& board);

}  // namespace bg::term
