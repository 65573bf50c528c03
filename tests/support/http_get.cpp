// One HTTP request for tests (http_get.hpp).

#include "http_get.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <stdexcept>

namespace bg::test {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

http_result http_request(const std::string& host, std::uint16_t port, const std::string& target,
                         const std::string& method,
                         const std::map<std::string, std::string>& fields,
                         std::chrono::milliseconds timeout) {
  net::io_context io;
  tcp::resolver resolver{io};
  beast::error_code ec;
  const auto endpoints = resolver.resolve(host, std::to_string(port), ec);
  if (ec) throw std::runtime_error("http_request: cannot resolve " + host + ": " + ec.message());

  beast::tcp_stream stream{io};
  stream.expires_after(timeout);
  http::request<http::empty_body> req{http::string_to_verb(method), target, 11};
  if (req.method() == http::verb::unknown) req.method_string(method);
  req.set(http::field::host, host + ":" + std::to_string(port));
  req.set(http::field::user_agent, "gammond-test-http");
  req.set(http::field::connection, "close");
  for (const auto& [name, value] : fields) req.set(name, value);

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  if (req.method() == http::verb::head) parser.skip(true);
  beast::error_code failure;
  std::string step = "connect";

  stream.async_connect(endpoints, [&](beast::error_code connect_ec, const tcp::endpoint&) {
    if (connect_ec) {
      failure = connect_ec;
      return;
    }
    step = "write";
    http::async_write(stream, req, [&](beast::error_code write_ec, std::size_t) {
      if (write_ec) {
        failure = write_ec;
        return;
      }
      step = "read";
      http::async_read(stream, buffer, parser,
                       [&](beast::error_code read_ec, std::size_t) { failure = read_ec; });
    });
  });
  io.run();
  if (failure) {
    throw std::runtime_error("http_request " + method + " " + target + ": " + step +
                             " failed: " + failure.message());
  }
  const auto& res = parser.get();
  http_result result;
  result.status = res.result_int();
  result.body = res.body();
  for (const auto& field : res) {
    std::string name{field.name_string()};
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    result.fields[name] = std::string{field.value()};
  }
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  return result;
}

http_result http_get(const std::string& host, std::uint16_t port, const std::string& target,
                     std::chrono::milliseconds timeout) {
  return http_request(host, port, target, "GET", {}, timeout);
}

}  // namespace bg::test
