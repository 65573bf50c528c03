#pragma once
/// @file table.hpp
/// One game room, with no I/O: it owns its match and turns (player, command) into
/// messages for the people at the table (DESIGN.md "A table ... does no I/O itself").

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bg/engine/dice_source.hpp"
#include "bg/engine/error.hpp"
#include "bg/engine/match.hpp"
#include "bg/engine/side.hpp"
#include "bg/protocol/command.hpp"
#include "bg/server/dice/derived_dice.hpp"
#include "bg/server/records/match_record.hpp"
#include "bg/server/store/moderation_action.hpp"
#include "bg/server/table/match_clock.hpp"

namespace bg::protocol {
class json_writer;
}  // namespace bg::protocol

namespace bg::server {

/// The limits and hooks a table needs from its host: the time, dice seeds and lookups
/// in memory, never a store. What the table asks of the store comes in as inputs (a
/// match's id, give_match_id()) and goes out as actions in its outcome (the finished
/// match, moderation rows, the record journal), which its host writes.
struct table_hooks {
  /// The current time as ISO 8601 UTC text (records only; tests fix it).
  std::function<std::string()> now;
  std::size_t max_chat_bytes = 500;
  /// Spectators the table admits (a seated player coming back is always admitted).
  std::size_t max_spectators = 200;
  /// The current time in milliseconds, read by the clocks (S2) and the idle limit and
  /// the grace period of /claim (S3). gammond's counts from the Unix epoch and is
  /// advanced by a steady clock, so it never goes back; tests drive a fake one. Empty:
  /// always 0 (no time passes).
  std::function<std::int64_t()> clock_ms{};
  /// The 256-bit seed of a new match's dice (S4), given the table's name and how many
  /// matches were started at the table before it: gammond draws it from libsodium's
  /// randombytes_buf, or under --dice-seed N (tests only) takes
  /// derived_dice::test_seed(N, table, match_number). Empty: the table rolls from the
  /// dice_source it was given, and its matches have no commitment (table tests that
  /// script the dice).
  std::function<derived_dice::seed_bytes(const std::string& table, std::uint64_t match_number)>
      match_seed{};
  /// The length of one minute of `/option clock` in ms: 60000 (--clock-minute-seconds
  /// shortens it, for tests only).
  std::int64_t clock_minute_ms = 60'000;
  /// The grace period of an absent player (ms, S3): the opponent may /claim after it
  /// (the host also forfeits them by itself then).
  std::int64_t grace_period_ms = 300'000;
  /// The idle limit (ms, S3): in a match without a clock, a player who is to act and
  /// has not for this long may be /claim-ed by the opponent.
  std::int64_t idle_limit_ms = 600'000;
  /// The longest /seed text, in bytes.
  std::size_t max_seed_bytes = 64;
  /// The rating in variant `v` of the player called `name` when it is a registered
  /// account's (issue 12; a lookup in memory, no I/O), else nullopt. state() and
  /// summary() show them; unset: no ratings.
  std::function<std::optional<double>(const std::string& name, engine::variant v)> rating_of{};
  /// A number that changes whenever an answer of rating_of may have (online_ratings::
  /// version): while it and the names at the table stay the same, the state reuses the
  /// ratings it looked up last instead of asking again (issue 33). Unset: asked every time.
  std::function<std::uint64_t()> ratings_version{};
  /// A computer player of `level` (one of protocol::bot_levels) for a table of variant
  /// `v`: its name ("gnubg-expert"), or why there is none, as an error with code
  /// "no_bot" (no computer player on this server, e.g. GNU Backgammon is not installed)
  /// or "bot_variant" (none plays that variant). Unset: no computer players at all.
  std::function<engine::result<std::string>(const std::string& level, engine::variant v)> bot =
      nullptr;
  // Moderation (issue 13).
  /// The longest player name (names.hpp), for the names /kick and /invite take.
  std::size_t max_name_bytes = 24;
  /// How long a name the owner kicked may not come back (ms).
  std::int64_t kick_bar_ms = 600'000;
  /// Kicked names the table remembers at most: one more forgets the bar that ends first.
  std::size_t max_kicked = 100;
  /// Names the owner may have invited at once (`too_many_invited` past it).
  std::size_t max_invited = 100;
  /// A person's chat lines at the table are this far apart at least (ms; 0: no bound).
  std::int64_t chat_interval_ms = 1000;
  /// Chat lines the table passes on in any one minute, from everyone together.
  std::size_t chat_per_minute = 120;
};

/// One message the table wants delivered, and to whom.
struct delivery {
  enum class audience : unsigned char {
    everyone,  ///< every client present at the table
    actor,     ///< only the client whose command caused it
  };
  audience to = audience::everyone;
  nlohmann::json message;
  /// A chat line's sender (as written): the host leaves the line out for those who
  /// ignore that name (/ignore, issue 13). Empty for anything that is not chat.
  std::string sender{};
};

/// What handling one command or presence change produced. When `changed` is true the
/// host persists snapshot() with `record_log` and then sends state() to everyone (after
/// `out`).
struct table_outcome {
  std::vector<delivery> out;
  bool changed = false;
  /// The match record's changes since the last changed outcome, for the host's record
  /// journal, in order (storage appends them; table::restore() replays them): objects
  /// with "op" = "begin" (with "record", a whole match_record), "game" (with "game", a
  /// game_record appended), "opening" (with "first", a side, and "dice", the opening
  /// roll, of the last game), "action" (with "action", a record_action appended to the
  /// last game) or "result" (with "result", the last game's game_result). Empty unless
  /// `changed`. The snapshot does not carry the record: so a change costs its own size,
  /// not the match's.
  std::vector<nlohmann::json> record_log;
  /// The journal saved so far is void: a match began (record_log then starts with
  /// "begin") or was archived.
  bool record_reset = false;
  /// The match this change finished, with the `id` the host gave (give_match_id()), to
  /// be stored with the snapshot in one transaction. Unset when the match had no id (a
  /// host that stores nothing, such as a table test that gives none).
  std::optional<match_record> finished_match;
  /// The command was refused: sent to the actor alone as an `error`; nothing changed.
  std::optional<engine::error> refused;
  /// /analysis (issue 14): the actor asks for the analysis of this stored match (the
  /// table's last one by default); the host answers it from storage. Nothing changed.
  std::optional<std::int64_t> analysis_of;
  /// Moderation (issue 13): names whose connections leave the table with this change
  /// (kicked, or the table closed). They get the change's events, not its state.
  std::vector<std::string> removed;
  /// Moderation actions of this change, to be logged with it (table_write::moderation).
  std::vector<moderation_action> moderation;
  /// Messages for players who are not at the table, by name (an invitation): delivered
  /// once the change is written, to that name's connection if it is online.
  std::vector<std::pair<std::string, nlohmann::json>> notices;

