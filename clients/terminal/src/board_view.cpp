// Draws a state message as a text board (board_view.hpp).

#include "bg/term/board_view.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <string_view>

#include "bg/i18n/catalogue.hpp"

namespace bg::term {
namespace {

using nlohmann::json;

constexpr int stack_rows = 5;  // checkers drawn per point before a count is shown

constexpr std::string_view ansi_red = "\x1b[1;31m";
constexpr std::string_view ansi_black = "\x1b[1;36m";
constexpr std::string_view ansi_dim = "\x1b[2m";
constexpr std::string_view ansi_bold = "\x1b[1m";
constexpr std::string_view ansi_reset = "\x1b[0m";

/// A field of `j` as an integer (`fallback` when missing or not a number).
long number_of(const json& j, const char* key, long fallback = 0) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<long>() : fallback;
}

/// A time bank as m:ss, with tenths under 10 s ("0:09.4") and hours past an hour.
std::string clock_text(std::int64_t ms) {
  ms = std::max<std::int64_t>(0, ms);
  if (ms < 10'000) {
    const auto tenths = ms / 100;
    return "0:0" + std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
  }
  const auto seconds = ms / 1000;
  const auto two = [](std::int64_t n) { return (n < 10 ? "0" : "") + std::to_string(n); };
  const auto minutes = seconds / 60;
  if (minutes < 60) return std::to_string(minutes) + ":" + two(seconds % 60);
  return std::to_string(minutes / 60) + ":" + two(minutes % 60) + ":" + two(seconds % 60);
}

/// The bank `side` has at `now_ms` in a state.clock object: the running side's after
/// its delay (PROTOCOL.md "Clocks").
std::int64_t bank_left(const json& c, const std::string& side, std::int64_t now_ms) {
  auto bank = static_cast<std::int64_t>(number_of(c, side.c_str()));
  if (text_field(c, "running") == side) {
    const auto since = static_cast<std::int64_t>(number_of(c, "since", now_ms));
    const auto delay = static_cast<std::int64_t>(number_of(c, "delay_ms"));
    bank -= std::max<std::int64_t>(0, std::max<std::int64_t>(0, now_ms - since) - delay);
  }
  return std::max<std::int64_t>(0, bank);
}

/// `text` right-aligned in `width` columns.
std::string right(const std::string& text, std::size_t width) {
  const std::size_t n = columns(text);
  return n >= width ? text : std::string(width - n, ' ') + text;
}

/// `text` left-aligned in `width` columns.
std::string left(const std::string& text, std::size_t width) {
  const std::size_t n = columns(text);
  return n >= width ? text : text + std::string(width - n, ' ');
}

/// The board as the drawing needs it: checkers per board point (positive = red).
struct board_counts {
  std::array<long, 25> points{};  // index 1..24
  long bar_red = 0, bar_black = 0, off_red = 0, off_black = 0;
};

board_counts counts_of(const json& state) {
  board_counts b;
  const json& board = state.is_object() && state.contains("board") ? state["board"] : json{};
  if (board.is_object() && board.contains("points") && board["points"].is_array()) {
    const auto& pts = board["points"];
    for (std::size_t i = 0; i < pts.size() && i < 24; ++i) {
      if (pts[i].is_number_integer()) b.points[i + 1] = pts[i].get<long>();
    }
  }
  if (board.is_object()) {
    const json bar = board.value("bar", json::object());
    const json off = board.value("off", json::object());
    b.bar_red = number_of(bar, "red");
    b.bar_black = number_of(bar, "black");
    b.off_red = number_of(off, "red");
    b.off_black = number_of(off, "black");
  }
  return b;
}

/// `text` in ANSI colour `code` when `colour`.
std::string painted(bool colour, std::string_view code, const std::string& text) {
  return colour ? std::string{code} + text + std::string{ansi_reset} : text;
}

/// The panel's line of a side: its letter, name, pips, checkers off and on the bar.
std::string side_line(const json& state, const board_counts& b, const std::string& side,
                      const std::string& you, bool colour, std::string_view lang) {
  const json players = state.value("players", json::object());
  const json pips = state.value("pips", json::object());
  std::string name = text_field(players, side.c_str());
  if (name.empty()) name = tr(lang, "term.panel.free_seat");
  const bool red = side == "red";
  // The sides' names in one column, at least 6 wide, a space after the longer.
  const std::size_t label = std::max<std::size_t>(
      6, 1 + std::max(columns(tr(lang, "term.panel.side", {{"side", "red"}})),
                      columns(tr(lang, "term.panel.side", {{"side", "black"}}))));
  std::string line = painted(colour, red ? ansi_red : ansi_black, red ? "R" : "B") + " " +
                     left(tr(lang, "term.panel.side", {{"side", side}}), label) + left(name, 14) +
                     tr(lang, "term.panel.counts",
                        {{"pips", right(std::to_string(number_of(pips, side.c_str())), 3)},
                         {"off", right(std::to_string(red ? b.off_red : b.off_black), 2)},
                         {"bar", std::to_string(red ? b.bar_red : b.bar_black)}});
  if (side == you) line += painted(colour, ansi_bold, "  " + tr(lang, "term.panel.you"));
  return line;
}

/// The panel's score line: the score and what is played (a match, basis, free play).
std::string score_line(const json& state, std::string_view lang) {
  const json score = state.value("score", json::object());
  const json options = state.value("options", json::object());
  const long match_length = number_of(state, "match_length");
  std::string kind = "free";
  if (match_length > 0) {
    kind = state.value("crawford", false) ? "crawford" : "match";
  } else if (options.is_object() && options.value("match", json()) == "basis") {
    kind = "basis";
  }
  return tr(lang, "term.panel.score",
            {{"red", std::to_string(number_of(score, "red"))},
             {"black", std::to_string(number_of(score, "black"))},
             {"kind", kind},
             {"length", match_length}});
}

/// The panel's cube line: its value, owner, an offer, and whether the side on turn may
/// double.
std::string cube_line(const json& state, std::string_view lang) {
  const json cube = state.value("cube", json::object());
  const std::string owner = text_field(cube, "owner");
  const std::string offered = text_field(cube, "offered_by");
  return tr(lang, "term.panel.cube",
            {{"value", std::to_string(number_of(cube, "value", 1))},
             {"owner", owner.empty() || owner == "center" ? "center" : owner},
             {"offered", offered.empty() ? "none" : offered},
             {"may_double", state.value("may_double", false) ? "yes" : "no"},
             {"turn", text_field(state, "turn")}});
}

/// The panel's lines about the game: phase, turn, dice.
void game_lines(const json& state, bool colour, const std::string& you, std::string_view lang,
                std::vector<std::string>& panel) {
  const std::string turn = text_field(state, "turn");
  const std::string to_act = text_field(state, "to_act");
  panel.push_back(tr(lang, "term.panel.game",
                     {{"game", std::to_string(number_of(state, "game_number"))},
                      {"variant", text_field(state, "variant") == "long" ? "long" : "standard"},
                      {"phase", text_field(state, "phase")}}));
  const std::string acting = tr(lang, "term.panel.turn",
                                {{"turn", turn.empty() ? "-" : turn},
                                 {"to_act", to_act.empty() ? "none" : to_act},
                                 {"you", !to_act.empty() && to_act == you ? "yes" : "no"}});
  panel.push_back(to_act.empty() ? acting : painted(colour, ansi_bold, acting));
  std::string dice;
  if (state.contains("dice") && state["dice"].is_array()) {
    for (const auto& d : state["dice"]) {
      if (!d.is_number_integer()) continue;
      if (!dice.empty()) dice += "-";
      dice += std::to_string(d.get<int>());
    }
  }
  panel.push_back(tr(lang, "term.panel.dice", {{"dice", dice.empty() ? "-" : dice}}));
}

/// The panel beside the board: the sides, score, game, turn, dice, clock, cube, an
/// offer to resign, the last result and the directions of play.
std::vector<std::string> panel_lines(const json& state, const board_counts& b,
                                     const std::string& you, bool colour, std::string_view lang,
                                     std::int64_t now) {
  const bool is_long = text_field(state, "variant") == "long";
  std::vector<std::string> panel;
  panel.push_back(side_line(state, b, "red", you, colour, lang));
  panel.push_back(side_line(state, b, "black", you, colour, lang));
  panel.push_back(score_line(state, lang));
  game_lines(state, colour, you, lang, panel);
  if (auto clock = board_view::clock_line(state, now, lang); !clock.empty()) {
    // The running side under 10 s is drawn as a warning.
    const json& c = state["clock"];
    const std::string running = text_field(c, "running");
    const bool low = !running.empty() && bank_left(c, running, now) < 10'000;
    panel.push_back(low ? painted(colour, ansi_red, clock) : clock);
  }
  panel.push_back(cube_line(state, lang));
  if (state.contains("resign") && state["resign"].is_object()) {
    panel.push_back(tr(lang, "term.panel.resign",
                       {{"side", text_field(state["resign"], "by")},
                        {"kind", text_field(state["resign"], "kind")}}));
  }
  if (state.contains("last_result") && state["last_result"].is_object()) {
    const json& r = state["last_result"];
    panel.push_back(tr(lang, "term.panel.last_game",
                       {{"winner", text_field(r, "winner")},
                        {"points", number_of(r, "points")},
                        {"kind", text_field(r, "kind")},
                        {"reason", text_field(r, "reason")}}));
  }
  if (is_long) {
    panel.push_back(tr(lang, "term.panel.long_both"));
    panel.push_back(tr(lang, "term.panel.long_black"));
    panel.push_back(tr(lang, "term.panel.long_red"));
  } else {
    panel.push_back(tr(lang, "term.panel.standard_black"));
    panel.push_back(tr(lang, "term.panel.standard_red"));
  }
  return panel;
}

}  // namespace

