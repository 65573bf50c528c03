// One HTTP/1.1 connection (http_session.hpp).

#include "bg/server/net/http_session.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/file_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <filesystem>
#include <string_view>
#include <vector>

#include "bg/i18n/catalogue.hpp"
#include "bg/server/log_safe.hpp"
#include "bg/server/metrics.hpp"
#include "bg/server/net/read_throttle.hpp"
#include "bg/server/net/service.hpp"
#include "bg/server/net/websocket_session.hpp"
#include "bg/server/server_config.hpp"

namespace bg::server {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace fs = std::filesystem;
using request = http::request<http::string_body>;

constexpr std::string_view server_name = "gammond/" GAMMOND_VERSION;

/// The target without its query string or fragment.
std::string_view path_of(std::string_view target) {
  return target.substr(0, std::min(target.find('?'), target.find('#')));
}

/// `text` with %XX sequences decoded; nullopt when one is malformed.
std::optional<std::string> percent_decode(std::string_view text) {
  std::string decoded;
  decoded.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      decoded += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    const int high = hex(text[i + 1]);
    const int low = hex(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    decoded += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return decoded;
}

/// What a request path means for the static files.
struct static_lookup {
  bool refused = false;          ///< a traversal attempt or a malformed path: 400
  std::optional<fs::path> file;  ///< the regular file to serve
};

/// Finds the file for URL path `path` under `root`. Refuses `.`/`..` segments,
/// backslashes, NUL and anything that resolves outside `root` (symlinks included).
static_lookup find_static(const std::string& root, std::string_view path) {
  static_lookup result;
  const auto decoded = percent_decode(path);
  if (!decoded || decoded->empty() || decoded->front() != '/' ||
      decoded->find_first_of(std::string_view{"\\\0", 2}) != std::string::npos) {
    result.refused = true;
    return result;
  }
  std::string relative = decoded->substr(1);
  for (std::size_t start = 0; start <= relative.size();) {
    const std::size_t end = std::min(relative.find('/', start), relative.size());
    const std::string_view segment{relative.data() + start, end - start};
    if (segment == ".." || segment == ".") {
      result.refused = true;
      return result;
    }
    start = end + 1;
  }
  if (root.empty()) return result;
  if (relative.empty() || relative.back() == '/') relative += "index.html";

  std::error_code ec;
  const fs::path base = fs::canonical(root, ec);
  if (ec) return result;
  const fs::path candidate = fs::weakly_canonical(base / relative, ec);
  if (ec) return result;
  // Inside `base`: every component of base is a prefix of the candidate's.
  const auto [base_end, candidate_end] =
      std::mismatch(base.begin(), base.end(), candidate.begin(), candidate.end());
  if (base_end != base.end()) {
    result.refused = true;
    return result;
  }
  if (fs::is_regular_file(candidate, ec)) result.file = candidate;
  return result;
}

/// Whether `path` is one of the web client's page addresses, which it routes itself with
/// the History API (clients/web/router.js): `/table/NAME`, `/player/NAME`, `/ratings`,
/// `/ratings/VARIANT`, `/analysis/ID`, `/match/ID`, `/tournaments` and
/// `/tournament/NAME`. They are all answered with the
/// client's index.html, so that a reload or a shared link opens the page. `/matches/ID.mat`
/// and `/api/...` are not among them.
bool is_page_address(std::string_view path) {
  if (path == "/ratings" || path == "/tournaments") return true;
  for (const std::string_view prefix :
       {"/table/", "/player/", "/ratings/", "/analysis/", "/match/", "/tournament/"})
    if (path.size() > prefix.size() && path.substr(0, prefix.size()) == prefix) return true;
  return false;
}

std::string_view mime_type(const fs::path& file) {
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".html" || extension == ".htm") return "text/html; charset=utf-8";
  if (extension == ".js" || extension == ".mjs") return "text/javascript; charset=utf-8";
  if (extension == ".css") return "text/css; charset=utf-8";
  if (extension == ".svg") return "image/svg+xml";
  if (extension == ".png") return "image/png";
  if (extension == ".json") return "application/json";
  if (extension == ".ico") return "image/x-icon";
  if (extension == ".txt") return "text/plain; charset=utf-8";
  if (extension == ".webmanifest") return "application/manifest+json";
  if (extension == ".woff2") return "font/woff2";
  return "application/octet-stream";
}

/// The request's Host field when it is a plausible host[:port] (letters, digits and
/// `-.:[]` only, at most 255 bytes), else "" (absent, or not safe to repeat in a header).
std::string host_of(const request& req) {
  const std::string_view host = req[http::field::host];
  if (host.empty() || host.size() > 255 ||
      host.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.:[]") !=
          std::string_view::npos) {
    return {};
  }
  return std::string{host};
}

/// The security fields every response carries (issue 11.5): a Content-Security-Policy
/// that allows only this server's own scripts, styles and images, WebSockets to the
/// request's own host (ws: and wss:, since 'self' covers them only in newer browsers)
/// and no framing; nosniff; and no Referer sent to other sites.
template <typename Response>
void set_security_fields(Response& res, const request& req) {
  std::string connect = "'self'";
  if (const auto host = host_of(req); !host.empty()) {
    connect += " ws://" + host + " wss://" + host;
  }
  res.set("Content-Security-Policy",
          "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
          "connect-src " +
              connect +
              "; object-src 'none'; base-uri 'none'; form-action 'self'; "
              "frame-ancestors 'none'");
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "no-referrer");
}

