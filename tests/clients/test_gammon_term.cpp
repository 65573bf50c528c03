// gammon-term end to end (the terminal client's "Proof"): two gammon-term processes,
// stdin and stdout on pipes, play a whole free game against the real gammond, every
// play taken from the LEGAL line the mover's own client printed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>

#include <unistd.h>

#include "gammond_process.hpp"
#include "piped_process.hpp"
#include "tcp_proxy.hpp"

using bg::test::gammond_process;
using bg::test::piped_process;
using bg::test::tcp_proxy;
using namespace std::chrono_literals;

namespace {

using clock_type = piped_process::clock_type;

/// The fields of one STATE block: the key=value words of its STATE line, the plays of
/// its LEGAL line, and the board lines.
struct state_block {
  std::string table;
  std::map<std::string, std::string> fields;
  std::vector<std::string> legal;
  std::vector<std::string> board;
  [[nodiscard]] long seq() const { return std::stol(fields.at("seq")); }
  [[nodiscard]] const std::string& operator[](const std::string& key) const {
    return fields.at(key);
  }
};

/// One gammon-term in script mode and what it has printed.
class term {
 public:
  /// Each term keeps its resume token under its own new XDG_STATE_HOME unless
  /// `state_home` names one (a restart that must find the token).
  term(const std::string& url, const std::string& name, const std::string& table)
      : name_{name},
        process_{
            {GAMMON_TERM_BINARY, "--url", url, "--name", name, "--table", table, "--lang", "en"},
            {"XDG_STATE_HOME=" + fresh_state_home().string()}} {}
  /// The same with `extra` arguments after the others (e.g. "--password-file", path).
  term(const std::string& url, const std::string& name, const std::string& table,
       const std::vector<std::string>& extra, const std::filesystem::path& state_home = {})
      : name_{name},
        process_{
            with(url, name, table, extra),
            {"XDG_STATE_HOME=" + (state_home.empty() ? fresh_state_home() : state_home).string()}} {
  }

  /// A new empty directory for XDG_STATE_HOME (under the system's temporary one).
  static std::filesystem::path fresh_state_home() {
    static int count = 0;
    auto dir = std::filesystem::temp_directory_path() /
               ("gammon-term-state-" + std::to_string(::getpid()) + "-" + std::to_string(++count));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
  }

  /// Sends one line, as typed.
  void type(const std::string& line) { process_.write_line(line); }

  /// The first STATE block with seq > `after` (older ones are dropped), reading
  /// output until `deadline`. Fails on an ERROR line (the test only plays what the
  /// server offers), at the deadline, or when the client ends.
  state_block state_after(long after, clock_type::time_point deadline) {
    for (;;) {
      while (!states_.empty()) {
        auto block = std::move(states_.front());
        states_.pop_front();
        if (block.seq() > after) return block;
      }
      auto line = process_.read_line(deadline);
      INFO(name_ << "'s output:\n" << process_.transcript());
      REQUIRE(line);  // else: timeout or the client ended
      absorb(*line);
    }
  }

  /// The first STATE block for which `wanted` holds (earlier ones are dropped); fails as
  /// state_after does.
  state_block state_where(const std::function<bool(const state_block&)>& wanted,
                          clock_type::time_point deadline) {
    for (long seq = -1;;) {
      auto block = state_after(seq, deadline);
      if (wanted(block)) return block;
      seq = block.seq();
    }
  }

  /// Reads output until a line starting with `prefix` (one not matched before) and
  /// returns it; fails at `deadline` or when the client ends.
  std::string line_starting(const std::string& prefix, clock_type::time_point deadline) {
    for (;;) {
      for (; cursor_ < all_.size(); ++cursor_) {
        if (all_[cursor_].rfind(prefix, 0) == 0) return all_[cursor_++];
      }
      auto line = process_.read_line(deadline);
      INFO(name_ << "'s output (waiting for " << prefix << "):\n" << process_.transcript());
      REQUIRE(line);
      absorb(*line);
    }
  }

