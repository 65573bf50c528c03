#include "bg/server/players/ban_list.hpp"

#include <algorithm>

namespace bg::server {

ban_list::outcome ban_list::set(const std::vector<ban>& bans, std::int64_t now_ms) {
  if (bans.empty()) return outcome::set;
  forget_ended(now_ms);
  const std::string key = bans.front().name_key;
  const auto old = by_name_.find(key);
  const std::size_t replaced = old == by_name_.end() ? 0 : old->second.size();
  if (entries_ - replaced + bans.size() > capacity_) return outcome::full;
  lift(key);
  by_name_[key] = bans;
  entries_ += bans.size();
  for (const auto& b : bans)
    if (!b.address.empty()) by_address_[b.address].push_back(key);
  return outcome::set;
}

std::size_t ban_list::lift(const std::string& name_key) {
  const auto it = by_name_.find(name_key);
  if (it == by_name_.end()) return 0;
  const std::size_t n = it->second.size();
  for (const auto& b : it->second) {
    if (b.address.empty()) continue;
    const auto a = by_address_.find(b.address);
    if (a == by_address_.end()) continue;
    auto& keys = a->second;
    keys.erase(std::remove(keys.begin(), keys.end(), name_key), keys.end());
    if (keys.empty()) by_address_.erase(a);
  }
  by_name_.erase(it);
  entries_ -= n;
  if (const auto t = revoked_token_of_.find(name_key); t != revoked_token_of_.end()) {
    revoked_tokens_.erase(t->second);
    revoked_token_of_.erase(t);
  }
  return n;
}

void ban_list::revoke_token(const std::string& name_key, const std::string& token_hash) {
  if (by_name_.count(name_key) == 0 || token_hash.empty()) return;
  if (const auto t = revoked_token_of_.find(name_key); t != revoked_token_of_.end())
    revoked_tokens_.erase(t->second);
  revoked_token_of_[name_key] = token_hash;
  revoked_tokens_[token_hash] = name_key;
}

std::optional<std::string> ban_list::name_of_token(const std::string& token_hash) const {
  const auto it = revoked_tokens_.find(token_hash);
  if (it == revoked_tokens_.end()) return std::nullopt;
  return it->second;
}

std::optional<ban> ban_list::of_name(const std::string& name_key, std::int64_t now_ms) const {
  const auto it = by_name_.find(name_key);
  if (it == by_name_.end()) return std::nullopt;
  for (const auto& b : it->second)
    if (b.address.empty() && b.active(now_ms)) return b;
  return std::nullopt;
}

std::optional<ban> ban_list::of_address(const std::string& address, std::int64_t now_ms) const {
  const auto it = by_address_.find(address);
  if (it == by_address_.end()) return std::nullopt;
  std::optional<ban> last;
  for (const auto& key : it->second) {
    const auto n = by_name_.find(key);
    if (n == by_name_.end()) continue;
    for (const auto& b : n->second) {
      if (b.address != address || !b.active(now_ms)) continue;
      // The one that ends last (0: never) decides how long the address waits.
      if (!last || b.until_ms == 0 || (last->until_ms != 0 && b.until_ms > last->until_ms))
        last = b;
    }
  }
  return last;
}

void ban_list::forget_ended(std::int64_t now_ms) {
  std::vector<std::string> ended;
  for (const auto& [key, bans] : by_name_)
    if (std::none_of(bans.begin(), bans.end(), [&](const ban& b) { return b.active(now_ms); }))
      ended.push_back(key);
  for (const auto& key : ended) lift(key);
}

}  // namespace bg::server