/// Whether a WebSocket upgrade with Origin `origin` may proceed (issue 11.5): any
/// origin with "*" in `allowed`; else, with a list, the normalised origin must be in
/// it; without a list, it must name the request's Host (host and port, the port
/// defaulting by the Origin's scheme). "null" and anything not an http(s) origin are
/// refused.
bool origin_allowed(std::string_view origin, const request& req,
                    const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), "*") != allowed.end()) return true;
  const auto normal = normalise_origin(origin);
  if (!normal) return false;
  if (!allowed.empty()) return std::find(allowed.begin(), allowed.end(), *normal) != allowed.end();
  const std::string host = host_of(req);
  if (host.empty()) return false;
  const std::string scheme = normal->substr(0, normal->find(':'));
  return normalise_origin(scheme + "://" + host) == normal;
}

/// A complete string response. For HEAD the body is dropped but Content-Length kept.
http::response<http::string_body> make_response(const request& req, http::status status,
                                                std::string_view content_type, std::string body) {
  http::response<http::string_body> res{status, req.version()};
  res.set(http::field::server, server_name);
  res.set(http::field::content_type, content_type);
  set_security_fields(res, req);
  res.keep_alive(req.keep_alive());
  const std::size_t size = body.size();
  if (req.method() != http::verb::head) res.body() = std::move(body);
  res.prepare_payload();
  if (req.method() == http::verb::head) res.content_length(size);
  return res;
}

http::response<http::string_body> text_response(const request& req, http::status status,
                                                std::string body) {
  return make_response(req, status, "text/plain; charset=utf-8", std::move(body) + "\n");
}

/// The client address for `req` from `peer`: the last X-Forwarded-For address when
/// `peer` is the trusted proxy and the header holds a valid address.
std::string client_address(const request& req, const std::string& peer,
                           const std::string& trusted_proxy) {
  if (trusted_proxy.empty() || peer != trusted_proxy) return peer;
  const auto header = req.find("X-Forwarded-For");
  if (header == req.end()) return peer;
  std::string_view list = header->value();
  if (const auto comma = list.rfind(','); comma != std::string_view::npos) {
    list.remove_prefix(comma + 1);
  }
  while (!list.empty() && (list.front() == ' ' || list.front() == '\t')) list.remove_prefix(1);
  while (!list.empty() && (list.back() == ' ' || list.back() == '\t')) list.remove_suffix(1);
  beast::error_code ec;
  const auto address = net::ip::make_address(std::string{list}, ec);
  return ec ? peer : address.to_string();
}

