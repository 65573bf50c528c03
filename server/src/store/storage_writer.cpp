#include "bg/server/store/storage_writer.hpp"

#include <spdlog/spdlog.h>

#include <exception>
#include <vector>

namespace bg::server {

storage_writer::storage_writer(store& db) : db_(db), thread_([this] { loop(); }) {}

storage_writer::~storage_writer() {
  stop();
}

void storage_writer::submit(table_write w, continuation then) {
  {
    std::lock_guard lock(mutex_);
    if (!stopped_) {
      queue_.push_back(job{std::move(w), std::move(then), nullptr});
      wake_.notify_one();
      return;
    }
  }
  std::deque<job> one;
  one.push_back(job{std::move(w), std::move(then), nullptr});
  do_jobs(one);
}

void storage_writer::run(task t) {
  {
    std::lock_guard lock(mutex_);
    if (!stopped_) {
      queue_.push_back(job{{}, nullptr, std::move(t)});
      wake_.notify_one();
      return;
    }
  }
  std::deque<job> one;
  one.push_back(job{{}, nullptr, std::move(t)});
  do_jobs(one);
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

storage_writer::counts storage_writer::totals() const {
  std::lock_guard lock(mutex_);
  return counts{transactions_, writes_};
}

void storage_writer::loop() {
  for (;;) {
    std::deque<job> jobs;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) {  // stopping, and everything is written
        stopped_ = true;
        return;
      }
      jobs.swap(queue_);
    }
    do_jobs(jobs);
  }
}

/// Runs `jobs` in order: consecutive writes as one batch, tasks between them.
void storage_writer::do_jobs(std::deque<job>& jobs) {
  std::deque<job> batch;
  for (auto& j : jobs) {
    if (!j.work) {
      batch.push_back(std::move(j));
      continue;
    }
    if (!batch.empty()) write_batch(batch);
    batch.clear();
    try {
      j.work(db_);
    } catch (const std::exception& e) {
      spdlog::error("storage task: {}", e.what());
    }
  }
  if (!batch.empty()) write_batch(batch);
}

void storage_writer::write_batch(std::deque<job>& batch) {
  std::vector<table_write> writes;
  writes.reserve(batch.size());
  for (auto& j : batch) writes.push_back(std::move(j.write));
  std::vector<write_outcome> outcomes;
  try {
    outcomes = db_.write_tables(writes);
  } catch (const std::exception& e) {
    outcomes.assign(writes.size(), write_outcome{e.what(), std::nullopt});
  }
  {
    std::lock_guard lock(mutex_);
    ++transactions_;
    writes_ += writes.size();
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    write_result result;
    result.error = std::move(outcomes[i].error);
    result.ratings = std::move(outcomes[i].ratings);
    result.fenced = outcomes[i].fenced;
    result.claim_lost = outcomes[i].claim_lost;
    result.epoch = outcomes[i].epoch;
    if (result.claim_lost) {
      spdlog::info("table {}: created on another node meanwhile: {}", writes[i].name, result.error);
    } else if (result.fenced) {
      spdlog::warn("table {}: a stale write refused: {}", writes[i].name, result.error);
    } else if (!result.error.empty()) {
      spdlog::error("table {}: not saved: {}", writes[i].name, result.error);
      // The table goes back to what is on disk: read it while nothing else writes.
      try {
        result.last_written = db_.load_table(writes[i].name);
      } catch (const std::exception& e) {
        result.reload_error = e.what();
        spdlog::error("table {}: cannot read back its last written state: {}", writes[i].name,
                      e.what());
      }
    }
    try {
      if (batch[i].then) batch[i].then(result);
    } catch (const std::exception& e) {
      spdlog::error("table {}: after saving: {}", writes[i].name, e.what());
    }
  }
}

}  // namespace bg::server
