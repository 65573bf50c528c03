#pragma once
/// @file http_session.hpp
/// One HTTP/1.1 connection: serves /healthz, /metrics, the web client's static files
/// and the service's GET routes, and upgrades /ws to a websocket_session.

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "bg/server/net/server_context.hpp"
#include "bg/server/net/session_registry.hpp"

namespace bg::server {

/// An HTTP/1.1 connection with keep-alive; one request at a time (pipelined requests
/// are answered in order). Limits: request header and body at most 8 KiB each (over:
/// 400 and close); config.http_timeout to finish each request and each response
/// (over: the connection is closed). Routes, for GET and HEAD (other methods: 405):
/// - `/healthz` → 200 `{"status":"ok"}` (application/json)
/// - `/metrics` → 200 metrics::render() as `text/plain; version=0.0.4`
/// - `/ws` with `Upgrade: websocket` → hands the socket to a websocket_session
///   (without the upgrade: 426)
/// - a file under config.static_dir (`/` → index.html) with its MIME type; a target
///   with a `..` or `.` segment, a backslash or a NUL, or that resolves outside the
///   directory (symlinks included) → 400
/// - anything else → service::on_http_request(target, reply): answered when the
///   service calls `reply` (from any thread; back on this strand); nullopt → 404
/// X-Forwarded-For is honoured only from config.trusted_proxy: the client address is
/// then the header's last address. Lives as long as an operation is pending.
class http_session : public std::enable_shared_from_this<http_session> {
 public:
  /// Takes an accepted socket (on its own strand), the shared context, the
  /// connection's registry ticket and the peer's address as text.
  http_session(boost::asio::ip::tcp::socket&& socket, std::shared_ptr<const server_context> context,
               session_registry::ticket ticket, std::string peer_address);
  /// Starts reading the first request (on the socket's strand). Returns at once.
  void run();

  /// The most bytes of request header, and of request body, a client may send.
  static constexpr std::uint32_t header_limit = 8 * 1024;
  static constexpr std::uint64_t body_limit = 8 * 1024;

 private:
  void do_read();
  void on_read(boost::beast::error_code ec, std::size_t bytes);
  /// Answers one request by its route (the class comment lists them).
  void handle(boost::beast::http::request<boost::beast::http::string_body>&& request);
  /// `/metrics` for `client_address`: 200 with metrics::render(), or 403 `forbidden`
  /// unless it is a loopback client or has the --metrics-token.
  void serve_metrics(const boost::beast::http::request<boost::beast::http::string_body>& request,
                     const std::string& client_address);
  /// `/i18n/languages.json` ([{tag, name}], English first) and `/i18n/<tag>.json` (that
  /// language's whole catalogue: key → ICU message) for the web client (issue 31); 404
  /// for an unknown language.
  void serve_catalogue(const boost::beast::http::request<boost::beast::http::string_body>& request,
                       std::string_view path);
  /// Writes `file` (a static file, its MIME type, no-cache) for a GET, its fields only for
  /// a HEAD. False, nothing written, when it cannot be opened or sized.
  bool serve_file(const boost::beast::http::request<boost::beast::http::string_body>& request,
                  const std::filesystem::path& file);
  /// Hands a GET that is no file to service::on_http_request; its answer (nullopt: 404)
  /// is written back on this session's strand, 500 when the service throws.
  void ask_service(boost::beast::http::request<boost::beast::http::string_body>&& request,
                   const std::string& client_address);
  void upgrade(boost::beast::http::request<boost::beast::http::string_body>&& request,
               const std::string& client_address);
  template <typename Response>
  void write(Response&& response);
  void on_write(bool keep_alive, boost::beast::error_code ec, std::size_t bytes);
  void do_close();

  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::shared_ptr<const server_context> context_;
  session_registry::ticket ticket_;
  std::string peer_address_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::shared_ptr<void> response_;  // the response being written
};

}  // namespace bg::server
