#pragma once
/// @file server_config.hpp
/// Every setting and limit of gammond, each with a flag and a GAMMOND_* environment
/// variable (DESIGN.md style rule 5).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bg::server {

/// gammond's configuration. Defaults are what a small community server needs.
struct server_config {
  std::string bind = "127.0.0.1";  ///< --bind: address to listen on
  std::uint16_t port = 8080;       ///< --port: 0 picks a free port (tests)
  std::string port_file;           ///< --port-file: write the bound port here (tests)
  /// --db: a SQLite file (WAL), or a PostgreSQL URL (postgresql://USER@HOST/DB or
  /// postgres://...; database_url.hpp)
  std::string db = "gammond.db";
  std::string static_dir;  ///< --static-dir: the web client (default: built-in path)
  /// --lang-dir: DIR/<tag>/*.json catalogues added over the built-in ones ("" = none).
  std::string lang_dir;
  std::string log_level = "info";  ///< --log-level: trace|debug|info|warn|error|off
  int threads = 2;                 ///< --threads: io_context threads

  std::size_t max_message_bytes = 16 * 1024;  ///< --max-message-bytes: one WebSocket frame
  double commands_per_second = 20.0;          ///< --commands-per-second: per connection, sustained
  int command_burst = 40;                     ///< --command-burst: tokens a connection may bank
  int rate_limit_strikes = 20;  ///< --rate-limit-strikes: rate_limited answers before close
  std::chrono::seconds idle_timeout{120};  ///< --idle-timeout: no frame nor pong for this long
  std::chrono::seconds http_timeout{15};   ///< --http-timeout: to finish a request or upgrade
  std::size_t max_connections = 15000;     ///< --max-connections: in all
  std::size_t max_connections_per_address = 256;  ///< --max-connections-per-address
  std::size_t write_queue_bytes = 1024 * 1024;    ///< --write-queue-bytes: per connection
  std::chrono::seconds grace_period{300};  ///< --grace-period: an absent player keeps the seat
  /// --stop-timeout: on SIGINT/SIGTERM, how long every table together gets to save its
  /// last state (flushed in parallel); past it the server stops anyway (every change was
  /// written before it was announced, so only a running clock's time since then is lost).
  std::chrono::seconds stop_timeout{10};
  std::size_t max_tables = 5000;  ///< --max-tables: in all
  /// --max-tables-per-client: open tables created by one name, and by one address
  std::size_t max_tables_per_client = 20;
  std::size_t max_spectators = 200;    ///< --max-spectators: at one table
  std::size_t tables_page_size = 100;  ///< --tables-page-size: summaries per /tables answer
  /// --max-seeks: /seek requests waiting at once, from everyone (RULES.md S5); one more
  /// is refused (`too_many_seeks`).
  std::size_t max_seeks = 1000;
  /// --tournament-creators: who may /tournament create (RULES.md S6): "admins" or
  /// "registered" (any logged-in account).
  std::string tournament_creators = "admins";
  /// --max-tournaments: tournaments registering or running at once; one more is refused
  /// (`too_many_tournaments`).
  std::size_t max_tournaments = 20;
  /// --max-tournament-players: players one tournament admits at most (its `max P` may
  /// be lower).
  std::size_t max_tournament_players = 256;
  /// --max-registrations: tournaments one name is registered for at once (open ones).
  std::size_t max_registrations = 3;
  /// --kept-tournaments: finished and cancelled tournaments kept (the newest), for the
  /// tournaments page and the API; older ones are forgotten.
  std::size_t kept_tournaments = 100;
  /// --seek-count-interval: the lobby's count of waiting /seek requests per variant (a
  /// `lobby` message to every connection, S5) is pushed at most once this often; the
  /// changes of a burst of requests in between go out together, as one push.
  std::chrono::milliseconds seek_count_interval{1000};
  std::chrono::seconds lobby_chat_interval{1};  ///< --lobby-chat-interval: per player
  std::size_t lobby_chat_per_minute = 120;      ///< --lobby-chat-per-minute: everyone together
  std::size_t max_table_backlog = 512;          ///< --max-table-backlog: held during a write
  std::size_t max_chat_bytes = 500;             ///< --max-chat-bytes: one chat line
  std::size_t max_name_bytes = 24;              ///< --max-name-bytes: a player or table name
  std::string trusted_proxy;                    ///< --trusted-proxy: honour X-Forwarded-For from it
  /// --metrics-token: /metrics answers a request with `Authorization: Bearer TOKEN`
  /// from any address; without it (and always) it answers loopback clients only.
  std::string metrics_token;
  /// --api-reads-per-second: HTTP reads (/api/..., /matches/ID.mat) per client address
  /// a second, sustained; over it they are answered 429 rate_limited.
  std::size_t api_reads_per_second = 20;
  /// --api-read-burst: HTTP reads an address may bank (the bucket's size).
  std::size_t api_read_burst = 40;
  /// --api-clients: addresses whose HTTP read rate is remembered at most.
  std::size_t api_clients = 10000;
  /// --read-queue: HTTP reads waiting for the reader thread at most; more are answered
  /// 503 busy.
  std::size_t read_queue = 256;
  /// --dice-seed: 0 = each match's seed from the OS (randombytes_buf); N = each match's
  /// seed derived from N, the table and the match (derived_dice::test_seed; tests only)
  std::uint64_t dice_seed = 0;
  /// --idle-limit: without a clock, a player who is to act and has not for this long may
  /// be claimed by the opponent (S3, /claim)
  std::chrono::seconds idle_limit{600};
  /// --clock-minute-seconds: the length of one minute of /option clock and of an arena
  /// tournament, 60; a shorter one is for tests only (a bank of "1 minute" that runs out
  /// in seconds)
  int clock_minute_seconds = 60;
  std::size_t max_seed_bytes = 64;  ///< --max-seed-bytes: the longest /seed text