/// Whether `req` from `client` may read /metrics: a loopback client always; another
/// only with `Authorization: Bearer <token>` when a token is configured (compared in
/// constant time).
bool metrics_allowed(const request& req, const std::string& client, const std::string& token) {
  beast::error_code ec;
  const auto address = net::ip::make_address(client, ec);
  if (!ec) {
    if (address.is_loopback()) return true;
    if (address.is_v6() && address.to_v6().is_v4_mapped() &&
        net::ip::make_address_v4(net::ip::v4_mapped, address.to_v6())
            .is_loopback())  // ::ffff:127.0.0.1
      return true;
  }
  if (token.empty()) return false;
  constexpr std::string_view bearer = "Bearer ";
  const std::string_view given = req[http::field::authorization];
  if (given.size() != bearer.size() + token.size() || given.substr(0, bearer.size()) != bearer)
    return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < token.size(); ++i)
    diff |= static_cast<unsigned char>(given[bearer.size() + i] ^ token[i]);
  return diff == 0;
}

}  // namespace

http_session::http_session(net::ip::tcp::socket&& socket,
                           std::shared_ptr<const server_context> context,
                           session_registry::ticket ticket, std::string peer_address)
    : stream_{std::move(socket)},
      context_{std::move(context)},
      ticket_{std::move(ticket)},
      peer_address_{std::move(peer_address)} {}

void http_session::run() {
  net::dispatch(stream_.get_executor(),
                beast::bind_front_handler(&http_session::do_read, shared_from_this()));
}

void http_session::do_read() {
  parser_.emplace();
  parser_->header_limit(header_limit);
  parser_->body_limit(body_limit);
  stream_.expires_after(context_->config.http_timeout);
  http::async_read(stream_, buffer_, *parser_,
                   beast::bind_front_handler(&http_session::on_read, shared_from_this()));
}

void http_session::on_read(beast::error_code ec, std::size_t /*bytes*/) {
  if (ec == http::error::end_of_stream) return do_close();
  if (ec == beast::error::timeout) {
    spdlog::debug("http {}: no complete request within {} s, closing", peer_address_,
                  context_->config.http_timeout.count());
    return;
  }
  if (ec && ec.category() == http::make_error_code(http::error::bad_target).category() &&
      ec != http::error::partial_message) {  // a parse error or a limit
    spdlog::debug("http {}: bad request: {}", peer_address_, ec.message());
    request bad;
    bad.version(11);
    bad.keep_alive(false);
    auto res = text_response(bad, http::status::bad_request, "bad request: " + ec.message());
    res.keep_alive(false);
    return write(std::move(res));
  }
  if (ec) {
    if (ec != net::error::operation_aborted) {
      spdlog::debug("http {}: read failed: {}", peer_address_, ec.message());
    }
    return;
  }
  try {
    handle(parser_->release());
  } catch (const std::exception& e) {
    spdlog::error("http {}: handling a request failed: {}", peer_address_, e.what());
    beast::error_code ignored;
    stream_.socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
  }
}

void http_session::serve_catalogue(const request& req, std::string_view path) {
  const auto& catalogues = i18n::catalogue::global();
  const std::string_view file = path.substr(6);
  if (file == "languages.json") {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& tag : catalogues.languages())
      list.push_back({{"tag", tag}, {"name", catalogues.render(tag, "lang.name")}});
    return write(make_response(req, http::status::ok, "application/json", list.dump()));
  }
  constexpr std::string_view json_suffix = ".json";
  if (file.size() > json_suffix.size() &&
      file.substr(file.size() - json_suffix.size()) == json_suffix) {
    const auto tag = file.substr(0, file.size() - json_suffix.size());
    if (catalogues.supported(tag) == tag) {
      if (auto text = catalogues.json_text(tag))
        return write(make_response(req, http::status::ok, "application/json", *text));
    }
  }
  return write(make_response(
      req, http::status::not_found, "application/json",
      R"({"error":"unknown_language","message":"no such catalogue: see /i18n/languages.json",)"
      R"("say":{"key":"service.http_unknown_language","args":{}}})"));
}