std::string text_field(const json& j, const char* key) {
  if (!j.is_object()) return {};
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

std::string tr(std::string_view lang, std::string_view key, const json& args) {
  return i18n::render(lang, key, args);
}

std::size_t columns(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
  }));
}

std::string board_view::side_of(const json& state, const std::string& name) {
  if (name.empty() || !state.is_object()) return {};
  const json players = state.value("players", json::object());
  if (text_field(players, "red") == name) return "red";
  if (text_field(players, "black") == name) return "black";
  return {};
}

std::string board_view::clock_line(const json& state, std::int64_t now_ms, std::string_view lang) {
  if (!state.is_object()) return {};
  const auto it = state.find("clock");
  if (it == state.end() || !it->is_object()) return {};
  const json& c = *it;
  const std::string running = text_field(c, "running");
  const auto since = static_cast<std::int64_t>(number_of(c, "since", now_ms));
  const auto delay = static_cast<std::int64_t>(number_of(c, "delay_ms"));
  const auto elapsed = std::max<std::int64_t>(0, now_ms - since);
  const bool delayed = !running.empty() && delay > elapsed;
  return tr(lang, "term.panel.clock",
            {{"red", clock_text(bank_left(c, "red", now_ms))},
             {"black", clock_text(bank_left(c, "black", now_ms))},
             {"running", running.empty() ? "none" : running},
             {"delayed", delayed ? "yes" : "no"},
             {"delay", std::to_string((delay - elapsed + 999) / 1000)}});
}

