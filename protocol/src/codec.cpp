#include "bg/protocol/codec.hpp"

#include "bg/i18n/catalogue.hpp"
#include "bg/protocol/json_writer.hpp"

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

/// A `bad_message` error with `m`, said by catalogue message `key` (protocol.*) with
/// `args`: the English catalogue's sentence is `m`.
engine::error bad_message(std::string m, std::string key,
                          std::vector<engine::sentence_arg> args = {}) {
  return make_error("bad_message", std::move(m), std::move(key), std::move(args));
}

/// Reads an optional string field; errors when present with another type or bad text.
engine::result<std::optional<std::string>> string_field(const nlohmann::json& j, const char* key,
                                                        bool allow_newlines = false) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string())
    return bad_message(std::string("\"") + key + "\" must be a string", "protocol.field_not_string",
                       {{"field", std::string(key)}});
  std::string v = it->get<std::string>();
  if (!valid_utf8(v))
    return bad_message(std::string("\"") + key + "\" is not valid UTF-8", "protocol.field_not_utf8",
                       {{"field", std::string(key)}});
  if (!allow_newlines && has_control(v))
    return bad_message(std::string("\"") + key + "\" contains control characters",
                       "protocol.field_control", {{"field", std::string(key)}});
  return std::optional<std::string>{std::move(v)};
}

/// Reads the optional session fields of a hello or register (issue 27): "remember"
/// (a boolean), "label" (at most 32 bytes, what kind of client: "browser") and "lang"
/// (at most 64 bytes: a language tag or an Accept-Language list).
std::optional<engine::error> session_fields(const nlohmann::json& j, client_message& m) {
  if (const auto it = j.find("remember"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean())
      return bad_message("\"remember\" must be true or false", "protocol.remember_not_bool");
    m.remember = it->get<bool>();
  }
  auto label = string_field(j, "label");
  if (!label) return label.err();
  if (*label && (*label)->size() > 32)
    return bad_message("\"label\" is at most 32 bytes", "protocol.label_too_long");
  m.label = label->value_or("");
  auto lang = string_field(j, "lang");
  if (!lang) return lang.err();
  if (*lang && (*lang)->size() > 64)
    return bad_message("\"lang\" is at most 64 bytes", "protocol.lang_too_long");
  m.lang = lang->value_or("");
  return std::nullopt;
}

/// JSON's whitespace.
bool json_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// Reads the flat messages clients send most (issue 33: a game command is a "line"):
/// one object whose members are "type", "table", "text" (strings with no escape, no
/// control character, valid UTF-8) and "id" (such a string or a plain integer), each at
/// most once, with JSON whitespace between tokens; and whose type is line, enter, exit
/// or ping with the fields it needs. It gives what decode_tree() gives for such a text;
/// anything else (another member, an escape, a null, a hello, an error to say) is
/// nullopt and left to decode_tree().
std::optional<client_message> decode_flat(std::string_view f) {
  std::size_t i = 0;
  const std::size_t n = f.size();
  const auto skip = [&] {
    while (i < n && json_space(f[i])) ++i;
  };
  // A string with no escape at f[i] (a quote): its content, or nullopt.
  const auto plain_string = [&]() -> std::optional<std::string_view> {
    if (i >= n || f[i] != '"') return std::nullopt;
    const std::size_t start = ++i;
    while (i < n && f[i] != '"') {
      const auto c = static_cast<unsigned char>(f[i]);
      if (c == '\\' || c < 0x20) return std::nullopt;
      ++i;
    }
    if (i >= n) return std::nullopt;
    const std::string_view v = f.substr(start, i - start);
    ++i;
    if (!valid_utf8(v) || has_control(v)) return std::nullopt;
    return v;
  };
  std::optional<std::string_view> type, table, text;
  std::optional<nlohmann::json> id;
  skip();
  if (i >= n || f[i] != '{') return std::nullopt;
  ++i;
  skip();
  if (i < n && f[i] == '}') return std::nullopt;  // {}: decode_tree() says what is missing
  while (true) {
    skip();
    const auto key = plain_string();
    if (!key) return std::nullopt;
    skip();
    if (i >= n || f[i] != ':') return std::nullopt;
    ++i;
    skip();
    if (*key == "id") {
      if (id) return std::nullopt;
      if (i < n && f[i] == '"') {
        const auto v = plain_string();
        if (!v || v->size() > 64) return std::nullopt;
        id = nlohmann::json(std::string(*v));
      } else {
        // An integer as nlohmann reads it: unsigned when not negative. Only plain ones
        // (no fraction, exponent or "-0"), at most 18 digits.
        const bool negative = i < n && f[i] == '-';
        if (negative) ++i;
        const std::size_t start = i;
        while (i < n && f[i] >= '0' && f[i] <= '9') ++i;
        const std::size_t digits = i - start;
        if (digits == 0 || digits > 18 || (f[start] == '0' && (digits > 1 || negative)))
          return std::nullopt;
        std::int64_t v = 0;
        for (std::size_t k = start; k < i; ++k) v = v * 10 + (f[k] - '0');
        if (negative) {
          id = nlohmann::json(-v);
        } else {
          id = nlohmann::json(static_cast<std::uint64_t>(v));
        }
      }
    } else {
      std::optional<std::string_view>* slot = nullptr;
      if (*key == "type") {
        slot = &type;
      } else if (*key == "table") {
        slot = &table;
      } else if (*key == "text") {
        slot = &text;
      } else {
        return std::nullopt;
      }
      if (*slot) return std::nullopt;
      *slot = plain_string();
      if (!*slot) return std::nullopt;
    }
    skip();
    if (i < n && f[i] == ',') {
      ++i;
      continue;
    }
    if (i < n && f[i] == '}') {
      ++i;
      break;
    }
    return std::nullopt;
  }
  skip();
  if (i != n || !type) return std::nullopt;
  client_message m;
  m.id = std::move(id);
  if (table) m.table = std::string(*table);
  if (*type == "line") {
    if (!text) return std::nullopt;
    m.what = client_message::kind::line;
    m.text = std::string(*text);
    return m;
  }
  if (text) return std::nullopt;  // read by no other type, but left to the tree's checks
  if (*type == "enter" || *type == "exit") {
    if (!table) return std::nullopt;
    m.what = *type == "enter" ? client_message::kind::enter : client_message::kind::exit;
    return m;
  }
  if (*type == "ping") {
    m.what = client_message::kind::ping;
    return m;
  }
  return std::nullopt;
}

}  // namespace

