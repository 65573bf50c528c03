#include "bg/engine/notation.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "rules.hpp"

namespace bg::engine {

// ---------------------------------------------------------------------------------
// Parsing

namespace {

/// A `bad_notation` error: English `why`, catalogue message `key` with `args`.
error bad(std::string why, std::string key, std::vector<sentence_arg> args = {}) {
  return make_error("bad_notation", std::move(why), std::move(key), std::move(args));
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

/// Reads one point at the start of `s` ("bar", "off" or 1..2 digits); advances `s`.
bool read_point(std::string_view& s, int& point) {
  for (std::string_view word : {"bar", "off"}) {
    if (s.size() >= 3 && iequals(s.substr(0, 3), word)) {
      point = word == "bar" ? bar_index : 0;
      s.remove_prefix(3);
      return true;
    }
  }
  std::size_t n = 0;
  int v = 0;
  while (n < s.size() && n < 3 && std::isdigit(static_cast<unsigned char>(s[n]))) {
    v = v * 10 + (s[n] - '0');
    ++n;
  }
  if (n == 0 || n == 3) return false;
  if (v > 25) return false;
  point = v;
  s.remove_prefix(n);
  return true;
}

/// The start of `token` as a sentence shows it: at most 20 printable characters,
/// then "..." when it is longer.
std::string shown(std::string_view token) {
  std::string t(token.substr(0, 20));
  for (auto& c : t)
    if (!std::isprint(static_cast<unsigned char>(c))) c = '?';
  return t + (token.size() > 20 ? "..." : "");
}

/// `bad_notation` for `token`: "cannot read \"TOKEN\": " + `why`, catalogue message `key`.
error unreadable(std::string_view token, std::string_view why, std::string key) {
  std::string t = shown(token);
  return bad("cannot read \"" + t + "\": " + std::string(why), std::move(key), {{"token", t}});
}

}  // namespace

result<std::vector<written_move>> parse_notation(std::string_view text) {
  std::vector<written_move> parts;
  int checker_moves = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == ',' || c == '\t') {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != ',' && text[j] != '\t') ++j;
    const std::string_view token = text.substr(i, j - i);
    i = j;
    std::string_view s = token;
    written_move part;
    int point = 0;
    if (!read_point(s, point))
      return unreadable(token, "a part looks like 24/18, bar/22 or 6/off",
                        "engine.notation_unreadable");
    part.points.push_back(point);
    part.hits.push_back(false);
    while (!s.empty() && s.front() == '/') {
      s.remove_prefix(1);
      if (!read_point(s, point))
        return unreadable(token, "expected a point, bar or off after /",
                          "engine.notation_point_expected");
      part.points.push_back(point);
      part.hits.push_back(false);
      if (!s.empty() && s.front() == '*') {
        part.hits.back() = true;
        s.remove_prefix(1);
      }
    }
    if (part.points.size() < 2)
      return unreadable(token, "a part needs a start and an end, as 24/18",
                        "engine.notation_needs_end");
    if (!s.empty() && s.front() == '(') {
      if (s.size() < 3 || !std::isdigit(static_cast<unsigned char>(s[1])) || s[2] != ')')
        return unreadable(token, "a repeat is written (2), (3) or (4)",
                          "engine.notation_bad_repeat");
      part.repeat = s[1] - '0';
      if (part.repeat < 1 || part.repeat > 4)
        return unreadable(token, "a repeat is written (2), (3) or (4)",
                          "engine.notation_bad_repeat");
      s.remove_prefix(3);
    }
    if (!s.empty())
      return unreadable(token, "unexpected text at its end", "engine.notation_trailing_text");
    checker_moves += part.repeat * static_cast<int>(part.points.size() - 1);
    if (checker_moves > 4)
      return bad("a play has at most four checker moves", "engine.notation_too_many_moves");
    parts.push_back(std::move(part));
  }
  if (parts.empty())
    return bad("write the play, for example /move 24/18 13/11", "engine.notation_empty");
  return parts;
}

// ---------------------------------------------------------------------------------
// Formatting (gnubg's FormatMove behaviour, reimplemented)

namespace {

std::string point_name(int p) {
  if (p == 0) return "off";
  if (p == bar_index) return "bar";
  return std::to_string(p);
}

/// True when the opponent had a checker on the mover's point `p` before the play.
bool opponent_on(const position& before, variant v, int p) {
  return p >= 1 && p <= 24 && before.opponent(opponent_point(v, p)) != 0;
}

}  // namespace

