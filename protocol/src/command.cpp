#include "bg/protocol/command.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <vector>

#include "grammar_words.hpp"

namespace bg::protocol {

using detail::bad;
using detail::lower;
using engine::make_error;

command_place place_of(command_kind k) noexcept {
  switch (k) {
    case command_kind::tables:
    case command_kind::play_bot:
    case command_kind::seek:
    case command_kind::unseek:
    case command_kind::tournament:
    case command_kind::tournaments:
    case command_kind::register_tournament:
    case command_kind::withdraw_tournament:
      return command_place::lobby;
    case command_kind::whois:
    case command_kind::ratings:
    case command_kind::history:
    case command_kind::password:
    case command_kind::sessions:
    case command_kind::signout:
    case command_kind::ignore:
    case command_kind::unignore:
    case command_kind::ban:
    case command_kind::unban:
    case command_kind::broadcast:
    case command_kind::close_table:
    case command_kind::lang:
    case command_kind::tell:
      return command_place::service;
    case command_kind::chat:
    case command_kind::who:
    case command_kind::help:
    case command_kind::analysis:
      return command_place::both;
    case command_kind::join:
    case command_kind::leave:
    case command_kind::start:
    case command_kind::option_show:
    case command_kind::option_match:
    case command_kind::option_tutor:
    case command_kind::option_variant:
    case command_kind::roll:
    case command_kind::move:
    case command_kind::double_offer:
    case command_kind::take:
    case command_kind::drop:
    case command_kind::resign:
    case command_kind::accept:
    case command_kind::reject:
    case command_kind::continue_session:
    case command_kind::stop_session:
    case command_kind::board:
    case command_kind::export_match:
    case command_kind::option_clock:
    case command_kind::seed:
    case command_kind::claim:
    case command_kind::bot:
    case command_kind::kick:
    case command_kind::invite:
    case command_kind::uninvite:
    case command_kind::option_private:
      return command_place::table;
  }
  return command_place::table;
}

std::string_view to_string(command_kind k) noexcept {
  switch (k) {
    case command_kind::chat:
      return "chat";
    case command_kind::join:
      return "join";
    case command_kind::leave:
      return "leave";
    case command_kind::start:
      return "start";
    case command_kind::option_show:
      return "option";
    case command_kind::option_match:
      return "option_match";
    case command_kind::option_tutor:
      return "option_tutor";
    case command_kind::option_variant:
      return "option_variant";
    case command_kind::roll:
      return "roll";
    case command_kind::move:
      return "move";
    case command_kind::double_offer:
      return "double";
    case command_kind::take:
      return "take";
    case command_kind::drop:
      return "drop";
    case command_kind::resign:
      return "resign";
    case command_kind::accept:
      return "accept";
    case command_kind::reject:
      return "reject";
    case command_kind::continue_session:
      return "continue";
    case command_kind::stop_session:
      return "stop";
    case command_kind::board:
      return "board";
    case command_kind::who:
      return "who";
    case command_kind::help:
      return "help";
    case command_kind::tables:
      return "tables";
    case command_kind::export_match:
      return "export";
    case command_kind::option_clock:
      return "option_clock";
    case command_kind::seed:
      return "seed";
    case command_kind::claim:
      return "claim";
    case command_kind::analysis:
      return "analysis";
    case command_kind::whois:
      return "whois";
    case command_kind::ratings:
      return "ratings";
    case command_kind::history:
      return "history";
    case command_kind::password:
      return "password";
    case command_kind::bot:
      return "bot";
    case command_kind::play_bot:
      return "play_bot";
    case command_kind::kick:
      return "kick";
    case command_kind::invite:
      return "invite";
    case command_kind::uninvite:
      return "uninvite";
    case command_kind::option_private:
      return "option_private";
    case command_kind::ignore:
      return "ignore";
    case command_kind::unignore:
      return "unignore";
    case command_kind::ban:
      return "ban";
    case command_kind::unban:
      return "unban";
    case command_kind::broadcast:
      return "broadcast";
    case command_kind::close_table:
      return "close";
    case command_kind::sessions:
      return "sessions";
    case command_kind::signout:
      return "signout";
    case command_kind::seek:
      return "seek";
    case command_kind::unseek:
      return "unseek";
    case command_kind::tournament:
      return "tournament";
    case command_kind::tournaments:
      return "tournaments";
    case command_kind::register_tournament:
      return "register";
    case command_kind::withdraw_tournament:
      return "withdraw";
    case command_kind::lang:
      return "lang";
    case command_kind::tell:
      return "tell";
  }
  return "chat";
}

namespace {

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) words.push_back(s.substr(i, j - i));
    i = j;
  }
  return words;
}