  /// Takes in whatever output is ready now, so the pipe never fills up.
  void drain() {
    while (auto line = process_.read_line(clock_type::now())) absorb(*line);
  }

  /// Ends the input and returns the exit code (-1 when it did not quit in time).
  int finish() {
    process_.close_stdin();
    const auto deadline = clock_type::now() + 10s;
    while (auto line = process_.read_line(deadline)) absorb(*line);
    return process_.wait(5s);
  }

  /// Every EVENT line's event name seen so far.
  [[nodiscard]] const std::vector<std::string>& events() const { return events_; }
  [[nodiscard]] bool saw_line(const std::string& prefix) const {
    for (const auto& l : all_) {
      if (l.rfind(prefix, 0) == 0) return true;
    }
    return false;
  }
  [[nodiscard]] std::string transcript() const { return process_.transcript(); }
  [[nodiscard]] const std::string& name() const { return name_; }
  /// While true, an ERROR line is read like any other (a test of a refusal).
  void allow_errors(bool allowed) { errors_allowed_ = allowed; }

 private:
  /// Takes in one line of output: events, errors and STATE blocks.
  void absorb(const std::string& line) {
    all_.push_back(line);
    if (line.rfind("ERROR ", 0) == 0 && !errors_allowed_)
      FAIL(name_ << " got " << line << "\n" << transcript());
    if (line.rfind("EVENT ", 0) == 0) {
      std::istringstream words{line};
      std::string keyword, table, event;
      words >> keyword >> table >> event;
      if (!event.empty() && event.back() == ':') event.pop_back();
      events_.push_back(event);
    } else if (line.rfind("STATE ", 0) == 0) {
      block_ = state_block{};
      inside_ = true;
      std::istringstream words{line};
      std::string word;
      words >> word >> block_.table;
      while (words >> word) {
        const auto eq = word.find('=');
        if (eq != std::string::npos) block_.fields[word.substr(0, eq)] = word.substr(eq + 1);
      }
    } else if (inside_ && line.rfind("  ", 0) == 0) {
      block_.board.push_back(line);
    } else if (inside_ && line.rfind("LEGAL", 0) == 0) {
      const std::string plays = line.size() > 6 ? line.substr(6) : "";
      for (std::size_t start = 0; !plays.empty();) {
        const auto bar = plays.find('|', start);
        block_.legal.push_back(plays.substr(start, bar - start));
        if (bar == std::string::npos) break;
        start = bar + 1;
      }
    } else if (inside_ && line.rfind("END ", 0) == 0) {
      states_.push_back(std::move(block_));
      inside_ = false;
    }
  }

  static std::vector<std::string> with(const std::string& url, const std::string& name,
                                       const std::string& table,
                                       const std::vector<std::string>& extra) {
    // English whatever the locale of the machine running the tests: they read its sentences.
    std::vector<std::string> argv{GAMMON_TERM_BINARY, "--url", url, "--name", name, "--lang", "en"};
    if (!table.empty()) {
      argv.emplace_back("--table");
      argv.push_back(table);
    }
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }

  std::string name_;
  piped_process process_;
  std::vector<std::string> events_;
  std::vector<std::string> all_;
  bool errors_allowed_ = false;
  std::size_t cursor_ = 0;          ///< all_ before it was searched by line_starting
  std::deque<state_block> states_;  ///< complete blocks not yet taken
  state_block block_;               ///< the block being read
  bool inside_ = false;
};

}  // namespace

