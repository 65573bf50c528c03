#pragma once
/// @file file_limit.hpp
/// Checks --max-connections against the process's open file limit (RLIMIT_NOFILE) at
/// start, raising the soft limit when the hard limit allows (issue 11.6).

#include <cstddef>
#include <cstdint>
#include <string>

namespace bg::server {

/// Open files gammond needs besides one per connection: the database (file, WAL,
/// shared memory, journal), standard streams, the listening socket, Asio's epoll and
/// event descriptors, static files being sent, the port file. A generous round figure.
inline constexpr std::uint64_t file_limit_margin = 64;

/// What ensure_file_limit() found and did. Limits are counts of open files;
/// RLIM_INFINITY shows as UINT64_MAX.
struct file_limit {
  bool enough = false;       ///< the soft limit now covers `needed`
  std::uint64_t needed = 0;  ///< max_connections + file_limit_margin
  std::uint64_t before = 0;  ///< the soft limit found at start
  std::uint64_t soft = 0;    ///< the soft limit now
  std::uint64_t hard = 0;    ///< the hard limit (a process cannot raise it)
};

/// Makes sure gammond can hold `max_connections` connections: when the soft
/// RLIMIT_NOFILE is below max_connections + file_limit_margin, raises it to that, or
/// to the hard limit when that is lower. Never lowers a limit. `enough` is false when
/// even the hard limit is too low (gammond then stops with exit code 2 and
/// file_limit_message()). Errors from getrlimit/setrlimit leave the limits as found.
[[nodiscard]] file_limit ensure_file_limit(std::size_t max_connections);

/// The one-line sentence for a `limit` that is not enough: what is needed, what the
/// limits are, and the two ways out (raise the limit: ulimit -n, systemd's
/// LimitNOFILE=, docker's --ulimit nofile=; or lower --max-connections).
[[nodiscard]] std::string file_limit_message(const file_limit& limit, std::size_t max_connections);

}  // namespace bg::server
