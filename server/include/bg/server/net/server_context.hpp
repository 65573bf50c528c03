#pragma once
/// @file server_context.hpp
/// What every connection of the network layer shares: the configuration, the game
/// service, the counters and the registry of connections.

#include <memory>

#include "bg/server/server_config.hpp"

namespace bg::server {

class service;
class metrics;
class session_registry;
class read_throttle;

/// Shared by the listener and every session through a shared_ptr<const
/// server_context>. The registry is shared, so a session destroyed late (with a
/// destroyed io_context) still releases its counts. The service is not owned here:
/// the service keeps its clients (sessions), so owning it from a session would be a
/// reference cycle. network_server owns it and outlives every run of the io_context.
struct server_context {
  server_config config;                        ///< limits and paths, fixed at start
  service& game;                               ///< the game service
  metrics& counters;                           ///< process-wide counters (thread-safe)
  std::shared_ptr<session_registry> registry;  ///< connection counts, sessions (never null)
  /// The HTTP reads' token buckets per address (--api-reads-per-second; never null).
  std::shared_ptr<read_throttle> reads;
  /// The FIBS gateway FIBS sessions talk to (issue 32); null without --fibs-port. Owned,
  /// like `game`, by network_server.
  service* fibs = nullptr;
};

}  // namespace bg::server
