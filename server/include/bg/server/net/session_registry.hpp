#pragma once
/// @file session_registry.hpp
/// Who is connected: connection counts (in all and per client address) and the set of
/// open WebSocket sessions, so the server can refuse a connection over a limit and
/// close every WebSocket on shutdown.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bg::server {

class websocket_session;

/// Connection counts and open WebSocket sessions. Thread-safe: every member may be
/// called from any thread (one mutex, held only for map updates, never while calling
/// into a session).
class session_registry {
 public:
  /// One admitted connection. Releases its counts when destroyed (move-only), so the
  /// counts stay right whichever way a session ends. Must not outlive its registry.
  class ticket {
   public:
    ticket() = default;
    ticket(ticket&& other) noexcept;
    ticket& operator=(ticket&& other) noexcept;
    ticket(const ticket&) = delete;
    ticket& operator=(const ticket&) = delete;
    ~ticket();
    /// The address this ticket is counted under; empty when it counts only toward
    /// the total (a trusted proxy's own connection).
    [[nodiscard]] const std::string& address() const noexcept { return address_; }

   private:
    friend class session_registry;
    ticket(session_registry* owner, std::string address) noexcept;
    void release() noexcept;
    session_registry* owner_ = nullptr;
    std::string address_;
  };

  /// `max_connections` in all; `max_per_address` from one address (both >= 1).
  session_registry(std::size_t max_connections, std::size_t max_per_address);
  session_registry(const session_registry&) = delete;
  session_registry& operator=(const session_registry&) = delete;
  ~session_registry() = default;

  /// Admits one new TCP connection from `address`, or nullopt when the total or the
  /// address's count is at its limit. With `count_address` false the connection
  /// counts only toward the total (used for the trusted proxy, whose clients are
  /// counted by their forwarded address at the upgrade, see recount()).
  [[nodiscard]] std::optional<ticket> admit(const std::string& address, bool count_address);
  /// Counts `t` under `address` instead of its current address. Returns false, and
  /// leaves `t` as it was, when `address` is at its limit.
  [[nodiscard]] bool recount(ticket& t, const std::string& address);

  /// Open connections now, in all / from `address`.
  [[nodiscard]] std::size_t connections() const;
  [[nodiscard]] std::size_t connections_from(std::string_view address) const;

  /// A WebSocket session opened (after its handshake) / ended. `id` is its client id.
  void add(std::uint64_t id, const std::weak_ptr<websocket_session>& session);
  void remove(std::uint64_t id);
  /// Open WebSocket sessions now.
  [[nodiscard]] std::size_t open_sessions() const;
  /// The open WebSocket sessions that are still alive, in id order.
  [[nodiscard]] std::vector<std::shared_ptr<websocket_session>> sessions() const;

 private:
  void release(const std::string& address) noexcept;

  const std::size_t max_connections_;
  const std::size_t max_per_address_;
  mutable std::mutex mutex_;
  std::size_t total_ = 0;
  std::map<std::string, std::size_t, std::less<>> per_address_;
  std::map<std::uint64_t, std::weak_ptr<websocket_session>> sessions_;
};

}  // namespace bg::server
