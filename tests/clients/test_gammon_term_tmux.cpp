// gammon-term as a person uses it (issue 28's proof): inside a detached tmux session,
// keys sent with `tmux send-keys`, the screen read with `tmux capture-pane -p`. The
// player asks the lobby for a computer match, the new table's board comes on screen,
// they quit in the middle and a restart under the same name is back at the seat, then
// they play the match to its end.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "gammond_process.hpp"
#include "piped_process.hpp"

using bg::test::gammond_process;
using bg::test::piped_process;
using namespace std::chrono_literals;

namespace {

/// What `command` (a shell line) printed on stdout.
std::string output_of(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> chunk{};
  while (const std::size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe))
    out.append(chunk.data(), n);
  ::pclose(pipe);
  return out;
}

/// A word for the shell, in single quotes.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string{"'\\''"} : std::string{c};
  return out + "'";
}

/// A private tmux server (its own socket) with one session; killed when it goes.
class tmux_session {
 public:
  explicit tmux_session(const std::string& command)
      : tmux_{"tmux -u -L gammon-term-test-" + std::to_string(::getpid()) + " "} {
    start(command);
  }
  ~tmux_session() { std::system((tmux_ + "kill-server >/dev/null 2>&1").c_str()); }
  tmux_session(const tmux_session&) = delete;
  tmux_session& operator=(const tmux_session&) = delete;

  /// Starts `command` in a new 120x50 window (the session's old window, if any, ends).
  void start(const std::string& command) {
    std::system((tmux_ + "kill-session -t t >/dev/null 2>&1").c_str());
    // The old window's end may take the tmux server down while the new session is
    // asked for ("server exited unexpectedly"): asked again, a new server starts.
    int rc = -1;
    for (int attempt = 0; attempt < 10 && rc != 0; ++attempt) {
      if (attempt > 0) std::this_thread::sleep_for(100ms);
      rc = std::system(
          (tmux_ + "new-session -d -s t -x 120 -y 50 " + quoted(command) + " 2>/dev/null").c_str());
    }
    REQUIRE(rc == 0);
    std::system((tmux_ + "set-option -w -t t remain-on-exit on >/dev/null").c_str());
  }
  /// Types `line` and Enter.
  void type(const std::string& line) {
    std::system((tmux_ + "send-keys -t t -l " + quoted(line)).c_str());
    std::system((tmux_ + "send-keys -t t Enter").c_str());
  }
  /// Sends Ctrl-D (the end of input: gammon-term quits).
  void end_input() { std::system((tmux_ + "send-keys -t t C-d").c_str()); }
  /// Whether the program in the window has ended.
  bool ended() { return output_of(tmux_ + "display-message -p -t t '#{pane_dead}'") == "1\n"; }
  /// The screen as it is now.
  std::string screen() { return output_of(tmux_ + "capture-pane -p -t t"); }
  /// The screen once `wanted` holds of it; fails at `deadline`.
  std::string wait_for(const std::function<bool(const std::string&)>& wanted,
                       std::chrono::steady_clock::time_point deadline, const std::string& what) {
    for (;;) {
      auto s = screen();
      if (wanted(s)) return s;
      INFO("waiting for " << what << "; the screen:\n" << s);
      REQUIRE(std::chrono::steady_clock::now() < deadline);
      std::this_thread::sleep_for(50ms);
    }
  }
  std::string wait_for_text(const std::string& text,
                            std::chrono::steady_clock::time_point deadline) {
    return wait_for([&](const std::string& s) { return s.find(text) != std::string::npos; },
                    deadline, "'" + text + "'");
  }

 private:
  std::string tmux_;
};

