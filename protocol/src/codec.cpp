#include "bg/protocol/codec.hpp"

namespace bg::protocol {

using engine::make_error;

bool valid_utf8(std::string_view s) noexcept {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int extra = 0;
    std::uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) {
      extra = 1;
      cp = c & 0x1Fu;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      cp = c & 0x0Fu;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      cp = c & 0x07u;
    } else {
      return false;
    }
    if (i + static_cast<std::size_t>(extra) >= n) return false;  // truncated sequence
    for (int k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000))
      return false;  // overlong
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += static_cast<std::size_t>(extra) + 1;
  }
  return true;
}

bool has_control(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F) return true;
    // C1 controls U+0080..U+009F are encoded C2 80..C2 9F.
    if (c == 0xC2 && i + 1 < s.size()) {
      const auto d = static_cast<unsigned char>(s[i + 1]);
      if (d >= 0x80 && d <= 0x9F) return true;
    }
  }
  return false;
}

namespace {

/// Rejects nesting deeper than max_json_depth before parsing (a parser's recursion
/// and a value's destructor are then bounded).
bool nesting_ok(std::string_view s) noexcept {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_json_depth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

engine::error bad_message(std::string m) {
  return make_error("bad_message", std::move(m));
}

/// Reads an optional string field; errors when present with another type or bad text.
engine::result<std::optional<std::string>> string_field(const nlohmann::json& j, const char* key,
                                                        bool allow_newlines = false) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string()) return bad_message(std::string("\"") + key + "\" must be a string");
  std::string v = it->get<std::string>();
  if (!valid_utf8(v)) return bad_message(std::string("\"") + key + "\" is not valid UTF-8");
  if (!allow_newlines && has_control(v))
    return bad_message(std::string("\"") + key + "\" contains control characters");
  return std::optional<std::string>{std::move(v)};
}

/// Reads the optional session fields of a hello or register (issue 27): "remember"
/// (a boolean) and "label" (at most 32 bytes, what kind of client: "browser").
std::optional<engine::error> session_fields(const nlohmann::json& j, client_message& m) {
  if (const auto it = j.find("remember"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) return bad_message("\"remember\" must be true or false");
    m.remember = it->get<bool>();
  }
  auto label = string_field(j, "label");
  if (!label) return label.err();
  if (*label && (*label)->size() > 32) return bad_message("\"label\" is at most 32 bytes");
  m.label = label->value_or("");
  return std::nullopt;
}

}  // namespace

engine::result<client_message> decode(std::string_view frame) {
  if (!nesting_ok(frame)) return make_error("bad_json", "the message is nested too deeply");
  nlohmann::json j = nlohmann::json::parse(frame, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return make_error("bad_json", "the message is not valid JSON");
  if (!j.is_object()) return make_error("bad_json", "a message is one JSON object");
  client_message m;
  if (const auto it = j.find("id"); it != j.end()) {
    if (!it->is_string() && !it->is_number_integer() && !it->is_number_unsigned())
      return bad_message("\"id\" must be a string or an integer");
    if (it->is_string() && (it->get_ref<const std::string&>().size() > 64 ||
                            !valid_utf8(it->get_ref<const std::string&>())))
      return bad_message("\"id\" must be at most 64 bytes of UTF-8");
    m.id = *it;
  }
  const auto type_it = j.find("type");
  if (type_it == j.end() || !type_it->is_string())
    return bad_message("a message needs a \"type\" string");
  const auto& type = type_it->get_ref<const std::string&>();
  auto table = string_field(j, "table");
  if (!table) return table.err();
  m.table = *table;
  if (type == "hello") {
    m.what = client_message::kind::hello;
    auto name = string_field(j, "name");
    if (!name) return name.err();
    auto resume = string_field(j, "resume");
    if (!resume) return resume.err();
    if (!*name && !*resume) return bad_message("hello needs a \"name\" (or a \"resume\" token)");
    auto password = string_field(j, "password");
    if (!password) return password.err();
    if (*password && !*name) return bad_message("a hello with a \"password\" needs a \"name\"");
    auto session = string_field(j, "session");
    if (!session) return session.err();
    if (*session && !*name) return bad_message("a hello with a \"session\" needs a \"name\"");
    if (*session && *password)
      return bad_message("a hello has a \"password\" or a \"session\", not both");
    if (auto bad = session_fields(j, m)) return *bad;
    m.name = name->value_or("");
    m.resume = resume->value_or("");
    m.password = std::move(*password);
    m.session = session->value_or("");
    return m;
  }
  if (type == "register") {
    m.what = client_message::kind::register_account;
    auto name = string_field(j, "name");
    if (!name) return name.err();
    auto password = string_field(j, "password");
    if (!password) return password.err();
    if (!*name || !*password) return bad_message("register needs a \"name\" and a \"password\"");
    if (auto bad = session_fields(j, m)) return *bad;
    m.name = std::move(**name);
    m.password = std::move(*password);
    return m;
  }
  if (type == "line") {
    m.what = client_message::kind::line;
    auto text = string_field(j, "text");
    if (!text) return text.err();
    if (!*text) return bad_message("a line needs a \"text\" string");
    m.text = std::move(**text);
    return m;
  }
  if (type == "enter" || type == "exit") {
    m.what = type == "enter" ? client_message::kind::enter : client_message::kind::exit;
    if (!m.table) return bad_message(type + " needs a \"table\" string");
    return m;
  }
  if (type == "ping") {
    m.what = client_message::kind::ping;
    return m;
  }
  std::string shown = type.substr(0, 32);
  if (!valid_utf8(shown) || has_control(shown)) shown = "?";
  return make_error("unknown_type", "unknown message type \"" + shown +
                                        "\": use hello, register, line, enter, exit or ping");
}

std::string encode(const nlohmann::json& message) {
  return message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json error_message(std::string_view code, std::string_view message,
                             const std::optional<nlohmann::json>& re) {
  nlohmann::json j{{"type", "error"}, {"code", code}, {"message", message}};
  if (re) j["re"] = *re;
  return j;
}

}  // namespace bg::protocol
