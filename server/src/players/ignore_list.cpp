#include "bg/server/players/ignore_list.hpp"

#include <algorithm>

namespace bg::server {

ignore_list::added ignore_list::add(const std::string& key, const std::string& name) {
  const std::lock_guard lock(mutex_);
  if (std::any_of(entries_.begin(), entries_.end(), [&](const auto& e) { return e.first == key; }))
    return added::already;
  if (entries_.size() >= capacity_) return added::full;
  entries_.emplace_back(key, name);
  return added::yes;
}

bool ignore_list::remove(const std::string& key) {
  const std::lock_guard lock(mutex_);
  const auto it =
      std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.first == key; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  return true;
}

bool ignore_list::ignores(const std::string& key) const {
  const std::lock_guard lock(mutex_);
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const auto& e) { return e.first == key; });
}

std::vector<std::string> ignore_list::names() const {
  const std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(e.second);
  return out;
}

void ignore_list::replace(const std::vector<std::pair<std::string, std::string>>& names) {
  const std::lock_guard lock(mutex_);
  entries_.assign(names.begin(),
                  names.begin() + static_cast<std::ptrdiff_t>(std::min(names.size(), capacity_)));
}

}  // namespace bg::server
