#include "bg/bots/gnubg_player.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>

#include "bg/bots/fibs_board.hpp"

namespace bg::bots {

namespace {

/// True for gnubg's plain notation of a play: points 0..25 joined by '/', parts
/// separated by blanks ("24/18 18/13", "25/22 6/0", "6/4 6/4 5/3 3/1"), hits marked '*'.
bool is_play(std::string_view a) {
  if (a.empty() || a.find('/') == std::string_view::npos || a.size() > 80) return false;
  return std::all_of(a.begin(), a.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '/' || c == '*' || c == ' ' || c == '(' || c == ')';
  });
}

/// Parses gnubg's evaluation answer: six numbers (win, win gammon, win backgammon,
/// lose gammon, lose backgammon, equity), from the side on roll.
std::optional<std::array<double, 6>> parse_evaluation(std::string_view a) {
  std::array<double, 6> out{};
  std::size_t i = 0;
  while (i < out.size()) {
    while (!a.empty() && a.front() == ' ') a.remove_prefix(1);
    if (a.empty()) return std::nullopt;
    const auto end = a.find(' ');
    const auto word = a.substr(0, end);
    // from_chars for double: GCC 12's libstdc++ has it.
    double v = 0;
    const auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    if (ec != std::errc{} || ptr != word.data() + word.size()) return std::nullopt;
    out[i++] = v;
    a.remove_prefix(word.size());
  }
  while (!a.empty() && a.front() == ' ') a.remove_prefix(1);
  if (!a.empty()) return std::nullopt;
  for (std::size_t k = 0; k < 5; ++k)
    if (!(out[k] >= -1e-6 && out[k] <= 1.0 + 1e-6)) return std::nullopt;
  return out;
}

/// The points a win of `kind` (1, 2, 3 times the cube) is worth to a side that needs
/// `needed` points (0: no target, a money game).
double worth(int kind, int cube, int needed) {
  const int points = kind * cube;
  return needed > 0 ? std::min(points, needed) : points;
}

}  // namespace

std::string gnubg_name(gnubg_level level) {
  return "gnubg-" + std::string(to_string(level));
}

gnubg_player::gnubg_player(gnubg_pool& pool, gnubg_level level) : pool_(pool), level_(level) {}

std::string gnubg_player::name() const {
  return gnubg_name(level_);
}

void gnubg_player::decide(const situation& s, answer_handler done) {
  if (s.game_variant != engine::variant::standard) {
    done(engine::make_error("bot_failed", "GNU Backgammon plays standard backgammon only",
                            "table.bot_standard_only"));
    return;
  }
  const bool money = s.kind != engine::match_kind::points;
  // gnubg reads the Jacoby rule from the board's options (its default: on); gammond's
  // money games (basis sessions, free play) have none.
  const std::string options = money ? " jacobyrule off" : "";
  switch (s.asked) {
    case question::play:
      pool_.ask(level_, fibs_board(s) + options, is_play,
                [done = std::move(done)](engine::result<std::string> a) {
                  if (!a) return done(a.err());
                  done("/move " + *a);
                });
      return;
    case question::double_or_roll:
      pool_.ask(
          level_, fibs_board(s) + options,
          [](std::string_view a) { return a == "double" || a == "roll"; },
          [done = std::move(done)](engine::result<std::string> a) {
            if (!a) return done(a.err());
            done("/" + *a);
          });
      return;
    case question::take_or_drop:
      pool_.ask(
          level_, fibs_board(s) + options,
          [](std::string_view a) { return a == "take" || a == "drop" || a == "beaver"; },
          [done = std::move(done)](engine::result<std::string> a) {
            if (!a) return done(a.err());
            done(std::string(*a == "drop" ? "/drop" : "/take"));  // no beavers here: a take
          });
      return;
    case question::accept_or_reject: {
      const auto settings = settings_of(level_);
      std::string request = "evaluation fibsboard " + fibs_board(s) + options + " plies " +
                            std::to_string(settings.plies) + " cubeless" +
                            (settings.prune ? " prune" : "");
      const bool bot_on_roll = s.on_roll == s.bot;
      const int cube = s.cube.value;
      const int bot_needs = money ? 0 : s.match_length - s.bot_score;
      const int opponent_needs = money ? 0 : s.match_length - s.opponent_score;
      const double offered = worth(static_cast<int>(s.resign_kind), cube, bot_needs);
      pool_.ask(
          level_, std::move(request),
          [](std::string_view a) { return parse_evaluation(a).has_value(); },
          [done = std::move(done), bot_on_roll, cube, bot_needs, opponent_needs,
           offered](engine::result<std::string> a) {
            if (!a) return done(a.err());
            const auto e = *parse_evaluation(*a);
            // From the side on roll; turned to the bot's side when that is the opponent.
            double win = e[0], win_g = e[1], win_bg = e[2], lose_g = e[3], lose_bg = e[4];
            if (!bot_on_roll) {
              win = 1.0 - e[0];
              win_g = e[3];
              win_bg = e[4];
              lose_g = e[1];
              lose_bg = e[2];
            }
            const double lose = 1.0 - win;
            const double expected = (win - win_g) * worth(1, cube, bot_needs) +
                                    (win_g - win_bg) * worth(2, cube, bot_needs) +
                                    win_bg * worth(3, cube, bot_needs) -
                                    (lose - lose_g) * worth(1, cube, opponent_needs) -
                                    (lose_g - lose_bg) * worth(2, cube, opponent_needs) -
                                    lose_bg * worth(3, cube, opponent_needs);
            done(std::string(offered + 1e-6 >= expected ? "/accept" : "/reject"));
          });
      return;
    }
  }
  done(engine::make_error("bot_failed", "the computer player was asked something it cannot answer",
                          "table.bot_cannot_answer"));
}

}  // namespace bg::bots
