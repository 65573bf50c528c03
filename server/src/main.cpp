// gammond: the backgammon server process. Reads the configuration, builds the game
// service and the network layer, runs the io_context on config.threads threads and
// stops gracefully on SIGINT/SIGTERM. `gammond backup --db FILE --to FILE` copies the
// database online instead (see backup_command); `gammond migrate --from FILE --to URL`
// copies a SQLite database into PostgreSQL (see migrate_command); `gammond tables --db DB`
// prints every saved table rebuilt as a restart rebuilds it (see tables_command);
// `gammond admin create NAME --db DB` makes an administrator's account on the host (see
// admin_command).

#include <sodium.h>
#include <spdlog/spdlog.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bg/bots/bot_names.hpp"
#include "bg/i18n/catalogue.hpp"
#include "bg/server/fibs/clip_gateway.hpp"
#include "bg/server/log_safe.hpp"
#include "bg/server/metrics.hpp"
#include "bg/server/net/file_limit.hpp"
#include "bg/server/net/network_server.hpp"
#include "bg/server/net/service.hpp"
#include "bg/server/players/names.hpp"
#include "bg/server/players/password_hash.hpp"
#include "bg/server/server_config.hpp"
#include "bg/server/store/database_url.hpp"
#include "bg/server/store/open_store.hpp"
#include "bg/server/store/sqlite_store.hpp"
#include "bg/server/store/store.hpp"
#include "bg/server/store/store_migration.hpp"
#include "bg/server/table/stored_table_view.hpp"

namespace {

namespace net = boost::asio;
using namespace std::chrono_literals;

/// How long queued frames and close frames get to reach clients on shutdown.
constexpr auto shutdown_flush = 2s;

/// Runs `io` until it is stopped; an exception escaping a handler is a bug: it is
/// logged and the thread goes back to work instead of taking the server down.
void run_io(net::io_context& io) {
  for (;;) {
    try {
      io.run();
      return;
    } catch (const std::exception& e) {
      spdlog::critical("uncaught exception in a handler: {}", e.what());
    } catch (...) {
      spdlog::critical("uncaught non-standard exception in a handler");
    }
  }
}

/// `gammond backup --db FILE --to FILE`: a consistent copy of the database made with
/// SQLite's online backup API while gammond may be running and writing, checked with
/// PRAGMA quick_check. --db defaults to GAMMOND_DB. Exit codes: 0 copied, 1 the copy
/// failed (the sentence says why; `to` is not left behind), 2 bad usage.
int backup_command(int argc, char* argv[]) {
  std::string from;
  std::string to;
  if (const char* env = std::getenv("GAMMOND_DB")) from = env;  // NOLINT(concurrency-mt-unsafe)
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << "Usage: gammond backup --db FILE --to FILE\n\n"
                   "Copies gammond's SQLite database FILE (default: GAMMOND_DB) to the new file\n"
                   "given by --to, consistently, while gammond runs (SQLite's backup API), and\n"
                   "checks the copy with PRAGMA quick_check.\n";
      return 0;
    }
    if ((arg == "--db" || arg == "--to") && i + 1 < argc) {
      (arg == "--db" ? from : to) = argv[++i];
    } else if (arg.rfind("--db=", 0) == 0) {
      from = std::string(arg.substr(5));
    } else if (arg.rfind("--to=", 0) == 0) {
      to = std::string(arg.substr(5));
    } else {
      std::cerr << "gammond backup: unexpected argument \"" << arg
                << "\" (usage: gammond backup --db FILE --to FILE)\n";
      return 2;
    }
  }
  if (from.empty() || to.empty()) {
    std::cerr << "gammond backup: both --db FILE and --to FILE are needed\n";
    return 2;
  }
  if (bg::server::is_postgres_url(from)) {
    std::cerr << "gammond backup: copies a SQLite file; " << bg::server::masked_database(from)
              << " is a PostgreSQL database: back it up with PostgreSQL's own tools (pg_dump "
                 "-Fc, or pg_basebackup with WAL archiving)\n";
    return 2;
  }
  try {
    bg::server::backup_database(from, to);
  } catch (const bg::server::storage_error& e) {
    std::cerr << "gammond backup: " << e.what() << '\n';
    return 1;
  }
  std::cout << "gammond backup: copied " << from << " to " << to << " (quick_check: ok)\n";
  return 0;
}

