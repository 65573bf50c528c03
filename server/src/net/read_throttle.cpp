#include "bg/server/net/read_throttle.hpp"

#include <algorithm>

namespace bg::server {

read_throttle::read_throttle(double per_second, double burst, std::size_t max_addresses)
    : per_second_(per_second > 0 ? per_second : 1.0),
      burst_(std::max(burst, 1.0)),
      max_addresses_(std::max<std::size_t>(max_addresses, 1)) {}

bool read_throttle::allow(const std::string& address, clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto it = buckets_.find(address);
  if (it == buckets_.end()) {
    if (buckets_.size() >= max_addresses_) make_room(now);
    it = buckets_.emplace(address, bucket{burst_, now}).first;
  }
  auto& b = it->second;
  const double elapsed = std::chrono::duration<double>(now - b.refilled).count();
  b.tokens = std::min(burst_, b.tokens + std::max(elapsed, 0.0) * per_second_);
  b.refilled = now;
  if (b.tokens < 1.0) return false;
  b.tokens -= 1.0;
  return true;
}

void read_throttle::make_room(clock::time_point now) {
  auto oldest = buckets_.end();
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    const double elapsed = std::chrono::duration<double>(now - it->second.refilled).count();
    if (it->second.tokens + elapsed * per_second_ >= burst_) {
      it = buckets_.erase(it);  // full again: the same as no bucket
      continue;
    }
    if (oldest == buckets_.end() || it->second.refilled < oldest->second.refilled) oldest = it;
    ++it;
  }
  if (buckets_.size() >= max_addresses_ && oldest != buckets_.end()) buckets_.erase(oldest);
}

std::size_t read_throttle::size() const {
  std::lock_guard lock(mutex_);
  return buckets_.size();
}

}  // namespace bg::server