std::string format_play(const position& before, const play& pl, variant v) {
  struct part {
    std::array<int, 5> points{};
    int n = 0;  // number of points
    int count = 1;
    bool alive = true;
  };
  std::array<part, 4> parts{};
  const int n = pl.count > 4 ? 4 : pl.count;
  for (int i = 0; i < n; ++i) {
    auto& p = parts[static_cast<std::size_t>(i)];
    p.points[0] = pl.moves[static_cast<std::size_t>(i)].from;
    p.points[1] = pl.moves[static_cast<std::size_t>(i)].to;
    p.n = 2;
  }
  // Highest starting point first, then highest end (insertion sort: at most 4 parts).
  auto before_in_order = [](const part& a, const part& b) {
    if (a.points[0] != b.points[0]) return a.points[0] > b.points[0];
    return a.points[1] > b.points[1];
  };
  for (std::size_t i = 1; i < static_cast<std::size_t>(n); ++i)
    for (std::size_t j = i; j > 0 && before_in_order(parts[j], parts[j - 1]); --j)
      std::swap(parts[j], parts[j - 1]);
  // A checker that moves on from where a part ended joins that part.
  for (int i = 0; i < n; ++i) {
    auto& pi = parts[static_cast<std::size_t>(i)];
    for (int j = i + 1; j < n; ++j) {
      auto& pj = parts[static_cast<std::size_t>(j)];
      if (!pi.alive || !pj.alive) continue;
      const int end = pi.points[static_cast<std::size_t>(pi.n - 1)];
      if (end != pj.points[0]) continue;
      if (opponent_on(before, v, end)) {
        pi.points[static_cast<std::size_t>(pi.n++)] = pj.points[1];  // keep the hit point
      } else {
        pi.points[static_cast<std::size_t>(pi.n - 1)] = pj.points[1];  // elide it
      }
      pj.alive = false;
    }
  }
  // Identical parts are written once with a count.
  for (int i = 0; i < n; ++i) {
    auto& pi = parts[static_cast<std::size_t>(i)];
    if (!pi.alive) continue;
    for (int j = i + 1; j < n; ++j) {
      auto& pj = parts[static_cast<std::size_t>(j)];
      if (pj.alive && pj.n == pi.n &&
          std::equal(pi.points.begin(), pi.points.begin() + pi.n, pj.points.begin())) {
        ++pi.count;
        pj.alive = false;
      }
    }
  }
  std::string out;
  unsigned marked = 0;  // points already marked as hit
  for (int i = 0; i < n; ++i) {
    const auto& p = parts[static_cast<std::size_t>(i)];
    if (!p.alive) continue;
    if (!out.empty()) out += ' ';
    out += point_name(p.points[0]);
    for (int k = 1; k < p.n - 1; ++k) {
      const int q = p.points[static_cast<std::size_t>(k)];
      out += '/';
      out += point_name(q);
      out += '*';
      marked |= 1u << q;
    }
    const int last = p.points[static_cast<std::size_t>(p.n - 1)];
    out += '/';
    out += point_name(last);
    if (last != 0 && opponent_on(before, v, last) && !(marked & (1u << last))) {
      out += '*';
      marked |= 1u << last;
    }
    if (p.count > 1) {
      out += '(';
      out += static_cast<char>('0' + p.count);
      out += ')';
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------
// Matching a written play to a legal one

namespace {

struct leg {
  int from;
  int to;
  bool hit_marked;
};

struct found {
  position result;
  int dice_used;
  bool used_high;
  bool exact_hits;
};

struct failure {
  int depth = -1;
  error why{"illegal_play", "", "", {}};
};

/// An `illegal_play` error: English `message`, catalogue message `key` with `args`.
error illegal(std::string message, std::string key, std::vector<sentence_arg> args = {}) {
  return make_error("illegal_play", std::move(message), std::move(key), std::move(args));
}

std::string roll_text(roll r) {
  return std::to_string(r.high()) + "-" + std::to_string(r.low());
}

template <variant V>
struct matcher {
  roll r;
  detail::turn_context ctx;
  std::vector<leg> legs;
  std::vector<found> results;
  failure worst;  // the failure that got furthest

  // The failure reported is the one that got furthest; at equal progress a rule that
  // refused a move ("point 5 is blocked") says more than a die that did not fit.
  void fail(int depth, error why, bool rule = false) {
    const int rank = depth * 2 + (rule ? 1 : 0);
    if (rank > worst.depth) worst = failure{rank, std::move(why)};
  }

  /// The sentence of rule refusal `why` of moving a checker from `from` with `die`.
  static error refusal_error(detail::refusal why, int from, int die) {
    using detail::refusal;
    switch (why) {
      case refusal::no_checker:
        if (from == bar_index)
          return illegal("you have no checker on the bar", "engine.no_checker_on_bar");
        return illegal("no checker on " + std::to_string(from), "engine.no_checker_on",
                       {{"point", std::int64_t{from}}});
      case refusal::must_enter:
        return illegal("you must enter from the bar first", "engine.must_enter");
      case refusal::head_rule:
        return illegal("only one checker may leave the head (24) this turn", "engine.head_rule");
      case refusal::not_all_home:
        return illegal("you cannot bear off until all your checkers are home",
                       "engine.not_all_home");
      case refusal::higher_checker:
        return illegal("a " + std::to_string(die) + " bears off from " + std::to_string(from) +
                           " only when no checker stands on a higher point",
                       "engine.higher_checker",
                       {{"die", std::to_string(die)}, {"point", std::int64_t{from}}});
      case refusal::blocked:
        return illegal("point " + std::to_string(from - die) + " is blocked",
                       "engine.point_blocked", {{"point", std::int64_t{from - die}}});
      case refusal::six_block:
        return illegal("that would build a six-point block with no opposing checker ahead of it",
                       "engine.six_block");
      case refusal::none:
        break;
    }
    return illegal("that move is not allowed", "engine.move_not_allowed");
  }

  // dice: counts per value; at[i]: where leg i's checker stands now (its `to` once the
  // leg is done). Any unfinished leg may take the next die, so the checkers of
  // different parts can interleave: "bar/15(2)" with 5-5 and two checkers on the bar
  // enters both (R8) before either moves on.
  void search(const position& pos, std::array<int, 7>& dice, std::array<int, 4>& at,
              unsigned legs_left, int depth, bool used_high, bool exact) {
    if (legs_left == 0) {
      results.push_back(found{pos, depth, used_high, exact});
      return;
    }
    bool any_die = false;
    for (std::size_t li = 0; li < legs.size(); ++li) {
      if (!(legs_left & (1u << li))) continue;
      const leg& l = legs[li];
      const int from = at[li];
      for (int d = 1; d <= 6; ++d) {
        if (dice[static_cast<std::size_t>(d)] == 0) continue;
        any_die = true;
        if (l.to != 0 && from - d < l.to) {
          fail(depth, illegal("no die of " + roll_text(r) + " moves " + point_name(l.from) + "/" +
                                  point_name(l.to),
                              "engine.no_die_moves",
                              {{"dice", roll_text(r)},
                               {"from", point_name(l.from)},
                               {"to", point_name(l.to)}}));
          continue;
        }
        position q = pos;
        checker_move m;
        std::uint64_t unused_hash = 0;
        const auto why = detail::try_move<V>(q, from, d, ctx, m, unused_hash);
        if (why != detail::refusal::none) {
          fail(depth + 1, refusal_error(why, from, d), true);
          continue;
        }
        --dice[static_cast<std::size_t>(d)];
        const bool high = used_high || d == r.high();
        at[li] = m.to;
        if (m.to == l.to) {  // the leg is done: its end is marked "*" exactly when it hit
          search(q, dice, at, legs_left & ~(1u << li), depth + 1, high,
                 exact && (m.hit == l.hit_marked));
        } else {  // an unwritten intermediate point: exact only when nothing was hit there
          search(q, dice, at, legs_left, depth + 1, high, exact && !m.hit);
        }
        at[li] = from;
        ++dice[static_cast<std::size_t>(d)];
      }
    }
    if (!any_die)
      fail(depth, illegal("the play needs more dice than " + roll_text(r) + " gives",
                          "engine.needs_more_dice", {{"dice", roll_text(r)}}));
  }
};

/// Long nardy: the index in `legal` of the position the written legs lead to when each
/// leg just takes a checker from its start to its end, or -1.
int result_of_parts(const position& before, const play_list& legal, const std::vector<leg>& legs) {
  std::array<int, 26> me{};
  for (int i = 0; i <= bar_index; ++i) me[static_cast<std::size_t>(i)] = before.mover(i);
  for (const auto& l : legs) {
    --me[static_cast<std::size_t>(l.from)];
    ++me[static_cast<std::size_t>(l.to)];
  }
  position after = before;
  for (int i = 0; i <= bar_index; ++i) {
    const int n = me[static_cast<std::size_t>(i)];
    if (n < 0) return -1;
    after.raw_mover()[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n);
  }
  return legal.find(after);
}

template <variant V>
result<int> match_parts(const position& before, roll r, const play_list& legal,
                        const std::vector<written_move>& parts) {
  matcher<V> m{r, detail::context_for<V>(before, r), {}, {}, {}};
  for (const auto& part : parts) {
    for (int k = 0; k < part.repeat; ++k) {
      for (std::size_t i = 0; i + 1 < part.points.size(); ++i) {
        const int from = part.points[i];
        const int to = part.points[i + 1];
        if (from == 0)
          return illegal("a checker that is off cannot move", "engine.off_cannot_move");
        if (to == bar_index || (to != 0 && to >= from))
          return illegal(point_name(from) + "/" + point_name(to) +
                             " goes backwards: you move from 24 towards 1",
                         "engine.backwards", {{"from", point_name(from)}, {"to", point_name(to)}});
        m.legs.push_back(leg{from, to, part.hits[i + 1]});
      }
    }
  }
  std::array<int, 7> dice{};
  if (r.is_double()) {
    dice[static_cast<std::size_t>(r.die1)] = 4;
  } else {
    dice[static_cast<std::size_t>(r.die1)] = 1;
    dice[static_cast<std::size_t>(r.die2)] = 1;
  }
  std::array<int, 4> at{};
  for (std::size_t i = 0; i < m.legs.size(); ++i) at[i] = m.legs[i].from;
  m.search(before, dice, at, (1u << m.legs.size()) - 1u, 0, false, true);
  if constexpr (V == variant::long_nardy) {
    // L2: nothing is ever hit, so the written parts fix the result whatever order the
    // checker moves are made in. The search above moves each part's checker itself;
    // when L5 forbids that order (24/16 with 2-2 may be legal only as 18/16 20/18
    // 22/20 24/22) the play is still legal when its result is in the list.
    const bool reached = std::any_of(m.results.begin(), m.results.end(),
                                     [&](const found& f) { return legal.find(f.result) >= 0; });
    if (!reached) {
      if (const int idx = result_of_parts(before, legal, m.legs); idx >= 0) return idx;
    }
  }
  if (m.results.empty()) return m.worst.why;

  int chosen = -1;
  bool chosen_exact = false;
  bool ambiguous = false;
  int max_used = 0;
  bool any_high = false;
  for (const auto& f : m.results) {
    max_used = std::max(max_used, f.dice_used);
    any_high = any_high || f.used_high;
    const int idx = legal.find(f.result);
    if (idx < 0) continue;
    if (chosen < 0 || (f.exact_hits && !chosen_exact)) {
      ambiguous = false;
      chosen = idx;
      chosen_exact = f.exact_hits;
    } else if (idx != chosen && f.exact_hits == chosen_exact) {
      ambiguous = true;
    }
  }
  if (chosen >= 0) {
    if (ambiguous)
      return make_error("ambiguous_play",
                        "that play can be made in more than one way: mark each hit with *",
                        "engine.ambiguous_play");
    return chosen;
  }
  // Every reading is a sequence of allowed moves, but none is a legal play: R6.
  if (r.is_double() && max_used < legal.dice_used())
    return illegal(std::to_string(legal.dice_used()) + " moves must be played",
                   "engine.moves_must_be_played", {{"count", std::int64_t{legal.dice_used()}}});
  if (!r.is_double() && legal.dice_used() == 2 && max_used < 2)
    return illegal("both dice must be played", "engine.both_dice_must_be_played");
  if (!r.is_double() && legal.dice_used() == 1 && !any_high)
    return illegal(std::to_string(r.high()) + " must be played", "engine.high_die_must_be_played",
                   {{"die", std::to_string(r.high())}});
  return illegal("that play is not legal with " + roll_text(r), "engine.play_not_legal",
                 {{"dice", roll_text(r)}});
}

}  // namespace

result<int> match_play(const position& before, roll r, variant v, const play_list& legal,
                       std::string_view text) {
  auto parts = parse_notation(text);
  if (!parts) return parts.err();
  if (legal.empty())
    return illegal("no play is possible with " + roll_text(r), "engine.no_play_possible",
                   {{"dice", roll_text(r)}});
  return v == variant::standard ? match_parts<variant::standard>(before, r, legal, *parts)
                                : match_parts<variant::long_nardy>(before, r, legal, *parts);
}

}  // namespace bg::engine
