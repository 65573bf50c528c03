#include "bg/server/records/rating.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

std::optional<std::array<rating_change, 2>> rate_finished_match(
    bool rated, std::optional<engine::side> winner,
    const std::array<std::optional<rating_standing>, 2>& standing,
    const std::array<std::string, 2>& names, int length) {
  if (!rated || !winner || !standing[0] || !standing[1]) return std::nullopt;
  const auto win = static_cast<std::size_t>(engine::index_of(*winner));
  const auto lose = 1 - win;
  const auto after = rate_match(*standing[win], *standing[lose], length);
  std::array<rating_standing, 2> now{};
  now[win] = after.winner;
  now[lose] = after.loser;
  std::array<rating_change, 2> out;
  for (std::size_t i = 0; i < 2; ++i) {
    out[i].name = names[i];
    out[i].before = standing[i]->rating;
    out[i].after = now[i].rating;
    out[i].experience_before = standing[i]->experience;
    out[i].experience_after = now[i].experience;
  }
  return out;
}

std::string rating_text(double rating) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", rating);
  return buf;
}

std::string change_text(double change) {
  char buf[32];
  // Rounded first, so that a change of -0.001 reads +0.00, not -0.00.
  const double shown = std::round(change * 100.0) / 100.0;
  std::snprintf(buf, sizeof buf, "%+.2f", shown == 0.0 ? 0.0 : shown);
  return buf;
}

}  // namespace bg::server