TEST_CASE("two scripted clients play a whole free game scored by pip count (R12)",
          "[clients][term]") {
  // Given gammond and two gammon-term processes driven through pipes
  gammond_process server{
      {"--dice-seed", "5", "--commands-per-second", "1000", "--command-burst", "1000"}};
  const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/ws";
  const auto deadline = clock_type::now() + 50s;
  term alice{url, "alice", "t1"};
  term bob{url, "bob", "t1"};
  INFO("gammond log:\n" << server.log());

  // When both join, bob starts the (default: free play) match and alice rolls the opening
  alice.type("/join red");
  auto st = alice.state_where([](const state_block& b) { return b["red"] == "alice"; }, deadline);
  REQUIRE(st["you"] == "red");
  bob.type("/join black");
  st = bob.state_where([](const state_block& b) { return b["black"] == "bob"; }, deadline);
  REQUIRE(st["you"] == "black");
  bob.type("/start");
  st = bob.state_where([](const state_block& b) { return b["phase"] != "waiting"; }, deadline);
  REQUIRE(st["phase"] == "opening");
  REQUIRE(st["match_length"] == "0");
  // The board drawn in the block is the standard start: 2 black on 24, 2 red on 1.
  REQUIRE(st.board.size() > 14);
  CHECK(st.board[3].find("|  B           R    |   |  R              B |") != std::string::npos);
  CHECK(st.board[13].find("|  R           B    |   |  B              R |") != std::string::npos);

  // And whoever must act rolls, then plays one of the plays its own client listed
  std::mt19937 rng{42};
  term* actor = &alice;
  actor->type("/roll");
  int plays = 0;
  for (int step = 0; step < 2000; ++step) {
    st = actor->state_after(st.seq(), deadline);
    const std::string phase = st["phase"];
    if (phase == "match_over") break;
    REQUIRE(st["to_act"] != "-");
    term& next = st["to_act"] == "red" ? alice : bob;
    if (&next != actor) st = next.state_after(st.seq() - 1, deadline);  // its own copy
    (&next == &alice ? bob : alice).drain();
    actor = &next;
    INFO(actor->name() << " in phase " << phase);
    REQUIRE(st["you"] == st["to_act"]);
    if (phase == "roll" || phase == "opening") {
      actor->type("/roll");
    } else if (phase == "move") {
      REQUIRE_FALSE(st.legal.empty());
      std::uniform_int_distribution<std::size_t> pick(0, st.legal.size() - 1);
      actor->type("/move " + st.legal[pick(rng)]);
      ++plays;
    } else {
      FAIL("unexpected phase " << phase);
    }
  }

  // Then the game is over, scored by the loser's pip count as shown in the state
  REQUIRE(st["phase"] == "match_over");
  CHECK(plays > 10);
  const long red_score = std::stol(st["score_red"]);
  const long black_score = std::stol(st["score_black"]);
  REQUIRE((red_score > 0) != (black_score > 0));
  if (red_score > 0) {
    CHECK(st["pips_red"] == "0");
    CHECK(red_score == std::stol(st["pips_black"]));
  } else {
    CHECK(st["pips_black"] == "0");
    CHECK(black_score == std::stol(st["pips_red"]));
  }
  // And both clients saw the match end
  term& other = actor == &alice ? bob : alice;
  const auto last = other.state_after(st.seq() - 1, deadline);
  CHECK(last["phase"] == "match_over");

  // And /replay lists every step of the finished match and draws its final position,
  // the board both clients last showed (issue 27, item 5: GET /api/matches/ID/replay)
  const std::string match = st["last_match"];
  REQUIRE(match != "-");
  alice.drain();
  alice.type("/replay " + match);
  const std::string head = alice.line_starting("REPLAY " + match + " alice-bob ", deadline);
  CHECK(head.find(" games=1 variant=standard length=0 ") != std::string::npos);
  const auto steps = std::stoul(head.substr(head.find("steps=") + 6));
  CHECK(steps > static_cast<unsigned long>(plays));  // the start, every roll's play or pass
  CHECK(alice.line_starting("STEP 1 game=1 ", deadline).find(" starts with ") != std::string::npos);
  const std::string at = alice.line_starting("AT " + std::to_string(steps) + " game=1 ", deadline);
  CHECK(at.find(": ") != std::string::npos);  // the last play
  std::vector<std::string> drawn;
  for (std::string l = alice.line_starting("  ", deadline); l.rfind("  ", 0) == 0;
       l = alice.line_starting("", deadline))
    drawn.push_back(l);
  // (the replay's board has the tutor's numbers; the live one has the same checkers)
  for (std::size_t row = 3; row < 14 && row < last.board.size(); ++row) {
    const auto checkers = [](const std::string& line) {
      const auto a = line.find('|');
      return a == std::string::npos ? std::string{} : line.substr(a, line.rfind('|') - a);
    };
    bool found = false;
    for (const auto& d : drawn)
      found = found || (!checkers(d).empty() && checkers(d) == checkers(last.board[row]));
    INFO("row " << row << ": " << last.board[row]);
    CHECK(found);
  }
  // And a step past the end, or no match at all, is refused in words
  alice.allow_errors(true);
  alice.type("/replay " + match + " 99999");
  CHECK(alice.line_starting("ERROR bad_step: ", deadline).find("has steps 1 to") !=
        std::string::npos);
  alice.type("/replay 987654");
  CHECK(alice.line_starting("ERROR unknown_match: ", deadline).find("987654") != std::string::npos);
  alice.type("/replay x");
  CHECK(alice.line_starting("ERROR usage: /replay", deadline).size() > 20);
  alice.allow_errors(false);

  // And both quit cleanly at the end of their input
  CHECK(alice.finish() == 0);
  CHECK(bob.finish() == 0);
  for (term* t : {&alice, &bob}) {
    INFO(t->name() << "'s output:\n" << t->transcript());
    CHECK(std::find(t->events().begin(), t->events().end(), "match_over") != t->events().end());
    CHECK(t->saw_line("CLOSED"));
  }
}

