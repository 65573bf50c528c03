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

namespace bg::server {

/// The lobby's list and chat bounds. Not thread-safe: the game service's mutex guards
/// it.
class lobby {
 public:
  using clock_type = std::chrono::steady_clock;

  /// Records `summary` (table::summary()) as the lobby entry of `table`.
  /// A private table's summary (`options.private`, issue 13) is not kept: it is not listed.
  void set(const std::string& table, nlohmann::json summary);
  /// Removes `table` from the list.
  void erase(const std::string& table);
  /// The `tables` message: page `page` (from 1; clamped to the last page) of the list
  /// in name order, `per_page` summaries a page, with `page`, `pages` and `total`.
  [[nodiscard]] nlohmann::json page(std::size_t page, std::size_t per_page) const;

  /// Every listed table's summary, by table name.
  [[nodiscard]] const std::map<std::string, nlohmann::json>& entries() const noexcept {
    return summaries_;
  }

  /// Whether one more lobby chat line may go out now from a player whose last line
  /// went at `last` (updated when it may): nullopt when it may, else the sentence of
  /// the `chat_throttled` error. At most one line per `interval` per player, and
  /// `per_minute` lines from everyone together in any one-minute window.
  std::optional<std::string> allow_chat(clock_type::time_point& last, clock_type::time_point now,
                                        std::chrono::seconds interval, std::size_t per_minute);

 private:
  std::map<std::string, nlohmann::json> summaries_;
  clock_type::time_point window_start_{};
  std::size_t lines_in_window_ = 0;
};

}  // namespace bg::server
