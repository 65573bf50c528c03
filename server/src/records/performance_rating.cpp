#include "bg/server/records/performance_rating.hpp"

#include <cmath>

namespace bg::server {

std::optional<double> performance_rating(double equity_lost, long decisions) {
  if (decisions <= 0) return std::nullopt;
  return 500.0 * equity_lost / static_cast<double>(decisions);
}

std::string_view pr_band(double pr) noexcept {
  if (pr < 2.5) return "world class";
  if (pr < 5.0) return "expert";
  if (pr < 7.5) return "advanced";
  if (pr < 12.5) return "intermediate";
  if (pr < 17.5) return "casual";
  if (pr < 22.5) return "beginner";
  return "distracted";
}

namespace {

double number_at(const nlohmann::json& j, const char* part, const char* key) {
  if (!j.is_object()) return 0;
  const auto p = j.find(part);
  if (p == j.end() || !p->is_object()) return 0;
  const auto v = p->find(key);
  return v != p->end() && v->is_number() ? v->get<double>() : 0;
}

}  // namespace

pr_sums pr_sums_of(const nlohmann::json& analysis_player) {
  pr_sums s;
  s.equity_lost = number_at(analysis_player, "checker", "error_total") +
                  number_at(analysis_player, "cube", "error_total");
  s.decisions = static_cast<long>(number_at(analysis_player, "checker", "unforced") +
                                  number_at(analysis_player, "cube", "close"));
  return s;
}

std::optional<double> shown_pr(const pr_sums& sums) {
  const auto pr = performance_rating(sums.equity_lost, sums.decisions);
  if (!pr) return std::nullopt;
  return std::round(*pr * 100.0) / 100.0;
}

}  // namespace bg::server
