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

/// Shared by the listener and every session through a shared_ptr<const
/// server_context>, so whatever a session uses lives as long as the session, even
/// when an io_context is destroyed with handlers still pending. `counters` is the
/// exception: it must outlive every run of the io_context (main owns it).
struct server_context {
  server_config config;                        ///< limits and paths, fixed at start
  std::shared_ptr<service> game;               ///< the game service (never null)
  metrics& counters;                           ///< process-wide counters (thread-safe)
  std::shared_ptr<session_registry> registry;  ///< connection counts, sessions (never null)
};

}  // namespace bg::server