TEST_CASE("a client whose connection drops resumes with its token and keeps its seat",
          "[clients][term][resume]") {
  // Given alice seated at a match through a proxy that can cut her connection
  gammond_process server{
      {"--dice-seed", "9", "--commands-per-second", "1000", "--command-burst", "1000"}};
  tcp_proxy proxy{server.port()};
  const auto deadline = clock_type::now() + 30s;
  term alice{"ws://127.0.0.1:" + std::to_string(proxy.port()) + "/ws", "alice", "t1"};
  term bob{"ws://127.0.0.1:" + std::to_string(server.port()) + "/ws", "bob", "t1"};
  INFO("gammond log:\n" << server.log());
  alice.line_starting("WELCOME alice resumed=no", deadline);
  alice.type("/join red");
  alice.state_where([](const state_block& b) { return b["red"] == "alice"; }, deadline);
  bob.type("/join black");
  bob.state_where([](const state_block& b) { return b["black"] == "bob"; }, deadline);
  bob.type("/start");
  auto st = bob.state_where([](const state_block& b) { return b["phase"] == "opening"; }, deadline);
  alice.state_after(st.seq() - 1, deadline);

  // When the network drops her connection
  proxy.drop_all();

  // Then her client reconnects by itself, resumes her name and finds her seat
  alice.line_starting("DISCONNECTED", deadline);
  alice.line_starting("CONNECTED", deadline);
  CHECK(alice.line_starting("WELCOME", deadline) == "WELCOME alice resumed=yes tables=t1");
  st = alice.state_where([](const state_block& b) { return b["you"] == "red"; }, deadline);
  CHECK(st["phase"] == "opening");
  // And she plays on: her opening roll is accepted
  alice.type("/roll");
  st = alice.state_after(st.seq(), deadline);
  CHECK((st["phase"] == "move" || st["phase"] == "roll"));
  CHECK(alice.finish() == 0);
  CHECK(bob.finish() == 0);
}

