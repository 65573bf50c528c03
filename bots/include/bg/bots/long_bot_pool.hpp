#pragma once
/// @file long_bot_pool.hpp
/// The threads the long nardy computer players think on: a small pool of its own with a
/// bounded queue, so a bot's search never runs on the server's I/O threads nor on a
/// table's strand.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace bg::bots {

/// How many threads and how many waiting questions.
struct long_bot_pool_options {
  std::size_t threads = 1;        ///< worker threads (a two-ply decision takes about 0.2 ms)
  std::size_t max_waiting = 256;  ///< questions queued or running at most (gammond: --bot-queue)
};

/// What the pool has done, for /metrics. Counters only grow.
struct long_bot_pool_stats {
  std::size_t waiting = 0;     ///< questions queued or running now
  std::uint64_t asked = 0;     ///< questions accepted
  std::uint64_t answered = 0;  ///< questions run to the end
  std::uint64_t refused = 0;   ///< questions refused: max_waiting were waiting, or stopped
};

/// A fixed pool of worker threads (Boost.Asio's thread_pool) running the long nardy
/// bots' decisions. Thread-safe.
class long_bot_pool {
 public:
  explicit long_bot_pool(long_bot_pool_options options);
  /// stop().
  ~long_bot_pool();
  long_bot_pool(const long_bot_pool&) = delete;
  long_bot_pool& operator=(const long_bot_pool&) = delete;

  /// Runs `job` on a worker thread, later; false (and `job` is dropped unrun) when
  /// max_waiting questions are queued or running already, or after stop(). `job` must not
  /// throw (an exception it lets out is logged and swallowed).
  bool post(std::function<void()> job);
  /// Stops the threads and waits for them: the jobs running finish, the ones still
  /// queued are dropped unrun (the server is stopping). Idempotent.
  void stop();
  [[nodiscard]] long_bot_pool_stats stats() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace bg::bots
