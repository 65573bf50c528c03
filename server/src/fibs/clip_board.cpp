// gammond's state as FIBS's `board:` line, and FIBS's move notation (clip_board.hpp).

#include "bg/server/fibs/clip_board.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

#include "bg/engine/notation.hpp"
#include "fibs/json_fields.hpp"

namespace bg::server::fibs {
namespace {

using nlohmann::json;
using namespace json_fields;

/// Whether `side` may double when on roll (FIBS's may-double field): the cube is in
/// play, this is not the Crawford game, the cube is below 64 and centred or `side`'s.
bool may_double(const json& state, const std::string& side) {
  const auto& cube = at(state, "cube");
  if (!at(cube, "in_play").is_boolean() || !at(cube, "in_play").get<bool>()) return false;
  if (at(state, "crawford").is_boolean() && at(state, "crawford").get<bool>()) return false;
  const std::string phase = text_at(state, "phase");
  if (phase == "match_over") return false;
  if (int_at(cube, "value", 1) >= 64) return false;
  const std::string owner = text_at(cube, "owner");
  return owner == "center" || owner == side;
}

/// The number of checkers `side` may move now (FIBS's "can move": 0 unless it is that
/// side's turn to move).
int can_move(const json& state, const std::string& side) {
  if (text_at(state, "phase") != "move" || text_at(state, "turn") != side) return 0;
  std::size_t most = 0;
  const auto& legal = at(state, "legal_moves");
  if (legal.is_array() && !legal.empty()) {
    for (const auto& play : legal)
      if (play.is_array()) most = std::max(most, play.size());
    return static_cast<int>(most);
  }
  const auto& dice = at(state, "dice");  // a spectator's state has no lists
  if (dice.is_array() && dice.size() == 2 && dice[0] == dice[1]) return 4;
  return dice.is_array() && dice.size() == 2 ? 2 : 0;
}

/// The absolute FIBS point of `own` (the mover's own numbering, 1..24) for `side`.
int absolute(int own, bool red) {
  return red ? 25 - own : own;
}

std::string place_text(int own, bool red) {
  if (own >= 25) return "bar";
  if (own <= 0) return "off";
  return std::to_string(absolute(own, red));
}

/// Whether the opponent of the mover holds the mover's own point `own` on `points`.
bool blocked(const json& points, int own, bool red) {
  if (own <= 0 || own >= 25 || !points.is_array() || points.size() != 24) return false;
  const auto& n = points[static_cast<std::size_t>(absolute(own, red) - 1)];
  if (!n.is_number_integer()) return false;
  const int count = n.get<int>();
  return red ? count <= -2 : count >= 2;
}

std::optional<int> number(std::string_view s) {
  int value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

/// One end of a FIBS checker move as the mover's own point (25 = bar, 0 = off).
std::optional<int> own_place(std::string_view word, bool red, bool from) {
  const std::string w = lower(word);
  if (w == "bar" || w == "b" || w == "e") return from ? std::optional<int>{25} : std::nullopt;
  if (w == "off" || w == "o" || w == "home" || w == "h")
    return from ? std::nullopt : std::optional<int>{0};
  const auto n = number(w);
  if (!n || *n < 0 || *n > 25) return std::nullopt;
  if (*n == 0 || *n == 25) {
    // FIBS's bar and home are 0 and 25, which of them depends on the direction.
    const bool is_home = red ? *n == 25 : *n == 0;
    if (from) return is_home ? std::nullopt : std::optional<int>{25};
    return is_home ? std::optional<int>{0} : std::nullopt;
  }
  return red ? 25 - *n : *n;
}

}  // namespace

std::string board_line(const json& state, std::string_view side, bool you) {
  const bool red = side == "red";
  const std::string me = red ? "red" : "black";
  const std::string them = red ? "black" : "red";
  const auto player = [&](const std::string& s) {
    std::string name = text_at(at(state, "players"), s.c_str());
    return name.empty() ? std::string{"-"} : name;
  };
  const auto& board = at(state, "board");
  const auto& points = at(board, "points");
  const auto& bar = at(board, "bar");
  const auto& off = at(board, "off");
  const auto& score = at(state, "score");
  const auto& cube = at(state, "cube");
  const std::string phase = text_at(state, "phase");
  const std::string turn = text_at(state, "turn");
  const std::int64_t length = int_at(state, "match_length");

  std::vector<std::int64_t> f;  // the numeric fields after the two names
  f.push_back(length > 0 ? length : 9999);
  f.push_back(int_at(score, me.c_str()));
  f.push_back(int_at(score, them.c_str()));
  // 26 fields: [0] X's (red's) bar, [1..24] the points (O positive, X negative), [25]
  // O's (black's) bar.
  f.push_back(-int_at(bar, "red"));
  for (std::size_t i = 0; i < 24; ++i) {
    const bool known = points.is_array() && points.size() == 24 && points[i].is_number_integer();
    f.push_back(known ? -points[i].get<int>() : 0);
  }
  f.push_back(int_at(bar, "black"));
  f.push_back(turn == "red" ? -1 : turn == "black" ? 1 : 0);
  const auto& dice = at(state, "dice");
  const bool rolled = phase == "move" && dice.is_array() && dice.size() == 2 &&
                      dice[0].is_number_integer() && dice[1].is_number_integer();
  for (const std::string& s : {me, them}) {
    const bool theirs = rolled && turn == s;
    f.push_back(theirs ? dice[0].get<int>() : 0);
    f.push_back(theirs ? dice[1].get<int>() : 0);
  }
  f.push_back(int_at(cube, "value", 1));
  f.push_back(may_double(state, me) ? 1 : 0);
  f.push_back(may_double(state, them) ? 1 : 0);
  f.push_back(phase == "cube_offered" && text_at(cube, "offered_by") == them ? 1 : 0);
  f.push_back(red ? -1 : 1);  // colour
  f.push_back(red ? 1 : -1);  // direction
  f.push_back(red ? 25 : 0);  // home
  f.push_back(red ? 0 : 25);  // bar
  f.push_back(int_at(off, me.c_str()));
  f.push_back(int_at(off, them.c_str()));
  f.push_back(int_at(bar, me.c_str()));
  f.push_back(int_at(bar, them.c_str()));
  f.push_back(can_move(state, me));
  f.push_back(0);  // forced move: FIBS says not to use it
  const bool crawford_now = at(state, "crawford").is_boolean() && at(state, "crawford").get<bool>();
  // A side at length - 1 got there by winning a game, after which came the Crawford
  // game (R15); in a 1-point match both start there and there is none.
  const bool post_crawford =
      length > 1 && !crawford_now && phase != "waiting" &&
      (int_at(score, "red") == length - 1 || int_at(score, "black") == length - 1);
  f.push_back(post_crawford ? 1 : 0);
  f.push_back(0);  // redoubles: no limit is kept (no beavers)

  std::string line = "board:";
  line += you ? std::string{"You"} : player(me);
  line += ':';
  line += player(them);
  for (const std::int64_t n : f) {
    line += ':';
    line += std::to_string(n);
  }
  return line;
}

engine::result<std::string> gammond_play(std::string_view fibs_text, std::string_view side) {
  const bool red = side == "red";
  std::vector<std::string> words;
  std::string word;
  for (const char ch : fibs_text) {
    if (std::isspace(static_cast<unsigned char>(ch)) || ch == ',') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += ch;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  // "move 24 18 13 11": the ends as separate words, in pairs.
  const bool paired = !words.empty() && std::none_of(words.begin(), words.end(), [](const auto& w) {
    return w.find_first_of("-/") != std::string::npos;
  });
  std::vector<std::pair<std::string, std::string>> moves;
  if (paired) {
    if (words.size() % 2 != 0)
      return engine::make_error("bad_notation", "a move is FROM-TO, as in 24-18 13-11");
    for (std::size_t i = 0; i < words.size(); i += 2) moves.emplace_back(words[i], words[i + 1]);
  } else {
    for (const auto& w : words) {
      const auto cut = w.find_first_of("-/");
      if (cut == std::string::npos || cut == 0 || cut + 1 >= w.size() ||
          w.find_first_of("-/", cut + 1) != std::string::npos)
        return engine::make_error("bad_notation", "'" + w + "' is not FROM-TO, as in 24-18");
      moves.emplace_back(w.substr(0, cut), w.substr(cut + 1));
    }
  }
  if (moves.empty())
    return engine::make_error("bad_notation", "which move? as in: move 24-18 13-11");
  if (moves.size() > 4) return engine::make_error("bad_notation", "at most 4 checker moves");
  std::string out;
  for (const auto& [from_word, to_word] : moves) {
    const auto from = own_place(from_word, red, true);
    const auto to = own_place(to_word, red, false);
    if (!from || !to)
      return engine::make_error("bad_notation",
                                "'" + from_word + "-" + to_word + "' is not a move of yours");
    if (!out.empty()) out += ' ';
    out += (*from == 25 ? std::string{"bar"} : std::to_string(*from)) + "/" +
           (*to == 0 ? std::string{"off"} : std::to_string(*to));
  }
  return out;
}

std::string fibs_moves(std::string_view play, std::string_view side, const json& dice,
                       const json& points_before) {
  const bool red = side == "red";
  const auto parts = engine::parse_notation(play);
  if (!parts || !dice.is_array() || dice.size() != 2 || !dice[0].is_number_integer() ||
      !dice[1].is_number_integer())
    return {};
  const int d1 = std::max(dice[0].get<int>(), dice[1].get<int>());
  const int d2 = std::min(dice[0].get<int>(), dice[1].get<int>());
  std::vector<std::pair<int, int>> steps;  // own numbering, one per die
  const auto split = [&](int a, int b) {
    const int distance = a - b;
    if (d1 == d2) {
      int at_point = a;
      while (at_point > b) {
        const int next = std::max(b, at_point - d1);
        steps.emplace_back(at_point, b == 0 && next <= 0 ? 0 : next);
        at_point = next;
        if (steps.size() > 8) return;
      }
      return;
    }
    if (distance == d1 || distance == d2 || (b == 0 && distance <= d1)) {
      steps.emplace_back(a, b);
      return;
    }
    // Two dice: through the middle point the opponent did not hold.
    int middle = a - d1;
    if (middle <= 0 || blocked(points_before, middle, red)) middle = a - d2;
    steps.emplace_back(a, middle);
    steps.emplace_back(middle, b);
  };
  for (const auto& part : *parts) {
    for (int r = 0; r < part.repeat; ++r)
      for (std::size_t i = 0; i + 1 < part.points.size(); ++i)
        split(part.points[i], part.points[i + 1]);
  }
  std::string out;
  for (const auto& [a, b] : steps) {
    if (!out.empty()) out += ' ';
    out += place_text(a, red) + "-" + place_text(b, red);
  }
  return out;
}

}  // namespace bg::server::fibs
