#pragma once
/// @file lobby.hpp
/// The lobby: the list of tables (a summary each, as last written) and the bounds on
/// the lobby chat, which reaches every connection.

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bg/engine/error.hpp"

namespace bg::server {

/// A table's lobby entry as the table wrote it (issue 15: text, not a tree, because it
/// is written again after every change and read only when someone asks for the list).
struct lobby_entry {
  std::string text;    ///< table::summary_text(): one entry of the `tables` list
  bool listed = true;  ///< false for a private table (issue 13): kept out of the list
};

/// The lobby's list and chat bounds. Not thread-safe: the game service's mutex guards
/// it.
class lobby {
 public:
  using clock_type = std::chrono::steady_clock;

  /// Records `entry` as the lobby entry of `table`; an entry not listed (a private
  /// table, issue 13) removes the table from the list.
  void set(const std::string& table, lobby_entry entry);
  /// Removes `table` from the list.
  void erase(const std::string& table);
  /// The `tables` message: page `page` (from 1; clamped to the last page) of the list
  /// in name order, `per_page` summaries a page, with `page`, `pages` and `total`.
  /// Throws nlohmann::json::parse_error if an entry's text is not JSON (never: the
  /// tables write it).
  [[nodiscard]] nlohmann::json page(std::size_t page, std::size_t per_page) const;

  /// Every listed table's summary text, by table name.
  [[nodiscard]] const std::map<std::string, std::string>& entries() const noexcept {
    return summaries_;
  }

  /// Whether one more lobby chat line may go out now from a player whose last line
  /// went at `last` (updated when it may): nullopt when it may, else the
  /// `chat_throttled` error (its sentence from the catalogue, lobby.*). At most one line
  /// per `interval` per player, and `per_minute` lines from everyone together in any
  /// one-minute window.
  std::optional<engine::error> allow_chat(clock_type::time_point& last, clock_type::time_point now,
                                          std::chrono::seconds interval, std::size_t per_minute);

 private:
  std::map<std::string, std::string> summaries_;  // table::summary_text() by table
  clock_type::time_point window_start_{};
  std::size_t lines_in_window_ = 0;
};

}  // namespace bg::server
