#pragma once
/// @file command_properties.hpp
/// The properties of protocol::parse_line that hold for every line, shared by the
/// command_grammar and json_decoder fuzz targets:
///  - it never throws or crashes, for any bytes;
///  - a refusal has one of the documented codes and a non-empty message; when the
///    line meets parse_line's precondition (valid UTF-8, no control characters) the
///    message does too, because it goes to the player as it is;
///  - blanks around a line change nothing, and neither does the ASCII case of a
///    command (only a /move's play, a /seed's text, the names of /whois and /history, the
///    passwords of /password, and the names, table and text of the moderation commands
///    (issue 13) keep the case they were typed in);
///  - every parsed command, written back in its canonical form ("/join red",
///    "/option match 7", "/move 24/18 13/11"), parses to the same command.

#include <array>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>

#include "bg/protocol/codec.hpp"
#include "bg/protocol/command.hpp"
#include "fuzz_check.hpp"

namespace bg::fuzz {

inline bool same_command(const protocol::command& a, const protocol::command& b) {
  return a.kind == b.kind && a.text == b.text && a.seat == b.seat && a.match == b.match &&
         a.flag == b.flag && a.game_variant == b.game_variant && a.resign_kind == b.resign_kind &&
         a.clock == b.clock && a.new_password == b.new_password && a.ban_hours == b.ban_hours &&
         a.lengths == b.lengths && a.any_clock == b.any_clock &&
         a.bot_after_seconds == b.bot_after_seconds && a.tournament == b.tournament &&
         a.with_pr == b.with_pr && a.by_pr == b.by_pr && a.message == b.message;
}

/// The /tournament line of `t`, in the grammar's canonical spelling.
inline std::string tournament_line(const protocol::tournament_command& t) {
  using protocol::tournament_action;
  switch (t.action) {
    case tournament_action::show:
      return "/tournament show " + t.name;
    case tournament_action::cancel:
      return "/tournament cancel " + t.name;
    case tournament_action::adjudicate:
      return "/tournament adjudicate " + t.name + " " + t.table + " " + t.winner + " " + t.reason;
    case tournament_action::create:
      break;
  }
  std::string line = "/tournament create " + t.name + " " + t.kind;
  const auto term = [&](const char* k, int v) {
    if (v != 0) line += std::string(" ") + k + " " + std::to_string(v);
  };
  term("rounds", t.rounds);
  term("minutes", t.minutes);
  line += " variant " + std::string(engine::to_string(t.game_variant));
  term("match", t.match_length);
  if (t.clock)
    line += " clock " + std::to_string(t.clock->first) + " " + std::to_string(t.clock->second);
  if (t.start_in_seconds) line += " start +" + std::to_string(*t.start_in_seconds);
  if (t.start_at_minute) {
    const int h = *t.start_at_minute / 60;
    const int m = *t.start_at_minute % 60;
    line += " start " + std::to_string(h) + (m < 10 ? ":0" : ":") + std::to_string(m);
  }
  term("min", t.min_players);
  term("max", t.max_players);
  if (t.unrated) line += " unrated";
  return line;
}

inline bool same_result(const engine::result<protocol::command>& a,
                        const engine::result<protocol::command>& b) {
  if (a.ok() != b.ok()) return false;
  if (!a.ok()) return a.err().code == b.err().code && a.err().message == b.err().message;
  return same_command(*a, *b);
}

inline std::string ascii_case(std::string_view s, bool upper) {
  std::string out(s);
  for (auto& c : out) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

/// The line a player would type for `c`, in the grammar's canonical spelling.
inline std::string canonical_line(const protocol::command& c) {
  using protocol::command_kind;
  using std::string;
  switch (c.kind) {
    case command_kind::chat:
      return c.text;
    case command_kind::join:
      return c.seat ? "/join " + string(engine::to_string(*c.seat)) : "/join";
    case command_kind::leave:
      return "/leave";
    case command_kind::start:
      return "/start";
    case command_kind::option_show:
      return "/option";
    case command_kind::option_match:
      switch (c.match.kind) {
        case engine::match_kind::points:
          return "/option match " + std::to_string(c.match.length);
        case engine::match_kind::basis:
          return "/option match basis";
        case engine::match_kind::free_play:
          return "/option match off";
      }
      return "/option match ?";
    case command_kind::option_tutor:
      return c.flag ? "/option tutor on" : "/option tutor off";
    case command_kind::option_variant:
      return "/option variant " + string(engine::to_string(c.game_variant));
    case command_kind::roll:
      return "/roll";
    case command_kind::move:
      return "/move " + c.text;
    case command_kind::double_offer:
      return "/double";
    case command_kind::take:
      return "/take";
    case command_kind::drop:
      return "/drop";
    case command_kind::resign:
      return "/resign " + string(engine::to_string(c.resign_kind));
    case command_kind::accept:
      return "/accept";
    case command_kind::reject:
      return "/reject";
    case command_kind::continue_session:
      return "/continue";
    case command_kind::stop_session:
      return "/stop";
    case command_kind::board:
      return "/board";
    case command_kind::who:
      return "/who";
    case command_kind::help:
      return c.text.empty() ? "/help" : "/help " + c.text;
    case command_kind::tables:  // the page, when one was asked for (digits)
      return c.text.empty() ? "/tables" : "/tables " + c.text;
    case command_kind::export_match:
      return "/export";
    case command_kind::option_clock:
      return c.clock.minutes == 0 ? "/option clock off"
                                  : "/option clock " + std::to_string(c.clock.minutes) + " " +
                                        std::to_string(c.clock.delay_seconds);
    case command_kind::seed:
      return "/seed " + c.text;
    case command_kind::claim:
      return "/claim";
    case command_kind::analysis:  // the match id, when one was given (digits)
      return c.text.empty() ? "/analysis" : "/analysis " + c.text;
    case command_kind::whois:
      return "/whois " + c.text;
    case command_kind::ratings: {
      std::string line = c.text.empty() ? "/ratings" : "/ratings " + c.text;
      if (c.by_pr) return line + " by pr";
      return c.with_pr ? line + " pr" : line;
    }
    case command_kind::history:
      return c.text.empty() ? "/history" : "/history " + c.text;
    case command_kind::password:
      return "/password " + c.text + " " + c.new_password;
    case command_kind::bot:
      return "/bot " + c.text;
    case command_kind::play_bot: {
      std::string match = "off";
      if (c.match.kind == engine::match_kind::points) match = std::to_string(c.match.length);
      if (c.match.kind == engine::match_kind::basis) match = "basis";
      return "/play bot " + c.text + " " + string(engine::to_string(c.game_variant)) + " match " +
             match;
    }
    case command_kind::seek: {
      std::string line = "/seek " + string(engine::to_string(c.game_variant));
      for (std::size_t i = 0; i < c.lengths.size(); ++i)
        line += (i == 0 ? " match " : ",") + std::to_string(c.lengths[i]);
      if (!c.any_clock)
        line += c.clock.minutes == 0 ? std::string(" clock off")
                                     : " clock " + std::to_string(c.clock.minutes) + " " +
                                           std::to_string(c.clock.delay_seconds);
      if (c.bot_after_seconds > 0) line += " bot after " + std::to_string(c.bot_after_seconds);
      return line;
    }
    case command_kind::unseek:
      return "/unseek";
    case command_kind::tournament:
      return c.tournament ? tournament_line(*c.tournament) : "/tournament";
    case command_kind::tournaments:
      return "/tournaments";
    case command_kind::register_tournament:
      return "/register " + c.text;
    case command_kind::withdraw_tournament:
      return c.text.empty() ? "/withdraw" : "/withdraw " + c.text;
    case command_kind::lang:
      return c.text.empty() ? "/lang" : "/lang " + c.text;
    case command_kind::tell:
      return "/tell " + c.text + " " + c.message;
    case command_kind::kick:
      return "/kick " + c.text;
    case command_kind::invite:
      return "/invite " + c.text;
    case command_kind::uninvite:
      return "/uninvite " + c.text;
    case command_kind::option_private:
      return c.flag ? "/option private on" : "/option private off";
    case command_kind::ignore:
      return c.text.empty() ? "/ignore" : "/ignore " + c.text;
    case command_kind::unignore:
      return "/unignore " + c.text;
    case command_kind::ban: {
      if (c.ban_hours == 0.0) return "/ban " + c.text;
      // The shortest decimals (never an exponent, which /ban refuses) that read back the same.
      std::array<char, 64> hours{};
      const auto [end, ec] = std::to_chars(hours.data(), hours.data() + hours.size(), c.ban_hours,
                                           std::chars_format::fixed);
      if (ec != std::errc{}) return "/ban ?";
      return "/ban " + c.text + " " + string(hours.data(), end);
    }
    case command_kind::unban:
      return "/unban " + c.text;
    case command_kind::broadcast:
      return "/broadcast " + c.text;
    case command_kind::close_table:
      return "/close " + c.text;
    case command_kind::sessions:
      return "/sessions";
    case command_kind::signout:  // "", "all" or the id's digits
      return c.text.empty() ? "/signout" : "/signout " + c.text;
  }
  return "/?";
}

/// Checks every property above for one line.
inline void check_command_line(std::string_view line) {
  const auto r = protocol::parse_line(line);
  const bool well_formed = protocol::valid_utf8(line) && !protocol::has_control(line);

  // Blanks around the line are ignored.
  const std::string padded = " \t" + std::string(line) + "\t ";
  FUZZ_CHECK(same_result(r, protocol::parse_line(padded)));

  if (!r) {
    const auto& e = r.err();
    FUZZ_CHECK(e.code == "empty_line" || e.code == "unknown_command" || e.code == "bad_command");
    FUZZ_CHECK(!e.message.empty());
    if (well_formed) {
      FUZZ_CHECK(protocol::valid_utf8(e.message));
      FUZZ_CHECK(!protocol::has_control(e.message));
    }
  } else {
    const auto& c = *r;
    FUZZ_CHECK(!to_string(c.kind).empty());
    if (c.kind == protocol::command_kind::chat) {
      FUZZ_CHECK(!c.text.empty() && c.text.front() != '/');
      FUZZ_CHECK(line.find(c.text) != std::string_view::npos);
    }
    if (c.kind == protocol::command_kind::move || c.kind == protocol::command_kind::seed) {
      FUZZ_CHECK(!c.text.empty() && c.text.front() != ' ' && c.text.front() != '\t');
      FUZZ_CHECK(line.find(c.text) != std::string_view::npos);
    }
    if (c.kind == protocol::command_kind::option_clock) {
      FUZZ_CHECK(c.clock.minutes >= 0 && c.clock.minutes <= protocol::max_clock_minutes);
      FUZZ_CHECK(c.clock.delay_seconds >= 0 &&
                 c.clock.delay_seconds <= protocol::max_clock_delay_seconds);
    }
    if (c.kind == protocol::command_kind::whois || c.kind == protocol::command_kind::password) {
      // One word each, found as typed in the line.
      FUZZ_CHECK(!c.text.empty() && c.text.find_first_of(" \t") == std::string::npos);
      FUZZ_CHECK(line.find(c.text) != std::string_view::npos);
    }
    if (c.kind == protocol::command_kind::password) {
      FUZZ_CHECK(!c.new_password.empty() &&
                 c.new_password.find_first_of(" \t") == std::string::npos);
      FUZZ_CHECK(line.find(c.new_password) != std::string_view::npos);
    } else {
      FUZZ_CHECK(c.new_password.empty());
    }
    if (c.kind == protocol::command_kind::option_match) {
      FUZZ_CHECK(engine::match::check(c.match).ok());
      if (c.match.kind == engine::match_kind::points)
        FUZZ_CHECK(c.match.length >= 1 && c.match.length <= 64);
      else
        FUZZ_CHECK(c.match.length == 0);
    }
    // The canonical spelling parses back to the same command.
    const auto again = protocol::parse_line(canonical_line(c));
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(same_command(c, *again));
  }

  // The case of a command's letters does not matter (only a play keeps its case).
  std::string_view trimmed = line;
  while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\t'))
    trimmed.remove_prefix(1);
  if (!trimmed.empty() && trimmed.front() == '/') {
    for (const bool upper : {true, false}) {
      const auto other = protocol::parse_line(ascii_case(line, upper));
      FUZZ_CHECK(other.ok() == r.ok());
      if (!r) {
        FUZZ_CHECK(other.err().code == r.err().code);
        continue;
      }
      auto a = *r;
      auto b = *other;
      using k = protocol::command_kind;
      if (a.kind == k::move || a.kind == k::seed || a.kind == k::whois || a.kind == k::history ||
          a.kind == k::password || a.kind == k::kick || a.kind == k::invite ||
          a.kind == k::uninvite || a.kind == k::ignore || a.kind == k::unignore ||
          a.kind == k::ban || a.kind == k::unban || a.kind == k::broadcast ||
          a.kind == k::close_table || a.kind == k::register_tournament ||
          a.kind == k::withdraw_tournament || a.kind == k::tell) {
        a.text = ascii_case(a.text, false);
        b.text = ascii_case(b.text, false);
        a.message = ascii_case(a.message, false);
        b.message = ascii_case(b.message, false);
        a.new_password = ascii_case(a.new_password, false);
        b.new_password = ascii_case(b.new_password, false);
      }
      // /tournament keeps its names and an adjudication's reason as typed.
      for (auto* t : {&a.tournament, &b.tournament})
        if (*t)
          for (auto* field : {&(*t)->name, &(*t)->table, &(*t)->winner, &(*t)->reason})
            *field = ascii_case(*field, false);
      FUZZ_CHECK(same_command(a, b));
    }
  }

  // Help topics: any text is a question, never a crash; an answer is never empty.
  if (const auto help = protocol::help_text(line)) FUZZ_CHECK(!help->empty());
}

}  // namespace bg::fuzz
