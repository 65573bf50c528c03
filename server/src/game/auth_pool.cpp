#include "bg/server/game/auth_pool.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>

namespace bg::server {

auth_pool::auth_pool(std::size_t threads, std::size_t max_queued)
    : max_queued_(std::max<std::size_t>(1, max_queued)) {
  const std::size_t n = std::max<std::size_t>(1, threads);
  threads_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) threads_.emplace_back([this] { loop(); });
}

auth_pool::~auth_pool() {
  stop();
}

bool auth_pool::submit(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= max_queued_) return false;
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void auth_pool::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && queue_.empty() && threads_.empty()) return;
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  for (auto& t : threads_)
    if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
  threads_.clear();
}

std::size_t auth_pool::queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

void auth_pool::loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
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
