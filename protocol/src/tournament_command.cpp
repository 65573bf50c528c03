/// @file tournament_command.cpp
/// The grammar of /tournament (tournament_command.hpp, RULES.md S6).

#include "bg/protocol/tournament_command.hpp"

#include <cctype>
#include <charconv>
#include <vector>

#include "grammar_words.hpp"

namespace bg::protocol {

using detail::bad;
using detail::lower;

namespace {

const char* const create_usage =
    "/tournament create NAME knockout|swiss|arena [rounds R] [minutes M] [variant "
    "standard|long] [match N] [clock MIN DELAY] [start +SECONDS|HH:MM] [min P] [max P] "
    "[unrated]";
const char* const adjudicate_usage =
    "/tournament adjudicate NAME TABLE WINNER REASON (the reason is logged)";

/// The words of `s` (separated by blanks) and where each begins in `s`.
std::vector<std::pair<std::string_view, std::size_t>> words_of(std::string_view s) {
  std::vector<std::pair<std::string_view, std::size_t>> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t begin = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > begin) out.emplace_back(s.substr(begin, i - begin), begin);
  }
  return out;
}

/// A whole number from `low` to `high` in at most 6 digits, else nullopt.
std::optional<int> bounded_number(std::string_view text, int low, int high) {
  int n = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || text.size() > 6 || ec != std::errc{} || ptr != text.data() + text.size() ||
      n < low || n > high)
    return std::nullopt;
  return n;
}

/// "HH:MM" as minutes after midnight, else nullopt.
std::optional<int> clock_time(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || text.size() - colon != 3) return std::nullopt;
  const auto h = bounded_number(text.substr(0, colon), 0, 23);
  const auto m = bounded_number(text.substr(colon + 1), 0, 59);
  if (!h || !m || colon == 0 || colon > 2) return std::nullopt;
  return *h * 60 + *m;
}

/// The terms after `create NAME KIND`, each once, in any order.
std::optional<engine::error> parse_terms(
    const std::vector<std::pair<std::string_view, std::size_t>>& w, tournament_command& t) {
  const auto word = [&](std::size_t i) { return lower(w[i].first); };
  const auto value = [&](std::size_t& i, int low, int high, const char* what,
                         int& out) -> std::optional<engine::error> {
    if (out != 0)
      return bad(std::string(what) + " is given twice: " + create_usage, "tournament.term_twice",
                 {{"term", std::string(what)}, {"usage", std::string(create_usage)}});
    const auto n = i + 1 < w.size() ? bounded_number(w[i + 1].first, low, high) : std::nullopt;
    if (!n)
      return bad(std::string(what) + " takes a number from " + std::to_string(low) + " to " +
                     std::to_string(high),
                 "tournament.term_range",
                 {{"term", std::string(what)},
                  {"low", std::to_string(low)},
                  {"high", std::to_string(high)}});
    out = *n;
    ++i;
    return std::nullopt;
  };
  bool variant = false;
  for (std::size_t i = 3; i < w.size(); ++i) {
    const auto k = word(i);
    std::optional<engine::error> e;
    if (k == "rounds") {
      e = value(i, 1, max_swiss_rounds, "rounds", t.rounds);
    } else if (k == "minutes") {
      e = value(i, 1, max_arena_minutes, "minutes", t.minutes);
    } else if (k == "match") {
      e = value(i, 1, 25, "match", t.match_length);
    } else if (k == "min") {
      e = value(i, 2, max_tournament_players, "min", t.min_players);
    } else if (k == "max") {
      e = value(i, 2, max_tournament_players, "max", t.max_players);
    } else if (k == "variant" && !variant && i + 1 < w.size()) {
      const auto v = engine::variant_from_string(word(i + 1));
      if (!v) return bad("variant is standard or long", "tournament.variant_words");
      t.game_variant = *v;
      variant = true;
      ++i;
    } else if (k == "clock" && !t.clock) {
      const auto m = i + 1 < w.size() ? bounded_number(w[i + 1].first, 1, 240) : std::nullopt;
      const auto d = i + 2 < w.size() ? bounded_number(w[i + 2].first, 0, 120) : std::nullopt;
      if (!m || !d)
        return bad(
            "clock takes the minutes of each bank (1 to 240) and the delay per move "
            "(0 to 120 s): clock 5 12; a tournament always has a clock",
            "tournament.clock_terms");
      t.clock = std::pair{*m, *d};
      i += 2;
    } else if (k == "start" && !t.start_in_seconds && !t.start_at_minute && i + 1 < w.size()) {
      const auto s = w[i + 1].first;
      if (!s.empty() && s.front() == '+') {
        t.start_in_seconds = bounded_number(s.substr(1), 0, max_start_delay_seconds);
        if (!t.start_in_seconds)
          return bad("start +SECONDS takes up to a week: start +600", "tournament.start_delay");
      } else {
        t.start_at_minute = clock_time(s);
        if (!t.start_at_minute)
          return bad("start takes +SECONDS or a time HH:MM (UTC)", "tournament.start_words");
      }
      ++i;
    } else if (k == "unrated" && !t.unrated) {
      t.unrated = true;
    } else {
      return bad(create_usage, "tournament.create_usage");
    }
    if (e) return e;
  }
  if (t.kind != "swiss" && t.rounds != 0)
    return bad("rounds is for a Swiss tournament (a knockout plays until one is left)",
               "tournament.rounds_swiss_only");
  if (t.kind != "arena" && t.minutes != 0)
    return bad("minutes is for an arena", "tournament.minutes_arena_only");
  if (t.min_players != 0 && t.max_players != 0 && t.min_players > t.max_players)
    return bad("min is above max", "tournament.min_above_max");
  return std::nullopt;
}

}  // namespace

