#include "bg/server/tournament/tournament_rules.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

namespace bg::server {

// --- Knockout ------------------------------------------------------------------------

std::vector<entrant> seeded(std::vector<entrant> field) {
  std::stable_sort(field.begin(), field.end(), [](const entrant& a, const entrant& b) {
    if (a.rating != b.rating) return a.rating > b.rating;
    return a.name < b.name;
  });
  return field;
}

int knockout_rounds(std::size_t players) {
  int rounds = 0;
  for (std::size_t size = 1; size < players; size *= 2) ++rounds;
  return rounds;
}

namespace {

/// The seeds (1-based) of a bracket of `size` (a power of two) in bracket order: 1, 8,
/// 4, 5, 2, 7, 3, 6 for 8, so that seeds 1 and 2 can only meet in the final.
std::vector<std::size_t> bracket_order(std::size_t size) {
  std::vector<std::size_t> order{1};
  while (order.size() < size) {
    const std::size_t next = order.size() * 2;
    std::vector<std::size_t> wider;
    wider.reserve(next);
    for (const std::size_t s : order) {
      wider.push_back(s);
      wider.push_back(next + 1 - s);
    }
    order = std::move(wider);
  }
  return order;
}

}  // namespace

std::vector<round_pairing> knockout_first_round(const std::vector<entrant>& field) {
  if (field.size() < 2) throw std::invalid_argument("a knockout needs two players at least");
  const auto seeds = seeded(field);
  const auto order = bracket_order(std::size_t{1} << knockout_rounds(field.size()));
  std::vector<round_pairing> out;
  for (std::size_t i = 0; i < order.size(); i += 2) {
    // The higher seed is always the smaller number of the two, and always in the field.
    const std::size_t high = std::min(order[i], order[i + 1]);
    const std::size_t low = std::max(order[i], order[i + 1]);
    round_pairing p{seeds[high - 1].name, std::nullopt};
    if (low <= seeds.size()) p.black = seeds[low - 1].name;
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<round_pairing> knockout_next_round(const std::vector<std::string>& winners) {
  if (winners.size() <= 1) return {};
  if (winners.size() % 2 != 0)
    throw std::invalid_argument("a knockout round needs an even number of winners");
  std::vector<round_pairing> out;
  for (std::size_t i = 0; i < winners.size(); i += 2)
    out.push_back(round_pairing{winners[i], winners[i + 1]});
  return out;
}

// --- Swiss ---------------------------------------------------------------------------

std::vector<standing> swiss_standings(const std::vector<entrant>& field,
                                      const std::vector<swiss_result>& results) {
  std::map<std::string, int> wins;
  for (const auto& r : results) {
    if (!r.black)
      ++wins[r.red];  // a bye is a win
    else if (r.winner)
      ++wins[*r.winner];
  }
  std::vector<standing> out;
  out.reserve(field.size());
  for (const auto& e : field) {
    standing s;
    s.name = e.name;
    s.rating = e.rating;
    s.wins = s.points = wins.count(e.name) ? wins.at(e.name) : 0;
    for (const auto& r : results) {
      if (!r.black) continue;
      const std::string* opponent = r.red == e.name      ? &*r.black
                                    : *r.black == e.name ? &r.red
                                                         : nullptr;
      if (opponent && wins.count(*opponent)) s.buchholz += wins.at(*opponent);
    }
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const standing& a, const standing& b) {
    if (a.wins != b.wins) return a.wins > b.wins;
    if (a.buchholz != b.buchholz) return a.buchholz > b.buchholz;
    if (a.rating != b.rating) return a.rating > b.rating;
    return a.name < b.name;
  });
  for (std::size_t i = 0; i < out.size(); ++i) out[i].rank = static_cast<int>(i) + 1;
  return out;
}

namespace {

/// The search for a Swiss round's pairings: players by rank (0 the first), their wins,
/// who met whom.
class swiss_search {
 public:
  swiss_search(std::vector<int> wins, std::set<std::pair<std::size_t, std::size_t>> met)
      : wins_(std::move(wins)), met_(std::move(met)) {}

  /// Pairs `remaining` (ranks, in rank order) into `out`; rematches only when
  /// `allow_rematch`. False when no pairing was found within the search's budget.
  bool solve(std::vector<std::size_t>& remaining,
             std::vector<std::pair<std::size_t, std::size_t>>& out, bool allow_rematch) {
    if (remaining.empty()) return true;
    if (++steps_ > budget) return false;
    const std::size_t top = remaining.front();
    for (const std::size_t other : candidates(remaining)) {
      if (!allow_rematch && met_.count({std::min(top, other), std::max(top, other)})) continue;
      std::vector<std::size_t> rest;
      rest.reserve(remaining.size() - 2);
      for (const std::size_t r : remaining)
        if (r != top && r != other) rest.push_back(r);
      out.emplace_back(top, other);
      if (solve(rest, out, allow_rematch)) return true;
      out.pop_back();
      if (steps_ > budget) return false;
    }
    return false;
  }

 private:
  static constexpr std::size_t budget = 200'000;

  /// The partners of `remaining`'s first player, best first: in its group of equal
  /// wins the player half a group below (the top half meets the bottom half), then
  /// those nearest that place (lower first), then the lower groups in rank order.
  [[nodiscard]] std::vector<std::size_t> candidates(
      const std::vector<std::size_t>& remaining) const {
    const std::size_t top = remaining.front();
    std::vector<std::size_t> group;
    std::vector<std::size_t> below;
    for (const std::size_t r : remaining) {
      if (r == top) continue;
      (wins_[r] == wins_[top] ? group : below).push_back(r);
    }
    std::vector<std::size_t> out;
    out.reserve(remaining.size());
    // The group counts `top` too: with g players its ideal partner is the g/2-th after
    // it, index g/2 - 1 of `group`.
    const auto ideal = static_cast<long>((group.size() + 1) / 2) - 1;
    for (long d = 0; out.size() < group.size(); ++d) {
      if (ideal + d < static_cast<long>(group.size()))
        out.push_back(group[static_cast<std::size_t>(ideal + d)]);
      if (d > 0 && ideal - d >= 0) out.push_back(group[static_cast<std::size_t>(ideal - d)]);
    }
    out.insert(out.end(), below.begin(), below.end());
    return out;
  }

  std::vector<int> wins_;
  std::set<std::pair<std::size_t, std::size_t>> met_;
  std::size_t steps_ = 0;
};

}  // namespace

std::vector<round_pairing> swiss_round(const std::vector<entrant>& field,
                                       const std::vector<swiss_result>& results) {
  const auto table = swiss_standings(field, results);
  std::map<std::string, std::size_t> rank;
  std::vector<int> wins;
  for (std::size_t i = 0; i < table.size(); ++i) {
    rank[table[i].name] = i;
    wins.push_back(table[i].wins);
  }
  std::set<std::pair<std::size_t, std::size_t>> met;
  std::set<std::size_t> had_bye;
  for (const auto& r : results) {
    if (!rank.count(r.red)) continue;
    if (!r.black) {
      had_bye.insert(rank.at(r.red));
    } else if (rank.count(*r.black)) {
      const auto a = rank.at(r.red);
      const auto b = rank.at(*r.black);
      met.insert({std::min(a, b), std::max(a, b)});
    }
  }
  std::vector<std::size_t> remaining;
  for (std::size_t i = 0; i < table.size(); ++i) remaining.push_back(i);
  std::vector<round_pairing> out;
  if (remaining.size() % 2 == 1) {
    // The lowest-ranked player who has had no bye (all have: the lowest-ranked).
    std::size_t bye = remaining.back();
    for (auto it = remaining.rbegin(); it != remaining.rend(); ++it)
      if (!had_bye.count(*it)) {
        bye = *it;
        break;
      }
    remaining.erase(std::find(remaining.begin(), remaining.end(), bye));
    out.push_back(round_pairing{table[bye].name, std::nullopt});
  }
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  {
    swiss_search search(wins, met);
    auto copy = remaining;
    if (!search.solve(copy, pairs, /*allow_rematch=*/false)) {
      pairs.clear();
      swiss_search again(wins, met);
      copy = remaining;
      again.solve(copy, pairs, /*allow_rematch=*/true);  // always succeeds at once
    }
  }
  std::vector<round_pairing> played;
  for (const auto& [red, black] : pairs)
    played.push_back(round_pairing{table[red].name, table[black].name});
  played.insert(played.end(), out.begin(), out.end());  // the bye last
  return played;
}

// --- Arena ---------------------------------------------------------------------------

int arena_score::add(bool won, win_kind kind) {
  if (!won) {
    streak = 0;
    return 0;
  }
  int scored = kind == win_kind::backgammon ? 4 : kind == win_kind::gammon ? 3 : 2;
  if (on_fire()) scored *= 2;
  points += scored;
  ++wins;
  ++streak;
  return scored;
}

std::vector<std::pair<std::size_t, std::size_t>> arena_pairs(
    const std::vector<arena_waiting>& pool) {
  std::vector<std::size_t> order(pool.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return pool[a].arrival < pool[b].arrival; });
  std::vector<bool> paired(pool.size(), false);
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const std::size_t red : order) {
    if (paired[red]) continue;
    std::optional<std::size_t> best;
    std::optional<std::size_t> rematch;  // the last opponent, if nobody else waits
    for (const std::size_t black : order) {
      if (black == red || paired[black]) continue;
      if (pool[red].last_opponent == pool[black].name ||
          pool[black].last_opponent == pool[red].name) {
        if (!rematch) rematch = black;
        continue;
      }
      const int gap = std::abs(pool[red].points - pool[black].points);
      if (!best || gap < std::abs(pool[red].points - pool[*best].points)) best = black;
    }
    if (!best) best = rematch;
    if (!best) continue;
    paired[red] = paired[*best] = true;
    out.emplace_back(red, *best);
  }
  return out;
}

}  // namespace bg::server
