#pragma once
/// @file clip_translator.hpp
/// One FIBS (CLIP) connection's translator between CLIP and gammond's own protocol: a
/// state machine with no I/O (DESIGN.md, Boost.MySQL's sans-IO core). It takes the lines
/// a FIBS client types and the JSON messages gammond sends that client, and returns what
/// to do: CLIP text for the client and JSON messages for the game service. Commands
/// and lines: protocol/FIBS.md.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace bg::server::fibs {

/// What a translator was built with.
struct clip_options {
  std::string motd;     ///< the host's message of the day (lines between CLIP 3 and 4)
  std::string address;  ///< the client's address (CLIP line 1's host)
  std::string version;  ///< gammond's version, for `version`
  /// invitations a connection keeps (the newest), and matches left with `leave`
  std::size_t max_invitations = 20;
};

/// What to do after one input: CLIP text for the client ("\r\n" line ends; a prompt may
/// end without one), gammond messages (JSON text) for service::on_text in order, and
/// whether to close the connection after the text.
struct clip_actions {
  std::string out;
  std::vector<std::string> to_service;
  bool close = false;

  /// Adds `text` and a line end to `out`.
  void line(std::string_view text);
};

/// One FIBS connection's state: login, toggles, the match played and the one watched,
/// invitations received, who is online. Not thread-safe (the gateway serialises calls).
class clip_translator {
 public:
  explicit clip_translator(clip_options options);

  /// The connection opened: the banner and the `login:` prompt.
  [[nodiscard]] clip_actions open();
  /// One line from the client (without its line end; telnet bytes already removed).
  /// `now_s` is the Unix time in seconds.
  [[nodiscard]] clip_actions on_line(std::string_view line, std::int64_t now_s);
  /// One message gammond sent this connection (a JSON text frame, PROTOCOL.md).
  [[nodiscard]] clip_actions on_frame(std::string_view frame, std::int64_t now_s);
  /// The who-list's poll (every --fibs-who-interval): asks gammond who is online.
  [[nodiscard]] clip_actions on_tick(std::int64_t now_s);
  /// True once gammond welcomed the login.
  [[nodiscard]] bool logged_in() const noexcept { return stage_ == stage::ready; }
  /// The player's name after the login ("" before).
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

 private:
  enum class stage { login, password, guest, guest_password, guest_retype, waiting, ready };

  /// A toggle of FIBS's `toggle` command, its value and its two sentences.
  struct toggle {
    bool on;
    const char* yes;
    const char* no;
  };

  void login_lines(clip_actions& a, std::int64_t now_s);
  void command(clip_actions& a, std::string_view verb, std::string_view rest, std::int64_t now_s);
  void on_state(clip_actions& a, const nlohmann::json& m);
  void on_event(clip_actions& a, const nlohmann::json& m);
  void on_chat(clip_actions& a, const nlohmann::json& m);
  void on_info(clip_actions& a, const nlohmann::json& m, std::string_view kind,
               std::string_view extra);
  void on_tables(clip_actions& a, const nlohmann::json& m, std::string_view extra);
  void on_error(clip_actions& a, const nlohmann::json& m, std::string_view kind);
  void on_welcome(clip_actions& a, const nlohmann::json& m, std::int64_t now_s);
  void who_lines(clip_actions& a, const std::vector<std::string>& names, bool end);

  /// A `line` message to `table` ("" = the lobby) with an id naming `kind`.
  void send_line(clip_actions& a, std::string_view table, std::string_view text,
                 std::string_view kind, std::string_view extra = {});
  void send(clip_actions& a, nlohmann::json message);
  [[nodiscard]] std::string side_of_me(const nlohmann::json& state) const;
  [[nodiscard]] std::string name_at(const nlohmann::json& state, const std::string& side) const;
  [[nodiscard]] bool is_me(std::string_view name) const;
  void print_board(clip_actions& a, const std::string& table);
  void forget_match();

  clip_options options_;
  stage stage_ = stage::login;
  std::string name_;
  std::string typed_name_;      // login name typed at the prompt, or the guest's new name
  std::string typed_password_;  // the guest's first password
  double rating_ = 1500.0;
  std::int64_t experience_ = 0;
  std::uint64_t next_id_ = 1;
  std::map<std::string, toggle> toggles_;

  std::string playing_;        // the table of the match played ("" = none)
  std::string invited_by_me_;  // the table made by `invite` (waits for the opponent)
  std::string invited_name_;   // the key of the name invited there
  int invited_length_ = 0;     // its length (0 = unlimited)
  std::string watching_;       // the table watched
  std::string watch_search_;   // the name `watch` is looking for ("" = none)
  /// The pages of the table list `watch` looks through at most (100 tables a page).
  static constexpr std::int64_t max_watch_pages = 10;
  std::string watched_side_;                        // the side whose view the watcher gets
  std::map<std::string, nlohmann::json> states_;    // the last state of those tables
  std::map<std::string, std::uint64_t> acted_seq_;  // the seq an automatic step was sent at
  std::map<std::string, std::uint64_t> shown_seq_;  // the seq a board was printed for
  std::vector<std::pair<std::string, std::string>> invitations_;  // (inviter's key, table)
  std::map<std::string, std::string> saved_;        // opponent's key -> table left with `leave`
  std::map<std::string, std::string> online_;       // who was online at the last poll (key -> name)
  bool who_known_ = false;                          // a poll has been answered
  std::map<std::string, std::int64_t> seen_since_;  // name -> when it was first seen online
};

}  // namespace bg::server::fibs
