#include "bg/server/lobby/lobby.hpp"

#include <algorithm>
#include <iterator>

#include "bg/protocol/codec.hpp"

namespace bg::server {

using nlohmann::json;

void lobby::set(const std::string& table, lobby_entry entry) {
  if (!entry.listed) {  // a private table (issue 13)
    summaries_.erase(table);
    return;
  }
  summaries_[table] = std::move(entry.text);
}

void lobby::erase(const std::string& table) {
  summaries_.erase(table);
}

json lobby::page(std::size_t page, std::size_t per_page) const {
  const std::size_t total = summaries_.size();
  const std::size_t pages = std::max<std::size_t>(1, (total + per_page - 1) / per_page);
  page = std::clamp<std::size_t>(page, 1, pages);
  json list = json::array();
  auto it = summaries_.begin();
  std::advance(it, static_cast<std::ptrdiff_t>(std::min(total, (page - 1) * per_page)));
  for (std::size_t n = 0; it != summaries_.end() && n < per_page; ++it, ++n)
    list.push_back(json::parse(it->second));
  return json{{"type", "tables"},
              {"tables", std::move(list)},
              {"page", page},
              {"pages", pages},
              {"total", total}};
}

std::optional<engine::error> lobby::allow_chat(clock_type::time_point& last,
                                               clock_type::time_point now,
                                               std::chrono::seconds interval,
                                               std::size_t per_minute) {
  if (last != clock_type::time_point{} && now - last < interval)
    return protocol::said_error("chat_throttled", "lobby.chat_interval",
                                {{"seconds", static_cast<std::int64_t>(interval.count())}});
  if (now - window_start_ >= std::chrono::minutes(1)) {
    window_start_ = now;
    lines_in_window_ = 0;
  }
  if (lines_in_window_ >= per_minute)
    return protocol::said_error("chat_throttled", "lobby.chat_busy");
  ++lines_in_window_;
  last = now;
  return std::nullopt;
}

}  // namespace bg::server
