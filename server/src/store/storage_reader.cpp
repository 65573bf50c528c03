#include "bg/server/store/storage_reader.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>

namespace bg::server {

storage_reader::storage_reader(std::unique_ptr<store> db, std::size_t capacity)
    : db_(std::move(db)),
      capacity_(std::max<std::size_t>(capacity, 1)),
      thread_([this] { work(); }) {}

storage_reader::~storage_reader() {
  stop();
}

bool storage_reader::run(task t) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= capacity_) return false;
    queue_.push_back(std::move(t));
  }
  wake_.notify_one();
  return true;
}

void storage_reader::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void storage_reader::work() {
  for (;;) {
    task t;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything queued has run
      t = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      t(*db_);
    } catch (const std::exception& e) {
      spdlog::error("a read failed: {}", e.what());
    }
  }
}

}  // namespace bg::server