struct help_entry {
  std::string_view name;
  std::string_view usage;
  std::string_view text;
};

constexpr std::array<help_entry, 55> help_entries{{
    {"join", "/join [red|black]", "take a seat (the free one, or the colour you name)"},
    {"leave", "/leave", "give up your seat before a match starts and watch instead"},
    {"start", "/start", "start the match once both seats are taken"},
    {"option", "/option", "show the table's options"},
    {"option match", "/option match N|basis|off",
     "a match to N points (1-64) with the cube and the Crawford rule; basis: the cube "
     "without a target, continue or stop after each game; off: one game without the cube, "
     "scored by the loser's pip count. Long backgammon counts oyn 1 and mars 2, with the "
     "cube and Crawford as in standard play"},
    {"option tutor", "/option tutor [on|off]", "show the point numbers 1-24 on the board"},
    {"option variant", "/option variant standard|long",
     "standard backgammon or long backgammon (Long Nardy)"},
    {"option private", "/option private on|off",
     "the table's owner only: a private table is not listed in the lobby and only the "
     "names the owner invites may enter (those already there stay)"},
    {"option clock", "/option clock MINUTES [DELAY]|off",
     "a time bank of MINUTES (1-240) per player for the match, and DELAY seconds (0-120, "
     "default 12) per action spent before the bank; an empty bank loses the match (the "
     "game in free play and basis). off: no clock"},
    {"roll", "/roll", "roll the dice (also the opening roll)"},
    {"move", "/move <play>",
     "play your roll in your own numbering, e.g. /move 24/18 13/11, /move bar/22 6/off, "
     "/move 8/2(2); hits may be marked 13/7*"},
    {"double", "/double", "offer the cube before you roll (match and basis only)"},
    {"take", "/take", "accept the double (alias /accept)"},
    {"drop", "/drop", "refuse the double and lose the game at the current value (alias /refuse)"},
    {"resign", "/resign [single|gammon|backgammon]", "offer to resign the game"},
    {"accept", "/accept", "accept a resignation (or a double)"},
    {"reject", "/reject", "reject a resignation (or drop a double)"},
    {"continue", "/continue", "play another game of a basis session"},
    {"stop", "/stop", "end a basis session"},
    {"board", "/board", "send the table's state again"},
    {"who", "/who", "who is at the table"},
    {"help", "/help [command]", "this help, or the help of one command"},
    {"tables", "/tables [PAGE]", "list the tables, a page at a time"},
    {"export", "/export", "the link to the last finished match as a .mat file (GNU Backgammon)"},
    {"seed", "/seed TEXT",
     "add your own text to the dice seed, after /start and before the first roll; the "
     "server's seed is revealed at the end so anyone can check every roll"},
    {"claim", "/claim",
     "win the game of an opponent who is away past the grace period, or who has not acted "
     "for the idle limit in a match without a clock"},
    {"analysis", "/analysis [MATCH_ID]",
     "GNU Backgammon's analysis of a finished match: each player's error rate, errors and "
     "blunders, luck (at a table the last match by default; in the lobby give the id)"},
    {"whois", "/whois NAME",
     "who NAME is: registered or guest, online or last seen, ratings and experience, "
     "matches played and won"},
    {"ratings", "/ratings [standard|long] [pr|by pr]",
     "the 20 best ratings of a variant (standard first); pr adds each player's performance "
     "rating (PR, from GNU Backgammon's analyses: lower is better), by pr lists the best PRs "
     "first"},
    {"history", "/history [NAME]",
     "the last 10 matches of NAME (yours without a name): date, opponent, length, score, "
     "rating change and the .mat link"},
    {"password", "/password OLD NEW",
     "change your account's password (no spaces in either); other sessions are closed and "
     "every remembered sign-in ends"},
    {"sessions", "/sessions",
     "your account's remembered sign-ins (browsers and terminals that stay signed in): "
     "id, kind, last used, expiry"},
    {"signout", "/signout [all|ID]",
     "end this remembered sign-in (all: every one of your account's; ID: that one)"},
    {"tell", "/tell NAME TEXT",
     "a private message to NAME, wherever they are (not to one who ignores you)"},
    {"lang", "/lang [TAG]",
     "the language of the server's sentences (en, fr, de, ru...; kept with your account); "
     "alone: your language and the ones there are"},
    {"bot", "/bot [LEVEL]",
     "seat the computer opposite you before /start (GNU Backgammon in standard, the long "
     "nardy bot in long); LEVEL is beginner, intermediate, advanced, expert (the default) "
     "or worldclass"},
    {"play", "/play bot [LEVEL] [standard|long] [match N|basis|off] [private]",
     "in the lobby: a new table where you play the computer at once (default: expert, "
     "standard, free play); others may watch it unless you say private"},
    {"seek", "/seek [standard|long] [match N[,M...]] [clock MIN [DELAY]|any|off] [bot after S]",
     "in the lobby: ask for an opponent near your rating (RULES.md S5); the server seats "
     "you both at a new table when one is found and the match starts. Default: standard, "
     "any of 5, 7, 3 or 1 points, any clock; bot after S: play the computer if nobody is "
     "found in S seconds. /unseek withdraws it"},
    {"unseek", "/unseek", "withdraw your /seek"},
    {"tournaments", "/tournaments", "the tournaments: upcoming, running and lately finished"},
    {"tournament", "/tournament NAME", "a tournament: its rules, players, pairings and standings"},
    {"tournament create",
     "/tournament create NAME knockout|swiss|arena [rounds R] [minutes M] [variant V] [match N] "
     "[clock MIN DELAY] [start +SECONDS|HH:MM] [min P] [max P] [unrated]",
     "administrators (or players, where the host allows): a tournament; it starts at its start "
     "time (UTC) with its players, or is cancelled under its minimum"},
    {"tournament cancel", "/tournament cancel NAME", "its creator or an administrator: cancel it"},
    {"tournament adjudicate", "/tournament adjudicate NAME TABLE WINNER REASON",
     "administrators only: settle a pairing that cannot finish; the reason is logged"},
    {"register", "/register TOURNAMENT", "enter a tournament before it starts"},
    {"withdraw", "/withdraw [TOURNAMENT]",
     "leave a tournament (once it runs, you forfeit the rest of it)"},
    {"kick", "/kick NAME",
     "the table's owner only: send a spectator (or the other player before /start) away "
     "from the table; they may not come back for a while"},
    {"invite", "/invite NAME", "the table's owner only: NAME may enter the private table"},
    {"uninvite", "/uninvite NAME",
     "the table's owner only: take an invitation back (someone already here stays)"},
    {"ignore", "/ignore [NAME]",
     "stop seeing NAME's chat, at tables and in the lobby (kept with your account); "
     "alone: the names you ignore"},
    {"unignore", "/unignore NAME", "see NAME's chat again"},
    {"ban", "/ban NAME [HOURS]",
     "administrators only: NAME and the addresses it uses may not log in or say hello "
     "(for HOURS, e.g. 0.5 or 24; without: until /unban); its sessions end"},
    {"unban", "/unban NAME", "administrators only: lift the ban of NAME and its addresses"},
    {"broadcast", "/broadcast TEXT", "administrators only: a message to everyone connected"},
    {"close", "/close TABLE",
     "administrators only: end any match at TABLE as unfinished and remove the table"},
}};