  // Storage and durability (issue 11 item 4).
  /// --sync: "full" (default: a commit survives a power cut or an OS crash) or
  /// "normal" (survives kill -9 of gammond; a power cut may lose the last commits).
  /// With PostgreSQL: the session's synchronous_commit, on or off (postgres_options).
  std::string sync = "full";
  /// --db-max-pages: the database file may grow to at most this many pages of 4096
  /// bytes (SQLite `max_page_count`; a quota); a write that would grow it further
  /// fails with storage_error and changes nothing. 0: no limit but SQLite's own.
  /// SQLite only: gammond refuses to start with it and a PostgreSQL --db.
  std::uint64_t db_max_pages = 0;
  /// --db-checkpoint-pages: SQLite only: once the write-ahead log holds this many pages
  /// (4096 bytes), a thread of its own copies it into the database file, so that no
  /// commit waits for it (issue 15); the committing thread still does it past 4 times
  /// this. 0: SQLite's automatic checkpoint on the committing thread. Default 10,000
  /// (40 MB): fewer, larger checkpoints copy each often-changed page once per round.
  std::uint64_t db_checkpoint_pages = 10000;

  // PostgreSQL (issue 16): only used when --db is a postgresql:// URL.
  /// --db-connect-timeout: opening a connection to PostgreSQL may take this long
  /// (libpq's connect_timeout); gammond connects again after a connection is lost.
  std::chrono::seconds db_connect_timeout{10};
  /// --db-statement-timeout: a statement running longer is cancelled (PostgreSQL's
  /// statement_timeout) and its write fails with storage_error; 0: no limit.
  std::chrono::seconds db_statement_timeout{30};
  /// --db-id-block: match ids taken from PostgreSQL's sequence at a time, kept in
  /// memory, so that a table never waits for the database to name a finished match.
  std::size_t db_id_block = 1000;
  /// --cluster-queue: in a cluster (issue 16), the cluster bus's statements waiting for
  /// its PostgreSQL connection, and the notifications from other nodes waiting for the
  /// service, at most (each); what does not fit is refused and counted.
  std::size_t cluster_queue = 10000;
  /// --who-limit: names listed by /who in the lobby (who is online), at most.
  std::size_t who_limit = 200;

