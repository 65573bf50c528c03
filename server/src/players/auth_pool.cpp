#include "bg/server/players/auth_pool.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>

namespace bg::server {

auth_pool::auth_pool(std::size_t threads, std::size_t max_queued, std::size_t per_address)
    : max_queued_(std::max<std::size_t>(1, max_queued)),
      per_address_(std::max<std::size_t>(1, per_address)) {
  const std::size_t n = std::max<std::size_t>(1, threads);
  threads_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) threads_.emplace_back([this] { loop(); });
}

auth_pool::~auth_pool() {
  stop();
}

bool auth_pool::submit(const std::string& address, lane l, std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    auto& queue = l == lane::clean ? clean_ : other_;
    if (stopping_ || queue.size() >= max_queued_) return false;
    const auto it = waiting_.find(address);
    if (it != waiting_.end() && it->second >= per_address_) return false;
    queue.push_back(item{address, std::move(job)});
    ++waiting_[address];
  }
  wake_.notify_one();
  return true;
}

void auth_pool::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && clean_.empty() && other_.empty() && threads_.empty()) return;
    stopping_ = true;
    clean_.clear();
    other_.clear();
    waiting_.clear();
  }
  wake_.notify_all();
  for (auto& t : threads_)
    if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
  threads_.clear();
}

std::size_t auth_pool::queued() const {
  std::lock_guard lock(mutex_);
  return clean_.size() + other_.size();
}

void auth_pool::loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !clean_.empty() || !other_.empty(); });
      if (stopping_) return;
      auto& queue = clean_.empty() ? other_ : clean_;
      item next = std::move(queue.front());
      queue.pop_front();
      if (const auto it = waiting_.find(next.address); it != waiting_.end() && --it->second == 0)
        waiting_.erase(it);
      job = std::move(next.job);
    }
    try {
      job();
    } catch (const std::exception& e) {
      spdlog::error("auth pool: {}", e.what());
    } catch (...) {
      spdlog::error("auth pool: a job failed (non-standard exception)");
    }
  }
}

}  // namespace bg::server