  /// Appends `then`, an outcome handled right after this one at the same table, so that
  /// the two are written and announced as one change: `then`'s deliveries, removals,
  /// moderation actions and notices follow this one's; `changed` if either changed; its
  /// journal entries follow this one's, or replace them when `then` reset the journal
  /// (`record_reset`); its finished match and analysis request, when set, win. A refusal
  /// is not merged (`refused` is left as it is): the caller decides what a refused second
  /// command means (table::handle turns it into an error to the actor alone).
  void append(table_outcome&& then);
};

/// A seat: who sits there and whether they are connected.
struct seat {
  std::string name;
  bool present = false;
  /// When the player became absent (table_hooks::clock_ms time; the restore time after
  /// a restart), for /claim after the grace period.
  std::int64_t absent_since_ms = 0;
  /// A computer player's level ("expert"); empty for a person. A computer player is
  /// always present and never holds a name or a resume token.
  std::string bot;
};

/// A table. Not thread-safe: its host runs it on one strand.
class table {
 public:
  /// A new, empty table called `name`, rolling dice from `dice` (which must outlive it)
  /// unless `hooks.match_seed` is set (then every match derives its own, S4).
  table(std::string name, engine::dice_source& dice, table_hooks hooks);
  /// A new, empty table whose matches always derive their dice (S4): `hooks.match_seed`
  /// must be set (std::invalid_argument otherwise).
  table(std::string name, table_hooks hooks);

