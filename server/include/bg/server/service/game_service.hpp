#pragma once
/// @file game_service.hpp
/// The game service: players (names, resume tokens), the lobby, and one table actor
/// (a table on its own strand) per table.

#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "bg/bots/analysis_queue.hpp"
#include "bg/bots/gnubg_player.hpp"
#include "bg/bots/gnubg_pool.hpp"
#include "bg/bots/long_bot_player.hpp"
#include "bg/bots/long_bot_pool.hpp"
#include "bg/bots/player.hpp"
#include "bg/engine/dice_source.hpp"
#include "bg/protocol/codec.hpp"
#include "bg/protocol/command.hpp"
#include "bg/server/cluster/cluster_bus.hpp"
#include "bg/server/cluster/cluster_node.hpp"
#include "bg/server/lobby/lobby.hpp"
#include "bg/server/lobby/matchmaking.hpp"
#include "bg/server/metrics.hpp"
#include "bg/server/net/service.hpp"
#include "bg/server/players/auth_pool.hpp"
#include "bg/server/players/ban_list.hpp"
#include "bg/server/players/login_throttle.hpp"
#include "bg/server/players/online_ratings.hpp"
#include "bg/server/players/players.hpp"
#include "bg/server/server_config.hpp"
#include "bg/server/service/server_parts.hpp"
#include "bg/server/store/account.hpp"
#include "bg/server/store/storage_reader.hpp"
#include "bg/server/store/storage_writer.hpp"
#include "bg/server/store/store.hpp"
#include "bg/server/table/table.hpp"
#include "bg/server/table/table_host.hpp"
#include "bg/server/tournament/tournament.hpp"

