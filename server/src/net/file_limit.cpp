// The open file limit against --max-connections (file_limit.hpp).

#include "bg/server/net/file_limit.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <limits>

namespace bg::server {
namespace {

std::uint64_t count_of(rlim_t value) {
  return value == RLIM_INFINITY ? std::numeric_limits<std::uint64_t>::max()
                                : static_cast<std::uint64_t>(value);
}

}  // namespace

file_limit ensure_file_limit(std::size_t max_connections) {
  file_limit result;
  result.needed = static_cast<std::uint64_t>(max_connections) + file_limit_margin;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    result.enough = true;  // nothing known: do not stop a server over it
    return result;
  }
  result.before = result.soft = count_of(limit.rlim_cur);
  result.hard = count_of(limit.rlim_max);
  if (result.soft < result.needed) {
    const std::uint64_t wanted = std::min(result.needed, result.hard);
    rlimit raised = limit;
    raised.rlim_cur = static_cast<rlim_t>(wanted);
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) result.soft = wanted;
  }
  result.enough = result.soft >= result.needed;
  return result;
}

std::string file_limit_message(const file_limit& limit, std::size_t max_connections) {
  std::string text = "--max-connections " + std::to_string(max_connections) + " needs " +
                     std::to_string(limit.needed) + " open files (one per connection and " +
                     std::to_string(file_limit_margin) + " more), but the limit is " +
                     std::to_string(limit.soft) + " (hard limit " + std::to_string(limit.hard) +
                     "): raise it (ulimit -n, LimitNOFILE= for systemd, --ulimit nofile= for "
                     "docker) or lower --max-connections";
  if (limit.hard > file_limit_margin) {
    text += " to " + std::to_string(limit.hard - file_limit_margin) + " or less";
  }
  return text;
}

}  // namespace bg::server