  /// `who` is now at the table: a spectator, or a seated player coming back. Refused
  /// with "table_crowded" when the table has max_spectators spectators already, "kicked"
  /// when the owner kicked `who` less than kick_bar_ms ago, "private_table" when the
  /// table is private and `who` is neither its owner nor invited (issue 13). The first
  /// person at a table without an owner becomes its owner.
  table_outcome enter(const std::string& who);
  /// `who` left the table (or lost the connection). A seated player keeps the seat
  /// and is marked absent; the host starts the grace period (absent_seats()).
  table_outcome exit(const std::string& who);
  /// `who` (present at the table) sends a command. Errors are in outcome.refused with
  /// a code and a sentence: "not_seated", "seat_taken", "table_full",
  /// "already_seated", "in_match", "need_opponent", "already_started",
  /// "options_locked", "bad_text", "no_match" (/export or /analysis before any match
  /// finished here), "too_long", "seed_locked", "nothing_to_claim", "claim_too_early",
  /// "no_bot", "bot_variant", and the engine's codes. A computer player's commands come
  /// here too, as `who` = its name. Moderation (issue 13): "not_owner" (/kick, /invite,
  /// /uninvite, /option private by anyone but the owner), "bad_name", "not_here" (/kick
  /// of a name not at the table), "in_match" (/kick of a player during a match),
  /// "bad_command" (kicking or inviting oneself), "too_many_invited", "not_invited",
  /// "chat_throttled" (chat faster than the table's bounds).
  ///
  /// Ownership (issue 13): the owner is the first person at the table. When the owner
  /// is no longer at the table (a spectator who left; a seat given up, freed or kicked;
  /// not an absent player whose seat is kept during a match), ownership passes to a
  /// person seated and present, else to the person present the longest, else to a
  /// person seated but away (event `owner`).
  /// A bank that ran out before the command arrived loses first (S2): the outcome then
  /// carries that change, and a refusal of the command itself goes to the actor as an
  /// `error` delivery in `out`.
  table_outcome handle(const std::string& who, const protocol::command& c);
  /// The host's timer for the running clock fired (clock_expiry()): when the running
  /// side's bank is empty now, that side loses on time (S2: event `out_of_time`, then
  /// the match, or the game in free play and basis, as a forfeit); otherwise nothing
  /// changes (an early timer is harmless).
  table_outcome check_clock();
  /// When the running side's bank runs out (table_hooks::clock_ms time), or nullopt
  /// (no timed clock, or nobody's clock runs): the host arms a timer for it.
  [[nodiscard]] std::optional<std::int64_t> clock_expiry() const;
  /// A graceful stop: charges the running side for its time up to now (S2) so that the
  /// snapshot written next keeps it. Returns true when a clock was running.
  bool pause_clock();
  /// After a restart: the running side's clock (and an absent player's grace period)
  /// starts again from now; the time the server was down is not charged (S2).
  void resume_clock();
  /// The grace period of the absent player on `s` ran out: they forfeit (S3: the match,
  /// a basis session, or the free game). The seats of absent players are then free.
  table_outcome forfeit(engine::side s);
  /// An administrator (`by`) closes the table (/close, issue 13): a match in progress
  /// ends unfinished (outcome.finished_match, with match_record::unfinished
  /// and its dice seed revealed, not rated), everyone present leaves the table (event
  /// `closed`, outcome.removed) and the table is left empty with no owner, so that the
  /// host forgets it.
  table_outcome close(const std::string& by);
  /// Whether a match is in progress without the id it will be stored under: the host
  /// reserves one (store::reserve_match_id(), no I/O) and gives it with give_match_id()
  /// before the table's next call, so the table itself reads no store. A match that
  /// begins (/start) or is restored has none until then; false outside a match.
  [[nodiscard]] bool wants_match_id() const noexcept;
  /// The id (> 0) the match in progress is stored under when it ends (finished or
  /// unfinished): `match_over` and `closed` name it, /export links to it. Ignored when
  /// wants_match_id() is false. Not part of the snapshot: a restored match is given a
  /// new one.
  void give_match_id(std::int64_t id) noexcept;
  /// Names of people holding a seat in a match in progress (their resume tokens must
  /// outlive their connections), in seat order; computer players are not among them.
  [[nodiscard]] std::vector<std::string> held_seats() const;