void http_session::handle(request&& req) {
  const auto& config = context_->config;
  const std::string client = client_address(req, peer_address_, config.trusted_proxy);
  const std::string_view target = req.target();
  const std::string_view path = path_of(target);
  // The path only: a query may carry a resume token (?token=, a private match's reads).
  spdlog::debug("http {} {} {}", client, std::string_view{req.method_string()}, log_safe(path));

  if (path == "/ws") {
    if (beast::websocket::is_upgrade(req)) return upgrade(std::move(req), client);
    auto res = text_response(req, http::status::upgrade_required,
                             "this is the WebSocket endpoint: connect with a WebSocket client");
    res.set(http::field::upgrade, "websocket");
    return write(std::move(res));
  }
  if (req.method() != http::verb::get && req.method() != http::verb::head) {
    auto res = text_response(req, http::status::method_not_allowed, "method not allowed");
    res.set(http::field::allow, "GET, HEAD");
    return write(std::move(res));
  }
  if (target.empty() || target.front() != '/') {
    return write(text_response(req, http::status::bad_request, "bad target"));
  }
  if (path == "/healthz") {
    return write(make_response(req, http::status::ok, "application/json", R"({"status":"ok"})"));
  }
  if (path == "/metrics") return serve_metrics(req, client);
  if (path.substr(0, 6) == "/i18n/") return serve_catalogue(req, path);

  // /api/ is the service's (issue 12: JSON answers, errors included): no static file.
  const bool api = path.substr(0, 5) == "/api/";
  const auto found = api                     ? static_lookup{}
                     : is_page_address(path) ? find_static(config.static_dir, "/")
                                             : find_static(config.static_dir, path);
  if (found.refused) return write(text_response(req, http::status::bad_request, "bad path"));
  if (found.file && serve_file(req, *found.file)) return;

  // What is left reads the database (/api/..., /matches/ID.mat): a bounded rate per
  // client address, so that one address cannot keep the reader busy for everyone.
  if (!context_->reads->allow(client)) {
    context_->counters.error("rate_limited");
    auto res = make_response(
        req, http::status::too_many_requests, "application/json",
        R"({"error":"rate_limited","message":"too many reads from your address: slow down",)"
        R"("say":{"key":"service.http_rate_limited","args":{}}})");
    res.set(http::field::retry_after, "1");
    return write(std::move(res));
  }
  ask_service(std::move(req), client);
}

void http_session::serve_metrics(const request& req, const std::string& client) {
  if (!metrics_allowed(req, client, context_->config.metrics_token)) {
    spdlog::debug("http {}: /metrics refused (not loopback, no valid token)", client);
    return write(make_response(
        req, http::status::forbidden, "application/json",
        R"({"error":"forbidden","message":"/metrics answers loopback clients, and others )"
        R"(only with Authorization: Bearer and the --metrics-token",)"
        R"("say":{"key":"service.http_metrics_forbidden","args":{}}})"));
  }
  write(make_response(req, http::status::ok, "text/plain; version=0.0.4; charset=utf-8",
                      context_->counters.render()));
}

bool http_session::serve_file(const request& req, const std::filesystem::path& file) {
  const auto content_type = mime_type(file);
  // The fields of a static file's answer, the same for GET and HEAD.
  const auto file_fields = [&](auto& res, std::uint64_t size) {
    res.set(http::field::server, server_name);
    res.set(http::field::content_type, content_type);
    res.set(http::field::cache_control, "no-cache");
    set_security_fields(res, req);
    res.content_length(size);
    res.keep_alive(req.keep_alive());
  };
  if (req.method() == http::verb::head) {
    std::error_code size_ec;
    const auto size = fs::file_size(file, size_ec);
    if (size_ec) return false;
    http::response<http::empty_body> res{http::status::ok, req.version()};
    file_fields(res, size);
    write(std::move(res));
    return true;
  }
  http::file_body::value_type body;
  beast::error_code open_ec;
  body.open(file.c_str(), beast::file_mode::scan, open_ec);
  if (open_ec) return false;
  const auto size = body.size();
  http::response<http::file_body> res{std::piecewise_construct, std::make_tuple(std::move(body)),
                                      std::make_tuple(http::status::ok, req.version())};
  file_fields(res, size);
  write(std::move(res));
  return true;
}

