#include "bg/server/store/storage_writer.hpp"

#include <spdlog/spdlog.h>

#include <exception>
#include <vector>

namespace bg::server {

storage_writer::storage_writer(storage& db) : db_(db), thread_([this] { run(); }) {}

storage_writer::~storage_writer() {
  stop();
}

void storage_writer::submit(table_write w, continuation then) {
  {
    std::lock_guard lock(mutex_);
    if (!stopped_) {
      queue_.push_back(job{std::move(w), std::move(then)});
      wake_.notify_one();
      return;
    }
  }
  std::deque<job> one;
  one.push_back(job{std::move(w), std::move(then)});
  write_batch(one);
}

void storage_writer::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    wake_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

std::uint64_t storage_writer::transactions() const {
  std::lock_guard lock(mutex_);
  return transactions_;
}

std::uint64_t storage_writer::writes() const {
  std::lock_guard lock(mutex_);
  return writes_;
}

void storage_writer::run() {
  for (;;) {
    std::deque<job> batch;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) {  // stopping, and everything is written
        stopped_ = true;
        return;
      }
      batch.swap(queue_);
    }
    write_batch(batch);
  }
}

void storage_writer::write_batch(std::deque<job>& batch) {
  std::vector<table_write> writes;
  writes.reserve(batch.size());
  for (auto& j : batch) writes.push_back(std::move(j.write));
  std::vector<std::string> errors;
  try {
    errors = db_.save_tables(writes);
  } catch (const std::exception& e) {
    errors.assign(writes.size(), e.what());
  }
  {
    std::lock_guard lock(mutex_);
    ++transactions_;
    writes_ += writes.size();
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (!errors[i].empty()) spdlog::error("table {}: not saved: {}", writes[i].name, errors[i]);
    try {
      if (batch[i].then) batch[i].then(errors[i]);
    } catch (const std::exception& e) {
      spdlog::error("table {}: after saving: {}", writes[i].name, e.what());
    }
  }
}

}  // namespace bg::server