TEST_CASE(
    "gammon-term registers and logs in with a password file and shows what /whois "
    "/ratings and /history answer",
    "[clients][term][accounts]") {
  gammond_process server{
      {"--dice-seed", "3", "--commands-per-second", "1000", "--command-burst", "1000"}};
  const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/ws";
  const auto deadline = clock_type::now() + 30s;
  const std::string secret = "alice-Zq7-secret";
  const auto file = server.directory() / "alice.password";
  {
    std::ofstream out{file};
    out << secret << "\n";
  }
  std::filesystem::permissions(
      file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  INFO("gammond log:\n" << server.log());
  {
    // Given alice creates her account with --register --password-file
    term alice{url, "alice", "", {"--register", "--password-file", file.string(), "--no-board"}};
    alice.line_starting("WELCOME alice resumed=no", deadline);
    CHECK(alice.line_starting("ACCOUNT", deadline) ==
          "ACCOUNT registered=yes admin=no rating_standard=1500.00 rating_long=1500.00 "
          "experience_standard=0 experience_long=0");
    // When she types the account commands as any other line
    alice.type("/whois alice");
    CHECK(alice.line_starting("INFO - whois: ", deadline).find("alice: registered, online") !=
          std::string::npos);
    alice.type("/ratings long");
    CHECK(alice.line_starting("INFO - ratings: ", deadline) ==
          "INFO - ratings: ratings, long: nobody has played a rated match yet");
    alice.type("/history");
    CHECK(alice.line_starting("INFO - history: ", deadline) ==
          "INFO - history: alice has no finished match yet");
    CHECK(alice.finish() == 0);
    // Then the password never shows in her output
    CHECK(alice.transcript().find(secret) == std::string::npos);
  }
  {
    // A second run logs in with the file (no --register): an account, not a guest
    term again{url, "alice", "", {"--password-file", file.string(), "--no-board"}};
    again.line_starting("WELCOME alice resumed=no", deadline);
    CHECK(again.line_starting("ACCOUNT", deadline).find("registered=yes") != std::string::npos);
    CHECK(again.finish() == 0);
  }
  {
    // A guest may not take the registered name: exit 1 with the server's sentence
    piped_process guest{{GAMMON_TERM_BINARY, "--url", url, "--name", "alice", "--lang", "en"}};
    std::string out;
    while (auto line = guest.read_line(deadline)) out += *line + "\n";
    CHECK(guest.wait(10s) == 1);
    CHECK(out.find("FAILED name_registered") != std::string::npos);
  }
  {
    // A wrong password file: bad_login, exit 1
    const auto wrong = server.directory() / "wrong.password";
    std::ofstream{wrong} << "not-the-password\n";
    piped_process bad{
        {GAMMON_TERM_BINARY, "--url", url, "--name", "alice", "--password-file", wrong.string()}};
    std::string out;
    while (auto line = bad.read_line(deadline)) out += *line + "\n";
    CHECK(bad.wait(10s) == 1);
    CHECK(out.find("FAILED bad_login") != std::string::npos);
    CHECK(out.find("not-the-password") == std::string::npos);
  }
  // There is no --password flag (nor an abbreviation that would read a password as a
  // file name), and without a terminal --login needs a file
  for (const auto& args : std::vector<std::vector<std::string>>{
           {GAMMON_TERM_BINARY, "--name", "alice", "--password", secret},
           {GAMMON_TERM_BINARY, "--name", "alice", "--passw", secret},
           {GAMMON_TERM_BINARY, "--name", "alice", "--login"}}) {
    piped_process refused{args};
    std::string out;
    while (auto line = refused.read_line(deadline)) out += *line + "\n";
    INFO(out);
    CHECK(refused.wait(10s) == 2);
    CHECK(out.find(secret) == std::string::npos);
  }
}

TEST_CASE(
    "gammon-term follows its player to the table /play bot made, keeps the token in a "
    "0600 file and resumes the seat after a restart, /go and /lobby change the view",
    "[clients][term][follow]") {
  gammond_process server{
      {"--dice-seed", "4", "--commands-per-second", "1000", "--command-burst", "1000"}};
  const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/ws";
  const auto deadline = clock_type::now() + 40s;
  const auto home = term::fresh_state_home();
  const auto token_file =
      home / "gammon-term" / ("127.0.0.1_" + std::to_string(server.port())) / "alice.token";
  INFO("gammond log:\n" << server.log());
  std::string table;
  {
    // Given alice in the lobby
    term alice{url, "alice", "", {"--no-board"}, home};
    alice.line_starting("WELCOME alice resumed=no", deadline);
    // Then her token is kept in a file only she can read
    REQUIRE(std::filesystem::exists(token_file));
    CHECK(std::filesystem::status(token_file).permissions() ==
          (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
    CHECK(std::filesystem::status(token_file.parent_path()).permissions() ==
          std::filesystem::perms::owner_all);
    // When she asks to play the computer, her client follows her to the new table
    alice.type("/play bot beginner long match 1");
    const auto view = alice.line_starting("TABLE ", deadline);
    table = view.substr(6);
    REQUIRE(table.rfind("vs-nardy-", 0) == 0);
    auto st = alice.state_where([](const state_block& b) { return b["you"] != "-"; }, deadline);
    CHECK(st.table == table);
    // And /lobby returns to the lobby, /go goes back to the table
    alice.type("/lobby");
    CHECK(alice.line_starting("TABLE ", deadline) == "TABLE -");
    alice.type("/go " + table);
    CHECK(alice.line_starting("TABLE ", deadline) == "TABLE " + table);
    alice.state_where([&](const state_block& b) { return b.table == table; }, deadline);
    // When she quits in the middle of the match (the server keeps her seat)
    CHECK(alice.finish() == 0);
  }
  {
    // Then a new gammon-term under her name resumes with the kept token, at her seat
    term again{url, "alice", "", {"--no-board"}, home};
    CHECK(again.line_starting("WELCOME", deadline) == "WELCOME alice resumed=yes tables=" + table);
    CHECK(again.line_starting("TABLE ", deadline) == "TABLE " + table);
    auto st = again.state_where([](const state_block& b) { return b["you"] != "-"; }, deadline);
    CHECK(st.table == table);
    CHECK(again.finish() == 0);
  }
  {
    // And --forget removes the token and exits 0
    piped_process forget{{GAMMON_TERM_BINARY, "--url", url, "--name", "alice", "--forget"},
                         {"XDG_STATE_HOME=" + home.string()}};
    CHECK(forget.wait(10s) == 0);
    CHECK_FALSE(std::filesystem::exists(token_file));
  }
}

TEST_CASE("two scripted clients meet at a table through /go from the lobby",
          "[clients][term][follow]") {
  gammond_process server{
      {"--dice-seed", "6", "--commands-per-second", "1000", "--command-burst", "1000"}};
  const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/ws";
  const auto deadline = clock_type::now() + 30s;
  INFO("gammond log:\n" << server.log());
  term alice{url, "alice", "", {"--no-board"}};
  term bob{url, "bob", "", {"--no-board"}};
  alice.line_starting("WELCOME alice", deadline);
  bob.line_starting("WELCOME bob", deadline);
  alice.type("/go t7");
  CHECK(alice.line_starting("TABLE ", deadline) == "TABLE t7");
  alice.type("/join red");
  alice.state_where([](const state_block& b) { return b["red"] == "alice"; }, deadline);
  // bob finds t7 in the lobby's list (a header, then rows with fields)
  bob.type("/tables");
  CHECK(bob.line_starting("TABLES ", deadline) == "TABLES total=1 page=1 pages=1");
  const auto row = bob.line_starting("TABLE ", deadline);
  CHECK(row.rfind("TABLE t7 phase=waiting red=alice black=- ", 0) == 0);
  CHECK(row.find(" variant=standard match=off") != std::string::npos);
  bob.type("/go t7");
  CHECK(bob.line_starting("TABLE ", deadline) == "TABLE t7");
  bob.type("/join black");
  auto st = bob.state_where([](const state_block& b) { return b["black"] == "bob"; }, deadline);
  CHECK(st.table == "t7");
  CHECK(st["red"] == "alice");
  CHECK(alice.finish() == 0);
  CHECK(bob.finish() == 0);
}

TEST_CASE(
    "a private message (/tell) reaches the other scripted client as TELL FROM TO: TEXT, "
    "and the sender reads its own copy",
    "[clients][term][tell]") {
  gammond_process server{
      {"--dice-seed", "6", "--commands-per-second", "1000", "--command-burst", "1000"}};
  const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/ws";
  const auto deadline = clock_type::now() + 30s;
  INFO("gammond log:\n" << server.log());
  term alice{url, "alice", "", {"--no-board"}};
  term bob{url, "bob", "", {"--no-board"}};
  alice.line_starting("WELCOME alice", deadline);
  bob.line_starting("WELCOME bob", deadline);
  alice.type("/tell bob  see you at table t1");
  CHECK(bob.line_starting("TELL ", deadline) == "TELL alice bob: see you at table t1");
  CHECK(alice.line_starting("TELL ", deadline) == "TELL alice bob: see you at table t1");
  CHECK(alice.finish() == 0);
  CHECK(bob.finish() == 0);
}

TEST_CASE(
    "an invitation to a private table is entered with /go alone, /go with no "
    "invitation is a usage error that sends nothing",
    "[clients][term][follow]") {
  gammond_process server{
      {"--dice-seed", "6", "--commands-per-second", "1000", "--command-burst", "1000"}};
  const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/ws";
  const auto deadline = clock_type::now() + 30s;
  INFO("gammond log:\n" << server.log());
  term alice{url, "alice", "", {"--no-board"}};
  term bob{url, "bob", "", {"--no-board"}};
  alice.line_starting("WELCOME alice", deadline);
  bob.line_starting("WELCOME bob", deadline);
  // Given bob with no invitation, /go alone is refused by gammon-term itself
  bob.allow_errors(true);
  bob.type("/go");
  CHECK(bob.line_starting("ERROR ", deadline).rfind("ERROR usage: /go TABLE", 0) == 0);
  bob.allow_errors(false);
  // When alice opens a private table and invites bob
  alice.type("/go den");
  CHECK(alice.line_starting("TABLE ", deadline) == "TABLE den");
  alice.type("/join red");
  alice.state_where([](const state_block& b) { return b["red"] == "alice"; }, deadline);
  alice.type("/option private on");
  alice.type("/invite bob");
  CHECK(bob.line_starting("INFO den invitation: ", deadline).find("alice invites you") !=
        std::string::npos);
  // Then /go alone takes bob there, and he can sit down
  bob.type("/go");
  CHECK(bob.line_starting("TABLE ", deadline) == "TABLE den");
  bob.type("/join black");
  auto st = bob.state_where([](const state_block& b) { return b["black"] == "bob"; }, deadline);
  CHECK(st.table == "den");
  CHECK(alice.finish() == 0);
  CHECK(bob.finish() == 0);
}

TEST_CASE(
    "gammon-term keeps the remembered sign-in of --register in a 0600 file: the next "
    "run logs in without the password, /signout ends it and removes the file",
    "[clients][term][accounts]") {
  gammond_process server{
      {"--dice-seed", "3", "--commands-per-second", "1000", "--command-burst", "1000"}};
  const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/ws";
  const auto deadline = clock_type::now() + 30s;
  const auto file = server.directory() / "dora.password";
  std::ofstream{file} << "dora-Zq7-secret\n";
  const auto home = term::fresh_state_home();
  const auto session_file =
      home / "gammon-term" / ("127.0.0.1_" + std::to_string(server.port())) / "dora.session";
  INFO("gammond log:\n" << server.log());
  {
    // Given dora registers from gammon-term
    term dora{
        url, "dora", "", {"--register", "--password-file", file.string(), "--no-board"}, home};
    CHECK(dora.line_starting("ACCOUNT", deadline).find("registered=yes") != std::string::npos);
    CHECK(dora.finish() == 0);
  }
  // Then the sign-in is kept in a file only she can read
  REQUIRE(std::filesystem::exists(session_file));
  CHECK(std::filesystem::status(session_file).permissions() ==
        (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
  std::filesystem::remove(session_file.parent_path() / "dora.token");  // not a resume: a login
  {
    // When she starts gammon-term again with no password at all
    term again{url, "dora", "", {"--no-board"}, home};
    // Then she is logged in to her account
    again.line_starting("WELCOME dora resumed=no", deadline);
    CHECK(again.line_starting("ACCOUNT", deadline).find("registered=yes") != std::string::npos);
    again.type("/sessions");
    CHECK(again.line_starting("INFO - sessions: ", deadline) ==
          "INFO - sessions: 1 remembered sign-in:");
    // And /signout ends it: the file goes
    again.type("/signout");
    CHECK(again.line_starting("INFO - signout: ", deadline).find("signed out") !=
          std::string::npos);
    CHECK(again.finish() == 0);
  }
  CHECK_FALSE(std::filesystem::exists(session_file));
}

TEST_CASE(
    "S6: gammon-term shows a tournament's standings and goes to the table of its pairing "
    "by itself",
    "[clients][term][tournament]") {
  // Given a server where any account may create a tournament, and alice's account
  gammond_process server{{"--dice-seed", "8", "--commands-per-second", "1000", "--command-burst",
                          "1000", "--tournament-creators", "registered"}};
  const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/ws";
  const auto deadline = clock_type::now() + 50s;
  const auto file = server.directory() / "alice.password";
  std::ofstream{file} << "alice-Zq7-secret\n";
  INFO("gammond log:\n" << server.log());
  term alice{url, "alice", "", {"--register", "--password-file", file.string(), "--no-board"}};
  term bob{url, "bob", "", {"--no-board"}};
  alice.line_starting("ACCOUNT registered=yes", deadline);
  bob.line_starting("WELCOME bob", deadline);

  // When alice creates a 2-player knockout starting in 3 seconds and both register
  alice.type("/tournament create cup knockout match 1 start +3");
  CHECK(alice.line_starting("INFO - tournament: ", deadline).find("tournament cup is created") !=
        std::string::npos);
  alice.type("/register cup");
  bob.type("/register cup");
  CHECK(bob.line_starting("INFO - tournament: ", deadline).find("you are registered for cup") !=
        std::string::npos);
  CHECK(bob.line_starting("TOURNAMENT cup ", deadline).find(" status=registering ") !=
        std::string::npos);

  // Then at the start each client says it is paired and follows its player to the table
  std::string table;
  for (term* t : {&alice, &bob}) {
    const auto pairing = t->line_starting("PAIRING cup round=1 table=", deadline);
    CHECK(pairing.find(t == &alice ? "opponent=bob" : "opponent=alice") != std::string::npos);
    const auto view = t->line_starting("TABLE ", deadline);
    table = view.substr(6);
    CHECK(pairing.find("table=" + table + " ") != std::string::npos);
  }
  // And each sits at its seat of the 1-point match there, present again
  auto st = alice.state_where(
      [&](const state_block& b) { return b.table == table && b["you"] != "-"; }, deadline);
  CHECK(st["match_length"] == "1");
  bob.state_where([&](const state_block& b) { return b.table == table && b["you"] != "-"; },
                  deadline);

  // When the opening roll is made (both are at the table: the match waits in its opening)
  // and the side on turn resigns, the other accepting
  CHECK(st["phase"] == "opening");
  alice.type("/roll");
  st = alice.state_where([](const state_block& b) { return b["phase"] == "move"; }, deadline);
  const bool alice_moves = st["you"] == st["turn"];
  term& mover = alice_moves ? alice : bob;
  term& other = alice_moves ? bob : alice;
  const std::string winner = alice_moves ? "bob" : "alice";
  mover.type("/resign");
  other.state_where([](const state_block& b) { return b["phase"] == "resign_offered"; }, deadline);
  other.type("/accept");

  // Then the tournament's news says it is finished, the winner ranked first
  for (term* t : {&alice, &bob}) {
    for (;;) {
      const auto head = t->line_starting("TOURNAMENT cup ", deadline);
      if (head.find(" status=finished ") != std::string::npos) break;
    }
    CHECK(t->line_starting("STANDING ", deadline).rfind("STANDING 1 " + winner + " wins=1 ", 0) ==
          0);
  }
  CHECK(alice.finish() == 0);
  CHECK(bob.finish() == 0);
}
