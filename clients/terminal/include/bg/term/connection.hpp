#pragma once
/// @file connection.hpp
/// gammon-term's link to gammond: one Beast WebSocket client on a strand that says
/// hello, enters the table, reads every frame, queues writes (one in flight), and
/// reconnects with the resume token (backoff doubling up to a maximum) when the
/// connection drops, so the player keeps the seat.
///
/// Usage:
/// @code
///   boost::asio::io_context io;
///   bg::term::connection link{io, settings, handlers};
///   link.start();
///   std::thread t{[&] { io.run(); }};
///   link.send_line("/join");          // from any thread
///   link.finish(std::chrono::seconds{10});  // close once the replies are in
///   t.join();
/// @endcode
/// Handlers run on the io_context's thread. The connection must outlive io.run().

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>

namespace bg::term {

/// A self-healing WebSocket link to one gammond, logged in under one name. In a cluster
/// (PROTOCOL.md "Cluster") it follows `moved` and close 4000 to the owning node's path
/// at once (hello with the resume token, then the message again), and after close 4001
/// "node fenced" goes back to the plain target after a random 0.2-1 s.
class connection {
 public:
  /// Where to connect and as whom.
  struct settings {
    std::string host;    ///< host name or address
    std::string port;    ///< port number as text
    std::string target;  ///< the WebSocket path, "/ws"
    std::string name;    ///< the player name sent in hello
    std::string table;   ///< the table to enter and send lines to ("" = the lobby)
    std::chrono::milliseconds max_backoff{8'000};  ///< longest wait between attempts
    /// An account's password ("" : a guest): sent in the first hello (or `register`,
    /// with `register_account`), and again whenever no resume token is left. Never
    /// printed.
    std::string password;
    bool register_account = false;  ///< the first hello is a `register`
    /// A token kept from an earlier run ("" = none): the first hello resumes with it.
    std::string resume;
    /// A remembered sign-in kept from an earlier run (issue 27; "" = none): without a
    /// resume token, the hello logs in to the account `name` with it, no password.
    std::string session;
    /// A password login or registration asks for a remembered sign-in (`remember`).
    bool remember = false;
    /// The player's language, sent as `lang` in every hello ("" : none sent).
    std::string lang;
  };

  /// What the link reports about itself (besides the server's messages).
  enum class status {
    connected,     ///< the WebSocket is open and hello was sent; detail: the URL
    disconnected,  ///< the connection ended; detail: why
    reconnecting,  ///< waiting before the next attempt; detail: the wait in ms
    failed,        ///< giving up for good (name refused, replaced); detail: why
    closed,        ///< finished normally
  };

  /// Callbacks, all called on the io_context's thread.
  struct handlers {
    std::function<void(const nlohmann::json&)> on_message;  ///< every server message
    std::function<void(status, const std::string&)> on_status;
    /// The resume token changed (a welcome, a password change); "" : it was refused
    /// (`bad_resume`), so a kept copy must go.
    std::function<void(const std::string&)> on_token;
    /// The remembered sign-in changed (a welcome or /password gave one); "" : it ended
    /// (`bad_session`, /signout), so a kept copy must go.
    std::function<void(const std::string&)> on_session;
    /// The table followed changed: `/go`, `/lobby`, the server seated the player
    /// (`info` topic `play`) or a tournament paired them (`tournament_pairing`, which
    /// the link enters); "" = the lobby.
    std::function<void(const std::string&)> on_view;
  };

  /// Prepares the link; nothing happens before start().
  connection(boost::asio::io_context& io, settings s, handlers h);
  ~connection();
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  /// Starts connecting (and reconnecting) until finish() or stop().
  void start();
  /// Sends `text` as a `line` to the table (thread-safe). Lines wait for the server's
  /// welcome; lines given while disconnected are sent after the reconnection.
  void send_line(std::string text);
  /// Closes the link once every line has been sent and every line sent to the table
  /// has had its reply, or after `timeout` at the latest (thread-safe).
  void finish(std::chrono::milliseconds timeout);
  /// Closes the link now and stops reconnecting (thread-safe).
  void stop();
  /// Follows `table` from now on ("" = back to the lobby): `exit` of the table
  /// followed, `enter` of the new one; later lines go there (thread-safe).
  void go(std::string table);

 private:
  struct stream_holder;
  void attempt();
  void on_connected(const std::shared_ptr<stream_holder>& s);
  void read_next(const std::shared_ptr<stream_holder>& s);
  void on_frame(const std::shared_ptr<stream_holder>& s, const std::string& text);
  /// `code`: the server's close code (0 when the connection dropped without one).
  void on_ended(const std::shared_ptr<stream_holder>& s, const std::string& why,
                std::uint16_t code = 0);
  void write(std::string frame);
  void write_next(const std::shared_ptr<stream_holder>& s);
  void flush_lines();
  void check_finished();
  void close_now();
  void report(status st, const std::string& detail);
  void set_token(const std::string& token);
  void set_session(const std::string& credential);
  void set_view(const std::string& table);
  /// Follows `table` ("" = the lobby): `exit` of the table followed when it is another,
  /// then `enter` of `table` (once welcomed). On the strand.
  void follow(const std::string& table);

  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  settings settings_;
  handlers handlers_;
  boost::asio::steady_timer backoff_timer_;
  boost::asio::steady_timer finish_timer_;

  std::shared_ptr<stream_holder> stream_;  ///< the current connection, if any
  std::string resume_;                     ///< the token from the last welcome
  std::string session_;                    ///< the remembered sign-in ("" = none)
  std::chrono::milliseconds backoff_{250};
  bool welcomed_ = false;             ///< the current connection got its welcome
  bool ever_welcomed_ = false;        ///< some connection got a welcome
  bool stopping_ = false;             ///< no more reconnection
  bool finishing_ = false;            ///< finish() was called
  bool done_ = false;                 ///< closed or failed was reported
  std::deque<nlohmann::json> lines_;  ///< lines waiting for a welcome
  std::set<std::string> awaiting_;    ///< ids of lines sent without a reply yet
  std::uint64_t next_id_ = 0;
  /// The WebSocket path of the next attempt: settings_.target, or a node's path after
  /// `moved` (until that connection ends).
  std::string target_;
  std::optional<nlohmann::json> moved_;              ///< the `moved` of the current connection
  std::optional<nlohmann::json> resend_;             ///< sent again after the next welcome
  std::minstd_rand random_{std::random_device{}()};  ///< the delay after 4001
};

}  // namespace bg::term
