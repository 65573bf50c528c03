#include "bg/server/players/online_ratings.hpp"

#include "bg/server/players/names.hpp"

namespace bg::server {

namespace {

std::size_t index_of(engine::variant v) {
  return v == engine::variant::standard ? 0 : 1;
}

}  // namespace

void online_ratings::set(const std::string& key, const std::array<double, 2>& ratings) {
  std::lock_guard lock(mutex_);
  by_key_[key] = ratings;
  version_.fetch_add(1, std::memory_order_release);
}

void online_ratings::update(const std::string& key, engine::variant v, double rating) {
  std::lock_guard lock(mutex_);
  const auto it = by_key_.find(key);
  if (it != by_key_.end()) it->second[index_of(v)] = rating;
  version_.fetch_add(1, std::memory_order_release);
}

void online_ratings::forget(const std::string& key) {
  std::lock_guard lock(mutex_);
  by_key_.erase(key);
  version_.fetch_add(1, std::memory_order_release);
}

std::optional<double> online_ratings::of(const std::string& name, engine::variant v) const {
  const std::string key = name_key(name);
  std::lock_guard lock(mutex_);
  const auto it = by_key_.find(key);
  if (it == by_key_.end()) return std::nullopt;
  return it->second[index_of(v)];
}

std::size_t online_ratings::size() const {
  std::lock_guard lock(mutex_);
  return by_key_.size();
}

}  // namespace bg::server
