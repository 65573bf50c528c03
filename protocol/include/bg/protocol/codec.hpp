#pragma once
/// @file codec.hpp
/// The JSON messages of the wire protocol (protocol/PROTOCOL.md): decoding what a
/// client sends, and encoding what the server sends.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "bg/engine/error.hpp"

namespace bg::protocol {

/// The protocol version announced in `welcome`. Bumped only for incompatible changes;
/// new fields and messages do not bump it.
inline constexpr int protocol_version = 1;

/// The deepest JSON nesting a client message may have (a real message needs 2).
inline constexpr int max_json_depth = 16;

/// A decoded client message.
struct client_message {
  enum class kind : unsigned char {
    /// {"type":"hello","name":"alice","resume":"<token>"}; with "password": log in to the
    /// registered account (issue 12)
    hello,
    line,   ///< {"type":"line","table":"t1","text":"/join"} (no table: the lobby)
    enter,  ///< {"type":"enter","table":"t1"}: be present at a table and get its state
    exit,   ///< {"type":"exit","table":"t1"}: stop following a table
    ping,   ///< {"type":"ping"}: answered with {"type":"pong"}
    /// {"type":"register","name":"alice","password":"..."}: create an account and log in
    register_account,
  };
  kind what = kind::line;
  std::optional<nlohmann::json> id;  ///< the client's "id" (string or number), echoed as "re"
  std::string name;                  ///< hello
  std::string resume;                ///< hello (may be empty)
  /// hello (absent: a guest, or a resume) and register (always set; may be empty). Never
  /// logged nor echoed.
  std::optional<std::string> password;
  /// hello: a session credential (issue 27) that logs in to the account `name` instead
  /// of its password ("" = none). Never logged nor echoed.
  std::string session;
  /// hello with a password, and register: also start a remembered sign-in (the welcome
  /// carries its credential in `session`).
  bool remember = false;
  std::string label;  ///< hello/register: what kind of client ("browser")
  /// hello/register: the player's language ("fr", "ru-RU", or a list "fr-CH, de;q=0.8");
  /// "" = the WebSocket upgrade's Accept-Language, else English.
  std::string lang;
  std::optional<std::string> table;  ///< line/enter/exit
  std::string text;                  ///< line
};

/// Decodes one text frame. Errors (codes): "bad_json" (not JSON, truncated, nested
/// deeper than max_json_depth, not an object), "unknown_type", "bad_message" (a field
/// missing, of the wrong type, or not valid UTF-8, or with control characters). No
/// error message repeats a password.
/// Limits on lengths are the server's (it knows its configuration).
/// The flat messages clients send most (a line, enter, exit or ping with plain string
/// fields) are read by a small reader of their own; everything else by decode_tree().
engine::result<client_message> decode(std::string_view frame);

/// decode() through a parsed nlohmann tree, for every message (the reference the small
/// reader is tested against: both give the same message for what the small one reads).
engine::result<client_message> decode_tree(std::string_view frame);

/// True when `s` is valid UTF-8 (no overlong forms, no surrogates).
bool valid_utf8(std::string_view s) noexcept;

/// True when `s` has a control character (C0 other than none allowed, DEL, or C1).
bool has_control(std::string_view s) noexcept;

/// Serialises a server message to the text of one frame: nlohmann's compact dump(),
/// byte for byte, written by json_writer (issue 33: a third of nlohmann's cost). Invalid
/// UTF-8 (which should never reach here) is replaced as dump() replaces it, never thrown.
std::string encode(const nlohmann::json& message);

/// encode() as nlohmann writes it (dump() with invalid UTF-8 replaced): the reference
/// encode() is tested against, and what json_writer says of a number or a bad string.
std::string encode_by_nlohmann(const nlohmann::json& message);

/// {"type":"error","code":...,"message":...} with "re" when `re` is set.
nlohmann::json error_message(std::string_view code, std::string_view message,
                             const std::optional<nlohmann::json>& re = std::nullopt);

/// The error message of `e`: as above, and when `e.key` is set, `say` {"key","args"}
/// with `message` the English catalogue's sentence (a session re-renders it in its
/// player's language: i18n::say_in).
nlohmann::json error_message(const engine::error& e,
                             const std::optional<nlohmann::json>& re = std::nullopt);

/// An error whose sentence is catalogue message `key` (i18n/lang/en/*.json) with `args`
/// (a JSON object of strings and whole numbers): `message` is its English rendering.
/// The server's way to refuse in the player's language.
engine::error said_error(std::string code, std::string key,
                         const nlohmann::json& args = nlohmann::json::object());

/// The JSON object of a sentence's parameters (numbers stay numbers; a nested sentence
/// comes back as its {"key","args"} object).
nlohmann::json sentence_args(const std::vector<engine::sentence_arg>& args);

/// How said_error() keeps an argument that is itself a sentence {"key","args"} (e.g.
/// why a computer player gave up) in an engine::error: its JSON text, under the
/// argument's name with this suffix (no message argument is named so).
inline constexpr std::string_view nested_sentence_suffix = "@say";

/// Error `e` as a sentence argument of another message: its {"key","args"} (rendered in
/// the reader's language inside the outer sentence, i18n::catalogue::render) when it has
/// a key, else its English message as data.
nlohmann::json said_of(const engine::error& e);

}  // namespace bg::protocol