  /// The level of the computer player on `s` ("expert"), or nullopt when a person
  /// sits there or nobody does.
  [[nodiscard]] std::optional<std::string> bot_level(engine::side s) const;
  /// Whether the match waits for a computer player (state.bot_thinking): its answer is
  /// on the way, however long the bots' queue makes it wait; its seat is never claimed.
  [[nodiscard]] bool bot_thinking() const;

  /// The full `state` message (protocol/PROTOCOL.md) as sent, written straight into its
  /// text (the one description of the message: every change sends it to everyone
  /// present), keys in sorted order. With `ratings`: the rating of each registered player
  /// and spectator here, in the table's variant, by name. With `with_legal` false,
  /// `legal` and `legal_moves` are empty unless the play is forced (exactly one legal
  /// play): the state a spectator gets after a change (it cannot play them, but its
  /// client shows a forced play).
  [[nodiscard]] std::string state_text(bool with_legal = true) const;
  /// {state_text(true), state_text(false)} written in one pass (issue 33: a change in
  /// phase move sends both): the spectators' text is the players' with its `legal` and
  /// `legal_moves` emptied.
  [[nodiscard]] std::pair<std::string, std::string> state_texts() const;
  /// state_text(with_legal) parsed (tests and cold paths).
  [[nodiscard]] nlohmann::json state(bool with_legal = true) const;
  /// Whether a player's and a spectator's states differ now: in phase `move` with more
  /// than one legal play (a forced play is listed to spectators too).
  [[nodiscard]] bool lists_legal() const;
  /// One entry of the lobby's `tables` list, as text (rewritten after every change),
  /// with `ratings` {red, black} of its players (null for a guest or a free seat).
  [[nodiscard]] std::string summary_text() const;
  /// summary_text() parsed.
  [[nodiscard]] nlohmann::json summary() const;
  /// Everything needed to rebuild the table after a restart except the match record,
  /// which the host keeps as a journal of table_outcome::record_log entries (snapshot
  /// version 2; version 1 carried the whole record under "record"), as the text stored
  /// with every change, with "token_hashes" [red, black]: each seat's resume-token hash,
  /// null for none.
  [[nodiscard]] std::string snapshot_text(
      const std::array<std::optional<std::string>, 2>& token_hashes) const;
  /// snapshot_text() parsed, without "token_hashes".
  [[nodiscard]] nlohmann::json snapshot() const;
  /// Rebuilds a table from snapshot() and the record journal (every record_log entry
  /// saved since the last record_reset, in order); nobody is present afterwards, and
  /// seats are kept only while a match is in progress. A version 1 snapshot's "record"
  /// is used instead of the journal, and the next changed outcome resets the journal
  /// with it. Error "bad_snapshot" when the JSON does not describe a valid table, a
  /// journal entry is malformed, or a match is in progress without a record.
  /// `present` (a rollback to the last written state while clients are at the table)
  /// names who is at the table: their seats are kept and marked present, the others
  /// watch; seq is the snapshot's (presence is not part of the written state).
  /// The clocks come back exactly as saved (a rollback charges the time since the
  /// write); after a restart the host calls resume_clock().
  static engine::result<std::unique_ptr<table>> restore(
      const nlohmann::json& snapshot, engine::dice_source& dice, table_hooks hooks,
      const std::vector<nlohmann::json>& record_journal = {},
      const std::vector<std::string>& present = {});
  /// restore() for a table whose matches always derive their dice (see the two-argument
  /// constructor).
  static engine::result<std::unique_ptr<table>> restore(
      const nlohmann::json& snapshot, table_hooks hooks,
      const std::vector<nlohmann::json>& record_journal = {},
      const std::vector<std::string>& present = {});

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// The seat of `who`, if seated.
  [[nodiscard]] std::optional<engine::side> seat_of(const std::string& who) const;
  /// Seats whose player is absent while a match is in progress (grace period runs).
  [[nodiscard]] std::vector<engine::side> absent_seats() const;
  /// True when a match is being played (from /start until its end).
  [[nodiscard]] bool in_match() const noexcept;
  /// True when nobody sits or watches and no match is in progress (may be dropped).
  [[nodiscard]] bool idle() const noexcept;
  /// Names present at the table (seated and spectators).
  [[nodiscard]] std::vector<std::string> present() const;
  /// The table's owner (issue 13), "" when it has none (nobody came yet).
  [[nodiscard]] const std::string& owner() const noexcept { return owner_; }
  /// True when the owner made the table private (/option private on).
  [[nodiscard]] bool is_private() const noexcept { return private_; }
  /// The state sequence number: +1 for every change.
  [[nodiscard]] std::uint64_t seq() const noexcept { return seq_; }
  [[nodiscard]] const std::array<std::optional<seat>, 2>& seats() const noexcept { return seats_; }
  [[nodiscard]] const std::optional<engine::match>& current_match() const noexcept {
    return match_;
  }

