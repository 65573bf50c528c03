#pragma once
/// @file table_actor.hpp
/// A table on its own strand: runs the I/O-free bg::server::table, writes every change
/// through its host's storage writer and announces it only once it is durable.

#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bg/protocol/command.hpp"
#include "bg/server/lobby/matchmaking.hpp"
#include "bg/server/net/client.hpp"
#include "bg/server/store/storage_writer.hpp"
#include "bg/server/store/store.hpp"
#include "bg/server/table/bot_turn.hpp"
#include "bg/server/table/table.hpp"
#include "bg/server/table/table_host.hpp"

namespace bg::server {

class outbox;

/// One table on its own strand. Every change is written through the service's
/// storage_writer (group commit) and announced only once it is on disk; while a
/// write is in flight the actor holds further messages back (backlog_), so every
/// client sees the table's messages in the order the table produced them.
///
/// A write that fails is never announced: the table is rebuilt from its last written
/// state (read back by the writer thread, so the hot path keeps no copy), the sender
/// gets `storage_error`, and the backlog is then handled against that table. An
/// exception escaping a command answers its sender with `internal_error` and rolls the
/// table back the same way. When the last written state cannot be read back either (the
/// database is unreachable), the table holds every message (up to --max-table-backlog,
/// then `table_busy`) and tries again, every 0.5 s at first and at most every 10 s,
/// until it can: it never goes on from a change that was not written.
///
/// Every public member may be called from any thread: it dispatches to the strand.
class table_actor : public std::enable_shared_from_this<table_actor> {
 public:
  using clock_type = std::chrono::steady_clock;

  /// Runs `t` for `host` (which outlives the actor) on a new strand of `io`.
  table_actor(table_host& host, boost::asio::io_context& io, std::unique_ptr<table> t);

  /// Client `c` (called `name`) is present at the table; it gets the state, with `re`
  /// echoed when the client's message had an id.
  void enter(const std::shared_ptr<client>& c, std::string name, std::optional<nlohmann::json> re);
  /// An administrator (`by`, on connection `c`) closes the table (/close, issue 13): a
  /// match in progress ends unfinished, everyone present leaves it; `c` hears that it is
  /// done (with `re`).
  void close(const std::shared_ptr<client>& c, std::string by, std::optional<nlohmann::json> re);
  /// The connection `client_id` of `name` left the table. The player is absent once no
  /// other connection of theirs is at the table.
  void exit(std::uint64_t client_id, std::string name);
  /// A command line from `c`; `t0` is when its frame arrived (for the latency metric).
  void line(const std::shared_ptr<client>& c, std::string name, protocol::command cmd,
            clock_type::time_point t0, std::optional<nlohmann::json> re);
  /// Starts grace timers for every absent player and the timer of a running clock
  /// (after a restore), and asks a computer player that must act.
  void arm_timers();
  /// `/play bot` (issue 14) for client `c` (called `name`) at this new table: `name`
  /// enters and sits down, the computer player of `cmd.text` takes the other seat, the
  /// options of `cmd` are set and the match starts, in one written change. The client
  /// gets an `info` (topic "play", data {table, bot}) echoing `re`, then the state.
  void play_bot(const std::shared_ptr<client>& c, std::string name, protocol::command cmd,
                clock_type::time_point t0, std::optional<nlohmann::json> re);
  /// Matchmaking (RULES.md S5) at this new table: `red` (called `red_name`, the longer
  /// waiter) and `black` enter and sit down on those sides, the variant, the match of
  /// `terms.length` points and the clock of `terms` (none: no clock) are set and the
  /// match starts, in one written change. Each gets an `info` (topic "play", data
  /// {table, opponent, side}: red's at once, black's as a notice once written), then the
  /// state.
  void seat_pair(const std::shared_ptr<client>& red, std::string red_name,
                 const std::shared_ptr<client>& black, std::string black_name,
                 engine::variant game_variant, seek_terms terms);
  /// A tournament's pairing (RULES.md S6) at this new table: `red` and `black` sit down
  /// on those sides whether or not they are connected, the variant, the match of
  /// `terms.length` points and the clock of `terms` are set and the match starts under
  /// `match_id` (reserved by the director), in one written change; then both are marked
  /// absent until they enter the table, so that one who never comes forfeits after the
  /// grace period (S3). `pairing_message` (a `tournament_pairing` object, without its
  /// `side` and `opponent`) reaches each of them as a notice once it is written.
  void seat_tournament(std::string red, std::string black, engine::variant game_variant,
                       seek_terms terms, std::int64_t match_id, nlohmann::json pairing_message);
  /// Cancels timers once every change is written (shutdown); `done` is called then,
  /// on the strand (never inline on the caller's thread when that is not the strand). Every change
  /// was saved before it was announced; a running clock is charged up to now and that snapshot is
  /// queued for the writer (S2: the time used until a graceful stop is kept), so the writer's stop
  /// writes it.
  void flush(std::function<void()> done);

