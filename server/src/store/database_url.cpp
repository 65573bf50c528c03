#include "bg/server/store/database_url.hpp"

#include <optional>
#include <vector>

namespace bg::server {

namespace {

constexpr std::string_view mask = "***";

/// Where the passwords of a URL are: [begin, end) ranges into it.
struct span {
  std::size_t begin;
  std::size_t end;
};

/// The ranges of `url` holding a password: the one of the user info
/// (scheme://user:PASSWORD@host) and the values of `password=` query parameters.
std::vector<span> password_spans(std::string_view url) {
  std::vector<span> out;
  if (!is_postgres_url(url)) return out;
  const std::size_t start = url.find("://") + 3;
  // The authority ends at the path or the query; the user info at its last '@' (a raw
  // '@' in a password is then masked with it rather than shown).
  std::size_t authority_end = url.find_first_of("/?", start);
  if (authority_end == std::string_view::npos) authority_end = url.size();
  const std::size_t at = url.rfind('@', authority_end);
  if (at != std::string_view::npos && at >= start) {
    const std::size_t colon = url.find(':', start);
    if (colon != std::string_view::npos && colon < at) out.push_back({colon + 1, at});
  }
  const std::size_t query = url.find('?', start);
  if (query != std::string_view::npos) {
    std::size_t i = query + 1;
    while (i < url.size()) {
      std::size_t end = url.find('&', i);
      if (end == std::string_view::npos) end = url.size();
      const std::string_view item = url.substr(i, end - i);
      if (item.starts_with("password=")) out.push_back({i + 9, end});
      i = end + 1;
    }
  }
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// `text` with %XX sequences decoded (a malformed one kept as written).
std::string percent_decoded(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int hi = hex_value(text[i + 1]);
      const int lo = hex_value(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

void replace_all(std::string& text, const std::string& what) {
  if (what.empty()) return;
  for (std::size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + mask.size()))
    text.replace(at, what.size(), mask);
}

}  // namespace

bool is_postgres_url(std::string_view db) noexcept {
  return db.starts_with("postgresql://") || db.starts_with("postgres://");
}

std::string masked_database(std::string_view db) {
  std::string out(db);
  const auto spans = password_spans(db);
  // Back to front, so earlier offsets stay valid.
  for (auto it = spans.rbegin(); it != spans.rend(); ++it)
    out.replace(it->begin, it->end - it->begin, mask);
  return out;
}

std::string scrub_password(std::string message, std::string_view db) {
  for (const auto& s : password_spans(db)) {
    const std::string raw(db.substr(s.begin, s.end - s.begin));
    replace_all(message, raw);
    replace_all(message, percent_decoded(raw));
  }
  return message;
}

}  // namespace bg::server
