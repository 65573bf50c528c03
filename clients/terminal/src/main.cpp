// gammon-term: the terminal client of gammond. It connects, says hello, enters the
// table, prints what the server sends (a redrawn screen for a person, plain lines for
// a script) and sends every line read from stdin to the table.

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cerrno>
#include <csignal>
#include <exception>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "bg/term/board_view.hpp"
#include "bg/term/connection.hpp"
#include "bg/term/password_source.hpp"
#include "bg/term/replay_text.hpp"
#include "bg/term/screen.hpp"
#include "bg/term/script_writer.hpp"
#include "bg/term/term_options.hpp"
#include "bg/term/token_store.hpp"

namespace {

using bg::term::connection;

/// Sends each complete line of `buffer` (and removes it); blank lines are skipped.
/// `/go TABLE` and `/lobby` change the table followed, `/go` alone enters the table of
/// the newest invitation (`invited()`, "" = none); `/replay MATCH [STEP]` calls
/// `replay(match, step)` (the client's own command: it reads the server's replay over
/// HTTP); `say` prints a misuse, in language `lang`.
void send_lines(std::string& buffer, connection& link, const std::string& lang,
                const std::function<void(const std::string&)>& say,
                const std::function<std::string()>& invited,
                const std::function<void(const std::string&, const std::string&)>& replay) {
  for (auto end = buffer.find('\n'); end != std::string::npos; end = buffer.find('\n')) {
    std::string line = buffer.substr(0, end);
    buffer.erase(0, end + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::istringstream words{line};
    std::string command;
    std::string table;
    std::string extra;
    words >> command >> table >> extra;
    if (command == "/lobby") {
      link.go("");
    } else if (command == "/replay") {
      // (the match id and a step: digits only, at most 18 and 9 of them)
      const auto digits = [](const std::string& w, std::size_t most) {
        return !w.empty() && w.size() <= most &&
               w.find_first_not_of("0123456789") == std::string::npos;
      };
      if (!digits(table, 18) || (!extra.empty() && !digits(extra, 9))) {
        say("ERROR usage: " + bg::term::tr(lang, "term.usage.replay") + "\n");
      } else {
        replay(table, extra);
      }
    } else if (command == "/go") {
      if (table.empty()) table = invited();
      if (table.empty() || !extra.empty()) {
        say("ERROR usage: " + bg::term::tr(lang, "term.usage.go") + "\n");
      } else {
        link.go(table);
      }
    } else {
      link.send_line(std::move(line));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto o = bg::term::term_options::parse(argc, argv, std::cout, std::cerr);
  if (o.exit_now) return *o.exit_now;
  const auto token_file = bg::term::token_path(o.host, o.port, o.name);
  // The remembered sign-in of a registered account (issue 27) beside the token.
  std::optional<std::filesystem::path> session_file;
  if (token_file) session_file = std::filesystem::path(*token_file).replace_extension(".session");
  if (o.forget) {
    for (const auto& file : {token_file, session_file}) {
      if (file && !bg::term::forget_token(*file)) {
        std::cerr << "gammon-term: "
                  << bg::term::tr(o.lang, "term.error.cannot_remove", {{"file", file->string()}})
                  << "\n";
        return 1;
      }
    }
    return 0;
  }
  const std::string kept_token = token_file ? bg::term::load_token(*token_file) : "";
  // A kept sign-in logs in without the password (not for a new registration).
  const std::string kept_session =
      session_file && !o.register_account ? bg::term::load_token(*session_file) : "";
  std::string password;
  if ((o.login && kept_session.empty()) || o.register_account) {
    auto got = o.password_file.empty()
                   ? bg::term::password_from_terminal(o.name, o.register_account, std::cerr, o.lang)
                   : bg::term::password_from_file(o.password_file, std::cerr, o.lang);
    if (!got) return 2;
    password = std::move(*got);
  }
  std::signal(SIGPIPE, SIG_IGN);  // a closed stdout must not kill the link's thread

  std::mutex out_mutex;
  std::atomic<bool> over{false};
  std::atomic<int> exit_code{0};
  bg::term::script_writer writer{{o.board, o.name, o.lang}};
  bg::term::screen view{{o.colour, ::isatty(STDOUT_FILENO) == 1, o.name, o.table, 12, o.lang}};
  const auto print = [&](const std::string& text) {
    if (text.empty()) return;
    const std::lock_guard lock{out_mutex};
    std::cout << text << std::flush;
  };

  // Where the link is (the table followed, "" = the lobby), the table of the newest
  // invitation, and when the lobby view last asked for /tables and /who.
  std::mutex where_mutex;
  std::string where = o.table;
  std::string invited_to;
  std::atomic<bool> lobby_stale{true};
  std::atomic<bool> welcomed{false};  // nothing is asked while the link is down
  const auto invited = [&] {
    const std::lock_guard lock{where_mutex};
    return invited_to;
  };

  connection::handlers handlers;
  handlers.on_message = [&](const nlohmann::json& m) {
    if (m.value("type", "") == "info" && m.value("topic", "") == "invitation" &&
        m.contains("data") && m["data"].is_object() && m["data"].contains("table") &&
        m["data"]["table"].is_string()) {
      const std::lock_guard lock{where_mutex};
      invited_to = m["data"]["table"].get<std::string>();
    }
    if (m.value("type", "") == "welcome") {
      lobby_stale = true;
      welcomed = true;
    }
    print(o.script ? writer.message(m) : view.message(m));
  };
  handlers.on_status = [&](connection::status st, const std::string& detail) {
    if (st != connection::status::connected) welcomed = false;
    print(o.script ? writer.status(st, detail) : view.status(st, detail));
    if (st == connection::status::failed) exit_code = 1;
    if (st == connection::status::failed || st == connection::status::closed) over = true;
  };

  // The newest resume token: a private table's match is read with it (/replay).
  std::mutex token_mutex;
  std::string current_token = kept_token;
  handlers.on_token = [&](const std::string& token) {
    {
      const std::lock_guard lock{token_mutex};
      current_token = token;
    }
    if (!token_file) return;
    if (token.empty()) {
      bg::term::forget_token(*token_file);
    } else if (!bg::term::save_token(*token_file, token)) {
      print("gammon-term: " +
            bg::term::tr(o.lang, "term.error.cannot_keep_token", {{"file", token_file->string()}}) +
            "\n");
    }
  };
  handlers.on_session = [&](const std::string& credential) {
    if (!session_file) return;
    if (credential.empty()) {
      bg::term::forget_token(*session_file);
    } else if (!bg::term::save_token(*session_file, credential)) {
      print("gammon-term: " +
            bg::term::tr(o.lang, "term.error.cannot_keep_session",
                         {{"file", session_file->string()}}) +
            "\n");
    }
  };
  handlers.on_view = [&](const std::string& table) {
    {
      const std::lock_guard lock{where_mutex};
      where = table;
    }
    lobby_stale = true;
    print(o.script ? bg::term::script_writer::view(table) : view.view(table));
  };
  // The lobby view is kept fresh by asking, as the browser does: /tables every 5 s and
  // /who every 15 s while a person looks at the lobby (a script asks for itself).
  auto asked_tables = std::chrono::steady_clock::time_point{};
  auto asked_who = std::chrono::steady_clock::time_point{};
  const auto refresh_lobby = [&](connection& link) {
    if (o.script || !welcomed) return;
    {
      const std::lock_guard lock{where_mutex};
      if (!where.empty()) return;
    }
    const auto now = std::chrono::steady_clock::now();
    const bool fresh = lobby_stale.exchange(false);
    if (fresh || now - asked_tables >= std::chrono::seconds{5}) {
      link.send_line("/tables");
      asked_tables = now;
    }
    if (fresh || now - asked_who >= std::chrono::seconds{15}) {
      link.send_line("/who");
      asked_who = now;
    }
  };

  boost::asio::io_context io;
  connection link{
      io,
      {o.host, o.port, o.target, o.name, o.table, o.max_backoff, password, o.register_account,
       kept_token, kept_session, o.login || o.register_account, o.lang},
      handlers};
  link.start();
  std::thread io_thread{[&] {
    try {
      io.run();
    } catch (const std::exception& e) {
      print("FAILED " + bg::term::tr(o.lang, "term.error.internal", {{"what", e.what()}}) + "\n");
      exit_code = 1;
    }
    over = true;
  }};

  // /replay MATCH [STEP]: the match's steps read over HTTP and printed (replay_text.hpp).
  const bg::term::board_view replay_board{{o.colour && !o.script, o.name, {}, o.lang}};
  const auto replay = [&](const std::string& match, const std::string& step) {
    std::string target = "/api/matches/" + match + "/replay";
    {
      const std::lock_guard lock{token_mutex};
      if (!current_token.empty()) target += "?token=" + current_token;
    }
    std::string error;
    const auto body = bg::term::http_get(o.host, o.port, target, error, o.lang);
    if (!body) {
      print("ERROR unknown_match: " + error + "\n");
      return;
    }
    const auto parsed = nlohmann::json::parse(*body, nullptr, false);
    if (!parsed.is_object()) {
      print("ERROR bad_replay: " +
            bg::term::tr(o.lang, "term.error.bad_replay", {{"match", match}}) + "\n");
      return;
    }
    std::optional<std::size_t> at;
    if (!step.empty()) at = static_cast<std::size_t>(std::stoul(step));
    print(bg::term::replay_lines(std::stoll(match), parsed, at, replay_board));
  };

  // Read stdin without blocking for good, so a link that gives up ends the program.
  std::string buffer;
  bool input_ended = false;
  while (!over && !input_ended) {
    refresh_lobby(link);
    // A waiting /seek's time counts on in the lobby view (the screen is the I/O thread's).
    if (!o.script) boost::asio::post(io, [&] { print(view.tick()); });
    pollfd in{STDIN_FILENO, POLLIN, 0};
    const int ready = ::poll(&in, 1, 200);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      input_ended = true;
      break;
    }
    buffer.append(chunk, static_cast<std::size_t>(n));
    send_lines(buffer, link, o.lang, print, invited, replay);
  }
  if (input_ended) {
    buffer += "\n";
    send_lines(buffer, link, o.lang, print, invited, replay);
    for (auto waited = std::chrono::milliseconds{0}; waited < o.linger && !over;
         waited += std::chrono::milliseconds{20}) {
      std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
    link.finish(o.reply_timeout);
  } else {
    link.stop();
  }
  io_thread.join();
  if (!o.script) std::cout << "\n";
  return exit_code;
}
