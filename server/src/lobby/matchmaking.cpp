#include "bg/server/lobby/matchmaking.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace bg::server {

namespace {

using clock_type = seek_request::clock_type;

/// Whether `a` and `b` may be paired now, ratings and all (not the rematch rule): their
/// terms, or nullopt.
std::optional<seek_terms> compatible(const seek_request& a, const seek_request& b,
                                     clock_type::time_point now, const ignores_fn& ignores) {
  auto terms = seek_overlap(a, b);
  if (!terms) return std::nullopt;
  const double gap = std::abs(a.rating - b.rating);
  if (gap > seek_window(now - a.since) || gap > seek_window(now - b.since)) return std::nullopt;
  if (ignores && (ignores(a.name, b.name) || ignores(b.name, a.name))) return std::nullopt;
  return terms;
}

/// Whether `a` and `b` were each other's last opponent.
bool rematch(const seek_request& a, const seek_request& b) {
  return a.last_opponent == b.name || b.last_opponent == a.name;
}

}  // namespace

double seek_window(clock_type::duration waited) {
  const auto tens = std::chrono::duration_cast<std::chrono::seconds>(waited).count() / 10;
  if (tens >= 7) return std::numeric_limits<double>::infinity();
  return std::min(400.0, 100.0 + 50.0 * static_cast<double>(std::max<long long>(0, tens)));
}

std::optional<seek_terms> seek_overlap(const seek_request& a, const seek_request& b) {
  if (a.game_variant != b.game_variant) return std::nullopt;
  seek_terms t;
  if (a.clock && b.clock) {
    if (*a.clock != *b.clock) return std::nullopt;
    t.clock = a.clock;
  } else {
    t.clock = a.clock ? a.clock : b.clock;
  }
  const auto common =
      std::find_first_of(a.lengths.begin(), a.lengths.end(), b.lengths.begin(), b.lengths.end());
  if (common == a.lengths.end()) return std::nullopt;
  t.length = *common;
  return t;
}

bool seek_bot_due(const seek_request& r, clock_type::time_point now) {
  return r.bot_after && now - r.since >= *r.bot_after;
}

std::vector<seek_pairing> pair_seeks(const std::vector<seek_request>& requests,
                                     clock_type::time_point now, const ignores_fn& ignores) {
  const std::size_t n = requests.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return requests[x].since < requests[y].since;
  });
  std::vector<bool> paired(n, false);
  // Whether a request other than `a` and `b`, not yet paired, could be paired with
  // either: then `a` and `b` are not paired again at once (S5: no rematch while others
  // wait).
  const auto others_could = [&](std::size_t a, std::size_t b) {
    for (std::size_t c = 0; c < n; ++c) {
      if (c == a || c == b || paired[c]) continue;
      if (compatible(requests[a], requests[c], now, ignores) ||
          compatible(requests[b], requests[c], now, ignores))
        return true;
    }
    return false;
  };
  std::vector<seek_pairing> out;
  for (const std::size_t red : order) {
    if (paired[red]) continue;
    std::optional<seek_pairing> best;
    double best_gap = 0;
    for (const std::size_t black : order) {  // longest waiting first: ties keep it
      if (black == red || paired[black]) continue;
      const auto terms = compatible(requests[red], requests[black], now, ignores);
      if (!terms) continue;
      const double gap = std::abs(requests[red].rating - requests[black].rating);
      if (best && gap >= best_gap) continue;
      if (rematch(requests[red], requests[black]) && others_could(red, black)) continue;
      best = seek_pairing{red, black, *terms};
      best_gap = gap;
    }
    if (!best) continue;
    paired[best->red] = paired[best->black] = true;
    out.push_back(*best);
  }
  return out;
}

}  // namespace bg::server