  /// The analysis of match `match_id` (played here) is stored: everyone present gets
  /// the event `analysis_ready` (`done`) or `analysis_failed` (with `reason`). Nothing
  /// at the table changes: nothing is written, and the event waits behind a write in
  /// flight like any message of the table.
  void analysis_finished(std::int64_t match_id, bool done, std::string reason);

  /// Writes the table's snapshot again with no change (e.g. a resume token rotated), then
  /// calls `done(written)` on the writer thread. Later messages wait for the write.
  void save_now(std::function<void(bool written)> done);

  /// The table's name (fixed for its life).
  [[nodiscard]] const std::string& name() const { return table_->name(); }

  /// Messages handed to this actor that it has not processed yet. Incremented by the
  /// service under its lock, so an actor with none may be forgotten safely.
  std::atomic<int> pending{0};

  /// Cluster (issue 16): the fencing epoch this node owns the table at (0: not claimed
  /// yet; its first write claims it). Any thread.
  [[nodiscard]] std::int64_t epoch() const noexcept { return epoch_.load(); }
  /// Cluster: the table was claimed at `e` (a takeover: table rebuilt from the store).
  void set_epoch(std::int64_t e) noexcept { epoch_.store(e); }
  /// Cluster: this node no longer owns the table (a stale write was refused, or the
  /// node's own lease expired): on the strand, the table stops (timers cancelled, no
  /// further write) and every member's connection is closed with 4001 "node fenced".
  /// The service has forgotten it already. With `release_holds` false the names' seat
  /// holds are left alone: another actor of the same table on this node (a takeover that
  /// replaced this stale copy) holds them now.
  void fence(bool release_holds = true);

 private:
  /// Gives the table's match in progress the id it will be stored under when it has none
  /// (table::wants_match_id(): a match just begun or restored), reserved by the host
  /// without I/O. Called before the table's next call can end that match.
  void give_match_id();
  /// Cluster: takes the epoch a write returned; true (and the table fenced, the
  /// service told, counted) when the write was refused as stale.
  bool fenced_by(const write_result& r);
  struct member {
    std::string name;
    std::weak_ptr<client> who;  ///< held weakly: the session's life is its own
  };

  /// A message for the table: the work, and who sent it (for `internal_error`).
  struct pending_work {
    std::function<void()> work;
    std::weak_ptr<client> sender;
    std::optional<nlohmann::json> re;
  };