bool is_bot_level(std::string_view word) {
  return std::find(bot_levels.begin(), bot_levels.end(), word) != bot_levels.end();
}

/// The match option of `value` ("7", "basis", "off"), as /option match reads it.
/// A whole number from `low` to `high` written in at most 3 digits, else nullopt.
std::optional<int> number(std::string_view text, int low, int high) {
  int n = 0;
  const auto* first = text.data();
  const auto* last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(first, last, n);
  if (text.empty() || text.size() > 3 || ec != std::errc{} || ptr != last || n < low || n > high)
    return std::nullopt;
  return n;
}

/// /seek's `match N[,M…]`: at most max_seek_lengths lengths from 1 to 64, no repeats,
/// in the order given; nullopt when `text` is not that.
std::optional<std::vector<int>> seek_lengths(std::string_view text) {
  std::vector<int> out;
  while (true) {
    const auto comma = text.find(',');
    const auto n = number(text.substr(0, comma), 1, 64);
    if (!n || std::find(out.begin(), out.end(), *n) != out.end()) return std::nullopt;
    out.push_back(*n);
    if (out.size() > max_seek_lengths) return std::nullopt;
    if (comma == std::string_view::npos) return out;
    text.remove_prefix(comma + 1);
  }
}

std::optional<engine::match_options> match_value(std::string_view value) {
  engine::match_options m;
  if (value == "basis") {
    m.kind = engine::match_kind::basis;
    return m;
  }
  if (value == "off" || value == "none" || value == "0") return m;
  int n = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc{} || ptr != value.data() + value.size() || n < 1 || n > 64)
    return std::nullopt;
  m.kind = engine::match_kind::points;
  m.length = n;
  return m;
}

}  // namespace