  // The cluster (issue 16): several gammond nodes on one PostgreSQL database.
  /// --node-id: this node's name in the cluster, 1-16 of [a-z0-9-]. Cluster mode is on
  /// iff it is given (cluster()); it needs a PostgreSQL --db. Empty: one node, as before.
  std::string node_id;
  /// --heartbeat: how often this node renews its row in cluster_nodes (and sweeps for
  /// the tables of dead nodes); fractional seconds ("0.2").
  std::chrono::milliseconds heartbeat{1000};
  /// --lease: a node whose heartbeat is older than this is dead: its tables may be
  /// claimed by another node, and it fences itself. Must exceed 2 x heartbeat.
  std::chrono::milliseconds lease{5000};
  /// --node-path: the public path prefix the proxy routes to this node ("/n/ID" when
  /// not given); only what `moved` tells clients (the proxy strips it).
  std::string node_path;
  /// --resume-window: in a cluster (issue 26), how long a name whose last connection
  /// closed without a seat stays in use with its resume token (a player following
  /// `moved`, fenced or dropped resumes on the next node as the same player). A single
  /// server frees the name at once.
  std::chrono::seconds resume_window{30};
  /// --resume-window-names: names in their resume window at once, at most (more are
  /// freed at once).
  std::size_t resume_window_names = 10000;
  /// True when this node is part of a cluster (a --node-id was given).
  [[nodiscard]] bool cluster() const noexcept { return !node_id.empty(); }

  // Network limits and origins (issue 11, items 5 and 6).
  /// --allowed-origins: the origins ("https://bg.example.org", "http://host:8080", or
  /// "*" for any) whose pages may open a WebSocket, kept normalised (lower case, no
  /// default port, no trailing slash). Empty (the default): a request's Origin must
  /// name the host of its own Host header. A request without Origin (a non-browser
  /// client) is always allowed. See PROTOCOL.md "Origins".
  std::vector<std::string> allowed_origins;
  /// --hello-timeout: a WebSocket not identified (no accepted hello) within this is
  /// closed with 1008 "no hello in time".
  std::chrono::seconds hello_timeout{15};
  /// --strike-decay: one strike (rate_limited answer, refused hello) is forgiven per
  /// this many seconds; at --rate-limit-strikes the connection is closed.
  std::chrono::seconds strike_decay{30};

