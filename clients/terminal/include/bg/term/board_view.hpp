#pragma once
/// @file board_view.hpp
/// Draws a table's `state` message (protocol/PROTOCOL.md) as text: the 24 points
/// with the checkers stacked as letters
/// (R = red, B = black; a count where a stack is taller than five), the bar, and a
/// panel with the players, pips, checkers off, score, game, phase, turn, dice and
/// cube, and the clocks when the table has them (state.clock, PROTOCOL.md "Clocks": each
/// bank as it stands when drawn, the running side marked). It only draws what the state
/// says: no rule is computed here.
///
/// Point labels follow the table's `options.tutor` (RULES.md R17): with the tutor on,
/// the fixed board numbering 1..24 of R1 runs along the top and bottom; a seated
/// player also gets a row of their own numbers (the ones /move takes, marked "your
/// numbers") when the tutor is off or when their numbers differ from the board's. A
/// spectator with the tutor off sees no numbers.
///
/// Standard backgammon is drawn as usual: 13..24 along the top, 12..1 along the
/// bottom, so black runs 24 → 1 counter-clockwise and red 1 → 24. Long nardy keeps
/// the board numbers but mirrors the picture (24..13 on top, 1..12 below), so both
/// sides are seen moving counter-clockwise: black from its head on point 1, red from
/// its head on point 13.
///
/// Usage:
/// @code
///   bg::term::board_view view{{.colour = false, .viewer = "alice"}};
///   for (const auto& line : view.render(state)) std::cout << line << '\n';
/// @endcode

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace bg::term {

/// Renders state messages as lines of text.
class board_view {
 public:
  /// How to draw.
  struct style {
    bool colour = false;  ///< ANSI colours for checkers, labels and the side to act
    std::string viewer;   ///< the name of the player looking (marks "you"), may be ""
    /// The time the clocks are drawn at, in ms since the Unix epoch (state.clock's time
    /// line); empty: the system clock. Tests fix it.
    std::function<std::int64_t()> now_ms{};
    /// The language of the words drawn (a catalogue tag, i18n/lang/<tag>/term.json).
    std::string lang = "en";
  };

  /// A view drawing with `s`.
  explicit board_view(style s) : style_{std::move(s)} {}

  /// The drawing of `state` (a `state` message), one string per line, no newlines.
  /// Missing or malformed fields are drawn as empty, never thrown on.
  [[nodiscard]] std::vector<std::string> render(const nlohmann::json& state) const;
  /// The same, with `extra` lines at the end of the side panel (e.g. a tournament's
  /// standings).
  [[nodiscard]] std::vector<std::string> render(const nlohmann::json& state,
                                                const std::vector<std::string>& extra) const;

  /// The language of the words drawn.
  [[nodiscard]] const std::string& lang() const { return style_.lang; }

  /// The side ("red" or "black") where `name` sits in `state`, or "" when not seated.
  [[nodiscard]] static std::string side_of(const nlohmann::json& state, const std::string& name);

  /// The panel line of state.clock at `now_ms`: "clock red 4:32  black 5:00 - red to
  /// act (delay 8 s)"; "" when the state has no clock. The running side's bank is
  /// what is left after its delay (PROTOCOL.md); m:ss, tenths under 10 s.
  [[nodiscard]] static std::string clock_line(const nlohmann::json& state, std::int64_t now_ms,
                                              std::string_view lang = "en");

  /// The number a side uses in its own plays for `board_point` (1..24), as PROTOCOL.md
  /// and RULES.md define the numberings: standard black = board, standard red =
  /// 25 − board; long black = 25 − board, long red counts 24 from its head on 13.
  [[nodiscard]] static int own_point(bool long_variant, const std::string& side, int board_point);

 private:
  style style_;
};

/// The string at `key` of the object `j`: "" when `j` is no object or the field is
/// missing or not a string.
std::string text_field(const nlohmann::json& j, const char* key);

/// Message `key` of gammon-term's catalogue (i18n/lang/<lang>/term.json) with `args`.
std::string tr(std::string_view lang, std::string_view key,
               const nlohmann::json& args = nlohmann::json::object());

/// How many terminal columns `text` takes (UTF-8: one per character).
std::size_t columns(const std::string& text);

}  // namespace bg::term
