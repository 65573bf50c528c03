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

/// The text of a JSON object, `object`, with `"re": re` added as its last member: the
/// actor's copy of a message the others get as it is, made without encoding the
/// message again (issue 15).
inline std::shared_ptr<const std::string> frame_with_re(const std::string& object,
                                                        const nlohmann::json& re) {
  const std::string re_text = protocol::encode(re);
  std::string out;
  out.reserve(object.size() + re_text.size() + 6);
  out.append(object, 0, object.size() - 1);  // all but the closing brace
  if (object.size() > 2) out += ',';         // "{}" has no member to follow
  out += R"("re":)";
  out += re_text;
  out += '}';
  return std::make_shared<const std::string>(std::move(out));
}

}  // namespace bg::server