/// The value of `--name VALUE` or `--name=VALUE` at argv[i] (advancing i past it), or
/// nullopt when argv[i] is not that flag.
std::optional<std::string> flag_value(int argc, char* argv[], int& i, std::string_view name) {
  const std::string_view arg = argv[i];
  if (arg == name && i + 1 < argc) return std::string(argv[++i]);
  if (arg.size() > name.size() && arg.starts_with(name) && arg[name.size()] == '=')
    return std::string(arg.substr(name.size() + 1));
  return std::nullopt;
}

/// `gammond migrate --from FILE --to URL`: copies a SQLite database into an empty
/// PostgreSQL one in one transaction and checks the copy (migrate_to_postgres). Exit
/// codes as gammond backup: 0 copied and checked, 1 the copy failed (nothing copied; the
/// sentence says why), 2 bad usage.
int migrate_command(int argc, char* argv[]) {
  std::string from;
  std::string to;
  bg::server::postgres_options options;
  options.statement_timeout_ms = 0;  // one copy, as long as it takes
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << "Usage: gammond migrate --from FILE --to URL\n\n"
                   "Copies gammond's SQLite database FILE (tables in progress with their\n"
                   "journals, finished matches with their analyses, accounts with their\n"
                   "ratings, histories and ignored names, the moderation log and the bans)\n"
                   "into the empty\n"
                   "PostgreSQL database URL (postgresql://USER@HOST/DB) in one\n"
                   "transaction, and checks the copy\n"
                   "before committing it. Stop gammond first. A target that holds any\n"
                   "table or match is refused. Exit codes: 0 copied, 1 failed (nothing\n"
                   "copied), 2 bad usage.\n";
      return 0;
    }
    if (auto v = flag_value(argc, argv, i, "--from")) {
      from = std::move(*v);
    } else if (auto u = flag_value(argc, argv, i, "--to")) {
      to = std::move(*u);
    } else {
      std::cerr << "gammond migrate: unexpected argument \"" << arg
                << "\" (usage: gammond migrate --from FILE --to URL)\n";
      return 2;
    }
  }
  if (from.empty() || to.empty()) {
    std::cerr << "gammond migrate: both --from FILE and --to URL are needed\n";
    return 2;
  }
  if (bg::server::is_postgres_url(from) || !bg::server::is_postgres_url(to)) {
    std::cerr << "gammond migrate: --from is a SQLite file and --to a postgresql:// URL\n";
    return 2;
  }
  if (std::error_code ec; !std::filesystem::is_regular_file(from, ec)) {
    std::cerr << "gammond migrate: " << from << " is not a file\n";
    return 1;
  }
  const std::string target = bg::server::masked_database(to);
  try {
    const auto r = bg::server::migrate_to_postgres(from, to, options);
    std::cout << "gammond migrate: copied " << r.tables << " table(s) with " << r.record_entries
              << " journal entries, " << r.matches << " match(es) with " << r.analyses
              << " analyses, and " << r.accounts << " account(s) with " << r.account_matches
              << " history entries, " << r.moderation << " moderation record(s), " << r.bans
              << " ban(s), " << r.ignores << " ignored name(s) and " << r.sessions
              << " session(s) from " << from << " to " << target << "; checked: the counts, "
              << r.tables_checked << " table(s) with their journals, " << r.accounts_checked
              << " account(s) with their ratings and " << r.matches_checked
              << " match(es) with their analyses and histories, and " << r.sessions_checked
              << " session(s) read back equal\n";
    return 0;
  } catch (const bg::server::storage_error& e) {
    std::cerr << "gammond migrate: " << bg::server::scrub_password(e.what(), to) << '\n';
    return 1;
  }
}