  void run(pending_work w);
  /// True (and `c` answered with table_busy) when the backlog is at its bound.
  bool backlog_full(const std::shared_ptr<client>& c, const std::optional<nlohmann::json>& re);
  /// Hands the table back to the service to be forgotten when nobody is there and no
  /// match is left to resume.
  void forget_if_idle();
  /// A change is durable: counts its games, and tells the service which names now hold
  /// a seat here (their resume tokens live on).
  void report_written(int games_started, int games_finished);
  void written(outbox& sends, const std::function<void()>& answered_hook);
  void failed(write_result& r, const std::shared_ptr<client>& sender,
              const std::optional<nlohmann::json>& re);
  /// Rebuilds table_ from `last` (nullopt: never written, an empty table) with the
  /// present members; false (logged) when it cannot be rebuilt.
  bool roll_back(const std::optional<saved_table>& last);
  /// Reads the last written state on the writer thread and rolls back to it; when it
  /// cannot be read, holds the table (writing_ stays set) and tries again later.
  void reload();
  /// reload() after reload_delay_ (doubled each time, at most 10 s); not once stopped.
  void reload_later();
  void drain_backlog();
  void guard(pending_work& w);
  void do_enter(const std::shared_ptr<client>& c, const std::string& name,
                const std::optional<nlohmann::json>& re);
  void do_exit(std::uint64_t client_id, const std::string& name);
  void do_line(const std::shared_ptr<client>& c, const std::string& name,
               const protocol::command& cmd, clock_type::time_point t0,
               const std::optional<nlohmann::json>& re);
  void handle_line(const std::shared_ptr<client>& c, const std::string& name,
                   const protocol::command& cmd, clock_type::time_point t0,
                   const std::optional<nlohmann::json>& re);
  void cancel_timer_if_back();
  void rearm();
  /// Arms the clock timer for table::clock_expiry() (cancels it when nothing runs); when
  /// it fires the table checks the time itself (table::check_clock()).
  void arm_clock();
  void do_play_bot(const std::shared_ptr<client>& c, const std::string& name,
                   const protocol::command& cmd, clock_type::time_point t0,
                   const std::optional<nlohmann::json>& re);
  void do_seat_pair(const std::shared_ptr<client>& red, const std::string& red_name,
                    const std::shared_ptr<client>& black, const std::string& black_name,
                    engine::variant game_variant, const seek_terms& terms);
  /// At this new table with `red` and `black` present: both sit down (red, black), red
  /// sets the variant, the match of `terms.length` points and `terms`' clock, and starts.
  /// The outcome so far, and the refusal that stopped it (never, at a new table).
  std::pair<table_outcome, std::optional<engine::error>> seat_and_start(
      const std::string& red, const std::string& black, engine::variant game_variant,
      const seek_terms& terms);
  void do_seat_tournament(const std::string& red, const std::string& black,
                          engine::variant game_variant, const seek_terms& terms,
                          std::int64_t match_id, const nlohmann::json& pairing_message);