 private:
  // The private members live in the file of their family (server/src/table/README.md).

  // table.cpp: the dispatch and the helpers every family uses.
  table_outcome handle_impl(const std::string& who, const protocol::command& c);
  [[nodiscard]] std::int64_t now() const;
  table_outcome bump(table_outcome o);
  table_outcome refuse(std::string code, std::string message) const;
  /// Refuses with `e` (its catalogue sentence, when it has one, goes with it).
  table_outcome refuse(engine::error e) const;
  /// Refuses with `code` and catalogue sentence `key` with `args` (i18n/lang/en/server.json).
  table_outcome refuse(std::string code, std::string key, const nlohmann::json& args) const;
  void event(table_outcome& o, nlohmann::json e);
  /// An event whose `text` is catalogue sentence `key` with `args` (and `say`, so that
  /// each reader gets it in their language).
  void event(table_outcome& o, nlohmann::json e, std::string key, nlohmann::json args);
  void info(table_outcome& o, std::string topic, std::string text, nlohmann::json data = {});
  /// An info whose `text` is catalogue sentence `key` with `args`.
  void said_info(table_outcome& o, std::string topic, std::string key, nlohmann::json args,
                 nlohmann::json data = {});
  [[nodiscard]] std::string player_name(engine::side s) const;
  [[nodiscard]] bool person_seated() const noexcept;
  [[nodiscard]] nlohmann::json bots_json() const;
  /// The args of a sentence that writes the options (table.options_set, table.started,
  /// table.options): `name` = `who`, and the options (table_detail::add_options_args).
  [[nodiscard]] nlohmann::json options_args(const std::string& who) const;

