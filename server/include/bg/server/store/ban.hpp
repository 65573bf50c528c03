#pragma once
/// @file ban.hpp
/// A ban of a name or of an address it used (issue 13, `/ban`), as the store keeps it.

#include <cstdint>
#include <string>

namespace bg::server {

/// One banned name, or one address banned with a name (`address` not empty). A name's
/// bans are lifted together (`/unban NAME`).
struct ban {
  std::string name_key;  ///< the banned name's key (names.hpp name_key)
  std::string name;      ///< the banned name as the administrator typed it
  std::string address;   ///< "": the name itself; else an address the name used
  std::string by;        ///< the administrator who banned it
  /// When the ban ends, in ms since the Unix epoch; 0: it lasts until /unban.
  std::int64_t until_ms = 0;
  std::string created_at;  ///< ISO 8601 UTC, set by the store when written

  /// True while the ban holds at `now_ms` (ms since the Unix epoch).
  [[nodiscard]] bool active(std::int64_t now_ms) const noexcept {
    return until_ms == 0 || now_ms < until_ms;
  }
};

}  // namespace bg::server
