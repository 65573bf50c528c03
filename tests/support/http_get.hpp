#pragma once
/// @file http_get.hpp
/// One HTTP/1.1 request for tests, on its own connection, with a timeout.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

namespace bg::test {

/// What the server answered.
struct http_result {
  unsigned status = 0;                        ///< 200, 404, 503, ...
  std::string body;                           ///< the whole body (empty for HEAD)
  std::map<std::string, std::string> fields;  ///< header fields, names in lower case
  /// The Content-Type field ("" when absent).
  [[nodiscard]] std::string content_type() const {
    const auto it = fields.find("content-type");
    return it == fields.end() ? std::string{} : it->second;
  }
};

/// Sends `method target` (GET by default) to host:port with `Connection: close` and
/// the extra header `fields`, and reads the whole answer. Throws std::runtime_error on
/// a connection error, a malformed answer, or when it does not finish within `timeout`.
http_result http_request(const std::string& host, std::uint16_t port, const std::string& target,
                         const std::string& method = "GET",
                         const std::map<std::string, std::string>& fields = {},
                         std::chrono::milliseconds timeout = std::chrono::seconds{30});

/// GET `target` from host:port: http_request(host, port, target, "GET").
http_result http_get(const std::string& host, std::uint16_t port, const std::string& target,
                     std::chrono::milliseconds timeout = std::chrono::seconds{30});

}  // namespace bg::test
