#include "bg/server/game/login_throttle.hpp"

#include <algorithm>

namespace bg::server {

std::optional<login_throttle::clock_type::time_point> login_throttle::free_at(
    const table& t, const std::string& k, clock_type::time_point now) const {
  const auto it = t.find(k);
  if (it == t.end()) return std::nullopt;
  const entry& e = it->second;
  if (now - e.last >= forget_after()) return std::nullopt;  // forgotten
  clock_type::time_point until = now;
  if (e.failures >= limits_.lock_after) {
    until = e.last + limits_.lock;
  } else if (e.failures >= limits_.delay_after) {
    until = e.last + limits_.delay;
  }
  if (until <= now) return std::nullopt;
  return until;
}

std::optional<std::chrono::seconds> login_throttle::wait(const std::string& key,
                                                         const std::string& address,
                                                         clock_type::time_point now) const {
  const auto a = free_at(by_name_, key, now);
  const auto b = free_at(by_address_, address, now);
  if (!a && !b) return std::nullopt;
  const auto until = std::max(a.value_or(now), b.value_or(now));
  // Rounded up: "try again in 1 second" is never too early.
  auto left = std::chrono::ceil<std::chrono::seconds>(until - now);
  return std::max(left, std::chrono::seconds{1});
}

void login_throttle::count(table& t, const std::string& k, clock_type::time_point now) {
  auto it = t.find(k);
  if (it == t.end()) {
    if (t.size() >= limits_.max_entries) {
      // Forget what has expired; if the table is still full, the oldest failure.
      for (auto e = t.begin(); e != t.end();)
        e = now - e->second.last >= forget_after() ? t.erase(e) : std::next(e);
      if (t.size() >= limits_.max_entries && !t.empty()) {
        const auto oldest = std::min_element(t.begin(), t.end(), [](const auto& x, const auto& y) {
          return x.second.last < y.second.last;
        });
        t.erase(oldest);
      }
    }
    if (limits_.max_entries == 0) return;
    it = t.emplace(k, entry{}).first;
  }
  entry& e = it->second;
  if (now - e.last >= forget_after()) e.failures = 0;  // an old count is forgotten
  ++e.failures;
  e.last = now;
}

void login_throttle::failed(const std::string& key, const std::string& address,
                            clock_type::time_point now) {
  count(by_name_, key, now);
  count(by_address_, address, now);
}

void login_throttle::succeeded(const std::string& key, const std::string& address) {
  by_name_.erase(key);
  by_address_.erase(address);
}

}  // namespace bg::server
