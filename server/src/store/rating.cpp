#include "bg/server/store/rating.hpp"

#include <algorithm>
#include <cmath>

namespace bg::server {

double rating_k(int experience) noexcept {
  return std::max(1.0, 5.0 - static_cast<double>(experience) / 100.0);
}

rating_outcome rate_match(const rating_standing& winner, const rating_standing& loser,
                          int length) noexcept {
  const int n = std::max(1, length);
  const double root_n = std::sqrt(static_cast<double>(n));
  const double d = std::abs(winner.rating - loser.rating);
  const double p_upset = 1.0 / (std::pow(10.0, d * root_n / 2000.0) + 1.0);
  const double p_favourite = 1.0 - p_upset;
  // Equal ratings: P_upset = P_fav = 1/2, so who counts as the favourite is moot.
  const bool favourite_won = winner.rating >= loser.rating;
  const double points = 4.0 * root_n * (favourite_won ? p_upset : p_favourite);
  rating_outcome out;
  out.points = points;
  out.winner = {winner.rating + points * rating_k(winner.experience), winner.experience + n};
  out.loser = {loser.rating - points * rating_k(loser.experience), loser.experience + n};
  return out;
}

}  // namespace bg::server
