// Draws a state message as a text board (board_view.hpp).

#include "bg/term/board_view.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <string_view>

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
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

/// `text` left-aligned in `width` columns.
std::string left(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
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

}  // namespace

std::string text_field(const json& j, const char* key) {
  if (!j.is_object()) return {};
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

std::string board_view::side_of(const json& state, const std::string& name) {
  if (name.empty() || !state.is_object()) return {};
  const json players = state.value("players", json::object());
  if (text_field(players, "red") == name) return "red";
  if (text_field(players, "black") == name) return "black";
  return {};
}

std::string board_view::clock_line(const json& state, std::int64_t now_ms) {
  if (!state.is_object()) return {};
  const auto it = state.find("clock");
  if (it == state.end() || !it->is_object()) return {};
  const json& c = *it;
  const std::string running = text_field(c, "running");
  const auto since = static_cast<std::int64_t>(number_of(c, "since", now_ms));
  const auto delay = static_cast<std::int64_t>(number_of(c, "delay_ms"));
  const auto elapsed = std::max<std::int64_t>(0, now_ms - since);
  std::string line = "clock";
  for (const char* side : {"red", "black"})
    line += std::string(" ") + side + " " + clock_text(bank_left(c, side, now_ms));
  if (!running.empty()) {
    line += " - " + running + " running";
    if (delay > elapsed)
      line += " (delay " + std::to_string((delay - elapsed + 999) / 1000) + " s)";
  }
  return line;
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
  if (own_labels) board.push_back(label_row(top, true) + "   " + paint(ansi_dim, "(your numbers)"));
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
  if (own_labels)
    board.push_back(label_row(bottom, true) + "   " + paint(ansi_dim, "(your numbers)"));

  // The panel to the right of the board.
  const json players = state.value("players", json::object());
  const json pips = state.value("pips", json::object());
  const json score = state.value("score", json::object());
  const json cube = state.value("cube", json::object());
  const std::string turn = text_field(state, "turn");
  const std::string to_act = text_field(state, "to_act");
  const auto who = [&](const std::string& side) {
    std::string name = text_field(players, side.c_str());
    if (name.empty()) name = "(free seat)";
    std::string line = letter(side == "red" ? 1 : -1) + " " + left(side, 6) + left(name, 14) +
                       "pips " + right(std::to_string(number_of(pips, side.c_str())), 3) +
                       "  off " +
                       right(std::to_string(side == "red" ? b.off_red : b.off_black), 2) +
                       "  bar " + std::to_string(side == "red" ? b.bar_red : b.bar_black);
    if (side == you) line += paint(ansi_bold, "  (you)");
    return line;
  };
  std::vector<std::string> panel;
  panel.push_back(who("red"));
  panel.push_back(who("black"));
  const long match_length = number_of(state, "match_length");
  std::string kind = "free play (scored by pip count)";
  if (match_length > 0) {
    kind = "match to " + std::to_string(match_length);
    if (state.value("crawford", false)) kind += ", Crawford game";
  } else if (options.is_object() && options.value("match", json()) == "basis") {
    kind = "basis session";
  }
  panel.push_back("score red " + std::to_string(number_of(score, "red")) + " black " +
                  std::to_string(number_of(score, "black")) + " - " + kind);
  panel.push_back("game " + std::to_string(number_of(state, "game_number")) + " - " +
                  (is_long ? "long nardy" : "standard") + " - phase " + text_field(state, "phase"));
  std::string acting = "turn " + (turn.empty() ? std::string{"-"} : turn);
  if (!to_act.empty()) {
    acting += " - to act " + to_act;
    if (to_act == you) acting += " (you)";
  }
  panel.push_back(to_act.empty() ? acting : paint(ansi_bold, acting));
  std::string dice = "dice -";
  if (state.contains("dice") && state["dice"].is_array() && !state["dice"].empty()) {
    dice = "dice ";
    for (const auto& d : state["dice"]) {
      if (!d.is_number_integer()) continue;
      if (dice.size() > 5) dice += "-";
      dice += std::to_string(d.get<int>());
    }
  }
  panel.push_back(dice);
  const auto now = style_.now_ms ? style_.now_ms()
                                 : std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count();
  if (auto clock = clock_line(state, now); !clock.empty()) {
    // The running side under 10 s is drawn as a warning.
    const json& c = state["clock"];
    const std::string running = text_field(c, "running");
    const bool low = !running.empty() && bank_left(c, running, now) < 10'000;
    panel.push_back(low ? paint(ansi_red, clock) : clock);
  }
  std::string cube_line = "cube " + std::to_string(number_of(cube, "value", 1));
  const std::string owner = text_field(cube, "owner");
  cube_line += owner.empty() || owner == "center" ? " centred" : " owned by " + owner;
  const std::string offered = text_field(cube, "offered_by");
  if (!offered.empty()) cube_line += ", offered by " + offered;
  if (state.value("may_double", false)) cube_line += " - " + turn + " may double";
  panel.push_back(cube_line);
  if (state.contains("resign") && state["resign"].is_object()) {
    panel.push_back(text_field(state["resign"], "by") + " offers to resign (" +
                    text_field(state["resign"], "kind") + ")");
  }
  if (state.contains("last_result") && state["last_result"].is_object()) {
    const json& r = state["last_result"];
    panel.push_back("last game: " + text_field(r, "winner") + " won " +
                    std::to_string(number_of(r, "points")) + " (" + text_field(r, "kind") + ", " +
                    text_field(r, "reason") + ")");
  }
  panel.push_back(is_long ? "both move counter-clockwise:" : "black 24->1, home 1-6");
  panel.push_back(is_long ? "black 1->24 (home 19-24)" : "red 1->24, home 19-24");
  if (is_long) panel.push_back("red 13->24->1->12 (home 7-12)");
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
  if (!title.empty()) board.insert(board.begin(), "table " + title);
  return board;
}

}  // namespace bg::term
