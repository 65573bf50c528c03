#pragma once
/// @file frames.hpp
/// Private helpers of the game service: encoded frames and the "no id to echo" value.

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bg/protocol/codec.hpp"

namespace bg::server {

/// "No client id to echo" (a named empty optional: GCC 12 warns on std::nullopt
/// temporaries of optional<json>).
inline const std::optional<nlohmann::json> no_re{};

/// `j` encoded once as a shared, immutable WebSocket text frame.
inline std::shared_ptr<const std::string> frame_of(const nlohmann::json& j) {
  return std::make_shared<const std::string>(protocol::encode(j));
}

}  // namespace bg::server
