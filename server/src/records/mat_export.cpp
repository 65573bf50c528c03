#include "bg/server/records/mat_export.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace bg::server {

namespace {

using engine::side;

/// gnubg keeps player names in char[32].
constexpr std::size_t max_name_length = 31;
/// Width of the left cell after "NNN) " (gnubg's "%3d) %-28s").
constexpr std::size_t left_cell_width = 28;

/// A name gnubg's score-line parser reads back unchanged (see the header).
std::string mat_name(std::string_view name, side s) {
  std::string out;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f || c == ':' || c == ',' || c == '"') ? '_' : c;
  }
  const auto first = out.find_first_not_of(' ');
  const auto last = out.find_last_not_of(' ');
  out = first == std::string::npos ? std::string() : out.substr(first, last - first + 1);
  if (out.size() > max_name_length) out.resize(max_name_length);
  if (out.empty()) out = std::string(engine::to_string(s));
  return out;
}

/// Header text: no quotes or line breaks.
std::string header_text(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? ' ' : (c == '"' ? '\'' : c);
  }
  return out;
}

/// "DD:" with the higher die first.
std::string dice_text(const engine::roll& r) {
  std::string out;
  out += static_cast<char>('0' + r.high());
  out += static_cast<char>('0' + r.low());
  out += ':';
  return out;
}

bool has_roll(const game_record& game) {
  return std::any_of(game.actions.begin(), game.actions.end(), [](const record_action& a) {
    return a.what == record_action::kind::play || a.what == record_action::kind::pass;
  });
}

std::string points_text(int n) {
  return std::to_string(n) + (n == 1 ? " point" : " points");
}

/// Lays out numbered move lines: "NNN) left-cell               right-cell".
class move_lines {
 public:
  explicit move_lines(std::string& out) : out_(out) {}

  /// Puts `text` in the column of `who`: red (left) starts a new line; black (right)
  /// completes the current one.
  void cell(side who, std::string text) {
    if (who == side::red) {
      flush();
      left_ = std::move(text);
      has_left_ = true;
    } else {
      right_ = std::move(text);
      has_right_ = true;
      flush();
    }
  }

  /// Ends the current line, if any.
  void flush() {
    if (!has_left_ && !has_right_) return;
    out_ += number_text();
    out_ += left_;
    // The left cell is padded even when the right one is empty, with at least two
    // spaces. gnubg 1.07 splits a line at its second "DD:" or else at the first double
    // space after column 15; a line with neither (e.g. a bare " 15)  Drops") leaves its
    // right-cell pointer at the previous line's, and it then re-reads stale text from its
    // line buffer (a phantom "Doubles => 8" after a drop). The padding always gives it a
    // fresh split.
    const std::size_t pad = left_.size() + 2 > left_cell_width ? 2 : left_cell_width - left_.size();
    out_.append(pad, ' ');
    out_ += right_;
    out_ += '\n';
    ++number_;
    left_.clear();
    right_.clear();
    has_left_ = has_right_ = false;
  }

 private:
  [[nodiscard]] std::string number_text() const {
    std::string n = std::to_string(number_);
    if (n.size() < 3) n.insert(0, 3 - n.size(), ' ');
    return n + ") ";
  }

  std::string& out_;
  int number_ = 1;
  std::string left_;
  std::string right_;
  bool has_left_ = false;
  bool has_right_ = false;
};

/// "2024.05.01" and "12.34" from an ISO 8601 "2024-05-01T12:34:56Z"; empty when the
/// text does not start that way.
std::string iso_date(std::string_view iso) {
  if (iso.size() < 10 || iso[4] != '-' || iso[7] != '-') return {};
  std::string d(iso.substr(0, 10));
  d[4] = d[7] = '.';
  return d;
}
std::string iso_time(std::string_view iso) {
  if (iso.size() < 16 || iso[10] != 'T' || iso[13] != ':') return {};
  std::string t(iso.substr(11, 5));
  t[2] = '.';
  return t;
}

