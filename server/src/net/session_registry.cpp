// Connection counts and open WebSocket sessions (session_registry.hpp).

#include "bg/server/net/session_registry.hpp"

#include <utility>

namespace bg::server {

session_registry::ticket::ticket(session_registry* owner, std::string address) noexcept
    : owner_{owner}, address_{std::move(address)} {}

session_registry::ticket::ticket(ticket&& other) noexcept
    : owner_{std::exchange(other.owner_, nullptr)}, address_{std::move(other.address_)} {}

session_registry::ticket& session_registry::ticket::operator=(ticket&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::exchange(other.owner_, nullptr);
    address_ = std::move(other.address_);
  }
  return *this;
}

session_registry::ticket::~ticket() {
  release();
}

void session_registry::ticket::release() noexcept {
  if (owner_ != nullptr) std::exchange(owner_, nullptr)->release(address_);
}

session_registry::session_registry(std::size_t max_connections, std::size_t max_per_address)
    : max_connections_{max_connections}, max_per_address_{max_per_address} {}

std::optional<session_registry::ticket> session_registry::admit(const std::string& address,
                                                                bool count_address) {
  const std::lock_guard lock{mutex_};
  if (total_ >= max_connections_) return std::nullopt;
  if (count_address) {
    auto& n = per_address_[address];
    if (n >= max_per_address_) {
      if (n == 0) per_address_.erase(address);
      return std::nullopt;
    }
    ++n;
  }
  ++total_;
  return ticket{this, count_address ? address : std::string{}};
}

bool session_registry::recount(ticket& t, const std::string& address) {
  const std::lock_guard lock{mutex_};
  if (t.owner_ != this || t.address_ == address) return t.owner_ == this;
  auto& n = per_address_[address];
  if (n >= max_per_address_) return false;
  ++n;
  if (!t.address_.empty()) {
    if (auto it = per_address_.find(t.address_); it != per_address_.end() && --it->second == 0) {
      per_address_.erase(it);
    }
  }
  t.address_ = address;
  return true;
}

void session_registry::release(const std::string& address) noexcept {
  const std::lock_guard lock{mutex_};
  --total_;
  if (!address.empty()) {
    if (auto it = per_address_.find(address); it != per_address_.end() && --it->second == 0) {
      per_address_.erase(it);
    }
  }
}

std::size_t session_registry::connections() const {
  const std::lock_guard lock{mutex_};
  return total_;
}

std::size_t session_registry::connections_from(std::string_view address) const {
  const std::lock_guard lock{mutex_};
  const auto it = per_address_.find(address);
  return it == per_address_.end() ? 0 : it->second;
}

void session_registry::add(std::uint64_t id, const std::weak_ptr<websocket_session>& session) {
  const std::lock_guard lock{mutex_};
  sessions_[id] = session;
}

void session_registry::remove(std::uint64_t id) {
  const std::lock_guard lock{mutex_};
  sessions_.erase(id);
}

std::size_t session_registry::open_sessions() const {
  const std::lock_guard lock{mutex_};
  return sessions_.size();
}

std::vector<std::shared_ptr<websocket_session>> session_registry::sessions() const {
  std::vector<std::shared_ptr<websocket_session>> alive;
  const std::lock_guard lock{mutex_};
  alive.reserve(sessions_.size());
  for (const auto& [id, weak] : sessions_) {
    if (auto session = weak.lock()) alive.push_back(std::move(session));
  }
  return alive;
}

}  // namespace bg::server
