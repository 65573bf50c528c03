#pragma once
/// @file term_options.hpp
/// gammon-term's command line: where to connect, as whom, at which table, and how to
/// print (a redrawn screen for a person, plain lines for a script).

#include <chrono>
#include <optional>
#include <ostream>
#include <string>

namespace bg::term {

/// The options of one gammon-term run, parsed from the command line and environment.
struct term_options {
  /// The server's WebSocket URL as given (`ws://host:port/target`).
  std::string url = "ws://127.0.0.1:8080/ws";
  /// The parts of `url`: host name or address (IPv6 without brackets), port, target.
  std::string host = "127.0.0.1";
  std::string port = "8080";
  std::string target = "/ws";
  /// The player name sent in `hello`.
  std::string name;
  /// The table every typed line goes to ("" = the lobby); entered at connect.
  std::string table;
  /// Log in to the registered account `name` with its password (--login, or implied by
  /// --password-file); the password comes from `password_file`, else a prompt.
  bool login = false;
  /// Create the account `name` (--register) and log in; the password as for `login`.
  bool register_account = false;
  /// --password-file: the password is the file's first line ("" : ask on the terminal).
  /// There is no --password flag: the process list would show it to everyone.
  std::string password_file;
  /// Plain-text lines for scripts (stdin not a terminal, or --script) instead of a
  /// redrawn screen.
  bool forget = false;  ///< --forget: remove the kept resume token and exit
  bool script = false;
  /// ANSI colours (stdout is a terminal, NO_COLOR unset, no --no-color).
  bool colour = false;
  /// Draw the text board inside each STATE block in script mode (--no-board: off).
  bool board = true;
  /// After the end of input: how long to wait for the replies to the lines sent.
  std::chrono::milliseconds reply_timeout{10'000};
  /// After the end of input (and the replies): how long to keep printing.
  std::chrono::milliseconds linger{0};
  /// The longest wait between two reconnection attempts.
  std::chrono::milliseconds max_backoff{8'000};
  /// The language of everything shown, sent in `hello` as `lang`: --lang, else the
  /// locale (LC_ALL, LC_MESSAGES, LANG), else English (language_of()).
  std::string lang = "en";

  /// Set when the run ends at once: after --help or --version (0) or a bad command
  /// line (2). The text to show has then been written to `out` (help, version) or `err`.
  std::optional<int> exit_now;

  /// Parses `argv`. Reads NO_COLOR and whether stdin/stdout are terminals.
  [[nodiscard]] static term_options parse(int argc, const char* const* argv, std::ostream& out,
                                          std::ostream& err);

  /// The language for --lang `flag` ("" : not given) and the locale variables
  /// `lc_all`, `lc_messages`, `lang_env` (nullptr or "" : unset): the first of them that
  /// names a language of the catalogue ("ru_RU.UTF-8" → "ru"), else "en". Only the
  /// text is read: the locale need not be installed.
  [[nodiscard]] static std::string language_of(const std::string& flag, const char* lc_all,
                                               const char* lc_messages, const char* lang_env);

  /// Splits a `ws://host[:port][/target]` URL into host, port and target. Returns
  /// false (and leaves the fields unchanged) when it is not such a URL.
  bool set_url(const std::string& text);
};

}  // namespace bg::term