void write_header(std::string& out, const match_record& record,
                  const std::array<std::string, 2>& names) {
  out += "; [Site \"gammond\"]\n";
  if (!record.table.empty()) out += "; [Event \"table " + header_text(record.table) + "\"]\n";
  out += "; [Player 1 \"" + names[0] + "\"]\n";
  out += "; [Player 2 \"" + names[1] + "\"]\n";
  if (const auto d = iso_date(record.started_at); !d.empty())
    out += "; [EventDate \"" + d + "\"]\n";
  if (const auto t = iso_time(record.started_at); !t.empty())
    out += "; [EventTime \"" + t + "\"]\n";
  out += "; [Variation \"Backgammon\"]\n";
  switch (record.options.kind) {
    case engine::match_kind::points:
      out += "; [Crawford \"On\"]\n";
      break;
    case engine::match_kind::basis:
      out += "; [Jacoby \"Off\"]\n";
      break;
    case engine::match_kind::free_play:
      out += "; [CubeLimit \"1\"]\n";
      for (const auto& g : record.games) {
        if (!g.result) continue;
        out += "; [Comment \"free play: " +
               names[static_cast<std::size_t>(index_of(g.result->winner))] + " scores " +
               std::to_string(g.result->points) + " pips\"]\n";
      }
      break;
  }
  // S4: the revealed dice seed and its commitment (gnubg keeps a comment and ignores it).
  if (!record.dice.commitment.empty() && !record.dice.seed.empty())
    out += "; [Comment \"dice seed " + header_text(record.dice.seed) + ", SHA-256 commitment " +
           header_text(record.dice.commitment) + "\"]\n";
  out += '\n';
  const int length = record.options.kind == engine::match_kind::points ? record.options.length : 0;
  out += ' ' + std::to_string(length) + " point match\n\n";
}

/// Writes `game` as the `number`-th game of the file.
void write_game(std::string& out, int number, const game_record& game, const match_record& record,
                const std::array<std::string, 2>& names) {
  out += " Game " + std::to_string(number) + '\n';
  std::string score = names[0] + " : " + std::to_string(game.score_before[0]);
  if (score.size() < 31) score.append(31 - score.size(), ' ');
  out += ' ' + score + ' ' + names[1] + " : " + std::to_string(game.score_before[1]) + '\n';

  move_lines lines(out);
  bool rolled = false;  // a roll has been written: gnubg's game has started
  for (const auto& a : game.actions) {
    switch (a.what) {
      case record_action::kind::play:
        lines.cell(a.who, dice_text(a.dice) + ' ' + a.play);
        rolled = true;
        break;
      case record_action::kind::pass:
        lines.cell(a.who, dice_text(a.dice));
        rolled = true;
        break;
      case record_action::kind::double_offer:
        lines.cell(a.who, " Doubles => " + std::to_string(a.cube_value));
        break;
      case record_action::kind::take:
        lines.cell(a.who, " Takes");
        break;
      case record_action::kind::drop:
        lines.cell(a.who, " Drops");
        break;
      // No trace in the format: the result's "Wins" line stands for an accepted
      // resignation or a forfeit, and a rejected offer changed nothing.
      case record_action::kind::resign_offer:
      case record_action::kind::resign_accept:
      case record_action::kind::resign_reject:
      case record_action::kind::forfeit:
        break;
    }
  }
  // gnubg reads "Wins" as a resignation only once the game has started: a game
  // resigned or forfeited before its first play shows the opening roll, unplayed.
  if (game.result && !rolled && game.opening.valid())
    lines.cell(game.first, dice_text(game.opening));
  lines.flush();

  if (game.result) {
    const int points = record.options.kind == engine::match_kind::free_play
                           ? engine::multiplier(game.result->kind)
                           : game.result->points;
    const std::string wins = "Wins " + points_text(points);
    if (game.result->winner == side::red)
      out += "      " + wins + '\n';
    else
      out += std::string(34, ' ') + wins + '\n';
  }
  out += '\n';
}

}  // namespace

std::string to_mat(const match_record& record) {
  if (!can_export_mat(record.options))
    throw std::invalid_argument("a " + std::string(engine::to_string(record.options.game_variant)) +
                                " match has no .mat form: gnubg plays standard backgammon only");
  const std::array<std::string, 2> names{mat_name(record.players[0], side::red),
                                         mat_name(record.players[1], side::black)};
  std::string out;
  write_header(out, record, names);
  int written = 0;
  for (const auto& game : record.games) {
    // Left out: the next game of a match in progress, before anything happened in it
    // (gnubg would only say "No game in progress"), and a game forfeited before its
    // opening roll, which has no roll for gnubg to hang the result on. The next game's
    // score line still carries the score. Games are numbered as written: gnubg wants
    // "Game 1" first.
    if (!game.opening.valid() && !has_roll(game)) continue;
    write_game(out, ++written, game, record, names);
  }
  return out;
}

}  // namespace bg::server