  // Computer players (issue 14). A bot's decision is asked after every written change
  // (and after a restore); its answer comes back to the strand and goes through
  // table::handle like a person's command. Only one question is out at a time.
  /// Asks the computer player that must act now, if any.
  void ask_bot();
  /// Asks `turn`'s bot its question (attempt 0, or 1 after a refused answer).
  void ask_bot_question(const bot_turn& turn, std::uint64_t seq, int attempt);
  /// The bot answered `answer` (a command line, or why it could not) to the question
  /// asked at `seq`.
  void bot_answered(const bot_turn& turn, std::uint64_t seq, int attempt,
                    const engine::result<std::string>& answer);
  /// The bot sends `cmd` at the table, as of the state numbered `seq`.
  void bot_acts(const bot_turn& turn, std::uint64_t seq, int attempt, const protocol::command& cmd);
  /// The bot cannot answer: it does what needs no thought instead, with a sentence at
  /// the table: its play becomes a resignation (of all the game could still cost it), a
  /// double is dropped, a resignation accepted, a double not offered. `why` holds the
  /// args of table.bot_gave_up that say why: {"why": "error"|"refused", "reason"} (the
  /// error as protocol::said_of() gives it), {"why": "answered", "answer"} or
  /// {"why": "gone"} (no computer player of its level any more).
  void bot_gives_up(const bot_turn& turn, nlohmann::json why);
  /// Asks the bot again after `delay` (after a failed write, so a full disk is not
  /// hammered).
  void ask_bot_later(std::chrono::milliseconds delay);
  [[nodiscard]] table_write write_of(table_outcome& o) const;
  static void add_ratings(table_outcome& o, const std::array<rating_change, 2>& r);
  /// Adds delivery `d` (to everyone) for every member, except, for a chat line, the
  /// members who ignore its sender (issue 13).
  void to_members(outbox& sends, const delivery& d) const;
  /// Forgets the members called one of `names` (sent away from the table, issue 13).
  void remove_members(const std::vector<std::string>& names);
  /// The deliveries of `o` into `sends`: those to the actor with `re` added (and
  /// `answered` set), the others to every member (to_members()).
  void add_deliveries(outbox& sends, table_outcome& o, const std::shared_ptr<client>& actor,
                      const std::optional<nlohmann::json>& re, bool& answered) const;
  std::shared_ptr<outbox> frames_of(table_outcome& o, const std::shared_ptr<client>& actor,
                                    const std::optional<nlohmann::json>& re, bool& answered);
  /// Answers what the table returned for a message of `actor` (its id `re`): a refusal
  /// or an /analysis at once; a change written first (write_then_announce()); anything
  /// else sent at once, with the state to the actor when `always_state_to_actor` or
  /// when nothing else answers `re`. `answered_hook` runs once the answer is handed to
  /// the network.
  void finish(const std::shared_ptr<client>& actor, table_outcome& o,
              const std::optional<nlohmann::json>& re, bool always_state_to_actor,
              std::function<void()> answered_hook);
  /// A changed outcome waiting for its write: what announce() needs once it is durable.
  struct announcement {
    table_outcome outcome;
    std::shared_ptr<client> actor;
    std::optional<nlohmann::json> re;
    std::function<void()> answered_hook;
    int games_started = 0;   ///< "started" and "game_started" events (the counters)
    int games_finished = 0;  ///< "game_over" events
    engine::variant game_variant = engine::variant::standard;  ///< of the ratings changed
    std::optional<bots::analysis_queue::job> analysis;         ///< queued once written
    std::optional<match_end> finished;  ///< the match this change ended, told once written
  };
  /// The analysis job of a finished standard match (issue 14), or nullopt (no match
  /// finished, no analysis on this server, or a match the .mat export cannot write:
  /// logged, archived unanalysed).
  std::optional<bots::analysis_queue::job> analysis_job_of(const table_outcome& o);
  /// Submits changed outcome `o` to the storage writer; once it is durable, back on the
  /// strand, announce() sends it (unless the write was fenced: never announced).
  void write_then_announce(const std::shared_ptr<client>& actor, table_outcome& o,
                           const std::optional<nlohmann::json>& re,
                           std::function<void()> answered_hook);
  /// A written change `a` with the writer's result `r`: a failure goes back to the last
  /// written state (failed()); else ratings, frames, moderation rows, notices, the lobby
  /// summary, the counters and the analysis queue, then the frames are sent.
  void announce(announcement& a, write_result& r);

  table_host& host_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  std::unique_ptr<table> table_;
  std::map<std::uint64_t, member> members_;  // present clients by id
  std::array<std::optional<boost::asio::steady_timer>, 2> grace_;
  std::optional<boost::asio::steady_timer> clock_timer_;  // the running clock's expiry
  std::optional<std::int64_t> clock_due_;  // what clock_timer_ is armed for (clock_ms)
  bool stopped_ = false;
  bool writing_ = false;  // a change is being written
  /// table_ may hold a change that was not written, and the last written state could
  /// not be read back: the table waits (writing_ set) for reload() to succeed.
  bool stale_ = false;
  std::optional<boost::asio::steady_timer> reload_timer_;
  std::chrono::milliseconds reload_delay_{500};
  std::deque<pending_work> backlog_;  // messages that arrived meanwhile
  std::vector<std::string> held_;     // table_->held_seats() last reported
  bool bot_busy_ = false;             // a bot's question is out (issue 14)
  int bot_waits_ = 0;  // questions refused in a row for a full bots' queue (issue 25)
  std::atomic<std::int64_t> epoch_{0};  // cluster: see epoch()
  /// The id the next match begun here gets (a tournament's, reserved by its director);
  /// 0: give_match_id() reserves one.
  std::int64_t preset_match_id_ = 0;
  std::optional<boost::asio::steady_timer> bot_timer_;
};

}  // namespace bg::server
