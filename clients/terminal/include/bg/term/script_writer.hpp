#pragma once
/// @file script_writer.hpp
/// Script mode's output: every server message and every change of the connection as
/// deterministic plain-text lines (the format `gammon-term --help` documents), so a
/// shell script or a test can drive gammon-term through pipes.
///
/// Usage:
/// @code
///   bg::term::script_writer out{{.board = true, .viewer = "alice"}};
///   std::cout << out.message(json_from_server);   // e.g. "EVENT t1 rolled: black rolls 6-3\n"
/// @endcode

#include <nlohmann/json.hpp>
#include <string>

#include "bg/term/board_view.hpp"
#include "bg/term/connection.hpp"

namespace bg::term {

/// Formats messages as script lines; stateless apart from its style.
class script_writer {
 public:
  /// What to print.
  struct style {
    bool board = true;        ///< draw the text board inside STATE blocks
    std::string viewer;       ///< this client's player name (for `you=` and the board)
    std::string lang = "en";  ///< the language of the board's words (the lines' are fixed)
  };

  /// A writer printing with `s`.
  explicit script_writer(style s);

  /// The lines for one server message, each ending in '\n' ("" for a pong).
  [[nodiscard]] std::string message(const nlohmann::json& m) const;
  /// The line for a change of the connection, ending in '\n'.
  [[nodiscard]] std::string status(connection::status st, const std::string& detail) const;
  /// The line that says the table followed changed: "TABLE <table>" (the name alone,
  /// where a `/tables` row has fields), "TABLE -" for the lobby.
  [[nodiscard]] static std::string view(const std::string& table);

 private:
  [[nodiscard]] std::string state_block(const nlohmann::json& m) const;

  style style_;
  board_view board_;
};

}  // namespace bg::term
