#include "bg/server/dice/dice_verdict.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <map>
#include <vector>

#include "bg/server/dice/derived_dice.hpp"

namespace bg::server {

namespace {

std::string roll_text(const engine::roll& r) {
  return std::to_string(r.die1) + "-" + std::to_string(r.die2);
}

/// The same two dice in any order.
bool same_dice(const engine::roll& a, const engine::roll& b) {
  return (a.die1 == b.die1 && a.die2 == b.die2) || (a.die1 == b.die2 && a.die2 == b.die1);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string roll_name(std::size_t index, const dice_roll_record& r) {
  return "roll " + std::to_string(index + 1) + " (game " + std::to_string(r.game) + ", k " +
         std::to_string(r.k) + ")";
}

dice_verdict fail(std::size_t rolls, std::string why) {
  return dice_verdict{false, rolls, std::move(why)};
}

/// Step 5 for one game: its rolls (in order, with their index in the whole list) against
/// its opening and its plays and passes.
std::optional<std::string> check_game(const game_record& game,
                                      const std::vector<std::size_t>& indexes,
                                      const std::vector<dice_roll_record>& rolls) {
  const std::string g = "game " + std::to_string(game.number);
  std::size_t next = 0;
  // The opening throws: ties are thrown again; the first throw that differs decides.
  std::optional<engine::roll> opening;
  while (next < indexes.size()) {
    const auto& r = rolls[indexes[next++]].dice;
    if (r.die1 != r.die2) {
      opening = r;
      break;
    }
  }
  if (!opening) {
    if (game.opening.valid())
      return g + ": the record has the opening roll " + roll_text(game.opening) +
             " but no opening throw among the rolls";
    if (!indexes.empty()) return g + ": its rolls are all ties, yet the record has no opening roll";
    return std::nullopt;  // a game that ended before its opening roll
  }
  const engine::side first =
      opening->die1 > opening->die2 ? engine::side::red : engine::side::black;
  if (!game.opening.valid())
    return g + ": the opening throw red " + std::to_string(opening->die1) + ", black " +
           std::to_string(opening->die2) + " is missing from the record";
  if (!same_dice(game.opening, *opening) || game.first != first)
    return g + ": the record's opening roll is " + roll_text(game.opening) + " for " +
           std::string(engine::to_string(game.first)) + ", but the throw red " +
           std::to_string(opening->die1) + ", black " + std::to_string(opening->die2) + " gives " +
           std::string(engine::to_string(first)) + " the first play";
  bool opening_used = false;
  std::size_t turn = 0;
  for (const auto& a : game.actions) {
    if (a.what != record_action::kind::play && a.what != record_action::kind::pass) continue;
    ++turn;
    const std::string which =
        g + ", turn " + std::to_string(turn) + " (" + std::string(engine::to_string(a.who)) + " " +
        (a.what == record_action::kind::play ? "plays " + a.play : "passes") + ")";
    if (!opening_used) {
      opening_used = true;
      if (!same_dice(a.dice, *opening))
        return which + ": played with " + roll_text(a.dice) + " but the opening roll was " +
               roll_text(*opening);
      continue;
    }
    if (next >= indexes.size())
      return which + ": played with " + roll_text(a.dice) + " but the record has no roll for it";
    const auto& r = rolls[indexes[next]];
    if (a.dice != r.dice)
      return which + ": played with " + roll_text(a.dice) + " but " + roll_name(indexes[next], r) +
             " was " + roll_text(r.dice);
    ++next;
  }
  // A game may end after a roll and before its play (a resignation, a forfeit, time).
  if (indexes.size() - next > 1)
    return g + ": " + std::to_string(indexes.size() - next) +
           " rolls at its end were never played (at most one can be)";
  return std::nullopt;
}

dice_verdict verify(const match_record& record) {
  const auto& d = record.dice;
  if (d.commitment.empty())
    return fail(0, "this match has no verifiable dice (its record has no commitment)");
  if (d.seed.empty()) return fail(0, "the seed is not revealed: the match is not over");
  const auto seed = derived_dice::seed_from_hex(d.seed);
  if (!seed) return fail(0, "the revealed seed is not 64 hex digits");
  const std::string committed = derived_dice::commitment_of(*seed);
  if (committed != lower(d.commitment))
    return fail(0, "the seed does not match the commitment: SHA-256 of the seed is " + committed +
                       ", the match committed to " + d.commitment);
  // 3 and 4: numbering and derivation, roll by roll.
  std::map<int, std::vector<std::size_t>> by_game;
  for (std::size_t i = 0; i < d.rolls.size(); ++i) {
    const auto& r = d.rolls[i];
    const bool new_game = i == 0 || r.game != d.rolls[i - 1].game;
    if (r.game < 1 || (i > 0 && r.game < d.rolls[i - 1].game) || (new_game && r.k != 0) ||
        (!new_game && r.k != d.rolls[i - 1].k + 1))
      return fail(i, roll_name(i, r) + " is out of order: rolls are numbered from k 0 in each " +
                         "game, one after another");
    const auto derived = derived_dice::derive(*seed, d.player_seeds[0], d.player_seeds[1],
                                              static_cast<std::uint32_t>(r.game), r.k);
    if (derived != r.dice)
      return fail(i, roll_name(i, r) + ": the record says " + roll_text(r.dice) +
                         " but the seed gives " + roll_text(derived));
    by_game[r.game].push_back(i);
  }
  // 5: the games played with exactly those dice.
  for (const auto& game : record.games) {
    const auto it = by_game.find(game.number);
    static const std::vector<std::size_t> none;
    if (const auto why = check_game(game, it == by_game.end() ? none : it->second, d.rolls))
      return fail(d.rolls.size(), *why);
    if (it != by_game.end()) by_game.erase(it);
  }
  if (!by_game.empty())
    return fail(d.rolls.size(), "the rolls of game " + std::to_string(by_game.begin()->first) +
                                    " belong to no game of the record");
  return dice_verdict{true, d.rolls.size(), {}};
}

}  // namespace

dice_verdict verify_dice(const match_record& record) {
  try {
    return verify(record);
  } catch (const std::exception& e) {
    return fail(0, std::string("the record could not be checked: ") + e.what());
  }
}

}  // namespace bg::server