/// `gammond tables --db DB [--table NAME]`: every saved table of the store DB (a SQLite
/// file or a postgresql:// URL; default GAMMOND_DB), or the one named, rebuilt through
/// the engine from its snapshot and record journal exactly as a restart rebuilds it, one
/// JSON object a line (view_stored_table). Reads only; safe while gammond runs. Exit
/// codes: 0 every table rebuilt, 1 a table could not be rebuilt or the store could not be
/// read (the sentence says why), 2 bad usage.
int tables_command(int argc, char* argv[]) {
  std::string db;
  std::string only;
  if (const char* env = std::getenv("GAMMOND_DB")) db = env;  // NOLINT(concurrency-mt-unsafe)
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << "Usage: gammond tables --db DB [--table NAME]\n\n"
                   "Prints every table saved in DB (a SQLite file or a postgresql:// URL;\n"
                   "default GAMMOND_DB), or only NAME, rebuilt from its snapshot and record\n"
                   "journal as a restart rebuilds it: one JSON object a line with its seq,\n"
                   "position_id, match_id, phase, dice and board. Exit codes: 0 all rebuilt,\n"
                   "1 a table or the store could not be read, 2 bad usage.\n";
      return 0;
    }
    if (auto v = flag_value(argc, argv, i, "--db")) {
      db = std::move(*v);
    } else if (auto t = flag_value(argc, argv, i, "--table")) {
      only = std::move(*t);
    } else {
      std::cerr << "gammond tables: unexpected argument \"" << arg
                << "\" (usage: gammond tables --db DB [--table NAME])\n";
      return 2;
    }
  }
  if (db.empty()) {
    std::cerr << "gammond tables: --db DB is needed\n";
    return 2;
  }
  try {
    const auto store = bg::server::open_store(db, {});
    std::vector<bg::server::saved_table> saved;
    if (only.empty()) {
      saved = store->load_tables();
    } else if (auto one = store->load_table(only)) {
      saved.push_back(std::move(*one));
    } else {
      std::cerr << "gammond tables: no table " << only << " is saved\n";
      return 1;
    }
    int failed = 0;
    for (const auto& t : saved) {
      const auto view = bg::server::view_stored_table(t);
      if (!view.value("ok", false)) ++failed;
      std::cout << view.dump() << '\n';
    }
    std::cout.flush();
    return failed == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "gammond tables: " << bg::server::scrub_password(e.what(), db) << '\n';
    return 1;
  }
}

/// One line of standard input (without its newline), not echoed when it is a terminal;
/// nullopt at end of input before any character.
std::optional<std::string> read_secret_line() {
  termios saved{};
  const bool tty = ::isatty(STDIN_FILENO) != 0 && ::tcgetattr(STDIN_FILENO, &saved) == 0;
  if (tty) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    std::cerr << "Password (not shown): " << std::flush;
  }
  std::string line;
  const bool got = static_cast<bool>(std::getline(std::cin, line));
  if (tty) {
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    std::cerr << '\n';
  }
  if (!got && line.empty()) return std::nullopt;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

/// What `gammond admin create NAME --db DB` was given: the store (default GAMMOND_DB),
/// the name, and whether `create` was there.
struct admin_request {
  std::string db;
  std::string name;
  bool create = false;
};

/// Reads `gammond admin`'s arguments (argv[2] on) into `request`. An exit code when
/// there is nothing more to do: 0 after --help, 2 for bad usage (the sentence on
/// stderr); nullopt when `request` names a name and a store to create it in.
std::optional<int> read_admin_arguments(int argc, char* argv[], admin_request& request) {
  constexpr std::string_view usage = "usage: gammond admin create NAME --db DB";
  if (const char* env = std::getenv("GAMMOND_DB"))
    request.db = env;  // NOLINT(concurrency-mt-unsafe)
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << "Usage: gammond admin create NAME --db DB\n\n"
                   "Registers the account NAME in DB (a SQLite file or a postgresql:// URL;\n"
                   "default GAMMOND_DB) with the password read from standard input (one line,\n"
                   "not echoed on a terminal). Give NAME to gammond with --admins: such a name\n"
                   "cannot be registered over the network, only made here, on the host.\n"
                   "Exit codes: 0 created, 1 not created (registered already, or the store\n"
                   "could not be written), 2 bad usage, name or password.\n";
      return 0;
    }
    if (auto v = flag_value(argc, argv, i, "--db")) {
      request.db = std::move(*v);
    } else if (!request.create && arg == "create") {
      request.create = true;
    } else if (request.create && request.name.empty() && !arg.starts_with("--")) {
      request.name = std::string(arg);
    } else {
      std::cerr << "gammond admin: unexpected argument \"" << bg::server::log_safe(arg) << "\" ("
                << usage << ")\n";
      return 2;
    }
  }
  if (!request.create || request.name.empty() || request.db.empty()) {
    std::cerr << "gammond admin: " << usage << " (the password is read from standard input)\n";
    return 2;
  }
  return std::nullopt;
}

/// True when `password` may be `name`'s by the rules of a registration (accounts.cpp):
/// 8 characters or more, at most --max-password-bytes (its default), not the name in
/// any letter case.
bool admin_password_allowed(const std::string& password, std::string_view name,
                            const bg::server::server_config& defaults) {
  const auto lower = [](std::string_view t) {
    std::string out(t);
    for (auto& c : out)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
  };
  const auto characters = [](std::string_view t) {
    return std::count_if(t.begin(), t.end(),
                         [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; });
  };
  return characters(password) >= 8 && password.size() <= defaults.max_password_bytes &&
         lower(password) != lower(name);
}

