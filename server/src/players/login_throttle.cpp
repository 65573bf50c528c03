#include "bg/server/players/login_throttle.hpp"

#include <algorithm>

namespace bg::server {

namespace {

/// How long an address stays known to a name after its last successful login there.
constexpr auto known_for = std::chrono::hours{24 * 30};

/// `until - now` in whole seconds rounded up ("try again in 1 second" is never too
/// early), at least 1.
std::chrono::seconds seconds_until(login_throttle::clock_type::time_point until,
                                   login_throttle::clock_type::time_point now) {
  return std::max(std::chrono::ceil<std::chrono::seconds>(until - now), std::chrono::seconds{1});
}

}  // namespace

login_throttle::bucket login_throttle::at(bucket b, clock_type::duration leak,
                                          clock_type::time_point now) {
  if (b.count == 0 || leak <= clock_type::duration::zero() || now <= b.leaked) return b;
  const auto steps = static_cast<std::size_t>((now - b.leaked) / leak);
  if (steps >= b.count) {
    b.count = 0;
    b.leaked = now;
  } else {
    b.count -= steps;
    b.leaked += leak * static_cast<clock_type::rep>(steps);
  }
  return b;
}

std::optional<login_throttle::clock_type::time_point> login_throttle::free_at(
    const table& t, const std::string& k, clock_type::time_point now) const {
  const auto it = t.find(k);
  if (it == t.end()) return std::nullopt;
  if (it->second.locked_until > now) return it->second.locked_until;
  const bucket b = at(it->second, limits_.forgive, now);
  if (b.count >= limits_.delay_after && b.last + limits_.delay > now) return b.last + limits_.delay;
  return std::nullopt;
}

template <class Map>
typename Map::mapped_type* login_throttle::entry(Map& t, const std::string& k,
                                                 clock_type::time_point now) {
  auto it = t.find(k);
  if (it == t.end()) {
    if (limits_.max_entries == 0) return nullptr;
    if (t.size() >= limits_.max_entries) {
      const auto oldest = std::min_element(t.begin(), t.end(), [](const auto& x, const auto& y) {
        return x.second.touched < y.second.touched;
      });
      t.erase(oldest);
    }
    it = t.emplace(k, typename Map::mapped_type{}).first;
  }
  it->second.touched = now;
  return &it->second;
}

void login_throttle::count(table& t, const std::string& k, clock_type::time_point now) {
  bucket* b = entry(t, k, now);
  if (b == nullptr) return;
  *b = at(*b, limits_.forgive, now);
  if (b->count == 0) b->leaked = now;
  ++b->count;
  b->last = now;
  if (b->count >= limits_.lock_after) {
    // Locked, and emptied: after the lock the bucket starts from zero, so that a lock is
    // never renewed by the failures that made it.
    b->locked_until = now + limits_.lock;
    b->count = 0;
    b->leaked = now;
  }
}

bool login_throttle::is_known(const std::string& key, const std::string& address,
                              clock_type::time_point now) const {
  const auto it = known_.find(key);
  if (it == known_.end()) return false;
  return std::any_of(it->second.addresses.begin(), it->second.addresses.end(), [&](const auto& a) {
    return a.first == address && now - a.second < known_for;
  });
}

std::optional<std::chrono::seconds> login_throttle::wait(const std::string& key,
                                                         const std::string& address,
                                                         clock_type::time_point now) const {
  const auto a = is_known(key, address, now) ? std::nullopt : free_at(by_name_, key, now);
  const auto b = free_at(by_address_, address, now);
  if (!a && !b) return std::nullopt;
  return seconds_until(std::max(a.value_or(now), b.value_or(now)), now);
}

login_throttle::verdict login_throttle::attempt(const std::string& key, const std::string& address,
                                                clock_type::time_point now) {
  verdict v;
  v.wait = wait(key, address, now);
  if (v.wait) return v;
  const auto it = by_address_.find(address);
  v.clean = it == by_address_.end() || at(it->second, limits_.forgive, now).count == 0;
  count(by_name_, key, now);
  count(by_address_, address, now);
  return v;
}

void login_throttle::succeeded(const std::string& key, const std::string& address,
                               clock_type::time_point now) {
  by_name_.erase(key);
  if (const auto it = by_address_.find(address); it != by_address_.end()) {
    bucket& b = it->second;
    b = at(b, limits_.forgive, now);
    if (b.count > 0) --b.count;  // this attempt only: earlier failures stay counted
  }
  trust(key, address, now);
}

void login_throttle::trust(const std::string& key, const std::string& address,
                           clock_type::time_point now) {
  if (limits_.known_addresses == 0) return;
  known* k = entry(known_, key, now);
  if (k == nullptr) return;
  auto& list = k->addresses;
  std::erase_if(list,
                [&](const auto& a) { return a.first == address || now - a.second >= known_for; });
  list.emplace_back(address, now);
  while (list.size() > limits_.known_addresses) list.erase(list.begin());
}

std::optional<std::chrono::seconds> login_throttle::registration(const std::string& address,
                                                                 clock_type::time_point now) {
  const std::size_t per_hour = limits_.registrations_per_hour;
  if (per_hour == 0) return std::nullopt;
  const clock_type::duration leak =
      std::chrono::duration_cast<clock_type::duration>(std::chrono::hours{1}) /
      static_cast<clock_type::rep>(per_hour);
  bucket* b = entry(registrations_, address, now);
  if (b == nullptr) return std::nullopt;
  *b = at(*b, leak, now);
  if (b->count >= per_hour) return seconds_until(b->leaked + leak, now);
  if (b->count == 0) b->leaked = now;
  ++b->count;
  return std::nullopt;
}

}  // namespace bg::server
