#pragma once
/// @file position_builder.hpp
/// One-line positions for the engine tests, and a naive move applier that lets a test
/// write the plays it expects instead of computing them with the engine.
///
///   auto p = build("mover: 24:2 13:5 8:3 6:5 | opponent: 24:2 13:5 8:3 6:5");
///   auto q = build("mover: bar:1 6:14 | opponent: 1:2 19:13");       // 1 on the bar
///   auto r = build("mover: 24:15 | opponent: 24:14 off:1", variant::long_nardy);
///   auto s = after(p, "24/18 13/11");  // p with those checker moves made, blots hit
///
/// - Each side is written in its OWN numbering (position.hpp): `point:count` for the
///   points 1..24 and `bar:count` for the bar. The mover is the side to play.
/// - Borne-off checkers are derived: 15 minus the checkers written. `off:n` may be
///   written as a reminder; it must then equal the derived count.
/// - Anything malformed or invalid (16 checkers, a point held by both sides under the
///   variant's geometry, a move of a missing checker) throws std::invalid_argument, so
///   a typo fails the test instead of silently testing something else.

#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bg/engine/move_generator.hpp"
#include "bg/engine/position.hpp"
#include "bg/engine/roll.hpp"
#include "bg/engine/variant.hpp"

namespace bg::test {

namespace detail {
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}
inline int to_int(std::string_view s, std::string_view whole) {
  if (s.empty() || s.size() > 2)
    throw std::invalid_argument("bad number in: " + std::string(whole));
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') throw std::invalid_argument("bad number in: " + std::string(whole));
    v = v * 10 + (c - '0');
  }
  return v;
}
/// A point name of move text: "bar" = 25, "off" = 0, else 1..24.
inline int point_of(std::string_view s, std::string_view whole) {
  if (s == "bar") return engine::bar_index;
  if (s == "off") return engine::off_index;
  return to_int(s, whole);
}
}  // namespace detail

/// Builds a position from "mover: ... | opponent: ..." (see the file comment).
inline engine::position build(std::string_view text,
                              engine::variant v = engine::variant::standard) {
  engine::side_checkers sides[2]{};
  int declared_off[2] = {-1, -1};
  const auto bar = text.find('|');
  if (bar == std::string_view::npos) throw std::invalid_argument("no '|' in: " + std::string(text));
  const std::string_view halves[2] = {text.substr(0, bar), text.substr(bar + 1)};
  const std::string_view names[2] = {"mover:", "opponent:"};
  for (int s = 0; s < 2; ++s) {
    std::string_view h = detail::trim(halves[s]);
    if (h.substr(0, names[s].size()) != names[s])
      throw std::invalid_argument("expected '" + std::string(names[s]) +
                                  "' in: " + std::string(text));
    std::istringstream in{std::string(h.substr(names[s].size()))};
    std::string token;
    while (in >> token) {
      const auto colon = token.find(':');
      const std::string_view where = std::string_view(token).substr(0, colon);
      if (where == "off") {
        if (colon != std::string::npos)
          declared_off[s] = detail::to_int(std::string_view(token).substr(colon + 1), text);
        continue;
      }
      if (colon == std::string::npos) throw std::invalid_argument("bad token: " + token);
      const int index = where == "bar" ? engine::bar_index : detail::to_int(where, text);
      if (index < 1 || index > engine::bar_index)
        throw std::invalid_argument("bad point: " + token);
      const int count = detail::to_int(std::string_view(token).substr(colon + 1), text);
      auto& slot = sides[s][static_cast<std::size_t>(index)];
      slot = static_cast<std::uint8_t>(slot + count);
    }
  }
  auto p = engine::position::from_sides(sides[0], sides[1], v);
  if (!p) throw std::invalid_argument("invalid position: " + std::string(text));
  if ((declared_off[0] >= 0 && declared_off[0] != p->mover(engine::off_index)) ||
      (declared_off[1] >= 0 && declared_off[1] != p->opponent(engine::off_index)))
    throw std::invalid_argument("off count does not match the checkers written: " +
                                std::string(text));
  return *p;
}