/// `gammond admin create NAME --db DB`: registers NAME (an administrator's name, given to
/// the running server with --admins) in the store DB (a SQLite file or a postgresql://
/// URL; default GAMMOND_DB) with the password read from standard input (one line, not
/// echoed on a terminal), hashed as a registration hashes it. The only way to make an
/// --admins account: gammond refuses to register one over the network. Run it before
/// starting gammond (a running gammond learns of the account at its next start). Exit
/// codes: 0 created, 1 not created (the name is registered already, or the store could
/// not be written: the sentence says why), 2 bad usage, a bad name or a weak password.
int admin_command(int argc, char* argv[]) {
  admin_request request;
  if (const auto exit_code = read_admin_arguments(argc, argv, request)) return *exit_code;
  const bg::server::server_config defaults;
  if (const auto why = bg::server::name_problem(request.name, defaults.max_name_bytes)) {
    std::cerr << "gammond admin: that is not a name: " << *why << '\n';
    return 2;
  }
  if (bg::bots::is_bot_name(request.name)) {
    std::cerr << "gammond admin: " << request.name << " belongs to a computer player\n";
    return 2;
  }
  auto password = read_secret_line();
  const auto wipe = [&] {
    if (password && !password->empty()) sodium_memzero(password->data(), password->size());
  };
  if (!password || !admin_password_allowed(*password, request.name, defaults)) {
    wipe();
    std::cerr << "gammond admin: a password has at least 8 characters, at most "
              << defaults.max_password_bytes
              << " bytes, and is not the name (one line on standard input)\n";
    return 2;
  }
  try {
    const std::string hash = bg::server::hash_password(*password);
    wipe();
    const auto store = bg::server::open_store(request.db, {});
    const auto made = store->create_account(bg::server::name_key(request.name), request.name,
                                            bg::server::account::kind::player, hash);
    if (!made) {
      std::cerr << "gammond admin: " << request.name << " is registered already: nothing changed\n";
      return 1;
    }
  } catch (const std::exception& e) {
    wipe();
    std::cerr << "gammond admin: " << bg::server::scrub_password(e.what(), request.db) << '\n';
    return 1;
  }
  std::cout << "gammond admin: created " << request.name
            << " (an administrator once gammond runs with --admins " << request.name << ")\n";
  return 0;
}

/// `gammond admin|backup|migrate|tables ...`: that command's exit code; nullopt when
/// argv[1] names none of them (gammond serves).
std::optional<int> run_command(int argc, char* argv[]) {
  if (argc < 2) return std::nullopt;
  const std::string_view command = argv[1];
  if (command == "admin") return admin_command(argc, argv);
  if (command == "backup") return backup_command(argc, argv);
  if (command == "migrate") return migrate_command(argc, argv);
  if (command == "tables") return tables_command(argc, argv);
  return std::nullopt;
}

/// Before serving: refuses flags that make no sense together (exit 2), sets up the log
/// (--log-level), raises the open file limit to --max-connections + 64 (exit 2 when the
/// hard limit is lower), defaults --static-dir to the built-in web client, and logs the
/// start. An exit code when gammond must stop, else nullopt.
std::optional<int> prepare_to_serve(bg::server::server_config& config) {
  if (bg::server::is_postgres_url(config.db) && config.db_max_pages != 0) {
    std::cerr << "gammond: --db-max-pages limits the size of a SQLite file; with PostgreSQL ("
              << bg::server::masked_database(config.db)
              << ") it has no meaning: limit the database's size in PostgreSQL instead\n";
    return 2;
  }
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%-5l%$ [%t] %v");
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  spdlog::flush_on(spdlog::level::info);
  // Every connection is an open file: a limit below max-connections would fail
  // accepts at random later (EMFILE) instead of refusing cleanly with 503.
  const auto limit = bg::server::ensure_file_limit(config.max_connections);
  if (!limit.enough) {
    std::cerr << "gammond: " << bg::server::file_limit_message(limit, config.max_connections)
              << '\n';
    return 2;
  }
  if (limit.soft != limit.before) {
    spdlog::info("raised the open file limit from {} to {} for --max-connections {}", limit.before,
                 limit.soft, config.max_connections);
  }
  if (config.static_dir.empty()) config.static_dir = GAMMOND_DEFAULT_STATIC_DIR;
  if (!config.lang_dir.empty()) {
    try {
      bg::i18n::catalogue::global().load_dir(config.lang_dir);
    } catch (const std::exception& e) {
      std::cerr << "gammond: --lang-dir: " << e.what() << '\n';
      return 2;
    }
    std::string tags;
    for (const auto& tag : bg::i18n::catalogue::global().languages())
      tags += (tags.empty() ? "" : ", ") + tag;
    spdlog::info("languages: {}", tags);
  }
  if (std::error_code ec; !std::filesystem::is_directory(config.static_dir, ec)) {
    spdlog::warn("static directory {} does not exist: only the API is served", config.static_dir);
  }
  spdlog::info("gammond {} starting ({} threads, database {})", GAMMOND_VERSION, config.threads,
               bg::server::masked_database(config.db));
  return std::nullopt;
}

