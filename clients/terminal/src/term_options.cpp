// gammon-term's command line (term_options.hpp).

#include "bg/term/term_options.hpp"

#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdlib>
#include <sstream>

namespace bg::term {
namespace {

namespace po = boost::program_options;

/// The part of --help after the option list: how to use it and what scripts read.
constexpr const char* usage_notes = R"(
Every line typed is sent to the table as a chat line or a command, exactly as typed
(see /help): /join, /start, /roll, /move 24/18 13/11, /double, /take, /drop, ...
Accounts: /whois NAME, /ratings [standard|long], /history [NAME], /password OLD NEW.
Without a password you play as a guest. --register creates the account --name and
--login logs in to it; the password is the first line of --password-file FILE, or is
asked on the terminal without echo (never given on the command line).
End of input (Ctrl-D) waits for the replies to the lines sent, then quits.
The connection is resumed with the server's token when it drops (the seat is kept).
The token is kept in $XDG_STATE_HOME/gammon-term/HOST_PORT/NAME.token (mode 0600;
~/.local/state by default), so a restarted gammon-term resumes the seat; --forget
removes it (and a kept sign-in) and exits 0. --login and --register also keep a
remembered sign-in of the account in NAME.session beside it (mode 0600): the next
gammon-term --name NAME logs in with it, without the password, until /signout, a
/password change or its expiry. /go TABLE follows another table, /go alone the table of the
newest invitation, /lobby returns; when the server seats you at a new table
(/play bot), gammon-term follows it. The lobby view draws the tables (refreshed every
5 s), who is online, your rating, how many players wait for a game per variant (/seek)
and your own /seek while it waits (time waited, rating window); the prompt says where
you are. /replay MATCH lists
every step of a finished match and draws its last position, /replay MATCH STEP the
board after that step (read from the server's GET /api/matches/MATCH/replay).

Script mode (stdin is not a terminal, or --script): one plain-text line per message,
never coloured, in this format:
  CONNECTED <url>                  the WebSocket is open (hello sent)
  DISCONNECTED <reason>            the connection ended; a reconnect follows
  RECONNECT <ms>                   the wait before the next attempt
  WELCOME <name> resumed=<yes|no> tables=<t1,t2|->
  ACCOUNT registered=<yes|no> admin=<yes|no> rating_standard=R rating_long=R
          experience_standard=N experience_long=N     (after WELCOME; R as 1500.00)
  STATE <table> seq=N game=N variant=standard|long phase=P turn=S to_act=S you=S
        dice=6-3 cube=N owner=center|red|black offered_by=S may_double=yes|no
        resign=S:kind red=NAME black=NAME score_red=N score_black=N match_length=N
        crawford=yes|no pips_red=N pips_black=N last_match=ID
                                   (one line; "-" when none; last_match: the table's
                                   last finished match, for /replay)
    <the text board, every line indented by two spaces; --no-board leaves it out>
  CLOCK red=MS black=MS delay_ms=MS running=S since=MS
        (only with a clock: the banks at `since`, server time in ms; PROTOCOL.md)
  RESULT winner=S kind=K reason=R points=N          (only after a finished game)
  LEGAL <play>|<play>|...          every legal play of the side on turn (may be empty)
  END <table>                      the end of the STATE block
  EVENT <table> <event>: <text>    e.g. EVENT t1 rolled: black rolls 6-3
  CHAT <table|-> <from>: <text>
  INFO <table|-> <topic>: <text>   one line per line of text
  TABLES total=N page=N pages=N   the answer to /tables, then one TABLE row a table:
  TABLE <name> phase=P red=NAME black=NAME score_red=N score_black=N spectators=N
        variant=standard|long match=N|basis|off
  TABLE <table|->                  (the name alone) the table followed changed:
                                   /go, /lobby, the server seated you, or a
                                   tournament paired you ("-": lobby)
  TOURNAMENT <name> kind=K status=S round=N registered=N
                                   a tournament's news (/tournament NAME, and every
                                   change while you play in it), then its standings:
  STANDING <rank> <name> wins=N points=N buchholz=N
  PAIRING <tournament> round=N table=T opponent=NAME side=S: <text>
                                   a tournament paired you: gammon-term enters table
                                   T at once (a TABLE line follows)
  REPLAY <id> <red>-<black> steps=N games=N variant=V length=N score=R-B
                                   the answer to /replay MATCH [STEP], then:
  STEP <k> game=N <what it did>    every step (without STEP), e.g. STEP 2 game=1 alice 31: 8/5 6/5
  AT <k> game=N <what it did>      the step drawn (STEP's, or the last), then its board
                                   (lines indented by two spaces) and END REPLAY <id>
  SEEKING standard=N long=N        players waiting for a game (/seek) per variant,
                                   pushed by the server when it changes
  ERROR <code>: <message>          e.g. ERROR illegal_play: point 5 is blocked
  CLOSED                           the client is done
S is a side (red, black) or "-". Any other message: MESSAGE <json>.

Exit status: 0 after the end of input, 1 when the server refuses the name or the
connection is taken over, 2 on a bad command line.
)";

bool is_terminal(int fd) {
  return ::isatty(fd) == 1;
}

}  // namespace

bool term_options::set_url(const std::string& text) {
  const std::string scheme = "ws://";
  if (text.rfind(scheme, 0) != 0) return false;
  const std::string rest = text.substr(scheme.size());
  const auto slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  const std::string path = slash == std::string::npos ? "/" : rest.substr(slash);
  std::string h;
  std::string p = "80";
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string::npos) return false;
    h = authority.substr(1, close - 1);
    const std::string after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':' || after.size() == 1) return false;
      p = after.substr(1);
    }
  } else {
    const auto colon = authority.find(':');
    h = authority.substr(0, colon);
    if (colon != std::string::npos) p = authority.substr(colon + 1);
  }
  if (h.empty() || p.empty() || p.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  url = text;
  host = h;
  port = p;
  target = path;
  return true;
}