  // Match analysis by GNU Backgammon (issue 14).
  /// --gnubg: GNU Backgammon (run as `PATH -t -q -r`), which analyses finished matches and
  /// plays the computer players (/bot). When it is not an executable file, gammond starts
  /// without analysis (and logs why) and /bot, /play bot answer "no_bot".
  std::string gnubg = "/usr/games/gnubg";
  /// --analysis-workers: gnubg processes analysing matches at once, each off the I/O
  /// threads; 0 turns analysis off.
  int analysis_workers = 1;
  /// --analysis-queue: finished matches waiting for a worker at most; a match that
  /// finds the queue full is not analysed (its analysis fails with that reason).
  std::size_t analysis_queue = 100;
  /// --analysis-per-player: of those, waiting at most per player (name key; computer
  /// players do not count); one more of that player's is not analysed. Workers take
  /// the players' matches in turn, so one player's many matches cannot starve another's.
  std::size_t analysis_per_player = 5;
  /// --analysis-level: expert (0-ply), worldclass (2-ply, gnubg's own default) or
  /// grandmaster (3-ply); see bots/analysis_level.hpp.
  std::string analysis_level = "worldclass";
  /// --analysis-timeout: one analysis may take this long; then gnubg is killed and the
  /// analysis fails.
  std::chrono::seconds analysis_timeout{900};
  /// --analysis-nice: the analysing gnubg processes' niceness, 0..19 (19, with the
  /// SCHED_IDLE class: they only get CPU time the tables do not want; issue 15: on two
  /// cores an analysis at normal priority took 8 % of the machine from the tables under
  /// load, and at nice 19 alone still 23 % at 5,000 commands/s).
  int analysis_nice = 19;
  /// --analysis-busy-rate: while the tables handle more than this many commands a
  /// second (measured since the queue last asked, over a second at least), no new
  /// analysis starts; one running goes on
  /// (issue 15: a gnubg even at the lowest priority cost the tables their p99 under
  /// heavy load). 0: analyses never wait.
  std::uint64_t analysis_busy_rate = 1000;
  // Accounts and ratings (issue 12).
  /// --admins: names (comma-separated, as typed) whose accounts are admins once logged
  /// in with their password (welcome.account.admin). They are reserved: nobody registers
  /// one over the network (`reserved_name`); `gammond admin create NAME` makes it on the
  /// host. gammond warns at start about one that is not registered.
  std::vector<std::string> admins;
  /// --auth-threads: threads that hash and verify passwords (Argon2id, ~64 MiB each).
  std::size_t auth_threads = 1;
  /// --auth-queue: logins, registrations and password changes waiting for those
  /// threads, in each of the two lanes (clean logins first, then the rest); one more is
  /// answered `auth_busy`.
  std::size_t auth_queue = 64;
  /// --auth-queue-per-address: of those, the most that one client address may have
  /// waiting (both lanes together); one more is answered `auth_busy`.
  std::size_t auth_queue_per_address = 4;
  /// --register-per-hour: registrations one client address may make per hour (a leaky
  /// bucket: this many at once, then one each 3600/N seconds); more are answered
  /// `register_limited` before any hashing. 0: unlimited.
  std::size_t register_per_hour = 5;
  /// --max-password-bytes: the longest password accepted (a longer one: bad_password).
  std::size_t max_password_bytes = 256;
  /// --max-accounts: accounts in all (gammond keeps their names in memory); registering
  /// one more is answered `too_many_accounts`.
  std::size_t max_accounts = 1'000'000;
  /// --login-delay-after, --login-delay: from this many consecutive failed logins of one
  /// name (or from one address) on, each try must wait this many seconds after the last.
  std::size_t login_delay_after = 3;
  std::chrono::seconds login_delay{2};
  /// --login-lock-after, --login-lock: at this many, the name (or address) is locked for
  /// this many seconds (`login_locked`, with the seconds left).
  std::size_t login_lock_after = 10;
  std::chrono::seconds login_lock{60};
  /// --login-forgive: one counted failure of a name (or an address) is forgiven each this
  /// many seconds (the leak of the throttle's bucket; see login_throttle.hpp).
  std::chrono::seconds login_forgive{30};
  /// --session-days: a remembered sign-in (issue 27) ends this long after its last use
  /// (0: none is made; `remember` is ignored and a session credential logs in nobody).
  std::size_t session_days = 30;
  /// --max-sessions-per-account: remembered sign-ins one account keeps; a new one beyond
  /// ends the least recently used.
  std::size_t max_sessions_per_account = 20;
  /// --login-known-addresses: addresses remembered per name as the owner's (logged in
  /// from successfully in the last 30 days), to which the name's lock does not apply.
  std::size_t login_known_addresses = 4;
  /// --login-throttle-entries: names, and addresses, whose failures are tracked at most
  /// (and names with known addresses, and addresses with registrations).
  std::size_t login_throttle_entries = 10000;
  /// --api-max-limit: the most entries one /api answer lists (a larger `limit` is cut).
  std::size_t api_max_limit = 100;
  /// --replay-max-steps: the most steps (plays, passes, cube and resignation actions,
  /// each game's start) one `GET /api/matches/ID/replay` answer gives; past it the
  /// answer stops and says `truncated` (match_replay.hpp's default_replay_max_steps).
  std::size_t replay_max_steps = 20'000;
  // Computer players (issue 14).
  std::size_t bot_processes = 2;  ///< --bot-processes: gnubg processes running at most
  /// --bot-timeout: one gnubg answer's time limit; past it the process is killed and
  /// the question asked again (--bot-retries times), then the bot resigns.
  std::chrono::seconds bot_timeout{15};
  int bot_retries = 2;  ///< --bot-retries: attempts after a failed one
  /// --bot-starts-per-minute: gnubg processes started per minute at most (0: no limit);
  /// past it a question that needs a new process waits in the queue (issue 25).
  std::size_t bot_starts_per_minute = 60;
  std::size_t bot_queue = 256;  ///< --bot-queue: bot questions waiting (gnubg, and long bots)
  // Moderation (issue 13).
  /// --kick-bar: how long a name the owner kicked may not come back to the table
  std::chrono::seconds kick_bar{600};
  std::size_t max_kicked = 100;   ///< --max-kicked: kicked names one table remembers
  std::size_t max_invited = 100;  ///< --max-invited: names one private table has invited
  /// --table-chat-interval: one person's chat lines at a table are this far apart at least
  std::chrono::seconds table_chat_interval{1};
  /// --table-chat-per-minute: chat lines one table passes on per minute, from everyone
  std::size_t table_chat_per_minute = 120;
  std::size_t max_ignored = 100;   ///< --max-ignored: names one player may ignore
  std::size_t max_bans = 100'000;  ///< --max-bans: bans in force (names and addresses)
  /// --remembered-addresses: names whose last address gammond remembers, for /ban
  std::size_t remembered_addresses = 100'000;