/// The first play listed under "one of:" on the screen ("" when none is shown).
std::string first_play(const std::string& screen) {
  const auto at = screen.find("one of:");
  if (at == std::string::npos) return "";
  auto start = screen.find('\n', at);
  if (start == std::string::npos) return "";
  start = screen.find_first_not_of(' ', start + 1);
  if (start == std::string::npos) return "";
  const auto end = screen.find_first_of("\n", start);
  std::string line = screen.substr(start, end - start);
  const auto gap = line.find("  ");
  return gap == std::string::npos ? line : line.substr(0, gap);
}

}  // namespace

TEST_CASE(
    "in tmux: the lobby draws the tables and who is online, /play bot standard shows the "
    "new table's board, a restart resumes the seat and the match is played to its end",
    "[clients][term][tmux]") {
  REQUIRE(std::system("command -v tmux >/dev/null") == 0);
  REQUIRE(std::filesystem::exists("/usr/games/gnubg"));  // scripts/setup installs it
  gammond_process server{
      {"--dice-seed", "8", "--commands-per-second", "1000", "--command-burst", "1000"}};
  const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/ws";
  const auto home =
      std::filesystem::temp_directory_path() / ("gammon-term-tmux-" + std::to_string(::getpid()));
  std::filesystem::remove_all(home);
  std::filesystem::create_directories(home);
  const std::string command = "env XDG_STATE_HOME=" + quoted(home.string()) + " " +
                              quoted(GAMMON_TERM_BINARY) +
                              " --no-color --lang en --name termtester --url " + quoted(url);
  const auto deadline = std::chrono::steady_clock::now() + 50s;
  INFO("gammond log:\n" << server.log());
  // Given bob seated at table t1 (a scripted gammon-term)
  piped_process bob{
      {GAMMON_TERM_BINARY, "--url", url, "--name", "bob", "--table", "t1", "--no-board"},
      {"XDG_STATE_HOME=" + home.string()}};
  bob.write_line("/join red");
  bob.write_line("/option match 5");
  tmux_session tmux{command};

  // When the player starts gammon-term, the lobby shows t1's row, who is online,
  // that the player is a guest, and a prompt that says "lobby"
  auto s = tmux.wait_for(
      [](const std::string& x) {
        return x.find("online (2): bob, termtester") != std::string::npos &&
               x.find("5 pt") != std::string::npos;
      },
      deadline, "the lobby view with t1 and both names");
  CHECK(s.find("watchers") != std::string::npos);
  CHECK(s.find("a guest") != std::string::npos);
  CHECK(s.find("\nlobby>") != std::string::npos);  // tmux drops the trailing space
  const auto row = s.find("\nt1 ");
  REQUIRE(row != std::string::npos);
  const std::string t1 = s.substr(row + 1, s.find('\n', row + 1) - row - 1);
  CHECK(t1.find("bob") != std::string::npos);
  CHECK(t1.find("standard") != std::string::npos);
  // When the player asks for a computer match there
  tmux.type("/play bot beginner standard match 1");
  // Then the new table's board is on screen, and the prompt names the table
  s = tmux.wait_for_text("now at table vs-gnubg-", deadline);
  const auto at = s.find("vs-gnubg-");
  const std::string table = s.substr(at, s.find_first_of(" \n", at) - at);
  tmux.wait_for_text("\n" + table + ">", deadline);
  tmux.wait_for(
      [](const std::string& x) {
        return x.find("/roll") != std::string::npos || x.find("waiting for") != std::string::npos ||
               x.find("thinking") != std::string::npos;
      },
      deadline, "the match's first prompt");

  // When they quit in the middle of the match and start again under the same name
  tmux.end_input();
  while (!tmux.ended()) {
    INFO("waiting for gammon-term to quit; the screen:\n" << tmux.screen());
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::sleep_for(50ms);
  }
  tmux.start(command);
  // Then they are back at their seat at that table
  tmux.wait_for_text("now at table " + table, deadline);

  // And they play the match to its end, each play one the screen lists
  for (;;) {
    s = tmux.wait_for(
        [](const std::string& x) {
          return x.find("match over") != std::string::npos ||
                 x.find("your turn: /roll") != std::string::npos ||
                 x.find("/roll for the opening roll") != std::string::npos ||
                 x.find("one of:") != std::string::npos;
        },
        deadline, "a turn or the match's end");
    if (s.find("match over") != std::string::npos) break;
    if (s.find("one of:") != std::string::npos) {
      const std::string play = first_play(s);
      REQUIRE_FALSE(play.empty());
      tmux.type("/move " + play);
    } else {
      tmux.type("/roll");
    }
    // The screen changes once the server answered (a new prompt or the same one redrawn).
    tmux.wait_for([&](const std::string& x) { return x != s; }, deadline, "the answer");
  }
  CHECK(s.find("wins the match") != std::string::npos);
  tmux.end_input();
  bob.close_stdin();
  std::filesystem::remove_all(home);
}