engine::result<client_message> decode(std::string_view frame) {
  if (auto flat = decode_flat(frame)) return std::move(*flat);
  return decode_tree(frame);
}

engine::result<client_message> decode_tree(std::string_view frame) {
  if (!nesting_ok(frame))
    return make_error("bad_json", "the message is nested too deeply", "protocol.json_too_deep");
  nlohmann::json j = nlohmann::json::parse(frame, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return make_error("bad_json", "the message is not valid JSON", "protocol.json_invalid");
  if (!j.is_object())
    return make_error("bad_json", "a message is one JSON object", "protocol.json_not_object");
  client_message m;
  if (const auto it = j.find("id"); it != j.end()) {
    if (!it->is_string() && !it->is_number_integer() && !it->is_number_unsigned())
      return bad_message("\"id\" must be a string or an integer", "protocol.id_type");
    if (it->is_string() && (it->get_ref<const std::string&>().size() > 64 ||
                            !valid_utf8(it->get_ref<const std::string&>())))
      return bad_message("\"id\" must be at most 64 bytes of UTF-8", "protocol.id_too_long");
    m.id = *it;
  }
  const auto type_it = j.find("type");
  if (type_it == j.end() || !type_it->is_string())
    return bad_message("a message needs a \"type\" string", "protocol.type_missing");
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
    if (!*name && !*resume)
      return bad_message("hello needs a \"name\" (or a \"resume\" token)",
                         "protocol.hello_needs_name");
    auto password = string_field(j, "password");
    if (!password) return password.err();
    if (*password && !*name)
      return bad_message("a hello with a \"password\" needs a \"name\"",
                         "protocol.password_needs_name");
    auto session = string_field(j, "session");
    if (!session) return session.err();
    if (*session && !*name)
      return bad_message("a hello with a \"session\" needs a \"name\"",
                         "protocol.session_needs_name");
    if (*session && *password)
      return bad_message("a hello has a \"password\" or a \"session\", not both",
                         "protocol.password_and_session");
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
    if (!*name || !*password)
      return bad_message("register needs a \"name\" and a \"password\"", "protocol.register_needs");
    if (auto bad = session_fields(j, m)) return *bad;
    m.name = std::move(**name);
    m.password = std::move(*password);
    return m;
  }
  if (type == "line") {
    m.what = client_message::kind::line;
    auto text = string_field(j, "text");
    if (!text) return text.err();
    if (!*text) return bad_message("a line needs a \"text\" string", "protocol.line_needs_text");
    m.text = std::move(**text);
    return m;
  }
  if (type == "enter" || type == "exit") {
    m.what = type == "enter" ? client_message::kind::enter : client_message::kind::exit;
    if (!m.table)
      return bad_message(type + " needs a \"table\" string", "protocol.needs_table",
                         {{"type", type}});
    return m;
  }
  if (type == "ping") {
    m.what = client_message::kind::ping;
    return m;
  }
  std::string shown = type.substr(0, 32);
  if (!valid_utf8(shown) || has_control(shown)) shown = "?";
  return make_error(
      "unknown_type",
      "unknown message type \"" + shown + "\": use hello, register, line, enter, exit or ping",
      "protocol.unknown_type", {{"type", shown}});
}