engine::result<tournament_command> parse_tournament(std::string_view rest) {
  const auto w = words_of(rest);
  tournament_command t;
  if (w.empty())
    return bad(
        "/tournament NAME shows a tournament; /tournament create, cancel or adjudicate "
        "manage one (administrators, or players where the host allows): /help tournament",
        "tournament.command_usage");
  const std::string action = lower(w[0].first);
  if (action == "create") {
    if (w.size() < 3) return bad(create_usage, "tournament.create_usage");
    t.action = tournament_action::create;
    t.name = std::string(w[1].first);
    t.kind = lower(w[2].first);
    if (t.kind != "knockout" && t.kind != "swiss" && t.kind != "arena")
      return bad("a tournament is a knockout, a swiss or an arena: " + std::string(create_usage),
                 "tournament.kind_words", {{"usage", std::string(create_usage)}});
    if (auto e = parse_terms(w, t)) return *e;
    return t;
  }
  if (action == "cancel" || action == "show") {
    if (w.size() != 2)
      return bad("/tournament " + action + " NAME", "tournament.name_usage", {{"action", action}});
    t.action = action == "cancel" ? tournament_action::cancel : tournament_action::show;
    t.name = std::string(w[1].first);
    return t;
  }
  if (action == "adjudicate") {
    if (w.size() < 5) return bad(adjudicate_usage, "tournament.adjudicate_usage");
    t.action = tournament_action::adjudicate;
    t.name = std::string(w[1].first);
    t.table = std::string(w[2].first);
    t.winner = std::string(w[3].first);
    t.reason = std::string(rest.substr(w[4].second));
    if (t.reason.size() > max_adjudication_reason)
      return bad("the reason takes at most " + std::to_string(max_adjudication_reason) + " bytes",
                 "tournament.reason_too_long",
                 {{"count", static_cast<std::int64_t>(max_adjudication_reason)}});
    return t;
  }
  if (w.size() == 1) {  // /tournament NAME
    t.action = tournament_action::show;
    t.name = std::string(w[0].first);
    return t;
  }
  return bad("/tournament takes create, cancel, show or adjudicate: /help tournament",
             "tournament.actions");
}

}  // namespace bg::protocol