std::optional<std::string> help_text(std::string_view topic) {
  std::string t = lower(topic);
  while (!t.empty() && t.front() == '/') t.erase(t.begin());
  if (t.empty()) {
    std::string all = "Commands (anything else you type is chat):";
    for (const auto& e : help_entries) {
      if (e.name.find(' ') != std::string_view::npos) continue;
      all += "\n  ";
      all += e.usage;
      all += " - ";
      all += e.text;
    }
    all +=
        "\n  /option match N|basis|off, /option tutor on|off, /option variant standard|long, "
        "/option clock MINUTES [DELAY]|off, /option private on|off";
    return all;
  }
  if (t == "refuse") t = "drop";
  std::string out;
  for (const auto& e : help_entries) {
    if (e.name == t ||
        (e.name.size() > t.size() && e.name.substr(0, t.size()) == t && e.name[t.size()] == ' ')) {
      if (!out.empty()) out += "\n";
      out += std::string(e.usage) + " - " + std::string(e.text);
    }
  }
  if (out.empty()) return std::nullopt;
  return out;
}

engine::result<command> parse_line(std::string_view line) {
  // Trim surrounding blanks.
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() &&
         (line.back() == ' ' || line.back() == '\t' || line.back() == '\r' || line.back() == '\n'))
    line.remove_suffix(1);
  command c;
  if (line.empty())
    return make_error("empty_line", "type a message or a command such as /help",
                      "protocol.empty_line");
  if (line.front() != '/') {
    c.kind = command_kind::chat;
    c.text = std::string(line);
    return c;
  }
  const auto words = split_words(line.substr(1));
  if (words.empty())
    return make_error("unknown_command", "a command follows the /: try /help",
                      "protocol.slash_alone");
  const std::string name = lower(words[0]);
  const std::size_t args = words.size() - 1;
  auto arg = [&](std::size_t i) { return lower(words[i + 1]); };
  auto no_args = [&](command_kind k) -> engine::result<command> {
    if (args != 0)
      return bad("/" + name + " takes no arguments", "protocol.takes_no_arguments",
                 {{"command", name}});
    c.kind = k;
    return c;
  };

  if (name == "join") {
    if (args > 1)
      return bad("/join takes at most a colour: /join red or /join black", "protocol.join_usage");
    c.kind = command_kind::join;
    if (args == 1) {
      c.seat = engine::side_from_string(arg(0));
      if (!c.seat) return bad("the seats are red and black", "protocol.join_seats");
    }
    return c;
  }
  if (name == "leave") return no_args(command_kind::leave);
  if (name == "start") return no_args(command_kind::start);
  if (name == "roll") return no_args(command_kind::roll);
  if (name == "double") return no_args(command_kind::double_offer);
  if (name == "take") return no_args(command_kind::take);
  if (name == "drop" || name == "refuse") return no_args(command_kind::drop);
  if (name == "accept") return no_args(command_kind::accept);
  if (name == "reject") return no_args(command_kind::reject);
  if (name == "continue") return no_args(command_kind::continue_session);
  if (name == "stop") return no_args(command_kind::stop_session);
  if (name == "board") return no_args(command_kind::board);
  if (name == "who") return no_args(command_kind::who);
  if (name == "tables") {
    // /tables [PAGE]: the lobby list is answered a page at a time (PAGE from 1).
    if (args > 1)
      return bad("/tables takes a page number, e.g. /tables 2", "protocol.tables_usage");
    c.kind = command_kind::tables;
    if (args == 1) {
      const auto page = arg(0);
      if (page.empty() || page.size() > 6 ||
          page.find_first_not_of("0123456789") != std::string::npos || page == "0" ||
          page.front() == '0')
        return bad("/tables takes a page number from 1, e.g. /tables 2", "protocol.tables_page");
      c.text = page;
    }
    return c;
  }
  if (name == "export") return no_args(command_kind::export_match);
  if (name == "analysis") {
    // /analysis [MATCH_ID]: a stored match's id, a whole number from 1.
    if (args > 1)
      return bad("/analysis takes a match id, e.g. /analysis 12", "protocol.analysis_usage");
    c.kind = command_kind::analysis;
    if (args == 1) {
      const auto id = arg(0);
      if (id.empty() || id.size() > 18 || id.find_first_not_of("0123456789") != std::string::npos ||
          id.front() == '0')
        return bad("/analysis takes a match id, a whole number from 1, e.g. /analysis 12",
                   "protocol.analysis_id");
      c.text = id;
    }
    return c;
  }
  if (name == "whois") {
    if (args != 1)
      return bad("/whois takes a player's name, e.g. /whois alice", "protocol.whois_usage");
    c.kind = command_kind::whois;
    c.text = std::string(words[1]);
    return c;
  }
  if (name == "history") {
    if (args > 1)
      return bad("/history takes at most a player's name, e.g. /history alice",
                 "protocol.history_usage");
    c.kind = command_kind::history;
    if (args == 1) c.text = std::string(words[1]);
    return c;
  }
  if (name == "ratings") {
    // /ratings [standard|long] [pr | by pr | by rating] (S7: the PR column and order).
    const auto usage = [] {
      return bad("/ratings takes standard or long, then pr, by pr or by rating",
                 "protocol.ratings_usage");
    };
    c.kind = command_kind::ratings;
    std::size_t i = 0;
    if (i < args) {
      if (const auto v = engine::variant_from_string(arg(i))) {
        c.game_variant = *v;
        c.text = std::string(engine::to_string(*v));
        ++i;
      }
    }
    if (i < args && arg(i) == "pr") {
      c.with_pr = true;
      ++i;
    } else if (i + 1 < args && arg(i) == "by" && (arg(i + 1) == "pr" || arg(i + 1) == "rating")) {
      c.by_pr = arg(i + 1) == "pr";
      c.with_pr = c.by_pr;
      i += 2;
    }
    if (i != args) return usage();
    return c;
  }
  if (name == "sessions") {
    if (args != 0)
      return bad("/sessions takes nothing: it lists your remembered sign-ins",
                 "protocol.sessions_usage");
    c.kind = command_kind::sessions;
    return c;
  }
  if (name == "signout") {
    const std::string what = args == 1 ? arg(0) : std::string{};
    const bool digits = !what.empty() && what.size() <= 18 &&
                        std::all_of(what.begin(), what.end(),
                                    [](unsigned char ch) { return std::isdigit(ch) != 0; });
    if (args > 1 || (args == 1 && what != "all" && !digits))
      return bad("/signout takes nothing (this sign-in), all, or the id /sessions lists",
                 "protocol.signout_usage");
    c.kind = command_kind::signout;
    c.text = what;
    return c;
  }
  if (name == "lang") {
    // /lang [TAG]: the session's (and the account's) language; the server checks TAG.
    if (args > 1)
      return bad("/lang takes a language, e.g. /lang fr (alone: your language and the list)",
                 "protocol.lang_usage");
    c.kind = command_kind::lang;
    if (args == 1) c.text = arg(0);
    return c;
  }
  if (name == "password") {
    // The words are never repeated in an answer: they are passwords.
    if (args != 2)
      return bad("/password takes your password and the new one: /password OLD NEW (no spaces)",
                 "protocol.password_usage");
    c.kind = command_kind::password;
    c.text = std::string(words[1]);
    c.new_password = std::string(words[2]);
    return c;
  }
  if (name == "bot") {
    // /bot [LEVEL]: a computer player of that level (issue 14).
    if (args > 1 || (args == 1 && !is_bot_level(arg(0))))
      return bad("/bot takes a level: beginner, intermediate, advanced, expert or worldclass",
                 "protocol.bot_usage");
    c.kind = command_kind::bot;
    c.text = args == 1 ? arg(0) : std::string(default_bot_level);
    return c;
  }
  if (name == "play") {
    // /play bot [LEVEL] [VARIANT] [match N|basis|off] [private], the parts in any order,
    // each once; `private` (flag) keeps the table from spectators (issue 27).
    const auto usage = [] {
      return bad(
          "/play bot takes a level, a variant, a match and private, e.g. /play bot expert "
          "standard match 5 (add private to play unwatched)",
          "protocol.play_bot_usage");
    };
    if (args == 0 || arg(0) != "bot") return usage();
    c.kind = command_kind::play_bot;
    c.text = std::string(default_bot_level);
    bool level = false;
    bool variant = false;
    bool match = false;
    for (std::size_t i = 1; i < args; ++i) {
      const auto w = arg(i);
      if (!c.flag && w == "private") {
        c.flag = true;
      } else if (!level && is_bot_level(w)) {
        c.text = w;
        level = true;
      } else if (const auto v = engine::variant_from_string(w); !variant && v) {
        c.game_variant = *v;
        variant = true;
      } else if (!match && w == "match" && i + 1 < args) {
        const auto m = match_value(arg(++i));
        if (!m)
          return bad("match takes a number from 1 to 64, basis or off", "protocol.play_bot_match");
        c.match = *m;
        match = true;
      } else {
        return usage();
      }
    }
    return c;
  }
  if (name == "seek") {
    // /seek [VARIANT] [match N[,M…]] [clock MIN [DELAY]|any|off] [bot after SECONDS], the
    // parts in any order, each once (RULES.md S5).
    const auto usage = [] {
      return bad(
          "/seek takes a variant, match lengths, a clock and a computer player's wait, e.g. "
          "/seek standard match 5,7 clock 5 12 bot after 60 (each part may be left out)",
          "protocol.seek_usage");
    };
    c.kind = command_kind::seek;
    bool variant = false;
    bool match = false;
    bool clock = false;
    for (std::size_t i = 0; i < args; ++i) {
      const auto w = arg(i);
      if (const auto v = engine::variant_from_string(w); !variant && v) {
        c.game_variant = *v;
        variant = true;
      } else if (!match && w == "match" && i + 1 < args) {
        const auto lengths = seek_lengths(arg(++i));
        if (!lengths)
          return bad("match takes up to " + std::to_string(max_seek_lengths) +
                         " different lengths from 1 to 64, e.g. match 5 or match 3,5,7",
                     "protocol.seek_lengths",
                     {{"count", static_cast<std::int64_t>(max_seek_lengths)}});
        c.lengths = *lengths;
        match = true;
      } else if (!clock && w == "clock" && i + 1 < args) {
        clock = true;
        const auto what = arg(++i);
        if (what == "any") continue;
        c.any_clock = false;
        if (what == "off" || what == "none") {
          c.clock = clock_option{0, default_clock_delay_seconds};
          continue;
        }
        const auto m = number(what, 1, max_clock_minutes);
        if (!m) return usage();
        c.clock = clock_option{*m, default_clock_delay_seconds};
        if (i + 1 < args) {
          if (const auto d = number(arg(i + 1), 0, max_clock_delay_seconds)) {
            c.clock.delay_seconds = *d;
            ++i;
          }
        }
      } else if (c.bot_after_seconds == 0 && w == "bot" && i + 2 < args && arg(i + 1) == "after") {
        const auto n = number(arg(i + 2), 1, max_seek_bot_after_seconds);
        if (!n)
          return bad(
              "bot after takes seconds from 1 to " + std::to_string(max_seek_bot_after_seconds),
              "protocol.seek_bot_after", {{"max", std::to_string(max_seek_bot_after_seconds)}});
        c.bot_after_seconds = *n;
        i += 2;
      } else {
        return usage();
      }
    }
    return c;
  }
  if (name == "tournament") {
    // The rest of the line, as typed (names keep their case; the reason of an
    // adjudication its blanks).
    const std::string_view rest =
        line.substr(static_cast<std::size_t>(words[0].data() - line.data()) + words[0].size());
    auto t = parse_tournament(rest);
    if (!t) return t.err();
    c.kind = command_kind::tournament;
    c.tournament = std::move(*t);
    return c;
  }
  if (name == "tournaments") return no_args(command_kind::tournaments);
  if (name == "register") {
    if (args != 1)
      return bad("/register takes the tournament's name: /register spring",
                 "protocol.register_usage");
    c.kind = command_kind::register_tournament;
    c.text = std::string(words[1]);
    return c;
  }
  if (name == "withdraw") {
    if (args > 1)
      return bad("/withdraw takes at most the tournament's name", "protocol.withdraw_usage");
    c.kind = command_kind::withdraw_tournament;
    if (args == 1) c.text = std::string(words[1]);
    return c;
  }
  if (name == "unseek") {
    if (args != 0) return bad("/unseek takes nothing", "protocol.unseek_usage");
    c.kind = command_kind::unseek;
    return c;
  }
  // Moderation (issue 13): one name each, kept as typed (the server checks it).
  const auto one_name = [&](command_kind k, const char* usage,
                            const char* key) -> engine::result<command> {
    if (args != 1) return bad(usage, key);
    c.kind = k;
    c.text = std::string(words[1]);
    return c;
  };
  if (name == "kick")
    return one_name(command_kind::kick, "/kick takes a name, e.g. /kick mallory",
                    "protocol.kick_usage");
  if (name == "invite")
    return one_name(command_kind::invite, "/invite takes a name, e.g. /invite carol",
                    "protocol.invite_usage");
  if (name == "uninvite")
    return one_name(command_kind::uninvite, "/uninvite takes a name, e.g. /uninvite carol",
                    "protocol.uninvite_usage");
  if (name == "unignore")
    return one_name(command_kind::unignore, "/unignore takes a name, e.g. /unignore mallory",
                    "protocol.unignore_usage");
  if (name == "unban")
    return one_name(command_kind::unban, "/unban takes a name, e.g. /unban mallory",
                    "protocol.unban_usage");
  if (name == "close")
    return one_name(command_kind::close_table, "/close takes a table's name, e.g. /close t1",
                    "protocol.close_usage");
  if (name == "ignore") {
    if (args > 1)
      return bad("/ignore takes a name, e.g. /ignore mallory (alone: the list)",
                 "protocol.ignore_usage");
    c.kind = command_kind::ignore;
    if (args == 1) c.text = std::string(words[1]);
    return c;
  }
  if (name == "ban") {
    const auto usage = [] {
      return bad(
          "/ban takes a name and, if the ban is not until /unban, hours (above 0, at most "
          "87600), e.g. /ban mallory 24 or /ban mallory 0.5",
          "protocol.ban_usage");
    };
    if (args < 1 || args > 2) return usage();
    c.kind = command_kind::ban;
    c.text = std::string(words[1]);
    if (args == 2) {
      // Digits with at most one point: no sign, exponent, inf or nan.
      const std::string_view h = words[2];
      if (h.empty() || h.size() > 12 ||
          h.find_first_not_of("0123456789.") != std::string_view::npos ||
          std::count(h.begin(), h.end(), '.') > 1 || h.front() == '.' || h.back() == '.')
        return usage();
      double hours = 0;
      const auto [ptr, ec] = std::from_chars(h.data(), h.data() + h.size(), hours);
      if (ec != std::errc{} || ptr != h.data() + h.size() || !(hours > 0.0) ||
          hours > max_ban_hours)
        return usage();
      c.ban_hours = hours;
    }
    return c;
  }
  if (name == "tell") {
    if (args < 2)
      return bad("/tell takes a name and a message, e.g. /tell alice good game",
                 "protocol.tell_usage");
    c.kind = command_kind::tell;
    c.text = std::string(words[1]);
    // The message as typed: from the first blank after the name.
    std::string_view rest = line.substr(1);
    rest.remove_prefix(std::min(rest.size(), rest.find_first_of(" \t")));
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    rest.remove_prefix(std::min(rest.size(), rest.find_first_of(" \t")));
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    c.message = std::string(rest);
    return c;
  }
  if (name == "broadcast") {
    if (args == 0)
      return bad("/broadcast needs the text to send, e.g. /broadcast back in 5 minutes",
                 "protocol.broadcast_usage");
    c.kind = command_kind::broadcast;
    const auto at = line.find_first_of(" \t");
    std::string_view rest = line.substr(at);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    c.text = std::string(rest);
    return c;
  }
  if (name == "help") {
    if (args > 2) return bad("/help takes a command name, e.g. /help move", "protocol.help_usage");
    c.kind = command_kind::help;
    for (std::size_t i = 0; i < args; ++i) c.text += (i ? " " : "") + arg(i);
    return c;
  }
  if (name == "claim") return no_args(command_kind::claim);
  if (name == "seed") {
    if (args == 0)
      return bad("/seed needs some text of your own, e.g. /seed my lucky words",
                 "protocol.seed_usage");
    c.kind = command_kind::seed;
    const auto at = line.find_first_of(" \t");
    std::string_view rest = line.substr(at);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    c.text = std::string(rest);
    return c;
  }
  if (name == "move" || name == "m") {
    if (args == 0) return bad("/move needs a play, e.g. /move 24/18 13/11", "protocol.move_usage");
    c.kind = command_kind::move;
    const auto at = line.find_first_of(" \t");
    std::string_view rest = line.substr(at);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    c.text = std::string(rest);
    return c;
  }
  if (name == "resign") {
    if (args > 1) return bad("/resign takes single, gammon or backgammon", "protocol.resign_usage");
    c.kind = command_kind::resign;
    c.resign_kind = engine::win_kind::single;
    if (args == 1) {
      const auto k = arg(0);
      if (k == "single" || k == "s" || k == "normal" || k == "n") {
        c.resign_kind = engine::win_kind::single;
      } else if (k == "gammon" || k == "g") {
        c.resign_kind = engine::win_kind::gammon;
      } else if (k == "backgammon" || k == "b") {
        c.resign_kind = engine::win_kind::backgammon;
      } else {
        return bad("/resign takes single, gammon or backgammon", "protocol.resign_usage");
      }
    }
    return c;
  }
  if (name == "option" || name == "options") {
    if (args == 0) {
      c.kind = command_kind::option_show;
      return c;
    }
    const auto what = arg(0);
    if (what == "match") {
      if (args != 2)
        return bad("/option match takes a number from 1 to 64, basis or off",
                   "protocol.option_match_usage");
      c.kind = command_kind::option_match;
      const auto value = match_value(arg(1));
      if (!value)
        return bad("/option match takes a number from 1 to 64, basis or off",
                   "protocol.option_match_usage");
      c.match = *value;
      return c;
    }
    if (what == "tutor") {
      if (args > 2) return bad("/option tutor takes on or off", "protocol.option_tutor_usage");
      c.kind = command_kind::option_tutor;
      c.flag = true;
      if (args == 2) {
        const auto v = arg(1);
        if (v == "on") {
          c.flag = true;
        } else if (v == "off") {
          c.flag = false;
        } else {
          return bad("/option tutor takes on or off", "protocol.option_tutor_usage");
        }
      }
      return c;
    }
    if (what == "variant") {
      if (args != 2)
        return bad("/option variant takes standard or long", "protocol.option_variant_usage");
      const auto v = engine::variant_from_string(arg(1));
      if (!v) return bad("/option variant takes standard or long", "protocol.option_variant_usage");
      c.kind = command_kind::option_variant;
      c.game_variant = *v;
      return c;
    }
    if (what == "clock") {
      const auto usage = [] {
        return bad("/option clock takes minutes from 1 to " + std::to_string(max_clock_minutes) +
                       " and a delay from 0 to " + std::to_string(max_clock_delay_seconds) +
                       " seconds (e.g. /option clock 5 12), or off",
                   "protocol.option_clock_usage",
                   {{"max_minutes", std::to_string(max_clock_minutes)},
                    {"max_delay", std::to_string(max_clock_delay_seconds)}});
      };
      if (args < 2 || args > 3) return usage();
      c.kind = command_kind::option_clock;
      const auto minutes = arg(1);
      if (args == 2 && (minutes == "off" || minutes == "none" || minutes == "0")) {
        c.clock = clock_option{0, default_clock_delay_seconds};
        return c;
      }
      const auto m = number(minutes, 1, max_clock_minutes);
      if (!m) return usage();
      int delay = default_clock_delay_seconds;
      if (args == 3) {
        const auto d = number(arg(2), 0, max_clock_delay_seconds);
        if (!d) return usage();
        delay = *d;
      }
      c.clock = clock_option{*m, delay};
      return c;
    }
    if (what == "private") {
      if (args != 2) return bad("/option private takes on or off", "protocol.option_private_usage");
      const auto v = arg(1);
      if (v != "on" && v != "off")
        return bad("/option private takes on or off", "protocol.option_private_usage");
      c.kind = command_kind::option_private;
      c.flag = v == "on";
      return c;
    }
    return bad("the options are match, tutor, variant, clock and private: see /help option",
               "protocol.option_unknown");
  }
  // At most 20 bytes of the name, cut before a UTF-8 continuation byte so that the
  // message stays valid UTF-8 (it is sent to the player as it is).
  std::size_t cut = std::min<std::size_t>(name.size(), 20);
  while (cut > 0 && cut < name.size() && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80)
    --cut;
  const std::string shown = name.substr(0, cut);
  return make_error("unknown_command", "/" + shown + " is not a command: type /help",
                    "protocol.unknown_command", {{"command", shown}});
}

}  // namespace bg::protocol
