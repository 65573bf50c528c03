#include "bg/bots/fibs_board.hpp"

#include <array>

namespace bg::bots {

namespace {

/// The match length written for a game without a target (a money game to gnubg).
constexpr int unlimited_match = 9999;

}  // namespace

std::string fibs_board(const situation& s) {
  const auto& p = s.position;  // mover = the bot
  std::array<int, 26> board{};
  board[0] = -p.opponent(engine::bar_index);
  for (int point = 1; point <= 24; ++point) {
    const int mine = p.mover(point);
    const int theirs = p.opponent(25 - point);
    board[static_cast<std::size_t>(point)] = mine > 0 ? mine : -theirs;
  }
  board[25] = p.mover(engine::bar_index);

  const bool money = s.kind != engine::match_kind::points;
  const bool take = s.asked == question::take_or_drop;
  // A take is asked with the doubler's turn; a resignation is evaluated from the side
  // actually on roll; plays and doubles are the bot's own turn.
  int turn = 1;
  if (take) turn = -1;
  if (s.asked == question::accept_or_reject && s.on_roll != s.bot) turn = -1;
  const bool bot_owns = s.cube.owner && *s.cube.owner == s.bot;
  const bool opponent_owns = s.cube.owner && *s.cube.owner != s.bot;
  const int bot_may = opponent_owns ? 0 : 1;
  const int opponent_may = bot_owns ? 0 : 1;
  const bool play = s.asked == question::play;

  std::string line = "board:gnubg:opponent:";
  auto add = [&line](int n) {
    line += std::to_string(n);
    line += ':';
  };
  add(money ? unlimited_match : s.match_length);
  add(money ? 0 : s.bot_score);
  add(money ? 0 : s.opponent_score);
  for (const int n : board) add(n);
  add(turn);
  add(play ? s.dice.die1 : 0);
  add(play ? s.dice.die2 : 0);
  add(0);  // the opponent's dice
  add(0);
  add(s.cube.value);
  add(bot_may);
  add(opponent_may);
  add(take ? 1 : 0);  // was doubled
  add(1);             // colour: the bot is O
  add(-1);            // direction: the bot moves from 25 to 0
  add(0);             // home
  add(25);            // bar
  add(p.mover(engine::off_index));
  add(p.opponent(engine::off_index));
  add(p.mover(engine::bar_index));
  add(p.opponent(engine::bar_index));
  add(0);                                  // can move
  add(0);                                  // forced move
  add(!money && s.post_crawford ? 1 : 0);  // did Crawford
  line += '0';                             // redoubles
  return line;
}

}  // namespace bg::bots
