#pragma once
/// @file clip_gateway.hpp
/// The service FIBS connections talk to (issue 32): each connection gets a
/// clip_translator and becomes a client of gammond's game service, which it sends the
/// hello, lines, enter and exit a WebSocket client would send. So the accounts, login
/// throttling, bans, chat throttles, ignores and moderation are the WebSocket side's.

#include <boost/asio/io_context.hpp>
#include <memory>

#include "bg/server/net/service.hpp"
#include "bg/server/server_config.hpp"

namespace bg::server {
class metrics;
}

namespace bg::server::fibs {

/// Builds the FIBS gateway in front of `game` (not null), on `io` (its who-list timers).
/// Lines reach it from fibs_session through service::on_text (one CLIP line each, its
/// line end and telnet bytes removed); what it sends a session is CLIP text. It adds
/// `gammond_fibs_connections` (a gauge) to `counters`' /metrics.
[[nodiscard]] std::shared_ptr<service> make_clip_gateway(std::shared_ptr<service> game,
                                                         const server_config& config,
                                                         boost::asio::io_context& io,
                                                         metrics& counters);

}  // namespace bg::server::fibs