namespace bg::server {

class table_actor;
struct tournament_news;
using clock_type = std::chrono::steady_clock;

/// The prefix of a tournament's row among the saved tables (RULES.md S6): its state is
/// written, restored, claimed and fenced like a table's, under a name no table can
/// have (table names hold no ':').
inline constexpr std::string_view tournament_row_prefix = "tournament:";

/// gammond's service: implements bg::server::service. Built by make_game_service()
/// (server_parts.cpp) from the parts open_server_parts() makes. Its members are defined
/// by job: hello and logins in hello.cpp, accounts (issue 12: registration, passwords,
/// /whois, /ratings, /history) in accounts.cpp, moderation in moderation.cpp, the HTTP
/// routes in http_routes.cpp, matchmaking in matchmaking.cpp, tournaments in
/// tournaments.cpp, the rest in game_service.cpp.
class game_service final : public service,
                           public table_host,
                           public std::enable_shared_from_this<game_service> {
 public:
  /// Takes `parts` (open_server_parts(): the store, its writer and reader, the computer
  /// players, the analysis queue's options), loads the accounts, bans and admins, and
  /// restores every saved table (not in a cluster: see start()). Throws storage_error.
  game_service(const server_config& config, metrics& counters, boost::asio::io_context& io,
               server_parts parts);
  ~game_service() override;

  void on_open(const std::shared_ptr<client>& c) override;
  void on_text(const std::shared_ptr<client>& c, std::string text) override;
  void on_close(const std::shared_ptr<client>& c) override;
  /// GET /matches/<id>.mat (the .mat export), GET /api/matches/<id> (the stored record
  /// as JSON, record_json.hpp: what gammon-tool verify-dice and the web client check the
  /// dice with), GET /api/matches/<id>/analysis, and the account routes under
  /// /api/players and /api/ratings (issue 12): read on the storage thread and `reply`
  /// is called from there (nullopt: no such path or match, 404; the JSON APIs answer an
  /// unknown match or player with a JSON 404). Only finished matches are stored, so no
  /// seed of a match in progress can be read.
  void on_http_request(std::string_view target, http_callback reply) override;
  /// Flushes every table in parallel (each actor on its own strand), then stops the
  /// auth pool, the storage writer (everything queued is on disk) and the bots, and calls
  /// `saved` (from the last table's strand, or from a timer at --stop-timeout if some
  /// table has not flushed by then: those are logged by name).
  void shutdown(std::function<void()> saved) override;
  /// The `rate_limited` error with the refused message's `id` as `re` (nullptr when
  /// the message has no id or is not a message at all).
  std::shared_ptr<const std::string> rate_limited_reply(std::string_view text) override;

  /// Starts the grace timers of tables restored with absent players and, in a cluster,
  /// `node`'s heartbeats (made with cluster_callbacks()) and the bus. Called once the
  /// service is owned by a shared_ptr (make_game_service does it).
  void start(std::unique_ptr<cluster_node> node = nullptr);
  /// Cluster (issue 16): what this node's cluster_node calls: its lease expired
  /// (node_fenced), it claimed tables (adopt), and how many more tables it may claim
  /// (--max-tables less those held). Each holds the service weakly.
  cluster_node::callbacks cluster_callbacks();

  // Used by table actors (any thread).
  /// Records the lobby summary of `table` (written state only). nullopt: the table is
  /// idle and is forgotten, its row deleted through the writer (no SQLite call here).
  /// With `from`, ignored unless `from` is still the table's actor (a summary written
  /// after the table was forgotten, or replaced by a new one, is stale).
  void set_summary(const std::string& table, std::optional<lobby_entry> summary,
                   const table_actor* from = nullptr) override;
  /// The hooks every table gets: the clocks' time, each match's dice seed (S4), limits.
  table_hooks hooks() override;
  /// A match id from the store's in-memory reservation (store::reserve_match_id()).
  std::int64_t reserve_match_id() override;
  /// The time the tables' clocks read (table_hooks::clock_ms): milliseconds since the
  /// Unix epoch at the service's start, advanced by the steady clock since (never back).
  [[nodiscard]] std::int64_t clock_ms() const override;
  /// Where table actors write their changes (group commit).
  storage_writer& writer() noexcept override { return *writer_; }
  metrics& counters() noexcept override { return metrics_; }
  const server_config& config() const noexcept override { return config_; }
  /// The SHA-256 (64 hex digits) of the resume token of `name`, or nullopt when the name
  /// has none; table snapshots keep it for their seated players (never the token).
  std::optional<std::string> token_hash_of(const std::string& name) override;
  /// Table `table`'s players holding a seat in a match in progress went from `before`
  /// to `after` (table::held_seats()). A name that no longer holds any seat and is not
  /// connected loses its resume token, and the name is free again. `moved_away`
  /// (cluster: the table was fenced here, its seats live on at another node): the name is
  /// free on this node only; the cluster's session of it stays, so its resume token
  /// still works on the node that has the table.
  void holds_changed(const std::string& table, const std::vector<std::string>& before,
                     const std::vector<std::string>& after, bool moved_away = false) override;
  /// Cluster (issue 16): `actor`'s write was refused as stale: it is forgotten here
  /// (lobby, tables) and counted in gammond_cluster_stale_writes_total, or, when
  /// `claim_lost` (a new table another live node claimed first: write_result::claim_lost),
  /// in gammond_cluster_claims_lost_total.
  void table_fenced(const table_actor& actor, bool claim_lost) override;
  /// The name key of `name` when it is a registered account's, else "" (a guest).
  std::string account_key_of(const std::string& name) override;
  /// A tournament's match ended: its director takes the result (S6, tournaments.cpp).
  void match_ended(const std::string& table, const match_end& m) override;
  /// False for the tables of an unrated tournament (S6).
  bool rated_table(const std::string& table) override;
  /// After a rated match: the ratings of its players in `v` are now those of `changes`.
  void ratings_changed(engine::variant v, const std::array<rating_change, 2>& changes) override;

  // Match analysis (issue 14).
  /// True when finished standard matches are analysed: --analysis-workers > 0 and the
  /// --gnubg program was found at start.
  [[nodiscard]] bool analysing() const noexcept override { return analysis_ != nullptr; }
  /// Match `j.match_id`, archived with a pending analysis (table_write::analyse_match),
  /// is on disk: queue it. Never blocks on gnubg. A full queue refuses it: logged,
  /// counted (gammond_analyses_refused_total) and its analysis saved as failed.
  void queue_analysis(bots::analysis_queue::job j) override;
  /// Answers `c`'s /analysis of match `id` (at `table`, or in the lobby when empty) with
  /// an `info` (topic "analysis", `re` echoed) or the error `unknown_match`, read on the
  /// storage thread.
  void answer_analysis(const std::shared_ptr<client>& c, std::int64_t id,
                       std::optional<nlohmann::json> re, std::string table) override;
  /// The computer player of `level` for variant `v` (issue 14): GNU Backgammon's for
  /// standard, the long nardy bot for long; nullptr when there is none (GNU Backgammon
  /// missing, not a level). Lives as long as the service.
  bots::player* bot_player(const std::string& level, engine::variant v) override;
  /// The name of the computer player of `level` for variant `v` ("gnubg-expert",
  /// "nardy-expert"), or why none can sit down: "no_bot" (standard, and GNU Backgammon is
  /// not installed here), "bad_command" (not a level).
  engine::result<std::string> bot_name(const std::string& level, engine::variant v) const;
  /// True when `key` (a name key) is a computer player's account (kind bot, made at start).
  [[nodiscard]] bool is_bot_account(const std::string& key) const {
    return bot_keys_.count(key) != 0;
  }

 private:
  // Accounts (accounts.cpp) and logins (hello.cpp).
  /// `register`: checks the name (an --admins name is `reserved_name`), the password and
  /// the address's share of registrations (`register_limited`), claims the name, hashes
  /// the password on the auth pool, creates the account on the storage thread, then
  /// log_in().
  void on_register(const std::shared_ptr<client>& c, const protocol::client_message& m);
  /// on_register()'s checks of the name: not a name (`bad_name`), a computer player's or
  /// a name kept for them, or an --admins name (`reserved_name`), each a strike. False
  /// when `c` was refused.
  bool may_register_name(const std::shared_ptr<client>& c, const protocol::client_message& m);
  /// on_register()'s claim under the mutex (held): no ban, room for one more account
  /// (--max-accounts; `too_many_accounts`), the name claimed as `key`, the address's
  /// registrations this hour (`register_limited`). False when `c` was refused.
  bool claim_for_registration(const std::shared_ptr<client>& c, const protocol::client_message& m,
                              std::string& key);
  /// `hello` with a password: throttle (the try counted before hashing), claim, the
  /// account read on the storage thread,
  /// the password checked on the auth pool (an unknown name against a decoy hash), then
  /// log_in() or login_failed().
  void on_login(const std::shared_ptr<client>& c, const protocol::client_message& m);
  /// A login by password on its way through the threads (on_login): who asked, the
  /// name's key, the hello's `id` (`re`), whether to remember the sign-in and its label,
  /// and the account and the names it ignores as the storage thread read them.
  struct password_login {
    std::shared_ptr<client> c;
    std::string key;
    std::optional<nlohmann::json> re;
    bool remember = false;
    std::string label;
    std::optional<account> found;
    std::vector<std::string> ignored;
    bool hello_lang = false;  ///< the hello named a language (it wins over the account's)
  };
  /// on_login()'s checks under the mutex (held): a ban on `key` or `c`'s address
  /// (`banned`), the throttle (`login_locked`; a clean record picks the auth pool's clean
  /// `lane`), then the name claimed. False when `c` was answered with a refusal.
  bool login_may_try(const std::shared_ptr<client>& c, const protocol::client_message& m,
                     const std::string& key, auth_pool::lane& lane);
  /// On the storage thread: reads the account of `login` and the names it ignores, then
  /// checks `password` on the auth pool in `lane`; `storage_error` (the claim ended) when
  /// the store cannot be read.
  void read_login_account(store& db, password_login& login, std::string& password,
                          auth_pool::lane lane);
  /// On the auth pool: checks `password` against the account's hash (a decoy hash for an
  /// unknown name or a bot, at the same cost), rehashes it when its parameters are
  /// old, wipes it, and hands the verdict to password_checked() on an I/O thread.
  void check_login_password(password_login& login, std::string& password);
  /// On an I/O thread: a wrong password is login_failed(); a right one clears the
  /// throttle, stores the `rehashed` hash if any, starts a remembered sign-in when asked
  /// (on the storage thread) and log_in().
  void password_checked(password_login& login, bool right,
                        const std::optional<std::string>& rehashed);
  /// Runs `job` on the auth pool in lane `l` for `c`'s address; false (the client
  /// answered `auth_busy`, its claim released) when the lane or the address's share of
  /// it is full.
  bool on_auth_pool(const std::shared_ptr<client>& c, const std::optional<nlohmann::json>& re,
                    auth_pool::lane l, std::function<void()> job);
  /// A remembered sign-in (issue 27) as its client holds it: the credential (64 hex
  /// digits; only its SHA-256 is stored), its id in the store, when it ends (ms since the
  /// Unix epoch) and its label.
  struct signed_in {
    std::string credential;
    std::int64_t id = 0;
    std::int64_t expires_ms = 0;
    std::string label;
  };
  /// On the storage thread: a new remembered sign-in of account `key` (--session-days
  /// long, the account keeping --max-sessions-per-account), or nullopt when sessions are
  /// off or it could not be stored (logged).
  std::optional<signed_in> start_session(store& db, const std::string& key,
                                         const std::string& label);
  /// `hello` with a `session` credential: the name checked and claimed, the session and
  /// the account read on the storage thread (the session's end moved on), then log_in();
  /// an unknown, expired or other account's credential is `bad_session` and a strike.
  void on_session_login(const std::shared_ptr<client>& c, const protocol::client_message& m);
  /// The `bad_session` refusal of a remembered sign-in to `c` (counted, a strike).
  void refuse_session(const std::shared_ptr<client>& c, const std::optional<nlohmann::json>& re);
  /// After /password or /signout all of `c` (account `key`): the account's other
  /// connections close with `why` (on every node), `c` gets a new resume token, and
  /// answer_of(token) is sent to `c` once the seats' snapshots hold the token's hash.
  /// Nothing when `c` is gone.
  void close_other_sessions(
      const std::shared_ptr<client>& c, const std::string& key, const char* why,
      const std::function<std::shared_ptr<const std::string>(const std::string&)>& answer_of);
  /// /lang [TAG] of `c` (issue 31) in the lobby or at `table`: without TAG, its language
  /// and the list; with one, the session's language (and a registered player's
  /// account's); `unknown_lang` for a tag that is no language here.
  void on_lang(const std::shared_ptr<client>& c, const protocol::command& cmd,
               const std::optional<std::string>& table, const std::optional<nlohmann::json>& re,
               std::chrono::steady_clock::time_point t0);
  /// /sessions and /signout [all|ID] of `c` (a registered player) in the lobby or at
  /// `table` (issue 27).
  void on_session_command(const std::shared_ptr<client>& c, const protocol::command& cmd,
                          const std::optional<std::string>& table,
                          const std::optional<nlohmann::json>& re,
                          std::chrono::steady_clock::time_point t0);
  /// `/signout`, `/signout all` or `/signout ID` (`cmd`) of account `key`, whose
  /// connection `c` signed in as `current` (0: not remembered): the sign-ins ended on the
  /// storage thread, then answered (`no_session` when none was), and with `all` the
  /// account's other connections closed.
  void on_signout(const std::shared_ptr<client>& c, const protocol::command& cmd,
                  const std::string& key, std::int64_t current,
                  const std::optional<std::string>& table, const std::optional<nlohmann::json>& re,
                  std::chrono::steady_clock::time_point t0);
  /// A checked login or registration of `c` as account `a`: takes the name and welcomes.
  /// `ignored`: the names the account ignores (issue 13), read with the account;
  /// `session`: the remembered sign-in it used or started (the welcome carries it).
  void log_in(const std::shared_ptr<client>& c, const account& a,
              const std::optional<nlohmann::json>& re, std::vector<std::string> ignored = {},
              std::optional<signed_in> session = std::nullopt);
  /// A refused login (counted by the throttle when it was tried): a strike, `bad_login`.
  void login_failed(const std::shared_ptr<client>& c, const std::optional<nlohmann::json>& re);
  /// /whois, /ratings, /history, /password from `c` (called `name`) in the lobby or at
  /// `table`.
  void on_account_command(const std::shared_ptr<client>& c, const std::string& name,
                          const protocol::command& cmd, const std::optional<std::string>& table,
                          const std::optional<nlohmann::json>& re,
                          std::chrono::steady_clock::time_point t0);
  /// `/ratings [VARIANT] [pr|by pr]` from `c`: the leaderboard of `cmd.game_variant`
  /// (with the PRs, or sorted by PR: S7), read on the storage thread.
  void answer_ratings(const std::shared_ptr<client>& c, const protocol::command& cmd,
                      const std::optional<std::string>& table,
                      const std::optional<nlohmann::json>& re,
                      std::chrono::steady_clock::time_point t0);
  /// `/password OLD NEW`: OLD checked and NEW hashed on the auth pool, stored on the
  /// storage thread; then the token is rotated and other connections of the account close.
  void on_password(const std::shared_ptr<client>& c, const protocol::command& cmd,
                   const std::optional<std::string>& table,
                   const std::optional<nlohmann::json>& re);
  /// A /password change on its way: the account's key, whether this connection had a
  /// remembered sign-in (it gets a new one) and its label, and the auth pool's lane.
  struct password_change {
    std::string key;
    bool had_session = false;
    std::string session_label;
    auth_pool::lane lane = auth_pool::lane::other;
  };
  /// on_password()'s checks under the mutex (held): a registered player (else
  /// `not_registered`), a new password the rules allow, the throttle (`login_locked`, a
  /// strike). False when `c` was answered; else `out` filled.
  bool password_change_may_try(const std::shared_ptr<client>& c, const protocol::command& cmd,
                               const std::optional<nlohmann::json>& re, password_change& out);
  /// On an I/O thread: the new password of account `key` was stored (`changed`) or not
  /// (`storage_error`); the throttle is cleared, `c` keeps `session` (its new remembered
  /// sign-in, if any) and the account's other sessions close.
  void password_saved(const std::shared_ptr<client>& c, const std::string& key,
                      const std::optional<std::string>& table,
                      const std::optional<nlohmann::json>& re, bool changed,
                      const std::optional<signed_in>& session);
  /// GET /api/...: true when `target` is an /api route (then `reply` is called).
  bool on_api_request(std::string_view target, http_callback& reply);
  /// GET /api/ratings?variant=V&limit=N&pr=1&sort=rating|pr (`query`): the leaderboard
  /// (--api-max-limit entries at most; `pr=1` adds each entry's all-time PR, `sort=pr`
  /// sorts by it and adds it: S7), or 400 `bad_parameter`.
  void answer_api_ratings(std::string_view query, http_callback& reply);
  /// GET /api/players/NAME and /api/players/NAME/matches (`rest`: what follows
  /// "players/"): 400 `bad_name` when NAME is not a name, then the profile or the
  /// history of the player.
  void answer_api_player(std::string_view rest, std::string_view query, http_callback& reply);
  /// The profile of `name` (key `key`): a guest's when only online, read from the store
  /// when `registered`, else 404 `unknown_player`.
  void answer_api_profile(const std::string& name, const std::string& key, bool registered,
                          bool online, http_callback& reply);
  /// The matches of `name` (key `key`), newest first, `before` and `limit` from `params`
  /// (400 `bad_parameter` when malformed); 404 `unknown_player` when not `registered`.
  void answer_api_history(const std::string& name, const std::string& key, bool registered,
                          const std::map<std::string, std::string>& params, http_callback& reply);
  /// GET /api/matches/<id>/analysis (`analysis`) or /replay of match `id`, read on the
  /// reader thread: JSON, 404 for an unknown or unreadable private match, 500
  /// `storage_error`.
  void answer_match_view(std::string_view target, bool analysis, std::int64_t id,
                         http_callback reply);
  /// GET /api/matches/<id> (the record as JSON) or /matches/<id>.mat (`path`, the
  /// target's path) read on the reader thread; nullopt (404) for any other path, an
  /// unknown match or a private one `target`'s token may not read.
  void answer_match_record(std::string_view target, std::string_view path, http_callback reply);
  /// Sends the welcome `frame` for `name` to `c` once the seats in `rejoin` have saved
  /// the new token's hash, then re-enters them.
  void welcome_and_rejoin(const std::shared_ptr<client>& c,
                          std::shared_ptr<const std::string> frame,
                          std::vector<std::shared_ptr<table_actor>> rejoin,
                          const std::string& name);
  /// The actors of `tables` (those that exist), each counted as pending. Mutex held.
  std::vector<std::shared_ptr<table_actor>> actors_of(const std::set<std::string>& tables,
                                                      players::session* s);

 public:
  // Moderation (issue 13).
  /// The list of the names that `name` ignores while `name` is in use, else nullptr (a
  /// table's actor asks it for every chat line it delivers).
  [[nodiscard]] std::shared_ptr<ignore_list> ignores_of(const std::string& name) const override;
  /// Connection `client_id` was sent away from `table` (kicked, or the table closed): it
  /// is no longer counted at that table.
  void left_table(std::uint64_t client_id, const std::string& table) override;
  /// Sends `message` to every connection of the name `name` (nothing when offline, and
  /// nothing when `name` ignores the name in `message`'s `data.by`, e.g. the owner who
  /// sends an invitation: /ignore covers notices as it covers chat).
  void notify(const std::string& name, const nlohmann::json& message) override;
  /// Whether the name of key `reader` ("" for nobody) may read the stored match `m`:
  /// anyone a public table's, only its players and the administrators a private one's.
  [[nodiscard]] bool may_read(const match_record& m, const std::string& reader) const;
  /// The name key whose live resume token is the `token=` parameter of `target`'s
  /// query ("" when there is none or it is not a live token).
  [[nodiscard]] std::string reader_of(std::string_view target) const;
  /// Runs the HTTP read `t` (which answers through `reply`) on the reader thread, off
  /// the writer's; when --read-queue reads are waiting already, answers 503 `busy` at
  /// once instead.
  void read_for_http(http_callback reply, std::function<void(store& db, http_callback& reply)> t);
  /// The name keys a finished match between `players` ([red, black]) counts against in
  /// the analysis queue (--analysis-per-player): its players, computer players left out.
  [[nodiscard]] std::vector<std::string> owners_of(
      const std::array<std::string, 2>& players) const override;
  /// Writes moderation action `a` to the server's log (spdlog, info): what, who, whom,
  /// where; the detail is escaped as a JSON string.
  static void log_moderation(const moderation_action& a);
  /// log_moderation(a), for the tables' actors.
  void moderation_written(const moderation_action& a) override { log_moderation(a); }

 private:
  /// The `banned` error refusing a hello or login of the name of key `key` from
  /// `address`, when a ban on the name or on the address holds now; else nullopt.
  /// Caller holds mutex_.
  [[nodiscard]] std::optional<nlohmann::json> refusal_if_banned(
      const std::string& key, const std::string& address,
      const std::optional<nlohmann::json>& re) const;
  /// /ignore, /unignore, /ban, /unban, /broadcast, /close (issue 13), in the lobby or at
  /// a table: answered by the service.
  void on_moderation_command(const std::shared_ptr<client>& c, const std::string& name,
                             const protocol::command& cmd, const std::optional<nlohmann::json>& re);
  void on_ignore(const std::shared_ptr<client>& c, const protocol::command& cmd,
                 const std::optional<nlohmann::json>& re);
  void on_ban(const std::shared_ptr<client>& c, const std::string& by, const protocol::command& cmd,
              const std::optional<nlohmann::json>& re);
  /// The ban rows of name `name` (key `key`) by `by` until `until` (ms since the epoch,
  /// 0: until unbanned): the name's, and one per address it uses or used last except
  /// those an administrator uses now; those addresses are appended to `addresses`,
  /// blank-separated. Takes mutex_.
  std::vector<ban> bans_of(const std::string& key, const std::string& name, const std::string& by,
                           std::int64_t until, std::string& addresses);
  void on_unban(const std::shared_ptr<client>& c, const std::string& by,
                const protocol::command& cmd, const std::optional<nlohmann::json>& re);
  void on_broadcast(const std::shared_ptr<client>& c, const std::string& by,
                    const protocol::command& cmd, const std::optional<nlohmann::json>& re);
  void on_close_table(const std::shared_ptr<client>& c, const std::string& by,
                      const protocol::command& cmd, const std::optional<nlohmann::json>& re);

 private:
  /// True when `key` is an admin (--admins).
  [[nodiscard]] bool is_admin(const std::string& key) const { return admin_keys_.count(key) != 0; }

  void on_hello(const std::shared_ptr<client>& c, const protocol::client_message& m);
  /// The hello of `c`, once (in a cluster) a resume token unknown here was looked up in
  /// the cluster's sessions: `adopted` is its session there (the token is adopted, so the
  /// hello resumes the name as if it had been issued here), or nullopt.
  void hello_as(const std::shared_ptr<client>& c, const protocol::client_message& m,
                std::optional<cluster_bus::session_row> adopted);
  /// What a hello takes under the mutex for the rest of hello_as(): the welcome and the
  /// name it gives, the account key of a resumed account ("" for a guest), the tables to
  /// re-enter, and the connection it replaces with the tables that one leaves.
  struct hello_welcome {
    std::vector<std::shared_ptr<table_actor>> rejoin;
    std::vector<std::shared_ptr<table_actor>> leave;
    std::uint64_t replaced_id = 0;
    std::shared_ptr<client> replaced;
    nlohmann::json welcome;
    std::string name;
    std::string account_key;
  };
  /// Cluster (issue 16): a resuming hello of `c` whose token is not known here and whose
  /// name has a seat at another live node's table is sent there (`moved`): true then.
  bool sent_to_seat_elsewhere(const std::shared_ptr<client>& c, const protocol::client_message& m);
  /// The name `adopted` took for a hello (a token of the cluster's sessions) is let go
  /// again when unused: the hello was refused. Mutex held.
  void release_adopted(const std::optional<cluster_bus::session_row>& adopted);
  /// hello_as()'s checks, mutex held: the cluster's token adopted (`adopted` reset when
  /// it cannot be), a computer player's or reserved name (`reserved_name`), a ban on the
  /// name the connection becomes or its address (`banned`). False when `c` was refused.
  bool hello_allowed(const std::shared_ptr<client>& c, const protocol::client_message& m,
                     std::optional<cluster_bus::session_row>& adopted);
  /// The hello of `c` taken by the players (mutex held): `out` filled with its welcome.
  /// False when refused (refuse_hello()) or when a new guest's name waits for the
  /// cluster's claim (claimed() welcomes it).
  bool take_hello(const std::shared_ptr<client>& c, const protocol::client_message& m,
                  const std::optional<cluster_bus::session_row>& adopted, hello_welcome& out);
  /// A hello the players refused with `why`: logged (debug), counted, answered, and a
  /// strike for a bad token or a name that is not free (issue 11.6).
  void refuse_hello(const std::shared_ptr<client>& c, const protocol::client_message& m,
                    const engine::error& why, bool adopted);
  /// A hello that resumed a registered account: the account, its ratings and ignore
  /// list read on the storage thread, then `w`'s welcome (with the account) and rejoin.
  void welcome_resumed_account(const std::shared_ptr<client>& c, hello_welcome w);
  /// The cluster answered the claim of `key` (`name`) for the new guest `c`: welcomed
  /// with `welcome`, or refused (name_taken on another node, name_registered, or the
  /// database did not answer) and the connection has no name again.
  void claimed(const std::shared_ptr<client>& c, cluster_bus::claim_result r,
               const nlohmann::json& welcome, const std::string& key, const std::string& name,
               const std::optional<nlohmann::json>& re);
  /// In a cluster: writes the session of the name of key `key` as it is here now
  /// (connected or only seated, its token's hash) to the cluster's sessions; with
  /// `announce`, the node that had the name closes its connections of it. No-op outside
  /// a cluster or when the name is not in use here. Mutex held.
  /// (`unless_live_elsewhere`: a row of another live node is kept: a close here must not
  /// take back a name that resumed on another node meanwhile.)
  void cluster_take(const std::string& key, bool announce, bool unless_live_elsewhere = false);
  /// A notification from another node (cluster_bus): a lobby chat line or an
  /// administrator's broadcast to deliver here,
  /// a name taken there (this node's connections of it close with "replaced by a new
  /// connection" once the cluster's sessions say so).
  void on_cluster_event(const cluster_bus::event& e);
  /// The bus (re)connected: every listed table and every name in use here is written
  /// again (the bus has removed this node's rows of before).
  void republish();
  /// `/who` in the lobby: who is online, on every node in a cluster.
  void answer_who(const std::shared_ptr<client>& c, const std::optional<nlohmann::json>& re);
  /// Cluster: starts the bus (lobby, chat, who is online, sessions across the nodes).
  void start_bus();
  /// Rebuilds table `saved` from its snapshot and journal (a restart, or a cluster
  /// takeover at `epoch`, 0 without a cluster): seats held, resume-token hashes, the
  /// clock restarted from now (S2). False when it is unreadable or idle. Mutex held.
  bool restore_saved(const saved_table& saved, std::int64_t epoch);
  /// The table of `saved` rebuilt from its snapshot `snap` and its record journal, or
  /// nullptr (logged, error) when the journal is not JSON or the engine refuses them.
  std::unique_ptr<table> rebuild_saved(const saved_table& saved, const nlohmann::json& snap);
  /// An idle saved table `name` is forgotten: its row deleted at once (`epoch` 0), or
  /// through the writer under the cluster's `epoch`.
  void drop_saved(const std::string& name, std::int64_t epoch);
  /// The seats held at restored table `t` (`name`) hold again, with the resume-token
  /// hashes its snapshot `snap` kept (older snapshots' tokens hashed now), and the seated
  /// accounts are known with their ratings. Mutex held.
  void restore_holds(const std::string& name, const table& t, const nlohmann::json& snap);
  /// shutdown() at --stop-timeout: warns of the `left` tables (the first 10 by name) of
  /// the `count` that did not save.
  void log_unsaved(const std::set<std::string>& left, std::size_t count) const;
  /// shutdown()'s end, once the `count` tables saved or timed out: the auth pool, the
  /// reader, the writer (everything queued on disk) and the bots stop, and it is logged.
  void stop_after_tables(std::size_t count);
  /// Cluster (issue 16): keeps `node` and starts its heartbeats (its metrics added).
  void start_cluster(std::unique_ptr<cluster_node> node);
  /// Cluster: the Prometheus lines of gammond_cluster_*_total (stale writes, claims
  /// lost, self-fences, tables claimed, heartbeats).
  std::string cluster_metrics() const;
  /// Cluster: tables this node claimed, rebuilt and their timers armed. A copy of one
  /// already here is older than the claim: it is fenced (its members closed with 4001)
  /// and the stored table replaces it.
  void adopt(std::vector<claimed_table>& claimed);
  /// Cluster: adopt() of one table claimed on demand (a message or a hello asked for it).
  void adopt_one(claimed_table t);
  /// Cluster: this node's lease expired: every table dropped, every socket closed 4001.
  void node_fenced();
  /// Cluster: when `m` names a table that another live node owns, sends `moved` and
  /// closes with 4000; when its owner is dead, claims it and handles `text` again
  /// later. True when `m` was dealt with so.
  bool redirect_if_elsewhere(const std::shared_ptr<client>& c, const protocol::client_message& m,
                             const std::string& text);
  /// Cluster: the `moved` message (table, node, path of its /ws, `re`: the message that
  /// asked, absent for a hello) to `c`, then close 4000 "moved". While the owner is
  /// failing (issue 26: it missed heartbeats, its lease has not run out) the path is the
  /// plain `/ws` and `retry_ms` says how long to wait first.
  void send_moved(const std::shared_ptr<client>& c, const std::string& table,
                  const table_owner& owner, const nlohmann::json& re);
  /// Cluster: a message about table `table`, which the store says is this node's but
  /// this node does not hold (its copy was dropped when the store refused a write): the
  /// table is taken back from the store under a new epoch and `text` handled again;
  /// `table_moving` to `c` when this node's lease has lapsed or the table moved on.
  void take_back(const std::shared_ptr<client>& c, const std::string& text,
                 const std::string& table, const std::optional<nlohmann::json>& id);
  /// Cluster: a message about table `table` that `owner` (another node) has: `moved`
  /// there when it is live, `moved` with a wait when it is failing, and when it is dead
  /// the table is claimed here and `text` handled again (`table_moving` when that fails).
  void route_to_owner(const std::shared_ptr<client>& c, const std::string& table,
                      const table_owner& owner, const std::string& text,
                      const std::optional<nlohmann::json>& id);
  /// Cluster: a resuming hello whose token the cluster's sessions know (`row`): the
  /// name's seat is looked up in the store now; a seat at a live node's table sends the
  /// player there (moved), at a failing one makes it wait, at a dead one claims that
  /// table here first; then hello_as().
  /// `known_key`: the name's key when the token is known here (then `row` is empty).
  void hello_located(const std::shared_ptr<client>& c, const protocol::client_message& m,
                     std::optional<cluster_bus::session_row> row, const std::string& known_key);
  /// Cluster: after a password login with no seat here, the name's seat at another
  /// node's table (if any) is looked up, and the player, welcomed already, is sent there
  /// with `moved` once the cluster's sessions hold its new token.
  void follow_seat_after_login(const std::shared_ptr<client>& c, const std::string& key);
  /// Cluster: the resume window of the name of key `key`, begun for `until`, is over
  /// (issue 26): the name is freed unless used again meanwhile.
  void linger_over(const std::string& key, clock_type::time_point until);
  /// Message `m` (its frame `text`) about table `*m.table` from `c` (called `name`):
  /// sent on when another node has the table (cluster), else handed to the table's
  /// actor (made when absent); the service's and the lobby's commands are answered here.
  void on_table_message(const std::shared_ptr<client>& c, const std::string& name,
                        const protocol::client_message& m, std::string text,
                        std::chrono::steady_clock::time_point t0);
  /// A command of command_place::lobby or ::both typed in the lobby (or a lobby command
  /// typed at a table) by `c` (called `name`); a table's command answers `no_table`.
  void on_lobby_line(const std::shared_ptr<client>& c, const std::string& name,
                     protocol::command cmd, const std::optional<nlohmann::json>& re,
                     std::chrono::steady_clock::time_point t0);
  /// `/tables [PAGE]` from `c`: page `page` (from 1) of the lobby list, in a cluster every
  /// live node's tables as the database has them (`storage_error` when it cannot say).
  void answer_tables(const std::shared_ptr<client>& c, std::size_t page,
                     const std::optional<nlohmann::json>& re);
  /// A lobby chat line `text` from `c` (called `name`), cleaned of invisible characters,
  /// to everyone who does not ignore `name` (on every node in a cluster). False when it
  /// was refused (`too_long`, `empty_line`, `chat_throttled`) or `c` is gone.
  bool say_in_lobby(const std::shared_ptr<client>& c, const std::string& name, std::string text,
                    const std::optional<nlohmann::json>& re);
  /// /tell NAME TEXT (issue 32, FIBS's `tell`): `chat` with `to` to NAME's connections
  /// on this node (none to one who ignores `name`, which the sender is not told), and the
  /// same message with `re` to the sender. Refused with `not_online`, `chat_throttled`
  /// (the lobby chat's bounds), `too_long`, `empty_line`, `bad_name`, or `bad_command`
  /// (oneself). Returns whether it was sent.
  bool tell(const std::shared_ptr<client>& c, const std::string& name, const protocol::command& cmd,
            const std::optional<nlohmann::json>& re);
  /// `c` (called `name`) leaves table `table` (an `exit` message): no longer counted
  /// there, and the table's actor told when the table is here.
  void on_exit_table(const std::shared_ptr<client>& c, const std::string& name,
                     const std::string& table);
  /// A command of command_place::service (accounts, ignores, moderation) from `c`
  /// (called `name`), in the lobby or at `table`: answered the same anywhere.
  void on_service_command(const std::shared_ptr<client>& c, const std::string& name,
                          const protocol::command& cmd, const std::optional<std::string>& table,
                          const std::optional<nlohmann::json>& re,
                          std::chrono::steady_clock::time_point t0);
  /// The actor of table `name`, created when absent (limits checked); nullptr with
  /// `why` set (a catalogue sentence) when refused.
  std::shared_ptr<table_actor> table_for(const std::string& name, const players::session& s,
                                         engine::error& why);
  void send_error(const std::shared_ptr<client>& c, std::string_view code, std::string_view message,
                  const std::optional<nlohmann::json>& re);
  /// Sends error `e` to `c` (its sentence in c's language when `e.key` is set).
  void send_error(const std::shared_ptr<client>& c, const engine::error& e,
                  const std::optional<nlohmann::json>& re);
  /// The language of a hello or register `m` from `c`: its `lang` (a tag or a list),
  /// else the upgrade's Accept-Language; a catalogue tag, English when none matches.
  static std::string lang_of(const client& c, const protocol::client_message& m);
  /// Why `name` cannot be a player's or table's name (names.hpp), or nullopt.
  std::optional<std::string> name_problem_of(const std::string& name) const;
  /// The `tables` message: page `page` (from 1) of the lobby list, with `seeking`
  /// (seeks_waiting(), S5).
  nlohmann::json tables_message(std::size_t page) const;
  /// Starts the analysis queue with `options` (nullopt: analysis is off, and the log
  /// says why: --analysis-workers 0 or no gnubg), and queues the pending analyses found
  /// in storage (a restart).
  void start_analysis(std::optional<bots::analysis_queue::options> options);
  /// At start: every match stored with a pending analysis is queued again, or its
  /// analysis saved as failed (unreadable, or the queue is full). Returns how many
  /// were queued. Reads the store directly (no I/O thread runs yet).
  std::size_t queue_pending_analyses();
  /// At start: the registered names' keys (a guest may not take one), each key of an
  /// older name_key() moved to its name's key now.
  void load_accounts();
  /// At start (issue 13): the bans still in force, by name (--max-bans bounds them).
  void load_bans();
  /// At start: the --admins names as keys; a name that cannot be a name is ignored and
  /// one with no account is logged (warn).
  void load_admins();
  /// The key of `name`, stored as `old` by an older name_key() (before Unicode's full
  /// case folding), moved in the database with the name's bans and ignore entries; `old`
  /// when another account has the new key or the move failed (both logged).
  std::string moved_name_key(const std::string& old, const std::string& name);
  /// At start: which computer players there are (info), or why there is no GNU
  /// Backgammon (warn).
  void log_computer_players() const;
  /// At start: the database (masked URL or file), its durability settings and the
  /// tables restored.
  void log_database() const;
  /// A worker finished `j` (a worker thread): stores the outcome, then tells the table.
  void analysed(const bots::analysis_queue::job& j, bots::analysis_queue::outcome& o);
  /// Saves `rec` through the writer, then tells `table` (if it is still there) that
  /// the analysis is ready or failed.
  void store_analysis(analysis_record rec, std::string table);
  // Matchmaking (RULES.md S5; matchmaking.cpp).
  /// `/seek ...` from `c` (called `name`): its request waits (replacing the name's
  /// earlier one) and is answered with `info` topic "seek" (status "waiting"); the
  /// caller pairs the queue then (pair_waiting_seeks()). `too_many_seeks` past
  /// --max-seeks. False when refused (answered with the error) or `c` is gone.
  bool on_seek(const std::shared_ptr<client>& c, const std::string& name,
               const protocol::command& cmd, const std::optional<nlohmann::json>& re);
  /// `/unseek` from `c`: its request goes (`info` topic "seek", status "cancelled");
  /// `not_seeking` when it has none. False when refused or `c` is gone.
  bool on_unseek(const std::shared_ptr<client>& c, const std::optional<nlohmann::json>& re);
  /// Pairs the waiting requests now (pair_seeks(), S5) and seats each pair at a new table
  /// where its match starts; gives a computer player to requests whose `bot after` wait
  /// is over. Re-arms the queue's timer while requests wait.
  void pair_waiting_seeks();
  /// The requests whose `bot after` wait is over go, each as the /play bot command to
  /// run for its connection (once mutex_, held now, is let go).
  std::vector<std::pair<std::shared_ptr<client>, protocol::command>> take_bot_seeks(
      seek_request::clock_type::time_point now);
  /// Runs take_bot_seeks()'s /play bot commands, each for its connection's name (mutex_
  /// not held).
  void play_bot_seeks(
      const std::vector<std::pair<std::shared_ptr<client>, protocol::command>>& bots);
  /// Arms the queue's timer (seek_tick) while requests wait and none is armed. Under mutex_.
  void arm_seek_timer();
  /// The request of connection `client_id` goes, if it has one (it went offline).
  void drop_seek_of(std::uint64_t client_id);
  /// What the waiting requests are, per variant: {"standard": n, "long": m}. Under mutex_.
  [[nodiscard]] nlohmann::json seeks_waiting() const;
  // Tournaments (RULES.md S6; tournaments.cpp).
  /// `/tournament create|cancel|show|adjudicate ...` from `c` (called `name`).
  void on_tournament(const std::shared_ptr<client>& c, const std::string& name,
                     const protocol::command& cmd, const std::optional<nlohmann::json>& re);
  void create_tournament(const std::shared_ptr<client>& c, const std::string& name,
                         const protocol::tournament_command& t,
                         const std::optional<nlohmann::json>& re);
  void cancel_tournament(const std::shared_ptr<client>& c, const std::string& name,
                         const protocol::tournament_command& t,
                         const std::optional<nlohmann::json>& re);
  void adjudicate_tournament(const std::shared_ptr<client>& c, const std::string& name,
                             const protocol::tournament_command& t,
                             const std::optional<nlohmann::json>& re);
  /// Answers `c` with `e` (counted in the metrics) when there is one; true then.
  bool refuse(const std::shared_ptr<client>& c, const std::optional<engine::error>& e,
              const std::optional<nlohmann::json>& re);
  /// Queues `c`'s answer (an `info` topic "tournament" saying catalogue message
  /// `say_key` with `args`, and the summary of tournament `key`) and writes the
  /// tournament (write_tournament()). Under mutex_.
  void reply_and_write(const std::string& key, const std::shared_ptr<client>& c,
                       std::string say_key, nlohmann::json args,
                       const std::optional<nlohmann::json>& re);
  /// The summaries of the tournaments this node directs merged into `elsewhere` (other
  /// nodes' summaries, from the cluster bus), in name-key order; each with its `node`
  /// in a cluster. Takes mutex_.
  nlohmann::json local_tournaments(const nlohmann::json& elsewhere);
  /// `/tournaments`: the list, as an `info` topic "tournaments" (data: summaries).
  void on_tournaments(const std::shared_ptr<client>& c, const std::optional<nlohmann::json>& re);
  /// `/register NAME` and `/withdraw [NAME]` from `c` (called `name`).
  void on_register(const std::shared_ptr<client>& c, const std::string& name,
                   const protocol::command& cmd, const std::optional<nlohmann::json>& re);
  void on_withdraw(const std::shared_ptr<client>& c, const std::string& name,
                   const protocol::command& cmd, const std::optional<nlohmann::json>& re);
  /// Writes tournament `key` as it is now (under mutex_, held), then, once durable,
  /// pushes its `tournament` message to its players and watchers, sends the replies
  /// queued with it and seats its new pairings. One write per tournament at a time: a
  /// change made meanwhile is written next, with its replies.
  void write_tournament(const std::string& key);
  /// The write of `key` came back (`r`): announce it, or drop the tournament (fenced).
  void tournament_written(const std::string& key, write_result& r,
                          const std::shared_ptr<tournament_news>& news);
  /// Seats pairing `p` of tournament `key` at its new table (under mutex_, held); the
  /// actor to start, or null (the table exists, or no table may be made now: retried).
  std::shared_ptr<table_actor> table_for_pairing(const std::string& key,
                                                 const tournament_pairing& p);
  /// Every second while a tournament is open: start times, arena ends, seats to retry,
  /// pairings at other nodes' tables.
  void tournaments_tick();
  void arm_tournament_timer();
  /// At start or on a claim (cluster): tournament `saved` (a row named
  /// tournament_row_prefix + key) comes back at `epoch`. False when unreadable (logged).
  bool restore_tournament(const saved_table& saved, std::int64_t epoch);
  /// After restores: each pairing in play whose table is not here is settled from the
  /// stored match, or seated again when it never started.
  void reconcile_tournaments();
  /// Cluster (issue 30): a tournament command that names a tournament another node
  /// directs (`/tournament NAME|cancel|adjudicate`, `/register NAME`, `/withdraw NAME`)
  /// goes there: `moved` to its node (route_to_owner(); a dead director's row is
  /// claimed here first). `text` is the message as received. True when the command was
  /// routed or will be (the store is asked first when the last heartbeat did not know
  /// the tournament: then on_lobby_line() handles it here if no node directs it).
  bool route_tournament(const std::shared_ptr<client>& c, const std::string& name,
                        const protocol::command& cmd, const std::string& text,
                        const std::optional<nlohmann::json>& re,
                        std::chrono::steady_clock::time_point t0);
  /// Sends `message` (a `tournament` or `tournament_pairing` message) to every
  /// connection of each name in `names`: here, and in a cluster through the bus to the
  /// nodes where those not connected here may be (mutex_ not held).
  void tell_names(const std::vector<std::string>& names, const nlohmann::json& message);
  /// Cluster: tournament `key`'s entry in the cluster's list of tournaments (its
  /// summary), or its removal (`gone`). Under mutex_.
  void publish_tournament(const std::string& key, bool gone = false);
  /// Cluster: the pairings in play at tables this node does not hold are looked up in
  /// the store (on the reader thread, one look at a time); a match stored as ended
  /// settles its pairing (take_stored_result()). From tournaments_tick(), under mutex_.
  void poll_tournament_results();
  /// Pairing `table` of tournament `key` ended as stored in `rec`: its result is taken
  /// (S6) and the tournament written. False when the pairing was settled already.
  /// Under mutex_.
  bool take_stored_result(const std::string& key, const std::string& table,
                          const match_record& rec);
  /// A ban withdraws `name` from every open tournament (S6).
  void withdraw_banned(const std::string& name);
  /// GET /api/tournaments and /api/tournaments/NAME (`rest`: "" or the name).
  void answer_api_tournaments(std::string_view rest, http_callback& reply);
  /// The queue of requests changed (one added, replaced, withdrawn, paired, or gone with
  /// its connection): the lobby's count (`lobby` message, `seeking`, S5) is pushed to
  /// every connection by push_seek_count() on io_, at once when the last push is at
  /// least --seek-count-interval old, else when it is; the changes meanwhile are pushed
  /// together, once. Under mutex_.
  void seek_count_changed();
  /// The timer's side of seek_count_changed(): sends `{"type":"lobby","seeking":
  /// seeks_waiting()}` to every connection that said hello, unless the count is what
  /// was pushed last. Takes mutex_ (sends after letting it go).
  void push_seek_count();
  /// `/play bot ...` from the lobby (issue 14): a new table with a fresh name, the
  /// player and the computer seated, options set, the match started.
  void on_play_bot(const std::shared_ptr<client>& c, const std::string& name,
                   const protocol::command& cmd, const std::optional<nlohmann::json>& re,
                   clock_type::time_point t0);
  /// The computer players' section of /metrics (Prometheus text).
  std::string bot_metrics() const;
  /// Prometheus lines of the storage (issue 15): gammond_db_transactions_total and
  /// gammond_db_writes_total (the storage writer's group commits and the table writes
  /// they held), and with SQLite gammond_db_checkpoints_total{by="thread"|"writer"}
  /// (write-ahead log checkpoints by the store's checkpoint thread, and by the committing
  /// thread because the log passed its bound: see --db-checkpoint-pages).
  std::string storage_metrics() const;
  /// Registers every computer player's name (bots::bot_names()) as an account of kind
  /// bot when it is not yet (issue 14: bots have ratings), and keeps their keys and
  /// ratings. A name registered by a person before it was a bot's stays the person's:
  /// logged, and that bot's matches are not rated. Runs once, at start.
  void open_bot_accounts();
  /// True when the computer player called `name` can sit down here now (its program is
  /// there): what /whois says as "online".
  [[nodiscard]] bool bot_available(const std::string& name) const;

  server_config config_;
  metrics& metrics_;
  boost::asio::io_context& io_;
  std::unique_ptr<store> storage_;
  std::unique_ptr<storage_writer> writer_;  // after storage_: stopped before it closes
  /// The HTTP reads' thread and database connection (--read-queue); null when the
  /// second connection could not be opened (then they run on the writer's thread).
  std::unique_ptr<storage_reader> reader_;
  // The anchor of clock_ms(): wall time and steady time at the start.
  std::int64_t epoch_ms_at_start_ = 0;
  clock_type::time_point steady_at_start_;
  /// After writer_: stopped (in the destructor and shutdown()) before the writer its
  /// handler uses. Set once at start; nullptr when analysis is off. Thread-safe.
  std::unique_ptr<bots::analysis_queue> analysis_;
  /// Why GNU Backgammon cannot run here (empty: it can). Fixed at start.
  std::string gnubg_problem_;
  std::unique_ptr<bots::gnubg_pool> gnubg_;  ///< null without gnubg
  std::map<std::string, std::unique_ptr<bots::gnubg_player>> gnubg_players_;  // by level
  /// The long nardy bots' threads (always there: they need no program) and its players.
  std::unique_ptr<bots::long_bot_pool> long_bots_;
  std::map<std::string, std::unique_ptr<bots::long_bot_player>> long_players_;  // by level
  /// The name keys of the computer players' accounts (kind bot). Fixed at start.
  std::set<std::string> bot_keys_;

  /// Cluster (issue 16): this node's heartbeats and claims; null without --node-id.
  std::unique_ptr<cluster_node> cluster_;
  std::atomic<std::uint64_t> stale_writes_{0};  ///< gammond_cluster_stale_writes_total
  std::atomic<std::uint64_t> claims_lost_{0};   ///< gammond_cluster_claims_lost_total

  mutable std::mutex mutex_;  // guards everything below
  players players_;
  lobby lobby_;
  std::map<std::string, std::shared_ptr<table_actor>> tables_;  // by table name
  std::uint64_t next_bot_table_ = 1;  ///< the number in the next /play bot table's name
  /// One waiting /seek (S5): the request and the connection it came from.
  struct waiting_seek {
    seek_request request;
    std::uint64_t client_id = 0;
    std::weak_ptr<client> who;
    std::shared_ptr<ignore_list> ignores;  ///< the names its player ignores (or null)
  };
  /// The waiting requests by name key: one per name, at most --max-seeks.
  std::map<std::string, waiting_seek> seeks_;
  /// Whom each name was last paired with by /seek (name key -> name as shown), for S5's
  /// "not the same opponent twice in a row"; forgotten in full past 4 x --max-seeks.
  std::map<std::string, std::string> last_opponents_;
  /// The queue's timer (every seek_tick while requests wait); null when none wait.
  std::shared_ptr<boost::asio::steady_timer> seek_timer_;
  std::uint64_t next_seek_table_ = 1;  ///< the number in the next paired table's name
  /// One tournament (S6) directed by this node.
  struct tournament_slot {
    std::unique_ptr<tournament> t;
    std::int64_t epoch = 0;  ///< cluster: the fencing epoch its row is owned at
    /// Connections that asked for its news (/tournament NAME): id -> connection.
    std::map<std::uint64_t, std::weak_ptr<client>> watchers;
    /// Pairings not seated yet (no table could be made), retried every tick.
    std::vector<tournament_pairing> unseated;
    bool writing = false;  ///< a write is in flight
    bool dirty = false;    ///< changed since that write: written again after it
    /// Replies waiting for the next write (to the client who made the change).
    std::vector<std::pair<std::shared_ptr<client>, nlohmann::json>> replies;
  };
  /// The tournaments by name key: open ones (at most --max-tournaments) and the newest
  /// ended ones (at most --kept-tournaments).
  std::map<std::string, tournament_slot> tournaments_;
  /// The tournament called `name` (as typed, compared by name key), else
  /// tournaments_.end(). Under mutex_.
  std::map<std::string, tournament_slot>::iterator tournament_named(const std::string& name);
  /// The tables of tournament pairings in play -> the tournament's key.
  std::map<std::string, std::string> tournament_tables_;
  /// A poll_tournament_results() read is in flight.
  bool polling_results_ = false;
  /// The tournaments' timer (every second while one is open); null when none is.
  std::shared_ptr<boost::asio::steady_timer> tournament_timer_;
  /// The lobby's count push (seek_count_changed()): armed while one is due; null when
  /// none is.
  std::shared_ptr<boost::asio::steady_timer> seek_count_timer_;
  /// The count pushed last ({"standard": 0, "long": 0} before the first), and when.
  nlohmann::json seek_count_sent_ = nlohmann::json{{"standard", 0}, {"long", 0}};
  clock_type::time_point seek_count_sent_at_{};
  /// Cluster (issue 26): tables this node claimed in the store for a message that makes
  /// them, not yet made: name -> {epoch, the row was made by this claim}. Taken by
  /// table_for(); at most --max-tables.
  std::map<std::string, std::pair<std::int64_t, bool>> preclaimed_;
  /// True inside holds_changed(moved_away): names freed then keep their cluster session.
  bool keep_cluster_sessions_ = false;
  bool shutting_down_ = false;
  login_throttle throttle_;
  std::set<std::string> admin_keys_;  // --admins, as name keys (fixed after start)
  ban_list bans_;                     // issue 13: the bans in force (the store keeps them)
  online_ratings ratings_;            // its own mutex
  auth_pool auth_;                    // its threads stop before the members above go
  /// In a cluster (--node-id, issue 16): the link to the other nodes; null otherwise.
  /// Set once in start() (under mutex_), stopped first in shutdown() and the destructor.
  std::unique_ptr<cluster_bus> bus_;
};

}  // namespace bg::server