/// The game service built by the composition root (make_game_service) into `game`. An
/// exit code when the database cannot be used (logged, critical): 2 when it is damaged,
/// 1 when it cannot be opened or no service was built; else nullopt.
std::optional<int> build_game_service(const bg::server::server_config& config,
                                      bg::server::metrics& counters, net::io_context& io,
                                      std::shared_ptr<bg::server::service>& game) {
  try {
    game = bg::server::make_game_service(config, counters, io);
  } catch (const bg::server::storage_corrupt& e) {
    spdlog::critical(
        "the database {} is damaged ({}). gammond will not start on it: restore it from a "
        "backup (gammond backup), or recover what is readable with: sqlite3 {} .recover | "
        "sqlite3 NEW.db, then start gammond with --db NEW.db",
        config.db, e.what(), config.db);
    return 2;
  } catch (const bg::server::storage_error& e) {
    spdlog::critical("cannot open the database {}: {}", bg::server::masked_database(config.db),
                     bg::server::scrub_password(e.what(), config.db));
    return 1;
  }
  if (!game) {
    spdlog::critical("no game service was built");
    return 1;
  }
  return std::nullopt;
}

/// Serves until SIGINT or SIGTERM has shut the server down gracefully (a second signal
/// stops it at once): the game service, the network server, and the io_context on
/// --threads threads. The process's exit code: 0 after a clean stop, else 1 or 2.
int serve(const bg::server::server_config& config) {
  bg::server::metrics counters;  // outlives the io_context and every session
  net::io_context io{config.threads};
  std::shared_ptr<bg::server::service> game;
  if (const auto exit_code = build_game_service(config, counters, io, game)) return *exit_code;
  // The FIBS port (issue 32): a gateway in front of the same game service.
  std::shared_ptr<bg::server::service> fibs;
  if (config.fibs_port >= 0) fibs = bg::server::fibs::make_clip_gateway(game, config, io, counters);
  bg::server::network_server server{io, config, game, counters, fibs};
  // The signals are caught before the server starts (and writes --port-file): a
  // SIGTERM sent as soon as the port is known stops it gracefully, not by default.
  net::signal_set signals{io, SIGINT, SIGTERM};
  std::function<void(const boost::system::error_code&, int)> on_signal;
  on_signal = [&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    if (!server.shutdown(shutdown_flush, [&io] { io.stop(); })) {
      spdlog::warn("second signal ({}): stopping now", signal);
      io.stop();
      return;
    }
    spdlog::info("signal {}: shutting down", signal);
    signals.async_wait(on_signal);
  };
  signals.async_wait(on_signal);
  server.start();

  std::vector<std::jthread> threads;
  threads.reserve(static_cast<std::size_t>(config.threads - 1));
  for (int i = 1; i < config.threads; ++i) threads.emplace_back([&io] { run_io(io); });
  run_io(io);
  for (auto& t : threads) t.join();
  spdlog::info("gammond stopped");
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  if (const auto exit_code = run_command(argc, argv)) return *exit_code;
  bg::server::server_config config;
  if (const auto exit_code = bg::server::parse_config(
          std::span<const char* const>(argv, static_cast<std::size_t>(argc)),
          bg::server::process_environment(), config, std::cout, std::cerr)) {
    return *exit_code;
  }
  if (const auto exit_code = prepare_to_serve(config)) return *exit_code;
  try {
    return serve(config);
  } catch (const std::exception& e) {
    spdlog::critical("{}", e.what());
    return 1;
  }
}