  // table_seats.cpp: presence, seats, options and the start.
  table_outcome enter_impl(const std::string& who);
  table_outcome exit_impl(const std::string& who);
  /// /join: `who` (seated on `s`, if at all) sits on `want`, or on the first free seat
  /// (event `joined`).
  table_outcome join(const std::string& who, std::optional<engine::side> s,
                     std::optional<engine::side> want);
  /// /bot `level` (issue 14): a computer player sits opposite `s`, the seat of the one who
  /// asks, before /start (event `joined` with `bot`).
  table_outcome seat_bot(std::optional<engine::side> s, const std::string& level);
  /// /leave: `who` gives up seat `s` outside a match and watches (event `left`).
  table_outcome leave(const std::string& who, std::optional<engine::side> s);
  /// Outside a match a computer player does not sit alone: when no person sits at the
  /// table any more, computer players leave too (event `left`).
  void release_lonely_bots(table_outcome& o);
  /// /option tutor on|off by the player on `s` (event `option`).
  table_outcome option_tutor(const std::string& who, std::optional<engine::side> s, bool on);
  table_outcome option_clock(const std::string& who, const protocol::clock_option& c);
  /// /option match and /option variant by the player on `s`, before /start (event
  /// `option`, after those of the computer players swapped for the variant).
  table_outcome option_match_or_variant(const std::string& who, std::optional<engine::side> s,
                                        const protocol::command& c);
  /// Before variant `v` is set (issue 14): each computer player seated for another
  /// variant gives its seat to the one of the same level for `v` (events `left` and
  /// `joined` into `o`). Returns the refusal when one of them has no such computer
  /// player; then nothing changed.
  std::optional<table_outcome> swap_bots_for_variant(table_outcome& o, engine::variant v);
  /// /start by the player on `s`: the match, its clocks (S2), its dice seed committed
  /// (S4), its record and journal begin (event `started`).
  table_outcome start(const std::string& who, std::optional<engine::side> s);

  // table_moderation.cpp (issue 13).
  table_outcome chat(const std::string& who, const std::string& text);
  table_outcome kick(const std::string& who, const std::string& target);
  table_outcome invite(const std::string& who, const std::string& target, bool on);
  table_outcome option_private(const std::string& who, bool on);
  table_outcome close_impl(const std::string& by);
  /// The refusal of a moderation command by `who` when `who` is not the owner.
  [[nodiscard]] std::optional<table_outcome> unless_owner(const std::string& who) const;
  /// True when `who` is at the table: a spectator, or seated (present or away).
  [[nodiscard]] bool at_table(const std::string& who) const;
  /// When the owner is no longer at the table, passes ownership on (event `owner`).
  void pass_ownership(table_outcome& o);
  /// Forgets `who`'s presence bookkeeping (arrival, last chat line).
  void forget_presence(const std::string& who);

