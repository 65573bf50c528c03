#pragma once
/// @file screen.hpp
/// Interactive mode's display: the board of the followed table, what the viewer may
/// type now (from `phase`, `to_act`, `may_double` and `legal`: no rule is computed),
/// the tail of the event log and chat, and a prompt that says where the viewer is,
/// redrawn after every message. In the lobby the board's place holds the lobby view:
/// the viewer's rating, the newest `/tables` page drawn as a table (players with
/// their ratings, variant, match, watchers, phase), who is online (`/who`), how many
/// players wait for a game per variant (`seeking` of `lobby` and `tables`, S5) and the
/// viewer's own waiting `/seek` (time waited, counted on from `waited`, and the rating
/// window), and the standings of the newest tournament the server told about
/// (`tournament`; at a table, a running tournament's standings end the board's side
/// panel).
///
/// Usage:
/// @code
///   bg::term::screen s{{.colour = true, .clear = true, .viewer = "alice", .table = "t1"}};
///   std::cout << s.message(json_from_server) << std::flush;
/// @endcode

#include <chrono>
#include <cstddef>
#include <deque>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bg/term/board_view.hpp"
#include "bg/term/connection.hpp"

namespace bg::term {

/// Keeps the latest state and the log, and draws them.
class screen {
 public:
  /// How to draw.
  struct style {
    bool colour = false;         ///< ANSI colours
    bool clear = false;          ///< clear the terminal before each redraw
    std::string viewer;          ///< this client's player name
    std::string table;           ///< the table drawn ("" = the lobby: log only)
    std::size_t log_lines = 12;  ///< how many log lines are shown under the board
    std::string lang = "en";     ///< the language of the words drawn (term.json)
  };

  /// A screen drawing with `s`.
  explicit screen(style s);

  /// Takes in a server message; returns the text that redraws the screen.
  [[nodiscard]] std::string message(const nlohmann::json& m);
  /// Takes in a change of the connection; returns the text that redraws the screen.
  [[nodiscard]] std::string status(connection::status st, const std::string& detail);
  /// Draws `table` from now on ("" = the lobby), forgetting the old table's state;
  /// returns the text that redraws the screen.
  [[nodiscard]] std::string view(const std::string& table);
  /// The lobby view alone (no log, no prompt), one string per line of at most 78
  /// columns: what redraw() shows in the board's place while in the lobby.
  [[nodiscard]] std::vector<std::string> lobby_lines() const;
  /// The prompt: "lobby> " or "TABLE> ".
  [[nodiscard]] std::string prompt() const;
  /// Called about every 200 ms: the text that redraws the screen when the lobby view
  /// shows a waiting /seek on a cleared terminal and its time waited reached a new
  /// second (the count goes on live), else "".
  [[nodiscard]] std::string tick();

 private:
  void log(std::string line);
  [[nodiscard]] std::string redraw() const;
  [[nodiscard]] std::string hints() const;
  /// The hint of the viewer's move: "your move: /move <play>, one of:" and the plays.
  [[nodiscard]] std::string move_hint() const;
  /// The lobby view's line of the viewer's waiting /seek.
  [[nodiscard]] std::string seek_line() const;
  /// The lobby view's line of who is online.
  [[nodiscard]] std::string online_line() const;
  /// Takes in a `welcome`: the viewer's ratings and a line in the log.
  void welcome(const nlohmann::json& m);

  style style_;
  board_view board_;
  nlohmann::json state_;         ///< the newest state of the table
  std::deque<std::string> log_;  ///< events, chat, errors and info, oldest first
  std::string link_;             ///< the state of the link, as shown (set by the constructor)
  nlohmann::json tables_;        ///< the newest `tables` message (null: none yet)
  nlohmann::json online_;        ///< `/who`'s `data` (null: none yet)
  nlohmann::json tournament_;    ///< the newest `tournament` message's view (null: none)
  std::string rating_;           ///< the viewer's ratings, from `welcome.account`
  nlohmann::json seeking_;       ///< players waiting per variant (null: not told yet)
  nlohmann::json seek_;          ///< the viewer's waiting /seek (`info` "seek" data), or null
  std::chrono::steady_clock::time_point seek_seen_;  ///< when seek_ came
  long long seek_drawn_ = -1;                        ///< the seconds waited last drawn (tick())
};

}  // namespace bg::term
