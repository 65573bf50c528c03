#include "bg/bots/long_bot_pool.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <exception>
#include <mutex>

#include <spdlog/spdlog.h>

namespace bg::bots {

struct long_bot_pool::impl {
  explicit impl(long_bot_pool_options o)
      : options(o), threads(std::max<std::size_t>(1, o.threads)) {}

  long_bot_pool_options options;
  boost::asio::thread_pool threads;
  std::mutex mutex;  // guards stopped and the counts
  bool stopped = false;
  std::size_t waiting = 0;
  std::uint64_t asked = 0;
  std::uint64_t answered = 0;
  std::uint64_t refused = 0;
};

long_bot_pool::long_bot_pool(long_bot_pool_options options)
    : impl_(std::make_unique<impl>(options)) {}

long_bot_pool::~long_bot_pool() {
  stop();
}

bool long_bot_pool::post(std::function<void()> job) {
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->stopped || impl_->waiting >= std::max<std::size_t>(1, impl_->options.max_waiting)) {
      ++impl_->refused;
      return false;
    }
    ++impl_->waiting;
    ++impl_->asked;
  }
  boost::asio::post(impl_->threads, [self = impl_.get(), job = std::move(job)] {
    try {
      job();
    } catch (const std::exception& e) {
      spdlog::error("long nardy bot: a decision failed: {}", e.what());
    } catch (...) {
      spdlog::error("long nardy bot: a decision failed");
    }
    std::lock_guard lock(self->mutex);
    --self->waiting;
    ++self->answered;
  });
  return true;
}

void long_bot_pool::stop() {
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->stopped) return;
    impl_->stopped = true;
  }
  impl_->threads.stop();
  impl_->threads.join();
}

long_bot_pool_stats long_bot_pool::stats() const {
  std::lock_guard lock(impl_->mutex);
  return {impl_->waiting, impl_->asked, impl_->answered, impl_->refused};
}

}  // namespace bg::bots