  // table_play.cpp: the game commands, the end of a game or match, the dice, the journal.
  table_outcome game_command(engine::side s, const protocol::command& c);
  /// /roll in the opening phase (R2): both dice, rolled again on a tie; the higher die
  /// plays first (event `opening_roll`).
  table_outcome opening_roll();
  /// /roll by `s` before its play (event `rolled`, then `passed` when no play is legal).
  table_outcome roll(engine::side s);
  /// /move: `s` plays `text` (R3-R8, checked by the engine; event `moved`, and what
  /// follows a game that ends with it).
  table_outcome play(engine::side s, const std::string& text);
  /// /double by `s` (R14; event `doubled` with the cube's new value).
  table_outcome offer_double(engine::side s);
  /// /take (or /accept of a double) by `s` (R14; event `took`).
  table_outcome take(engine::side s);
  /// /drop (or /reject of a double) by `s`: the game ends (R14; event `dropped`).
  table_outcome drop(engine::side s);
  /// /resign `kind` by `s` (R18; event `resign_offered`).
  table_outcome offer_resignation(engine::side s, engine::win_kind kind);
  /// /accept or /reject (`accept` false) of the resignation offered to `s` (R18; event
  /// `resign_accepted`, then the end of the game, or `resign_rejected`).
  table_outcome answer_resignation(engine::side s, bool accept);
  /// /continue by `s` between basis games (R16; event `continued`; `game_started` when
  /// both said it).
  table_outcome continue_session(engine::side s);
  /// /stop by `s` between basis games (R16): the session ends (events `stopped`,
  /// `match_over`).
  table_outcome stop_session(engine::side s);
  /// A basis session just stopped by the player on `s` (R16; match::stop_session done):
  /// event `stopped` with sentence `key` and `args`, then the match closes (after_game with the
  /// last result). Used by /stop, a loss on time and a forfeit between basis games.
  void session_stopped(table_outcome& o, engine::side s, std::string key, nlohmann::json args);
  /// After a game ended (or a basis session stopped): its result, then the end of the
  /// match, the next game or the basis question.
  void after_game(table_outcome& o, const engine::game_end& end);
  /// The game just ended (R11): its result into the record and the journal (event
  /// `game_over`, and `crawford` when the next game is the Crawford game, R15).
  void announce_result(table_outcome& o, const engine::game_end& end);
  /// The match ended: it is archived, announced (event `match_over`, its dice seed
  /// revealed, S4), its record and journal closed, and the seats of absent players freed.
  void finish_match(table_outcome& o);
  /// Ends the record of the match (final score, end time, dice seed revealed, S4) under
  /// the id the host gave (give_match_id()): returns it (0: none given, not stored),
  /// also last_match_id_, and sets o.finished_match when stored.
  std::int64_t archive_match(table_outcome& o);
  /// S3: after a match, the seats of players who are not here are free (event `left`).
  void free_absent_seats(table_outcome& o);
  void begin_game_record();
  void record(record_action a);
  /// Appends `entry` to the pending record journal (see table_outcome::record_log).
  void journal(nlohmann::json entry);
  /// Voids the saved journal: `begin` (if any) becomes its first entry.
  void reset_journal(const std::optional<match_record>& begin);
  table_outcome seed(engine::side s, const std::string& text);
  /// The dice for the next roll: the match's derived dice (at the current game), or the
  /// injected source.
  engine::dice_source& dice_for_roll();
  /// Moves the rolls just derived into the match record and its journal.
  void record_rolls();

  // table_clock.cpp: the clocks (S2) and abandonment (S3).
  /// The side the match waits for (whose clock runs), or nullopt: the side to roll,
  /// play or answer an offer; between basis games the one who has not said /continue
  /// when the other has; nobody in the opening phase (either player may roll) or when
  /// no match is in progress.
  [[nodiscard]] std::optional<engine::side> waiting_on() const;
  /// After a change: stops and starts the clocks for waiting_on() (see match_clock).
  void update_clock();
  /// S2: the running side's bank is empty: it loses on time (empty outcome otherwise).
  table_outcome settle_clock();
  table_outcome claim(engine::side claimer);
  /// Forfeits `s` (S3): `why` is "absent" (the grace period) or "idle" (a /claim after
  /// the idle limit); `key` and `args` are the event's sentence.
  table_outcome forfeit_impl(engine::side s, const std::string& why, const std::string& key,
                             const nlohmann::json& args);

  // table_views.cpp: the state's sections and the questions that change nothing.
  /// `state.clock` (S2): the banks and the running action's delay left (ms) at `since`,
  /// and the running side; full banks before a match with a clock option; null without.
  void write_clock_state(protocol::json_writer& w) const;
  /// The state's text (state_text); with `legal`, where its `legal` and `legal_moves`
  /// members begin (at the comma before them) and end, as byte offsets.
  [[nodiscard]] std::string write_state(bool with_legal,
                                        std::pair<std::size_t, std::size_t>* legal) const;
  /// `state.continuing` (between basis games), `crawford`, `cube`, `dice` (while `moving`,
  /// of game `g`), `dice_commitment` (S4) and `game_number`.
  void write_cube_and_dice(protocol::json_writer& w, const engine::game& g,
                           engine::match_phase phase, bool moving) const;
  /// `state.ratings` (issue 12): the rating in variant `v` of each registered name here.
  void write_ratings(protocol::json_writer& w, engine::variant v) const;
  /// /board, /who, /help, /options, /export, /analysis (and /tables, refused): an answer
  /// to the actor alone, or outcome.analysis_of for the host; nothing changes.
  table_outcome query(const protocol::command& c);