std::string encode_by_nlohmann(const nlohmann::json& message) {
  return message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

/// Writes tree `j`, at nesting `depth`, into `w` as dump() writes it (objects in their
/// std::map order). Below json_writer's 64 levels, nlohmann writes the rest.
void write_tree(json_writer& w, const nlohmann::json& j, int depth = 0) {
  using t = nlohmann::json::value_t;
  if (depth >= 60 && j.is_structured()) {
    w.raw(encode_by_nlohmann(j));
    return;
  }
  switch (j.type()) {
    case t::object:
      w.begin_object();
      for (const auto& [k, v] : j.items()) {
        w.key(k);
        write_tree(w, v, depth + 1);
      }
      w.end_object();
      return;
    case t::array:
      w.begin_array();
      for (const auto& v : j) write_tree(w, v, depth + 1);
      w.end_array();
      return;
    case t::string:
      w.value(std::string_view{j.get_ref<const std::string&>()});
      return;
    case t::boolean:
      w.value(j.get<bool>());
      return;
    case t::number_integer:
      w.value(j.get<std::int64_t>());
      return;
    case t::number_unsigned:
      w.value(j.get<std::uint64_t>());
      return;
    case t::number_float:
      w.value(j.get<double>());
      return;
    case t::binary:  // never in a message: nlohmann's own text for them
    case t::discarded:
      w.raw(encode_by_nlohmann(j));
      return;
    case t::null:
      w.null();
      return;
  }
}

}  // namespace

std::string encode(const nlohmann::json& message) {
  json_writer w(256);
  write_tree(w, message);
  return w.release();
}

nlohmann::json error_message(std::string_view code, std::string_view message,
                             const std::optional<nlohmann::json>& re) {
  nlohmann::json j{{"type", "error"}, {"code", code}, {"message", message}};
  if (re) j["re"] = *re;
  return j;
}

nlohmann::json sentence_args(const std::vector<engine::sentence_arg>& args) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& a : args) {
    const auto* text = std::get_if<std::string>(&a.value);
    if (text && a.name.ends_with(nested_sentence_suffix)) {
      auto nested = nlohmann::json::parse(*text, nullptr, false);
      if (nested.is_object())
        j[a.name.substr(0, a.name.size() - nested_sentence_suffix.size())] = std::move(nested);
      continue;
    }
    std::visit([&](const auto& v) { j[a.name] = v; }, a.value);
  }
  return j;
}

nlohmann::json said_of(const engine::error& e) {
  if (e.key.empty()) return e.message;
  return i18n::say(e.key, sentence_args(e.args));
}

engine::error said_error(std::string code, std::string key, const nlohmann::json& args) {
  std::vector<engine::sentence_arg> list;
  for (const auto& [name, v] : args.items()) {
    if (v.is_number_integer())
      list.push_back({name, v.get<std::int64_t>()});
    else if (v.is_object())  // a nested sentence: its JSON text, named apart
      list.push_back({name + std::string(nested_sentence_suffix), v.dump()});
    else
      list.push_back({name, v.is_string() ? v.get<std::string>() : v.dump()});
  }
  std::string message = i18n::english(key, args);
  return engine::make_error(std::move(code), std::move(message), std::move(key), std::move(list));
}

nlohmann::json error_message(const engine::error& e, const std::optional<nlohmann::json>& re) {
  nlohmann::json j{{"type", "error"}, {"code", e.code}, {"message", e.message}};
  if (!e.key.empty()) {
    auto args = sentence_args(e.args);
    if (i18n::catalogue::global().has(i18n::source_language, e.key))
      j["message"] = i18n::english(e.key, args);
    j["say"] = i18n::say(e.key, std::move(args));
  }
  if (re) j["re"] = *re;
  return j;
}

}  // namespace bg::protocol