void http_session::ask_service(request&& req, const std::string& client) {
  // The service may answer later from another thread (a .mat read on the storage
  // thread): the answer comes back to this session's strand. No read is pending
  // meanwhile; the callback keeps the session alive.
  auto pending = std::make_shared<request>(std::move(req));
  auto answer = [self = shared_from_this(), pending](std::optional<http_reply> reply) {
    net::post(self->stream_.get_executor(), [self, pending, reply = std::move(reply)]() mutable {
      if (!reply) return self->write(text_response(*pending, http::status::not_found, "not found"));
      self->write(make_response(*pending, static_cast<http::status>(reply->status),
                                reply->content_type, std::move(reply->body)));
    });
  };
  try {
    context_->game.on_http_request(pending->target(), std::move(answer));
  } catch (const std::exception& e) {
    spdlog::error("http {} {}: the service failed: {}", client,
                  log_safe(path_of(std::string_view{pending->target()})), e.what());
    return write(text_response(*pending, http::status::internal_server_error, "internal error"));
  }
}

void http_session::upgrade(request&& req, const std::string& client) {
  if (const auto origin = req.find(http::field::origin);
      origin != req.end() &&
      !origin_allowed(origin->value(), req, context_->config.allowed_origins)) {
    spdlog::debug("http {}: refused a WebSocket from the foreign origin \"{}\" (Host \"{}\")",
                  client, log_safe(origin->value()), log_safe(req[http::field::host]));
    context_->counters.connection_refused("origin");
    auto res = text_response(req, http::status::forbidden,
                             "forbidden: this server accepts WebSockets only from its own pages, "
                             "and this page's origin is not one of them (see --allowed-origins)");
    res.keep_alive(false);
    return write(std::move(res));
  }
  // A connection from the trusted proxy counts only toward the total until here: count
  // it now under its client's address, or under the proxy's own when the proxy sent no
  // usable X-Forwarded-For (so such connections are still bounded per address).
  if (ticket_.address() != client && !context_->registry->recount(ticket_, client)) {
    spdlog::warn("refused a WebSocket from {} (via {}): too many connections", client,
                 peer_address_);
    auto res = text_response(req, http::status::service_unavailable, "too many connections");
    res.keep_alive(false);
    return write(std::move(res));
  }
  // The WebSocket has its own timeouts; the HTTP one must not cut it.
  stream_.expires_never();
  std::make_shared<websocket_session>(stream_.release_socket(), context_, std::move(ticket_),
                                      client)
      ->run(std::move(req));
}

template <typename Response>
void http_session::write(Response&& response) {
  auto res = std::make_shared<std::decay_t<Response>>(std::forward<Response>(response));
  response_ = res;
  const bool keep_alive = res->keep_alive();
  stream_.expires_after(context_->config.http_timeout);
  http::async_write(
      stream_, *res,
      beast::bind_front_handler(&http_session::on_write, shared_from_this(), keep_alive));
}

void http_session::on_write(bool keep_alive, beast::error_code ec, std::size_t /*bytes*/) {
  response_.reset();
  if (ec) {
    if (ec != net::error::operation_aborted) {
      spdlog::debug("http {}: write failed: {}", peer_address_, ec.message());
    }
    return;
  }
  if (!keep_alive) return do_close();
  do_read();
}

void http_session::do_close() {
  beast::error_code ec;
  stream_.socket().shutdown(net::ip::tcp::socket::shutdown_send, ec);
}

}  // namespace bg::server
