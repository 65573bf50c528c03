/// @file json_decoder.cpp
/// libFuzzer target: protocol::decode on arbitrary bytes (one WebSocket text frame,
/// entirely under a client's control), then protocol::parse_line on the text of every
/// decoded `line`. Proves, for every input:
///  - decode never throws or crashes (nesting, truncation, bad UTF-8, odd numbers);
///  - a refusal is bad_json, bad_message or unknown_type with a non-empty message that
///    is valid UTF-8 without control characters (it is sent back as it is), and the
///    error reply built from it encodes to JSON that parses back to the same fields;
///  - an accepted message has the fields its type needs, every string valid UTF-8
///    without control characters, an "id" that is a string of at most 64 bytes or an
///    integer; encoded again as the protocol writes it, it decodes to the same fields;
///  - the text of a line satisfies every parse_line property (command_properties.hpp).
///
///   scripts/fuzz 60 json_decoder    # this target only, 60 s, in build-fuzz
///   build-fuzz/tests/fuzz/fuzz_json_decoder SCRATCH_DIR tests/fuzz/corpus/json_decoder   # by hand
///   build/tests/fuzz/json_decoder_replay tests/fuzz/corpus/json_decoder   # no libFuzzer

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "bg/protocol/codec.hpp"
#include "command_properties.hpp"
#include "fuzz_check.hpp"

namespace {

using bg::protocol::client_message;

bool clean(const std::string& s) {
  return bg::protocol::valid_utf8(s) && !bg::protocol::has_control(s);
}

const char* type_name(client_message::kind k) {
  switch (k) {
    case client_message::kind::hello:
      return "hello";
    case client_message::kind::line:
      return "line";
    case client_message::kind::enter:
      return "enter";
    case client_message::kind::exit:
      return "exit";
    case client_message::kind::ping:
      return "ping";
    case client_message::kind::register_account:
      return "register";
  }
  return "?";
}

/// The message as a client following PROTOCOL.md would write it.
nlohmann::json to_json(const client_message& m) {
  nlohmann::json j{{"type", type_name(m.what)}};
  if (m.id) j["id"] = *m.id;
  if (m.table) j["table"] = *m.table;
  if (m.what == client_message::kind::hello) {
    j["name"] = m.name;
    if (!m.resume.empty()) j["resume"] = m.resume;
  }
  if (m.what == client_message::kind::register_account) j["name"] = m.name;
  if (m.password) j["password"] = *m.password;
  if (m.what == client_message::kind::line) j["text"] = m.text;
  return j;
}

bool same_message(const client_message& a, const client_message& b) {
  return a.what == b.what && a.id == b.id && a.name == b.name && a.resume == b.resume &&
         a.table == b.table && a.text == b.text && a.password == b.password;
}

void check_error_reply(const bg::engine::error& e, const std::optional<nlohmann::json>& re) {
  const std::string frame =
      bg::protocol::encode(bg::protocol::error_message(e.code, e.message, re));
  FUZZ_CHECK(bg::protocol::valid_utf8(frame));
  const auto back = nlohmann::json::parse(frame, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(back.is_object());
  FUZZ_CHECK(back.value("type", "") == "error");
  FUZZ_CHECK(back.value("code", "") == e.code);
  FUZZ_CHECK(back.value("message", "") == e.message);
  FUZZ_CHECK(re ? back.contains("re") && back["re"] == *re : !back.contains("re"));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto frame = bg::fuzz::as_text(data, size);
  const auto r = bg::protocol::decode(frame);
  if (!r) {
    const auto& e = r.err();
    FUZZ_CHECK(e.code == "bad_json" || e.code == "bad_message" || e.code == "unknown_type");
    FUZZ_CHECK(!e.message.empty());
    FUZZ_CHECK(clean(e.message));
    check_error_reply(e, std::nullopt);
    return 0;
  }
  const client_message& m = *r;
  if (m.id) {
    FUZZ_CHECK(m.id->is_string() || m.id->is_number_integer() || m.id->is_number_unsigned());
    if (m.id->is_string()) {
      const auto& s = m.id->get_ref<const std::string&>();
      FUZZ_CHECK(s.size() <= 64 && bg::protocol::valid_utf8(s));
    }
  }
  FUZZ_CHECK(clean(m.name) && clean(m.resume) && clean(m.text));
  if (m.password) FUZZ_CHECK(clean(*m.password));
  if (m.table) FUZZ_CHECK(clean(*m.table));
  switch (m.what) {
    case client_message::kind::hello:
      break;
    case client_message::kind::line:
      break;
    case client_message::kind::enter:
    case client_message::kind::exit:
      FUZZ_CHECK(m.table.has_value());
      break;
    case client_message::kind::ping:
      break;
    case client_message::kind::register_account:
      FUZZ_CHECK(m.password.has_value());
      break;
  }
  const bool named =
      m.what == client_message::kind::hello || m.what == client_message::kind::register_account;
  if (!named) FUZZ_CHECK(m.name.empty() && m.resume.empty() && !m.password);
  if (m.what == client_message::kind::register_account) FUZZ_CHECK(m.resume.empty());
  if (m.what != client_message::kind::line) FUZZ_CHECK(m.text.empty());

  // Written again as the protocol writes it, it decodes to the same message.
  const std::string again = bg::protocol::encode(to_json(m));
  const auto r2 = bg::protocol::decode(again);
  FUZZ_CHECK(r2.ok());
  FUZZ_CHECK(same_message(m, *r2));

  // A refusal of this message echoes its id as "re".
  check_error_reply(bg::engine::make_error("bad_command", "a refusal"), m.id);

  if (m.what == client_message::kind::line) bg::fuzz::check_command_line(m.text);
  return 0;
}