  // table_snapshot.cpp: restore() on the table being rebuilt.
  static engine::result<std::unique_ptr<table>> restore_into(
      const nlohmann::json& snapshot, engine::dice_source* dice, table_hooks hooks,
      const std::vector<nlohmann::json>& record_journal, const std::vector<std::string>& present);
  /// The owner, /option private, the invitations and the kick bars (issue 13) from the
  /// snapshot; error "bad_snapshot" when a name among them is not one.
  std::optional<engine::error> restore_moderation(const nlohmann::json& snapshot);
  /// The match's clocks (S2) and dice (S4) from the snapshot; error "bad_snapshot" when
  /// the dice seed is damaged.
  std::optional<engine::error> restore_clock_and_dice(const nlohmann::json& snapshot);
  /// The seats and their computer players (issue 14) from the snapshot, nobody present.
  void restore_seats(const nlohmann::json& snapshot);
  /// Who is present after a restore: `present` (a rollback) keep their seats and the
  /// others watch; an absent player's seat is kept only during a match (its grace
  /// period starting now, S3), and no computer player sits alone.
  void restore_presence(const std::vector<std::string>& present);
  /// A match saved before the clocks and derived dice existed: an untimed clock for the
  /// idle limit (S3) and dice from a seed drawn now (S4, not verifiable).
  void complete_old_match();

  std::string name_;
  engine::dice_source* dice_;  ///< nullptr: every match derives its dice (hooks_.match_seed)
  table_hooks hooks_;
  engine::match_options options_;
  bool tutor_ = false;
  protocol::clock_option clock_option_;     ///< /option clock (minutes 0: no clock)
  std::optional<match_clock> clock_;        ///< the clocks of the match (S2, S3)
  std::optional<derived_dice> match_dice_;  ///< the match's dice (S4)
  std::uint64_t matches_started_ = 0;       ///< /start count, for test seeds
  std::optional<engine::side> actor_;       ///< the side whose command made this change
  std::array<std::optional<seat>, 2> seats_;
  std::set<std::string> spectators_;
  /// What write_ratings() looked up last (issue 33): the ratings version and variant it
  /// was for, the names present then (seats, then spectators) and their ratings.
  struct ratings_seen {
    std::uint64_t version = 0;
    engine::variant game_variant = engine::variant::standard;
    std::vector<std::string> names;
    std::vector<std::pair<std::string, double>> ratings;  ///< by name, each once
  };
  mutable std::optional<ratings_seen> ratings_seen_;
  std::optional<engine::match> match_;
  std::optional<match_record> record_;
  std::vector<nlohmann::json> journal_;  ///< record_log entries not yet handed out
  bool journal_reset_ = false;
  std::int64_t last_match_id_ = 0;
  /// The id the match in progress is stored under (give_match_id()); 0: none yet.
  std::int64_t match_id_ = 0;
  std::uint64_t seq_ = 0;
  // Moderation (issue 13).
  std::string owner_;  ///< the owner's name, as written ("": none yet)
  bool private_ = false;
  std::map<std::string, std::string> invited_;  ///< name key -> the name as invited
  struct kick_bar {
    std::string name;
    std::int64_t until_ms = 0;  ///< table_hooks::clock_ms time
  };
  std::map<std::string, kick_bar> kicked_;        ///< name key -> its bar
  std::map<std::string, std::uint64_t> arrived_;  ///< present name -> arrival number
  std::uint64_t arrivals_ = 0;
  std::map<std::string, std::int64_t> last_chat_;  ///< present name -> its last chat line
  std::int64_t chat_window_start_ = 0;
  std::size_t chat_in_window_ = 0;
};

}  // namespace bg::server