term_options term_options::parse(int argc, const char* const* argv, std::ostream& out,
                                 std::ostream& err) {
  term_options o;
  po::options_description desc{
      "Usage: gammon-term --name NAME [--table TABLE] [--url ws://HOST:PORT/ws]\n\n"
      "The terminal client of gammond: draws a table's board, its event log and chat,\n"
      "and sends every line typed to the table.\n\nOptions"};
  std::string url;
  long reply_ms = 0;
  long linger_ms = 0;
  long backoff_ms = 0;
  // clang-format off
  desc.add_options()
    ("help,h", "show this help and exit")
    ("version", "show the version and exit")
    ("url", po::value(&url)->default_value(o.url), "the server's WebSocket URL")
    ("name,n", po::value(&o.name), "your player name (required)")
    ("table,t", po::value(&o.table), "the table to play or watch (none: the lobby)")
    ("login", "log in to the registered account --name (asks for its password)")
    ("register", "create the account --name and log in (asks for a password)")
    ("password-file", po::value(&o.password_file),
       "read the account's password from the first line of this file")
    ("forget",
     "remove the kept resume token and sign-in of --name on this server and exit 0")
    ("script", "plain-text lines for scripts even when stdin is a terminal")
    ("no-board", "script mode: leave the text board out of STATE blocks")
    ("no-color", "no colours (also when NO_COLOR is set or stdout is not a terminal)")
    ("reply-timeout", po::value(&reply_ms)->default_value(10'000),
       "at the end of input, wait at most this many ms for the replies")
    ("linger", po::value(&linger_ms)->default_value(0),
       "at the end of input, keep printing this many ms before quitting")
    ("max-backoff", po::value(&backoff_ms)->default_value(8'000),
       "the longest wait between reconnection attempts, in ms");
  // clang-format on
  po::variables_map vm;
  try {
    // No abbreviations: "--password x" must not be taken for "--password-file x" (a
    // password typed on the command line is refused, not read as a file name).
    const auto style = po::command_line_style::unix_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(argc, argv).options(desc).style(style).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    err << "gammon-term: " << e.what() << "\nTry 'gammon-term --help'.\n";
    o.exit_now = 2;
    return o;
  }
  if (vm.count("help") != 0U) {
    out << desc << usage_notes;
    o.exit_now = 0;
    return o;
  }
  if (vm.count("version") != 0U) {
    out << "gammon-term " << GAMMOND_VERSION << "\n";
    o.exit_now = 0;
    return o;
  }
  const auto fail = [&](const std::string& why) {
    err << "gammon-term: " << why << "\nTry 'gammon-term --help'.\n";
    o.exit_now = 2;
    return o;
  };
  if (o.name.empty()) return fail("--name is required");
  if (!o.set_url(url)) return fail("--url must look like ws://host:port/ws");
  if (reply_ms < 0 || linger_ms < 0 || backoff_ms < 100) {
    return fail("--reply-timeout and --linger must be >= 0, --max-backoff >= 100");
  }
  o.reply_timeout = std::chrono::milliseconds{reply_ms};
  o.linger = std::chrono::milliseconds{linger_ms};
  o.max_backoff = std::chrono::milliseconds{backoff_ms};
  o.register_account = vm.count("register") != 0U;
  o.login = !o.register_account && (vm.count("login") != 0U || !o.password_file.empty());
  if (vm.count("register") != 0U && vm.count("login") != 0U)
    return fail("--register and --login exclude each other");
  if ((o.login || o.register_account) && o.password_file.empty() && !is_terminal(STDIN_FILENO)) {
    return fail("--login and --register need --password-file FILE when stdin is not a terminal");
  }
  o.forget = vm.count("forget") != 0U;
  o.script = vm.count("script") != 0U || !is_terminal(STDIN_FILENO);
  o.board = vm.count("no-board") == 0U;
  const char* no_color = std::getenv("NO_COLOR");
  o.colour = vm.count("no-color") == 0U && !o.script && is_terminal(STDOUT_FILENO) &&
             (no_color == nullptr || *no_color == '\0');
  return o;
}

}  // namespace bg::term