namespace {

/// The screen of a gammon-term started in tmux with `environment` ("NAME=value ...")
/// and `options`, at table `table` of a new gammond, once it shows `wanted` and the
/// table's board.
std::string term_screen_at_table(const std::string& environment, const std::string& options,
                                 const std::string& table, const std::string& wanted) {
  REQUIRE(std::system("command -v tmux >/dev/null") == 0);
  gammond_process server{{"--dice-seed", "8"}};
  const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/ws";
  const auto home =
      std::filesystem::temp_directory_path() / ("gammon-term-lang-" + std::to_string(::getpid()));
  std::filesystem::remove_all(home);
  std::filesystem::create_directories(home);
  // LC_ALL and LC_MESSAGES emptied: the locale is LANG's (env leaves the rest as it is).
  const std::string command = "env LC_ALL= LC_MESSAGES= XDG_STATE_HOME=" + quoted(home.string()) +
                              " " + environment + " " + quoted(GAMMON_TERM_BINARY) +
                              " --no-color --name lena --table " + quoted(table) + " --url " +
                              quoted(url) + " " + options;
  INFO("gammond log:\n" << server.log());
  tmux_session tmux{command};
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  // The board's border: the table's state has come (not only "no state yet").
  std::string s = tmux.wait_for(
      [&](const std::string& x) {
        return x.find(wanted) != std::string::npos && x.find(" +----") != std::string::npos;
      },
      deadline, "'" + wanted + "' and the board");
  tmux.end_input();
  std::filesystem::remove_all(home);
  return s;
}

}  // namespace

TEST_CASE(
    "in tmux under LANG=ru_RU.UTF-8 (no such locale needed), the side panel and the status "
    "line are in Russian",
    "[clients][term][tmux][i18n]") {
  // Given a player whose locale is Russian, at table t1
  // When the table's board comes on screen
  const std::string s =
      term_screen_at_table("LANG=ru_RU.UTF-8", "", "t1", "\n-- lena за столом t1");
  // Then the panel's words are Russian: the score, the pip count, the cube, the sides
  CHECK(s.find("счёт: красные 0, чёрные 0") != std::string::npos);
  CHECK(s.find("пипсы") != std::string::npos);
  CHECK(s.find("куб 1 в центре") != std::string::npos);
  CHECK(s.find("стол t1") != std::string::npos);
  // And no English word of the panel is left
  CHECK(s.find("score red") == std::string::npos);
  CHECK(s.find("cube 1") == std::string::npos);
  CHECK(s.find("pips ") == std::string::npos);
}

TEST_CASE("in tmux, --lang fr wins over LANG=ru_RU.UTF-8", "[clients][term][tmux][i18n]") {
  // Given a Russian locale and --lang fr
  const std::string s = term_screen_at_table("LANG=ru_RU.UTF-8", "--lang fr", "t1", "videau 1");
  // Then the panel is French, not Russian
  CHECK(s.find("score rouge 0 noir 0") != std::string::npos);
  CHECK(s.find("sortis") != std::string::npos);
  CHECK(s.find("куб") == std::string::npos);
  CHECK(s.find("счёт") == std::string::npos);
}