int board_view::own_point(bool long_variant, const std::string& side, int board_point) {
  if (!long_variant) return side == "red" ? 25 - board_point : board_point;
  if (side == "black") return 25 - board_point;
  return (36 - board_point) % 24 + 1;  // red: board 13 is its 24, board 12 its 1
}

std::vector<std::string> board_view::render(const json& state) const {
  return render(state, {});
}

std::vector<std::string> board_view::render(const json& state,
                                            const std::vector<std::string>& extra) const {
  const bool colour = style_.colour;
  const auto paint = [colour](std::string_view code, const std::string& text) {
    return colour ? std::string{code} + text + std::string{ansi_reset} : text;
  };
  const auto letter = [&](long signed_count) {
    return signed_count > 0 ? paint(ansi_red, "R") : paint(ansi_black, "B");
  };

  const bool is_long = text_field(state, "variant") == "long";
  const board_counts b = counts_of(state);
  const std::string you = side_of(state, style_.viewer);

  // Which board point sits in each of the 12 columns of the top and bottom rows.
  std::array<int, 12> top{};
  std::array<int, 12> bottom{};
  for (int i = 0; i < 12; ++i) {
    const auto k = static_cast<std::size_t>(i);
    top[k] = is_long ? 24 - i : 13 + i;
    bottom[k] = is_long ? 1 + i : 12 - i;
  }

  // One 3-column cell per point, 6 points and a space per half: "| 13 14 15 16 17 18 |".
  const auto half_line = [](const std::array<std::string, 12>& cells, int from) {
    std::string out;
    for (int i = from; i < from + 6; ++i) out += cells[static_cast<std::size_t>(i)];
    return out + " ";
  };
  const auto label_row = [&](const std::array<int, 12>& pts, bool own) {
    std::array<std::string, 12> cells;
    for (std::size_t i = 0; i < 12; ++i) {
      const int p = pts[i];
      cells[i] = right(std::to_string(own ? own_point(is_long, you, p) : p), 3);
    }
    std::string second = half_line(cells, 6);
    second.pop_back();  // no trailing space
    return "  " + paint(ansi_dim, half_line(cells, 0)) + "     " + paint(ansi_dim, second);
  };
  // Row `r` (0 = next to the edge) of the stacks on the points `pts`.
  const auto stack_row = [&](const std::array<int, 12>& pts, int r, const std::string& bar) {
    std::array<std::string, 12> cells;
    for (std::size_t i = 0; i < 12; ++i) {
      const long n = b.points[static_cast<std::size_t>(pts[i])];
      const long count = std::labs(n);
      if (count > r) {
        const bool show_count = r == stack_rows - 1 && count > stack_rows;
        cells[i] = show_count ? right(std::to_string(count), 3)
                              : "  " + letter(n);  // a letter is one column wide
      } else {
        cells[i] = "   ";
      }
    }
    return "|" + half_line(cells, 0) + "|" + bar + "|" + half_line(cells, 6) + "|";
  };
  // The bar's checkers, stacked from the middle of the board outward: `d` is the
  // distance of the row from the middle row (0 = next to it).
  const auto bar_cell = [&](long count, long sign, int d) {
    if (count <= d) return std::string{"   "};
    if (d == stack_rows - 1 && count > stack_rows) return right(std::to_string(count), 3);
    return " " + letter(sign) + " ";
  };

  const std::string border = " +" + std::string(19, '-') + "+---+" + std::string(19, '-') + "+";
  std::vector<std::string> board;
  // R17: the board numbering 1..24 of R1 is shown when the table's tutor option is on.
  // A seated player also sees their own numbers (what /move takes) when they differ
  // from the board's or when the tutor is off; a spectator without the tutor sees none.
  const json options = state.value("options", json::object());
  const bool tutor = options.is_object() && options.value("tutor", json(false)) == true;
  const bool own_labels = !you.empty() && (!tutor || own_point(is_long, you, 1) != 1);
  const std::string& lang = style_.lang;
  const std::string own_mark = paint(ansi_dim, tr(lang, "term.board.your_numbers"));
  if (own_labels) board.push_back(label_row(top, true) + "   " + own_mark);
  if (tutor) board.push_back(label_row(top, false));
  board.push_back(border);
  for (int r = 0; r < stack_rows; ++r) {
    // Red's bar checkers in the upper half of the bar, black's in the lower.
    board.push_back(" " + stack_row(top, r, bar_cell(b.bar_red, 1, stack_rows - 1 - r)));
  }
  board.push_back(std::string{" |"} + std::string(19, ' ') + (is_long ? "|   |" : "|BAR|") +
                  std::string(19, ' ') + "|");
  for (int r = stack_rows - 1; r >= 0; --r) {
    board.push_back(" " + stack_row(bottom, r, bar_cell(b.bar_black, -1, stack_rows - 1 - r)));
  }
  board.push_back(border);
  if (tutor) board.push_back(label_row(bottom, false));
  if (own_labels) board.push_back(label_row(bottom, true) + "   " + own_mark);

  // The panel to the right of the board.
  const auto now = style_.now_ms ? style_.now_ms()
                                 : std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count();
  std::vector<std::string> panel = panel_lines(state, b, you, colour, lang, now);
  panel.insert(panel.end(), extra.begin(), extra.end());

  // Attach the panel beside the board, from the line after the top labels.
  const std::size_t first = std::size_t{own_labels ? 1U : 0U} + std::size_t{tutor ? 1U : 0U};
  for (std::size_t i = 0; i < panel.size(); ++i) {
    const std::size_t row = first + i;
    if (row < board.size()) {
      board[row] += "   " + panel[i];
    } else {
      board.push_back(std::string(46, ' ') + "   " + panel[i]);
    }
  }
  const std::string title = text_field(state, "table");
  if (!title.empty()) board.insert(board.begin(), tr(lang, "term.board.title", {{"table", title}}));
  return board;
}

}  // namespace bg::term