  // The FIBS (CLIP) listener (issue 32, protocol/FIBS.md).
  /// --fibs-port: a plain TCP port where FIBS clients (CLIP 1008/1009) log in, on
  /// --bind; -1 (the default, "off") opens none; 0 picks a free one (tests).
  int fibs_port = -1;
  std::string fibs_port_file;  ///< --fibs-port-file: write the bound FIBS port here (tests)
  /// --fibs-login-timeout: a FIBS connection that has not logged in within this is closed
  std::chrono::seconds fibs_login_timeout{60};
  /// --fibs-idle-timeout: a logged-in FIBS connection that sends nothing for this long
  /// is logged out (FIBS's own idle logout is an hour)
  std::chrono::seconds fibs_idle_timeout{3600};
  /// --fibs-max-line-bytes: the longest line a FIBS client may send (longer: refused)
  std::size_t fibs_max_line_bytes = 1024;
  /// --fibs-who-interval: how often a FIBS session looks at who is online, for its
  /// who-list's 5, 7 and 8 lines
  std::chrono::seconds fibs_who_interval{5};
  /// --fibs-invitations: invitations one FIBS connection keeps (the newest), and matches
  /// it left with `leave` to come back to with `join`
  std::size_t fibs_invitations = 20;
  /// --fibs-queue: messages one FIBS connection may have waiting for the game service
  /// (each line makes a handful); over it the connection is closed
  std::size_t fibs_queue = 256;
  /// --motd-file: the host's message of the day (FIBS's lines between 3 and 4): at most
  /// 4 KiB and 40 lines of it are read at start; "" = none
  std::string motd_file;
  /// The message of the day read from motd_file by parse_config (not a flag).
  std::string motd;
};

/// `origin` ("HTTPS://Bg.Example.org:443/") in the form --allowed-origins keeps and the
/// upgrade compares: scheme http or https, lower case, a host name, IPv4 or bracketed
/// IPv6 address, a port only when it is not the scheme's default, no trailing slash
/// ("https://bg.example.org"). nullopt when it is not such an origin (a path, another
/// scheme, "null", a bad port).
[[nodiscard]] std::optional<std::string> normalise_origin(std::string_view origin);

/// Looks up one environment variable by name ("GAMMOND_PORT"); nullopt when unset.
using environment_lookup = std::function<std::optional<std::string>(std::string_view name)>;

/// The process environment (std::getenv) as an environment_lookup.
[[nodiscard]] environment_lookup process_environment();

/// Reads gammond's settings into `config`, which holds the defaults on entry.
///
/// `args` is argv (args[0] is the program name). Every field has a flag (`--port 8080`
/// or `--port=8080`) and an environment variable GAMMOND_<FLAG_IN_UPPER_SNAKE>
/// (`GAMMOND_PORT`, `GAMMOND_MAX_MESSAGE_BYTES`) read through `environment`; a flag
/// wins over its variable. Durations are whole seconds, sizes are bytes.
///
/// Returns std::nullopt when the server should run with `config`. Otherwise returns
/// the exit code the process should end with: 0 after writing `--help` or `--version`
/// to `out`; 2 after writing one line naming the bad flag or variable, its value and
/// what is expected to `err` (unknown flag, a value that is not a number, out of range,
/// not an IP address, an unknown log level; a --node-id without a PostgreSQL --db, a
/// --lease not above 2 x --heartbeat). On a non-nullopt return `config` may be
/// partly filled and must not be used.
[[nodiscard]] std::optional<int> parse_config(std::span<const char* const> args,
                                              const environment_lookup& environment,
                                              server_config& config, std::ostream& out,
                                              std::ostream& err);

}  // namespace bg::server