/// The inverse of build(): "mover: bar:1 13:2 ... | opponent: ..." (points high to
/// low, borne-off checkers as `off:n` when there are any). Used in failure messages
/// and to compare sets of positions readably.
inline std::string to_text(const engine::position& p) {
  std::string out;
  for (int s = 0; s < 2; ++s) {
    out += s == 0 ? "mover:" : " | opponent:";
    for (int i = engine::bar_index; i >= engine::off_index; --i) {
      const int n = s == 0 ? p.mover(i) : p.opponent(i);
      if (n == 0) continue;
      out += ' ';
      out += i == engine::bar_index ? "bar" : (i == engine::off_index ? "off" : std::to_string(i));
      out += ':' + std::to_string(n);
    }
  }
  return out;
}

/// `p` after the checker moves written in `moves` ("24/18 13/7/1 bar/22 6/off 8/2(2)",
/// '*' allowed and ignored), made one step at a time with no check of dice or rules:
/// the mover's checker leaves the first point and lands on the next; in standard a
/// lone opposing checker there goes to the bar (R7); in long nardy landing on an
/// opposing checker throws. This is the test's own reading of the rules, independent
/// of the engine's notation code.
inline engine::position after(const engine::position& p, std::string_view moves,
                              engine::variant v = engine::variant::standard) {
  auto me = p.mover_side();
  auto op = p.opponent_side();
  std::istringstream in{std::string(moves)};
  std::string part;
  while (in >> part) {
    int repeat = 1;
    if (const auto paren = part.find('('); paren != std::string::npos) {
      repeat = detail::to_int(std::string_view(part).substr(paren + 1, 1), moves);
      part.resize(paren);
    }
    std::erase(part, '*');
    std::vector<int> path;
    std::istringstream steps{part};
    std::string step;
    while (std::getline(steps, step, '/')) path.push_back(detail::point_of(step, moves));
    if (path.size() < 2) throw std::invalid_argument("bad move: " + part);
    for (int r = 0; r < repeat; ++r) {
      for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        const auto from = static_cast<std::size_t>(path[i]);
        const auto to = static_cast<std::size_t>(path[i + 1]);
        if (me[from] == 0) throw std::invalid_argument("no checker to move in: " + part);
        --me[from];
        ++me[to];
        if (to == engine::off_index) continue;
        const auto q = static_cast<std::size_t>(engine::opponent_point(v, path[i + 1]));
        if (op[q] == 0) continue;
        if (v == engine::variant::long_nardy || op[q] > 1)
          throw std::invalid_argument("landing on an opposing point in: " + part);
        op[q] = 0;  // R7: the blot is hit
        ++op[engine::bar_index];
      }
    }
  }
  me[engine::off_index] = 0;
  op[engine::off_index] = 0;
  auto out = engine::position::from_sides(me, op, v);
  if (!out) throw std::invalid_argument("invalid result of: " + std::string(moves));
  return *out;
}

/// The results of every legal play, as to_text() strings (a readable set to compare).
inline std::set<std::string> results_of(const engine::play_list& plays) {
  std::set<std::string> out;
  for (const auto& pl : plays) out.insert(to_text(pl.result));
  return out;
}

/// The expected results: `before` after each written play.
inline std::set<std::string> results_after(const engine::position& before,
                                           std::initializer_list<std::string_view> plays,
                                           engine::variant v = engine::variant::standard) {
  std::set<std::string> out;
  for (auto text : plays) out.insert(to_text(after(before, text, v)));
  return out;
}

/// The two games' variants, short for the tests.
inline constexpr auto standard = engine::variant::standard;
inline constexpr auto nardy = engine::variant::long_nardy;

/// A Long Nardy position from build()'s text.
inline engine::position nb(std::string_view text) {
  return build(text, nardy);
}

/// A roll as a test names it: "6-5".
inline std::string roll_name(engine::roll r) {
  return std::to_string(r.die1) + "-" + std::to_string(r.die2);
}

}  // namespace bg::test
