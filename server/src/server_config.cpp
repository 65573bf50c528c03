// Command line and environment parsing for gammond (server_config.hpp).
//
// Boost.Program_options reads the flags; every value is taken as text and checked
// here, so a bad value gets one message that says which flag or variable, what was
// given and what is expected (program_options' lexical_cast would accept "-1" for an
// unsigned and say little about "70000" for a port).

#include <algorithm>
#include <array>
#include <boost/asio/ip/address.hpp>
#include <boost/program_options.hpp>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <ostream>
#include <sstream>
#include <type_traits>
#include <vector>

#include "bg/server/server_config.hpp"

namespace bg::server {

std::optional<std::string> normalise_origin(std::string_view origin) {
  std::string text{origin};
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view rest{text};
  std::string_view scheme;
  std::string_view default_port;
  if (rest.starts_with("http://")) {
    scheme = "http";
    default_port = "80";
  } else if (rest.starts_with("https://")) {
    scheme = "https";
    default_port = "443";
  } else {
    return std::nullopt;
  }
  rest.remove_prefix(scheme.size() + 3);
  if (rest.ends_with('/')) rest.remove_suffix(1);
  // host: letters, digits, '-', '.', or a bracketed IPv6 address; then an optional port.
  std::string_view host = rest;
  std::optional<std::string_view> port;
  if (rest.starts_with('[')) {
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = rest.substr(0, close + 1);
    rest.remove_prefix(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
    }
    if (host.size() < 3 ||
        host.substr(1, host.size() - 2).find_first_not_of("0123456789abcdef:.") !=
            std::string_view::npos) {
      return std::nullopt;
    }
  } else {
    const auto colon = rest.find(':');
    host = rest.substr(0, colon);
    if (colon != std::string_view::npos) port = rest.substr(colon + 1);
    if (host.empty() || host.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") !=
                            std::string_view::npos) {
      return std::nullopt;
    }
  }
  std::string normal = std::string{scheme} + "://" + std::string{host};
  if (port) {
    unsigned value = 0;
    const auto* const end = port->data() + port->size();
    const auto [ptr, ec] = std::from_chars(port->data(), end, value);
    if (port->empty() || ec != std::errc{} || ptr != end || value == 0 || value > 65535) {
      return std::nullopt;
    }
    if (std::to_string(value) != default_port) normal += ":" + std::to_string(value);
  }
  return normal;
}

namespace {

namespace po = boost::program_options;

/// What went wrong with a value, as the end of a sentence ("is not a number ...").
using problem = std::optional<std::string>;

/// One setting: its flag, its help line, how to show its default and how to apply a
/// text value to the config.
struct setting {
  const char* flag;
  const char* value_name;
  const char* help;
  std::function<std::string(const server_config&)> show;
  std::function<problem(std::string_view, server_config&)> apply;
};

std::string environment_name(std::string_view flag) {
  std::string name = "GAMMOND_";
  for (const char c : flag) {
    name += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return name;
}

template <typename T>
std::optional<T> parse_integer(std::string_view text) {
  T value{};
  const auto* const end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || text.empty()) return std::nullopt;
  return value;
}

std::string range_text(std::uint64_t min, std::uint64_t max) {
  if (max == std::numeric_limits<std::uint64_t>::max()) {
    return "a whole number of at least " + std::to_string(min);
  }
  return "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
}

/// An unsigned integer field in [min, max].
template <typename T>
std::function<problem(std::string_view, server_config&)> integer_field(T server_config::*field,
                                                                       std::uint64_t min,
                                                                       std::uint64_t max) {
  return [field, min, max](std::string_view text, server_config& config) -> problem {
    const auto value = parse_integer<std::uint64_t>(text);
    if (!value || *value < min || *value > max) return "is not " + range_text(min, max);
    config.*field = static_cast<T>(*value);
    return std::nullopt;
  };
}

/// A duration field in whole seconds, in [min, max].
std::function<problem(std::string_view, server_config&)> seconds_field(
    std::chrono::seconds server_config::*field, std::uint64_t min, std::uint64_t max) {
  return [field, min, max](std::string_view text, server_config& config) -> problem {
    const auto value = parse_integer<std::uint64_t>(text);
    if (!value || *value < min || *value > max) {
      return "is not " + range_text(min, max) + " (seconds)";
    }
    config.*field = std::chrono::seconds{static_cast<std::chrono::seconds::rep>(*value)};
    return std::nullopt;
  };
}

/// An IP address (v4 or v6); empty allowed when `allow_empty`.
std::function<problem(std::string_view, server_config&)> address_field(
    std::string server_config::*field, bool allow_empty) {
  return [field, allow_empty](std::string_view text, server_config& config) -> problem {
    if (text.empty() && allow_empty) {
      config.*field = std::string{};
      return std::nullopt;
    }
    boost::system::error_code ec;
    const auto address = boost::asio::ip::make_address(std::string{text}, ec);
    if (ec) return "is not an IP address (such as 127.0.0.1 or ::1)";
    config.*field = address.to_string();
    return std::nullopt;
  };
}

/// Any non-empty text (a path).
std::function<problem(std::string_view, server_config&)> path_field(
    std::string server_config::*field) {
  return [field](std::string_view text, server_config& config) -> problem {
    if (text.empty()) return "is empty; a path is expected";
    config.*field = std::string{text};
    return std::nullopt;
  };
}

/// The items of a comma-separated list ("a, b,,c" -> a, b, c): blanks around each item
/// trimmed, empty items skipped. Views into `text`.
std::vector<std::string_view> list_items(std::string_view text) {
  std::vector<std::string_view> items;
  while (!text.empty()) {
    const auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

/// A comma-separated list of origins (scheme://host[:port] with scheme http or https),
/// or "*". Each is kept normalised: lower case, without the scheme's default port.
std::function<problem(std::string_view, server_config&)> origins_field() {
  return [](std::string_view text, server_config& config) -> problem {
    std::vector<std::string> origins;
    for (const std::string_view item : list_items(text)) {
      if (item == "*") {
        origins.emplace_back("*");
        continue;
      }
      auto origin = normalise_origin(item);
      if (!origin) {
        return "has \"" + std::string{item} +
               "\", which is not an origin such as https://bg.example.org or "
               "http://host:8080 (or *)";
      }
      origins.push_back(std::move(*origin));
    }
    config.allowed_origins = std::move(origins);
    return std::nullopt;
  };
}

/// A comma-separated list of names (--admins). Each is checked here only for what can
/// never be a name (blanks, a control character, more than 64 bytes); the game service
/// checks them against the name rules and the accounts at start.
std::function<problem(std::string_view, server_config&)> admins_field() {
  return [](std::string_view text, server_config& config) -> problem {
    std::vector<std::string> names;
    for (const std::string_view item : list_items(text)) {
      const bool bad = item.size() > 64 || std::any_of(item.begin(), item.end(), [](char c) {
                         const auto b = static_cast<unsigned char>(c);
                         return b < 0x20 || b == 0x7F || b == ' ';
                       });
      if (bad) return "has a name that no player can have (names have no blanks, at most 64 bytes)";
      names.emplace_back(item);
    }
    config.admins = std::move(names);
    return std::nullopt;
  };
}

/// A duration in seconds, fractional allowed ("0.2", "5"), kept in milliseconds, in
/// [min_ms, max_ms].
std::function<problem(std::string_view, server_config&)> fractional_seconds_field(
    std::chrono::milliseconds server_config::*field, std::int64_t min_ms, std::int64_t max_ms) {
  return [field, min_ms, max_ms](std::string_view text, server_config& config) -> problem {
    double value = 0;
    const auto* const end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    const double ms = value * 1000.0;
    if (text.empty() || ec != std::errc{} || ptr != end || !std::isfinite(value) ||
        std::llround(ms) < min_ms || std::llround(ms) > max_ms) {
      std::ostringstream expected;
      expected << "is not a number of seconds from " << static_cast<double>(min_ms) / 1000.0
               << " to " << static_cast<double>(max_ms) / 1000.0;
      return expected.str();
    }
    config.*field = std::chrono::milliseconds{std::llround(ms)};
    return std::nullopt;
  };
}

/// Seconds with up to three decimals, as --heartbeat shows its default ("1", "0.2").
std::string show_seconds(std::chrono::milliseconds value) {
  std::ostringstream s;
  s << static_cast<double>(value.count()) / 1000.0;
  return s.str();
}

constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t one_gib = 1024ULL * 1024 * 1024;
constexpr std::uint64_t one_year_seconds = 365ULL * 24 * 3600;

/// How a text setting shows its default in --help: the text itself.
std::function<std::string(const server_config&)> show_text(std::string server_config::*field) {
  return [field](const server_config& c) { return c.*field; };
}

/// How a number setting shows its default in --help: whole seconds as their count, any
/// other number as an ostream writes it.
template <typename T>
std::function<std::string(const server_config&)> show_number(T server_config::*field) {
  return [field](const server_config& c) {
    if constexpr (std::is_same_v<T, std::chrono::seconds>) {
      return std::to_string((c.*field).count());
    } else {
      std::ostringstream s;
      s << c.*field;
      return s.str();
    }
  };
}

/// The server itself: where it listens, its database, the web client's files, its
/// log and its threads.
std::vector<setting> server_settings() {
  return {
      {"bind", "ADDR", "address to listen on", show_text(&server_config::bind),
       address_field(&server_config::bind, false)},
      {"port", "N", "TCP port; 0 picks a free one", show_number(&server_config::port),
       integer_field(&server_config::port, 0, 65535)},
      {"port-file", "PATH", "write the bound port here (written atomically)",
       show_text(&server_config::port_file),
       [](std::string_view v, server_config& c) -> problem {
         c.port_file = std::string{v};
         return std::nullopt;
       }},
      {"db", "PATH|URL",
       "SQLite database file, or a PostgreSQL URL (postgresql://USER@HOST/DB; the password "
       "better in ~/.pgpass or PGPASSWORD)",
       show_text(&server_config::db), path_field(&server_config::db)},
      {"static-dir", "DIR", "the web client's files",
       [](const server_config& c) { return c.static_dir.empty() ? "built-in" : c.static_dir; },
       [](std::string_view v, server_config& c) -> problem {
         c.static_dir = std::string{v};
         return std::nullopt;
       }},
      {"lang-dir", "DIR",
       "more or corrected languages: DIR/<tag>/*.json message catalogues (i18n/README.md)",
       [](const server_config& c) { return c.lang_dir.empty() ? "none" : c.lang_dir; },
       [](std::string_view v, server_config& c) -> problem {
         c.lang_dir = std::string{v};
         return std::nullopt;
       }},
      {"log-level", "LEVEL", "trace|debug|info|warn|error|critical|off",
       show_text(&server_config::log_level),
       [](std::string_view v, server_config& c) -> problem {
         constexpr std::array<std::string_view, 7> levels{"trace", "debug",    "info", "warn",
                                                          "error", "critical", "off"};
         if (std::find(levels.begin(), levels.end(), v) == levels.end()) {
           return "is not a log level (trace, debug, info, warn, error, critical or off)";
         }
         c.log_level = std::string{v};
         return std::nullopt;
       }},
      {"threads", "N", "threads running the network and the tables",
       show_number(&server_config::threads), integer_field(&server_config::threads, 1, 256)},
  };
}

/// One connection's bounds: message size, command rate and strikes, timeouts, open
/// connections in all and per address, unsent bytes.
std::vector<setting> connection_settings() {
  return {
      {"max-message-bytes", "BYTES", "largest WebSocket message a client may send",
       show_number(&server_config::max_message_bytes),
       integer_field(&server_config::max_message_bytes, 64, 64ULL * 1024 * 1024)},
      {"commands-per-second", "RATE", "messages a connection may send per second, sustained",
       show_number(&server_config::commands_per_second),
       [](std::string_view v, server_config& c) -> problem {
         double value = 0;
         const auto* const end = v.data() + v.size();
         const auto [ptr, ec] = std::from_chars(v.data(), end, value);
         if (v.empty() || ec != std::errc{} || ptr != end || !std::isfinite(value) ||
             value <= 0.0 || value > 1e6) {
           return std::string{"is not a number above 0 and at most 1000000"};
         }
         c.commands_per_second = value;
         return std::nullopt;
       }},
      {"command-burst", "N", "messages a connection may send at once above the rate",
       show_number(&server_config::command_burst),
       integer_field(&server_config::command_burst, 1, 1'000'000)},
      {"rate-limit-strikes", "N",
       "strikes (rate_limited answers, refused hellos) before the connection is closed",
       show_number(&server_config::rate_limit_strikes),
       integer_field(&server_config::rate_limit_strikes, 1, 1'000'000)},
      {"idle-timeout", "SECONDS", "drop a WebSocket that sends nothing, not even a pong",
       show_number(&server_config::idle_timeout),
       seconds_field(&server_config::idle_timeout, 1, one_year_seconds)},
      {"http-timeout", "SECONDS", "time to finish an HTTP request, an upgrade or a close",
       show_number(&server_config::http_timeout),
       seconds_field(&server_config::http_timeout, 1, 3600)},
      {"max-connections", "N",
       "open connections in all (gammond raises its open file limit to this + 64, "
       "or stops with exit 2 when the hard limit is lower)",
       show_number(&server_config::max_connections),
       integer_field(&server_config::max_connections, 1, 10'000'000)},
      {"max-connections-per-address", "N", "open connections from one client address",
       show_number(&server_config::max_connections_per_address),
       integer_field(&server_config::max_connections_per_address, 1, 10'000'000)},
      {"write-queue-bytes", "BYTES", "unsent bytes per connection before it is dropped",
       show_number(&server_config::write_queue_bytes),
       integer_field(&server_config::write_queue_bytes, 1024, one_gib)},
  };
}

/// Tables and the lobby: a seat kept for an absent player, saving on SIGTERM, tables
/// and spectators at most, the lobby's list and chat, a table's backlog, chat and name
/// lengths.
std::vector<setting> table_settings() {
  return {
      {"grace-period", "SECONDS", "an absent player keeps the seat this long",
       show_number(&server_config::grace_period),
       seconds_field(&server_config::grace_period, 0, one_year_seconds)},
      {"stop-timeout", "SECONDS",
       "on SIGTERM, how long all tables together get to save their state (in parallel)",
       show_number(&server_config::stop_timeout),
       seconds_field(&server_config::stop_timeout, 1, 3600)},
      {"max-tables", "N", "tables in all", show_number(&server_config::max_tables),
       integer_field(&server_config::max_tables, 1, 10'000'000)},
      {"max-tables-per-client", "N",
       "tables one name, and one client address, may have created and still open",
       show_number(&server_config::max_tables_per_client),
       integer_field(&server_config::max_tables_per_client, 1, 10'000'000)},
      {"max-spectators", "N", "spectators at one table",
       show_number(&server_config::max_spectators),
       integer_field(&server_config::max_spectators, 0, 10'000'000)},
      {"tables-page-size", "N", "tables in one /tables answer (the lobby list is paged)",
       show_number(&server_config::tables_page_size),
       integer_field(&server_config::tables_page_size, 1, 100'000)},
      {"max-seeks", "N", "matchmaking requests (/seek) waiting at once, from everyone",
       show_number(&server_config::max_seeks),
       integer_field(&server_config::max_seeks, 1, 1'000'000)},
      {"tournament-creators", "WHO",
       "who may create tournaments: admins, or registered (any logged-in account)",
       show_text(&server_config::tournament_creators),
       [](std::string_view text, server_config& config) -> problem {
         if (text != "admins" && text != "registered") return "is not admins or registered";
         config.tournament_creators = std::string(text);
         return std::nullopt;
       }},
      {"max-tournaments", "N", "tournaments registering or running at once",
       show_number(&server_config::max_tournaments),
       integer_field(&server_config::max_tournaments, 1, 100'000)},
      {"max-tournament-players", "N", "players in one tournament",
       show_number(&server_config::max_tournament_players),
       integer_field(&server_config::max_tournament_players, 2, 1024)},
      {"max-registrations", "N", "open tournaments one name may be registered for",
       show_number(&server_config::max_registrations),
       integer_field(&server_config::max_registrations, 1, 1000)},
      {"kept-tournaments", "N", "finished or cancelled tournaments kept for the pages and the API",
       show_number(&server_config::kept_tournaments),
       integer_field(&server_config::kept_tournaments, 1, 100'000)},
      {"seek-count-interval", "SECONDS",
       "the lobby's count of players waiting (/seek) is pushed at most this often (fractions "
       "allowed)",
       [](const server_config& c) { return show_seconds(c.seek_count_interval); },
       fractional_seconds_field(&server_config::seek_count_interval, 0, 60'000)},
      {"lobby-chat-interval", "SECONDS", "a player's lobby chat lines are this far apart at least",
       show_number(&server_config::lobby_chat_interval),
       seconds_field(&server_config::lobby_chat_interval, 0, 3600)},
      {"lobby-chat-per-minute", "N", "lobby chat lines per minute from everyone together",
       show_number(&server_config::lobby_chat_per_minute),
       integer_field(&server_config::lobby_chat_per_minute, 1, 1'000'000)},
      {"max-table-backlog", "N", "messages a table holds while its last change is written",
       show_number(&server_config::max_table_backlog),
       integer_field(&server_config::max_table_backlog, 1, 1'000'000)},
      {"max-chat-bytes", "BYTES", "longest chat line", show_number(&server_config::max_chat_bytes),
       integer_field(&server_config::max_chat_bytes, 1, unlimited)},
      {"max-name-bytes", "BYTES", "longest player or table name",
       show_number(&server_config::max_name_bytes),
       integer_field(&server_config::max_name_bytes, 1, unlimited)},
  };
}

/// HTTP: the trusted proxy, /metrics' token, the read rate per client address and the
/// reader thread's queue.
std::vector<setting> http_settings() {
  return {
      {"trusted-proxy", "ADDR", "honour X-Forwarded-For only from this peer address",
       show_text(&server_config::trusted_proxy),
       address_field(&server_config::trusted_proxy, true)},
      {"metrics-token", "TOKEN",
       "/metrics answers `Authorization: Bearer TOKEN` from any address; loopback clients "
       "always (without a token: loopback clients only)",
       [](const server_config& c) { return std::string{c.metrics_token.empty() ? "" : "(set)"}; },
       [](std::string_view v, server_config& c) -> problem {
         if (v.size() > 256 ||
             v.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
                                 "VWXYZ0123456789-._~+/=") != std::string_view::npos)
           return std::string{"is not a token of at most 256 letters, digits and -._~+/="};
         c.metrics_token = std::string{v};
         return std::nullopt;
       }},
      {"api-reads-per-second", "N",
       "HTTP reads (/api/..., /matches/ID.mat) per client address a second, sustained; more "
       "are answered 429",
       show_number(&server_config::api_reads_per_second),
       integer_field(&server_config::api_reads_per_second, 1, 1'000'000)},
      {"api-read-burst", "N", "HTTP reads an address may make at once above the rate",
       show_number(&server_config::api_read_burst),
       integer_field(&server_config::api_read_burst, 1, 1'000'000)},
      {"api-clients", "N", "client addresses whose HTTP read rate is remembered at most",
       show_number(&server_config::api_clients),
       integer_field(&server_config::api_clients, 1, 10'000'000)},
      {"read-queue", "N",
       "HTTP reads waiting for the reader thread (its own database connection) at most; more "
       "are answered 503",
       show_number(&server_config::read_queue),
       integer_field(&server_config::read_queue, 1, 1'000'000)},
  };
}

/// Matches: the dice seed (RULES.md S4), clocks and abandonment (issue 13; RULES.md
/// S2, S3), /seed's length.
std::vector<setting> match_settings() {
  return {
      {"dice-seed", "N",
       "0: each match's dice seed from the OS (production); N: seeds derived from N, the "
       "table and the match (reproducible dice, for tests only)",
       show_number(&server_config::dice_seed),
       integer_field(&server_config::dice_seed, 0, 0xFFFFFFFFFFFFFFFFULL)},
      // Clocks and abandonment (issue 13; RULES.md S2, S3).
      {"idle-limit", "SECONDS",
       "without a clock, a player who is to act and has not for this long may be claimed "
       "by the opponent (/claim)",
       show_number(&server_config::idle_limit),
       seconds_field(&server_config::idle_limit, 1, one_year_seconds)},
      {"clock-minute-seconds", "SECONDS",
       "the length of one minute of /option clock and of an arena: 60 (tests only: "
       "shorter, so that a bank runs out quickly)",
       show_number(&server_config::clock_minute_seconds),
       integer_field(&server_config::clock_minute_seconds, 1, 60)},
      {"max-seed-bytes", "BYTES", "longest /seed text", show_number(&server_config::max_seed_bytes),
       integer_field(&server_config::max_seed_bytes, 1, 1024)},
  };
}

/// Storage and durability (issue 11 item 4): SQLite's and PostgreSQL's (issue 16).
std::vector<setting> storage_settings() {
  return {
      {"sync", "full|normal",
       "full: every commit survives a power cut; normal: survives kill -9 of gammond only "
       "(PostgreSQL: synchronous_commit on or off)",
       show_text(&server_config::sync),
       [](std::string_view v, server_config& c) -> problem {
         if (v != "full" && v != "normal") return std::string{"is not full or normal"};
         c.sync = std::string{v};
         return std::nullopt;
       }},
      {"db-max-pages", "N",
       "SQLite only: largest database file in pages of 4096 bytes (a quota; writes past it "
       "fail); 0: no limit",
       show_number(&server_config::db_max_pages),
       integer_field(&server_config::db_max_pages, 0, 0x7FFFFFFFFFFFFFFFULL)},
      {"db-checkpoint-pages", "N",
       "SQLite only: write-ahead log pages (4096 bytes) after which a thread of its own "
       "copies the log into the database file, so that no commit waits for it; 0: SQLite's "
       "automatic checkpoint on the committing thread",
       show_number(&server_config::db_checkpoint_pages),
       integer_field(&server_config::db_checkpoint_pages, 0, 1'000'000)},
      // PostgreSQL (issue 16).
      {"db-connect-timeout", "SECONDS",
       "PostgreSQL: opening a connection may take this long (libpq connect_timeout)",
       show_number(&server_config::db_connect_timeout),
       seconds_field(&server_config::db_connect_timeout, 1, 3600)},
      {"db-statement-timeout", "SECONDS",
       "PostgreSQL: a statement running longer is cancelled and its write refused; 0: no "
       "limit",
       show_number(&server_config::db_statement_timeout),
       seconds_field(&server_config::db_statement_timeout, 0, 24 * 3600)},
      {"db-id-block", "N",
       "PostgreSQL: match ids reserved from the database at a time (kept in memory)",
       show_number(&server_config::db_id_block),
       integer_field(&server_config::db_id_block, 2, 1'000'000)},
  };
}

/// The cluster (issue 16): this node, its heartbeat and lease, its public path, its
/// queues, the resume window of names, and /who's length.
std::vector<setting> cluster_settings() {
  return {
      {"node-id", "ID",
       "this node's name in a cluster of gammond nodes on one PostgreSQL database (1-16 of "
       "a-z, 0-9, -); none: a single server",
       show_text(&server_config::node_id),
       [](std::string_view v, server_config& c) -> problem {
         if (v.empty() || v.size() > 16 ||
             v.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") !=
                 std::string_view::npos) {
           return std::string{"is not a node id: 1 to 16 of a-z, 0-9 and -"};
         }
         c.node_id = std::string{v};
         return std::nullopt;
       }},
      {"heartbeat", "SECONDS",
       "cluster: how often this node renews its heartbeat and looks for dead nodes' tables "
       "(fractions allowed)",
       [](const server_config& c) { return show_seconds(c.heartbeat); },
       fractional_seconds_field(&server_config::heartbeat, 10, 3'600'000)},
      {"lease", "SECONDS",
       "cluster: a node silent this long is dead and its tables are taken over; more than 2 "
       "x --heartbeat",
       [](const server_config& c) { return show_seconds(c.lease); },
       fractional_seconds_field(&server_config::lease, 30, 24 * 3'600'000)},
      {"node-path", "PATH",
       "cluster: the public path prefix the proxy routes to this node, told to clients in "
       "`moved` (default /n/ID)",
       [](const server_config& c) { return c.node_path.empty() ? "/n/ID" : c.node_path; },
       [](std::string_view v, server_config& c) -> problem {
         if (v.empty() || v.front() != '/' || v.size() > 200 ||
             v.find_first_of(" \"?#\t\r\n") != std::string_view::npos) {
           return std::string{"is not a path beginning with / (such as /n/a)"};
         }
         c.node_path = std::string{v};
         if (c.node_path.size() > 1 && c.node_path.back() == '/') c.node_path.pop_back();
         return std::nullopt;
       }},
      {"cluster-queue", "N",
       "cluster: statements waiting for the cluster's PostgreSQL connection, and other "
       "nodes' notifications waiting to be handled, at most (each)",
       show_number(&server_config::cluster_queue),
       integer_field(&server_config::cluster_queue, 1, 10'000'000)},
      {"resume-window", "SECONDS",
       "cluster: a name whose last connection closed without a seat keeps its resume token "
       "this long, on every node (0: freed at once, as on a single server)",
       show_number(&server_config::resume_window),
       seconds_field(&server_config::resume_window, 0, 3600)},
      {"resume-window-names", "N", "cluster: names in their resume window at once, at most",
       show_number(&server_config::resume_window_names),
       integer_field(&server_config::resume_window_names, 0, 10'000'000)},
      {"who-limit", "N", "names listed by /who in the lobby (who is online), at most",
       show_number(&server_config::who_limit),
       integer_field(&server_config::who_limit, 1, 1'000'000)},
  };
}

/// WebSocket origins and the hello (issue 11, items 5 and 6), and how strikes decay.
std::vector<setting> websocket_settings() {
  return {
      {"allowed-origins", "LIST",
       "origins whose pages may open a WebSocket: https://host[:port],... or *; "
       "none: the Origin must name the request's Host",
       [](const server_config& c) {
         std::string joined;
         for (const auto& origin : c.allowed_origins) {
           joined += (joined.empty() ? "" : ",") + origin;
         }
         return joined;
       },
       origins_field()},
      {"hello-timeout", "SECONDS", "close a WebSocket that has not said hello within this",
       show_number(&server_config::hello_timeout),
       seconds_field(&server_config::hello_timeout, 1, 3600)},
      {"strike-decay", "SECONDS", "one strike is forgiven per this many seconds",
       show_number(&server_config::strike_decay),
       seconds_field(&server_config::strike_decay, 1, one_year_seconds)},
  };
}

/// Match analysis by GNU Backgammon (issue 14).
std::vector<setting> analysis_settings() {
  return {
      {"gnubg", "PATH", "GNU Backgammon, which analyses finished matches and plays /bot",
       show_text(&server_config::gnubg), path_field(&server_config::gnubg)},
      {"analysis-workers", "N",
       "gnubg processes analysing finished matches at once; 0: no analysis",
       show_number(&server_config::analysis_workers),
       integer_field(&server_config::analysis_workers, 0, 64)},
      {"analysis-queue", "N",
       "finished matches waiting for analysis at most (more are not analysed)",
       show_number(&server_config::analysis_queue),
       integer_field(&server_config::analysis_queue, 1, 1'000'000)},
      {"analysis-per-player", "N",
       "finished matches waiting for analysis at most per player (the queue serves players "
       "in turn)",
       show_number(&server_config::analysis_per_player),
       integer_field(&server_config::analysis_per_player, 1, 1'000'000)},
      {"analysis-level", "LEVEL",
       "expert (0-ply, fast), worldclass (2-ply, gnubg's default) or grandmaster (3-ply)",
       show_text(&server_config::analysis_level),
       [](std::string_view v, server_config& c) -> problem {
         if (v != "expert" && v != "worldclass" && v != "grandmaster")
           return std::string{"is not expert, worldclass or grandmaster"};
         c.analysis_level = std::string{v};
         return std::nullopt;
       }},
      {"analysis-nice", "N",
       "CPU niceness of the analysing gnubg processes (0: normal priority; 19, also the "
       "SCHED_IDLE class: only the time nothing else wants)",
       show_number(&server_config::analysis_nice),
       integer_field(&server_config::analysis_nice, 0, 19)},
      {"analysis-busy-rate", "N",
       "while the tables handle more than N commands a second, no new analysis starts (one "
       "running goes on): live play first; 0: analyses never wait",
       show_number(&server_config::analysis_busy_rate),
       integer_field(&server_config::analysis_busy_rate, 0, 1'000'000'000)},
      {"analysis-timeout", "SECONDS", "one analysis may take this long before gnubg is killed",
       show_number(&server_config::analysis_timeout),
       seconds_field(&server_config::analysis_timeout, 1, 7 * 24 * 3600)},
  };
}

/// Accounts (issue 12): admins, the password threads and their queues, registrations
/// and passwords.
std::vector<setting> account_settings() {
  return {
      {"admins", "NAMES",
       "names (comma-separated) that are admins once logged in with their password; reserved: "
       "made only with `gammond admin create NAME`",
       [](const server_config& c) {
         std::string joined;
         for (const auto& name : c.admins) joined += (joined.empty() ? "" : ",") + name;
         return joined;
       },
       admins_field()},
      {"auth-threads", "N", "threads that hash and check passwords (Argon2id, ~64 MiB each)",
       show_number(&server_config::auth_threads),
       integer_field(&server_config::auth_threads, 1, 64)},
      {"auth-queue", "N",
       "logins, registrations and password changes waiting for those threads (more: auth_busy)",
       show_number(&server_config::auth_queue),
       integer_field(&server_config::auth_queue, 1, 1'000'000)},
      {"auth-queue-per-address", "N",
       "of those, the most one client address may have waiting (more: auth_busy)",
       show_number(&server_config::auth_queue_per_address),
       integer_field(&server_config::auth_queue_per_address, 1, 1'000'000)},
      {"register-per-hour", "N",
       "registrations per client address and hour (more: register_limited); 0: unlimited",
       show_number(&server_config::register_per_hour),
       integer_field(&server_config::register_per_hour, 0, 1'000'000)},
      {"max-password-bytes", "BYTES", "longest password accepted",
       show_number(&server_config::max_password_bytes),
       integer_field(&server_config::max_password_bytes, 8, 4096)},
      {"max-accounts", "N", "people's registered accounts in all (more: too_many_accounts)",
       show_number(&server_config::max_accounts),
       integer_field(&server_config::max_accounts, 1, 100'000'000)},
  };
}

/// Logins (issue 12): the throttle of failed logins, and remembered sign-ins (issue
/// 27).
std::vector<setting> login_settings() {
  return {
      {"login-delay-after", "N",
       "failed logins of a name (or from an address) after which each try waits --login-delay",
       show_number(&server_config::login_delay_after),
       integer_field(&server_config::login_delay_after, 1, 1'000'000)},
      {"login-delay", "SECONDS", "the wait between tries after --login-delay-after failures",
       show_number(&server_config::login_delay),
       seconds_field(&server_config::login_delay, 0, 3600)},
      {"login-lock-after", "N",
       "failed logins of a name (or from an address) that lock it for --login-lock",
       show_number(&server_config::login_lock_after),
       integer_field(&server_config::login_lock_after, 1, 1'000'000)},
      {"login-lock", "SECONDS", "how long a name or address stays locked",
       show_number(&server_config::login_lock),
       seconds_field(&server_config::login_lock, 1, 7ULL * 24 * 3600)},
      {"session-days", "DAYS",
       "a remembered sign-in ends this long after its last use (0: players never stay "
       "signed in)",
       show_number(&server_config::session_days),
       integer_field(&server_config::session_days, 0, 3650)},
      {"max-sessions-per-account", "N",
       "remembered sign-ins one account keeps (one more ends the least recently used)",
       show_number(&server_config::max_sessions_per_account),
       integer_field(&server_config::max_sessions_per_account, 1, 1000)},
      {"login-forgive", "SECONDS",
       "one counted failed login of a name (or an address) is forgiven each this many seconds",
       show_number(&server_config::login_forgive),
       seconds_field(&server_config::login_forgive, 1, 7ULL * 24 * 3600)},
      {"login-known-addresses", "N",
       "addresses remembered per name as its owner's, which the name's lock does not apply to",
       show_number(&server_config::login_known_addresses),
       integer_field(&server_config::login_known_addresses, 0, 64)},
      {"login-throttle-entries", "N", "names, and addresses, whose failed logins are tracked",
       show_number(&server_config::login_throttle_entries),
       integer_field(&server_config::login_throttle_entries, 1, 10'000'000)},
  };
}

/// The HTTP API's answers (issue 12): entries and replay steps at most.
std::vector<setting> api_settings() {
  return {
      {"api-max-limit", "N", "the most entries one /api answer lists",
       show_number(&server_config::api_max_limit),
       integer_field(&server_config::api_max_limit, 1, 100'000)},
      {"replay-max-steps", "N",
       "the most steps one /api/matches/ID/replay answer gives (past it: truncated)",
       show_number(&server_config::replay_max_steps),
       integer_field(&server_config::replay_max_steps, 1, 1'000'000)},
  };
}

/// Computer players (issue 14): GNU Backgammon's processes.
std::vector<setting> bot_settings() {
  return {
      {"bot-processes", "N", "GNU Backgammon processes running at most (started on demand)",
       show_number(&server_config::bot_processes),
       integer_field(&server_config::bot_processes, 1, 64)},
      {"bot-timeout", "SECONDS",
       "time for one answer of GNU Backgammon; then it is restarted and asked again",
       show_number(&server_config::bot_timeout),
       seconds_field(&server_config::bot_timeout, 1, 3600)},
      {"bot-retries", "N", "times a computer player's question is asked again before it resigns",
       show_number(&server_config::bot_retries), integer_field(&server_config::bot_retries, 0, 10)},
      {"bot-starts-per-minute", "N",
       "GNU Backgammon processes started per minute at most; past it questions wait (0: no "
       "limit)",
       show_number(&server_config::bot_starts_per_minute),
       integer_field(&server_config::bot_starts_per_minute, 0, 100'000)},
  };
}

/// Moderation (issue 13): kicks, invitations, table chat, ignores and bans.
std::vector<setting> moderation_settings() {
  return {
      {"kick-bar", "SECONDS", "a name the table's owner kicked may not come back for this long",
       show_number(&server_config::kick_bar),
       seconds_field(&server_config::kick_bar, 1, one_year_seconds)},
      {"max-kicked", "N", "kicked names one table remembers (one more forgets the oldest bar)",
       show_number(&server_config::max_kicked),
       integer_field(&server_config::max_kicked, 1, 1'000'000)},
      {"max-invited", "N", "names a private table's owner may have invited at once",
       show_number(&server_config::max_invited),
       integer_field(&server_config::max_invited, 1, 1'000'000)},
      {"table-chat-interval", "SECONDS",
       "one person's chat lines at a table are this far apart at least (0: no bound)",
       show_number(&server_config::table_chat_interval),
       seconds_field(&server_config::table_chat_interval, 0, 3600)},
      {"table-chat-per-minute", "N", "chat lines one table passes on per minute, from everyone",
       show_number(&server_config::table_chat_per_minute),
       integer_field(&server_config::table_chat_per_minute, 1, 1'000'000)},
      {"max-ignored", "N", "names one player may ignore (/ignore)",
       show_number(&server_config::max_ignored),
       integer_field(&server_config::max_ignored, 1, 100'000)},
      {"max-bans", "N", "bans in force at once, names and addresses (/ban)",
       show_number(&server_config::max_bans),
       integer_field(&server_config::max_bans, 1, 100'000'000)},
      {"remembered-addresses", "N",
       "names whose last address gammond remembers, so that /ban bans it too (0: none)",
       show_number(&server_config::remembered_addresses),
       integer_field(&server_config::remembered_addresses, 0, 100'000'000)},
  };
}

/// The FIBS (CLIP) listener (issue 32).
std::vector<setting> fibs_settings() {
  return {
      {"fibs-port", "N|off",
       "plain TCP port for FIBS clients (CLIP, protocol/FIBS.md) on --bind; 0 picks a free one",
       [](const server_config& c) {
         return c.fibs_port < 0 ? std::string{"off"} : std::to_string(c.fibs_port);
       },
       [](std::string_view v, server_config& c) -> problem {
         if (v == "off") {
           c.fibs_port = -1;
           return std::nullopt;
         }
         const auto value = parse_integer<int>(v);
         if (!value || *value < 0 || *value > 65535) return "is not off or a port from 0 to 65535";
         c.fibs_port = *value;
         return std::nullopt;
       }},
      {"fibs-port-file", "PATH", "write the bound FIBS port here (written atomically)",
       show_text(&server_config::fibs_port_file),
       [](std::string_view v, server_config& c) -> problem {
         c.fibs_port_file = std::string{v};
         return std::nullopt;
       }},
      {"fibs-login-timeout", "SECONDS",
       "close a FIBS connection that has not logged in within this",
       show_number(&server_config::fibs_login_timeout),
       seconds_field(&server_config::fibs_login_timeout, 1, 3600)},
      {"fibs-idle-timeout", "SECONDS", "log out a FIBS connection that sends nothing for this long",
       show_number(&server_config::fibs_idle_timeout),
       seconds_field(&server_config::fibs_idle_timeout, 1, one_year_seconds)},
      {"fibs-max-line-bytes", "BYTES", "the longest line a FIBS client may send",
       show_number(&server_config::fibs_max_line_bytes),
       integer_field(&server_config::fibs_max_line_bytes, 64, 64 * 1024)},
      {"fibs-who-interval", "SECONDS",
       "how often a FIBS session looks at who is online (its who-list's login and logout lines)",
       show_number(&server_config::fibs_who_interval),
       seconds_field(&server_config::fibs_who_interval, 1, 3600)},
      {"fibs-invitations", "N",
       "invitations one FIBS connection keeps (the newest), and matches it left to come back to",
       show_number(&server_config::fibs_invitations),
       integer_field(&server_config::fibs_invitations, 1, 10'000)},
      {"fibs-queue", "N",
       "messages one FIBS connection may have waiting for the game service (over: closed)",
       show_number(&server_config::fibs_queue),
       integer_field(&server_config::fibs_queue, 16, 1'000'000)},
      {"motd-file", "PATH", "the message of the day FIBS clients get at login (at most 4 KiB)",
       show_text(&server_config::motd_file),
       [](std::string_view v, server_config& c) -> problem {
         c.motd_file = std::string{v};
         return std::nullopt;
       }},
  };
}

/// --bot-queue (issue 14): the computer players' questions waiting, for GNU Backgammon
/// and for the long nardy bot.
setting bot_queue_setting() {
  return {"bot-queue", "N",
          "computer players' questions waiting: for a GNU Backgammon process, and for the long "
          "nardy bot's thread",
          show_number(&server_config::bot_queue),
          integer_field(&server_config::bot_queue, 1, 1'000'000)};
}

/// Every setting, in the order --help lists them.
std::vector<setting> settings() {
  using section = std::vector<setting> (*)();
  std::vector<setting> all;
  for (const section part :
       {&server_settings, &connection_settings, &table_settings, &http_settings, &match_settings,
        &storage_settings, &cluster_settings, &websocket_settings, &analysis_settings,
        &account_settings, &login_settings, &api_settings, &bot_settings, &moderation_settings,
        &fibs_settings}) {
    auto settings_of_part = part();
    all.insert(all.end(), std::make_move_iterator(settings_of_part.begin()),
               std::make_move_iterator(settings_of_part.end()));
  }
  all.push_back(bot_queue_setting());  // last, after moderation, as --help has always had it
  return all;
}

}  // namespace

environment_lookup process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* const value =
        std::getenv(std::string{name}.c_str());  // NOLINT(concurrency-mt-unsafe)
    if (value == nullptr) return std::nullopt;
    return std::string{value};
  };
}

namespace {

/// The options --help describes: --help, --version and every setting of `table`, each
/// with its help line, its variable and its default as `defaults` shows it.
po::options_description describe(const std::vector<setting>& table, const server_config& defaults) {
  po::options_description description{"gammond " GAMMOND_VERSION
                                      " - a backgammon server\n\n"
                                      "Usage: gammond [options]\n"
                                      "       gammond backup --db FILE --to FILE\n"
                                      "       gammond migrate --from FILE --to URL\n"
                                      "       gammond tables --db DB [--table NAME]\n"
                                      "       gammond admin create NAME --db DB   (password on "
                                      "stdin)\n"
                                      "(each with --help)\n\n"
                                      "Every option can also be set by an environment "
                                      "variable GAMMOND_<OPTION> (e.g. GAMMOND_PORT=8080);\n"
                                      "a flag wins over its variable.\n\nOptions",
                                      100, 50};
  description.add_options()("help,h", "print this help and exit")("version",
                                                                  "print the version and exit");
  std::vector<std::string> help_lines;
  help_lines.reserve(table.size());
  for (const auto& s : table) {
    help_lines.push_back(
        std::string{s.help} + " [" + environment_name(s.flag) +
        ", default: " + (s.show(defaults).empty() ? "none" : "\"" + s.show(defaults) + "\"") + "]");
  }
  for (std::size_t i = 0; i < table.size(); ++i) {
    description.add_options()(table[i].flag,
                              po::value<std::string>()->value_name(table[i].value_name),
                              help_lines[i].c_str());
  }
  return description;
}

/// Applies every setting of `table` given by a flag in `flags` or else by its
/// environment variable to `config`. 2 (the reason written to `err`) when a value is
/// not what its setting takes, else nullopt.
std::optional<int> apply_settings(const std::vector<setting>& table, const po::variables_map& flags,
                                  const environment_lookup& environment, server_config& config,
                                  std::ostream& err) {
  for (const auto& s : table) {
    std::string source;
    std::string value;
    if (flags.count(s.flag) != 0) {
      source = std::string{"--"} + s.flag;
      value = flags[s.flag].as<std::string>();
    } else if (auto from_env = environment(environment_name(s.flag))) {
      source = environment_name(s.flag);
      value = std::move(*from_env);
    } else {
      continue;
    }
    if (auto bad = s.apply(value, config)) {
      err << "gammond: " << source << ": \"" << value << "\" " << *bad << '\n';
      return 2;
    }
  }
  return std::nullopt;
}

/// A node of a cluster (--node-id): 2 (the reason written to `err`) when --db is not a
/// PostgreSQL URL or --lease is not more than twice --heartbeat; else nullopt, with
/// --node-path defaulting to /n/ID.
std::optional<int> check_cluster(server_config& config, std::ostream& err) {
  // database_url.hpp's is_postgres_url(), which lives in the storage library.
  const std::string_view db{config.db};
  if (!db.starts_with("postgresql://") && !db.starts_with("postgres://")) {
    err << "gammond: --node-id \"" << config.node_id
        << "\" makes this a node of a cluster, whose nodes share one PostgreSQL database; "
           "--db names a SQLite file: give --db postgresql://... or no --node-id\n";
    return 2;
  }
  if (config.lease <= 2 * config.heartbeat) {
    err << "gammond: --lease " << show_seconds(config.lease)
        << " must be more than twice --heartbeat " << show_seconds(config.heartbeat)
        << ", or a node that is only slow would lose its tables\n";
    return 2;
  }
  if (config.node_path.empty()) config.node_path = "/n/" + config.node_id;
  return std::nullopt;
}

}  // namespace

namespace {

/// Reads --motd-file into config.motd: at most 4 KiB and 40 lines, control characters
/// (but the line breaks) taken out. 2, with a line on `err`, when it cannot be read.
std::optional<int> read_motd(server_config& config, std::ostream& err) {
  if (config.motd_file.empty()) return std::nullopt;
  std::ifstream in{config.motd_file, std::ios::binary};
  if (!in) {
    err << "gammond: --motd-file: cannot read " << config.motd_file << '\n';
    return 2;
  }
  std::string text(4096, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  std::string kept;
  int lines = 0;
  for (const char ch : text) {
    if (ch == '\n') {
      if (++lines >= 40) break;
      kept += ch;
    } else if (static_cast<unsigned char>(ch) >= 0x20 && ch != 0x7f) {
      kept += ch;
    } else if (ch == '\t') {
      kept += ' ';
    }
  }
  while (!kept.empty() && kept.back() == '\n') kept.pop_back();
  config.motd = std::move(kept);
  return std::nullopt;
}

}  // namespace

std::optional<int> parse_config(std::span<const char* const> args,
                                const environment_lookup& environment, server_config& config,
                                std::ostream& out, std::ostream& err) {
  const auto table = settings();
  const po::options_description description = describe(table, config);
  po::variables_map flags;
  try {
    const int argc = static_cast<int>(args.size());
    const auto style = po::command_line_style::unix_style & ~po::command_line_style::allow_guessing;
    const po::positional_options_description no_positional;  // a stray word is an error
    po::store(po::command_line_parser(argc, args.data())
                  .options(description)
                  .positional(no_positional)
                  .style(style)
                  .run(),
              flags);
  } catch (const po::error& e) {
    err << "gammond: " << e.what() << " (see gammond --help)\n";
    return 2;
  }
  if (flags.count("help") != 0) {
    out << description << '\n';
    return 0;
  }
  if (flags.count("version") != 0) {
    out << "gammond " << GAMMOND_VERSION << '\n';
    return 0;
  }
  if (auto exit_code = apply_settings(table, flags, environment, config, err)) return exit_code;
  if (auto exit_code = read_motd(config, err)) return exit_code;
  if (config.cluster()) return check_cluster(config, err);
  return std::nullopt;
}

}  // namespace bg::server
