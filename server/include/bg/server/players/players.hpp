#pragma once
/// @file players.hpp
/// Who is connected and under which name, the resume tokens, the seats that keep a
/// name reserved while its player is away, and who created which table.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "bg/engine/error.hpp"
#include "bg/server/net/client.hpp"
#include "bg/server/players/ignore_list.hpp"
#include "bg/server/players/resume_tokens.hpp"

namespace bg::server {

/// The players of one gammond. Not thread-safe: the game service's mutex guards it.
///
/// A name is in use while a connection says it, while it holds a seat in a match in
/// progress (tables report those seats through holds_changed()), or while a login or a
/// registration for it is being checked (a claim); names are compared by their key
/// (names.hpp: case-folded). A name's resume token (resume_tokens.hpp) lives exactly as
/// long as the name is in use, and is replaced on every hello and resume.
///
/// Registered names (accounts, issue 12) are known by their keys: a guest may not use
/// one (`name_registered`), and a name in use is an account exactly when its key is
/// registered (a registration needs a name nobody uses).
class players {
 public:
  using clock_type = std::chrono::steady_clock;

  /// One connection.
  struct session {
    std::weak_ptr<client> who;
    std::string name;                          ///< empty until hello
    std::string key;                           ///< name_key(name)
    std::string address;                       ///< the client's address (limits per address)
    std::set<std::string> tables;              ///< tables this connection is at
    clock_type::time_point last_lobby_chat{};  ///< for the lobby chat bound
    bool registered = false;  ///< logged in to an account (with its password, or resumed)
    /// A login or registration of this connection is being checked (its hello is not
    /// answered yet); `claim` is the name key it claims meanwhile.
    bool hello_pending = false;
    std::string claim;
    /// The names this player ignores (issue 13): the name's list, shared by its
    /// connections and kept while the name is in use; null until hello.
    std::shared_ptr<ignore_list> ignores;
    /// The remembered sign-in this connection logged in with or started (issue 27): its
    /// id in the store (0: none) and its label, for /signout and /password.
    std::int64_t login_session = 0;
    std::string session_label;
  };

  /// What a successful hello did.
  struct welcomed {
    std::string name;   ///< as its player wrote it (the token's name on a resume)
    std::string token;  ///< the new resume token
    bool resumed = false;
    /// The connection that said this name before (closed by the caller), if any, with
    /// the tables it was at.
    std::shared_ptr<client> replaced;
    std::uint64_t replaced_id = 0;
    std::set<std::string> replaced_tables;
    /// Tables where the name holds a seat in a match (the caller rejoins them).
    std::set<std::string> seated;
    std::string key;          ///< name_key(name)
    bool registered = false;  ///< the name is an account's
  };

  /// A new connection `c` (nothing said yet).
  void open(const std::shared_ptr<client>& c);
  /// The session of connection `id`, or nullptr.
  [[nodiscard]] session* find(std::uint64_t id);

  /// Connection `id` says hello as `name`, or resumes with `resume_token` (which wins
  /// when it is known; with an unknown token and a name, the name is tried). Names are
  /// checked with name_problem() against `max_name_bytes`. Errors: "already_hello",
  /// "name_confusable" (a new name that looks like one in use or registered:
  /// name_lookalike_key()),
  /// "bad_resume" (unknown token and no name), "bad_name", "name_taken" (connected,
  /// seated or claimed, in any letter case), "name_registered" (an account's name, with
  /// no token: log in with its password). A resumed account's name is logged in
  /// (welcomed::registered).
  engine::result<welcomed> hello(std::uint64_t id, const std::string& name,
                                 const std::string& resume_token, std::size_t max_name_bytes);

  /// Connection `id` starts a login (`for_register` false) or a registration (true) as
  /// `name`: the name's key is claimed until finish_claim(), so nobody else takes it
  /// meanwhile. Returns the key. Errors: "already_hello" (a hello answered or pending),
  /// "bad_name", "name_taken" (claimed by another connection; for a registration also a
  /// name in use or registered), "name_confusable" (a registration of a name that looks
  /// like one in use or registered).
  engine::result<std::string> begin_claim(std::uint64_t id, const std::string& name,
                                          bool for_register, std::size_t max_name_bytes);
  /// The check of connection `id`'s claim is over (either way): the claim is released.
  /// No-op when it has none.
  void end_claim(std::uint64_t id);
  /// Connection `id`, whose claim of `key` was checked (the password is right, or the
  /// account was just created), is the account `name` (as registered): it takes the
  /// name, replacing a connection of the same account and getting back its seats, as a
  /// resume does; the claim is released. Errors: "already_hello" (answered meanwhile),
  /// "bad_resume" when the connection is gone.
  engine::result<welcomed> login(std::uint64_t id, const std::string& key, const std::string& name);
  /// A new resume token for the name of connection `id` (a password change): the old one
  /// stops working. Also returns the other connections of the same name (to close) and
  /// the tables where it holds a seat (their snapshots keep the token's hash). nullopt
  /// when the connection has no name.
  struct rotated {
    std::string token;
    std::vector<std::shared_ptr<client>> others;
    std::set<std::string> seated;
  };
  std::optional<rotated> rotate_token(std::uint64_t id);

  /// The registered names' keys (loaded at start, one added per registration); `name`
  /// is the name as registered (its lookalike key is kept too: a guest or a new
  /// account may not take a name that looks like it), or empty when only the key is
  /// known (the key's lookalike key is used).
  void add_registered(const std::string& key, const std::string& name = {});
  [[nodiscard]] bool is_registered(const std::string& key) const {
    return registered_.count(key) != 0;
  }
  [[nodiscard]] std::size_t registered_count() const noexcept { return registered_.size(); }
  /// True while `key` is said by a connection.
  [[nodiscard]] bool online(const std::string& key) const { return online_.count(key) != 0; }
  /// Called with a name's key when it is free again (no connection, no seat, no claim).
  void on_release(std::function<void(const std::string& key)> f) { released_ = std::move(f); }
  /// Connection `id` ended: its session is gone (returned, for the tables it was at),
  /// and its name is free unless it holds a seat. nullopt for an unknown id.
  std::optional<session> close(std::uint64_t id);

  /// Table `table`'s seats held in a match went from `before` to `after` (names as
  /// written): a name that holds no seat any more and is not connected is free again.
  void holds_changed(const std::string& table, const std::vector<std::string>& before,
                     const std::vector<std::string>& after);
  /// After a restart: `name` holds a seat at `table`, with the SHA-256 of its resume
  /// token (`token_hash`, 64 hex digits; empty: unknown). False when the hash is
  /// malformed (the seat is held all the same, but cannot be resumed). A name connected
  /// here (a cluster's takeover) keeps the token it has: it is newer than any snapshot.
  bool restore_hold(const std::string& table, const std::string& name,
                    const std::string& token_hash);
  /// True while the name of key `key` holds a seat in a match here.
  [[nodiscard]] bool holds_seat(const std::string& key) const { return held_.count(key) != 0; }
  /// True when `token` is a live resume token (a hello with it resumes its name).
  [[nodiscard]] bool knows_token(std::string_view token) const {
    return !token.empty() && tokens_.find(token).has_value();
  }
  /// The key of the name that the live resume token `token` resumes, or nullopt.
  [[nodiscard]] std::optional<std::string> key_of_token(std::string_view token) const {
    if (token.empty()) return std::nullopt;
    auto h = tokens_.find(token);
    if (!h) return std::nullopt;
    return std::move(h->key);
  }
  /// The SHA-256 of `name`'s resume token (64 hex digits), or nullopt.
  [[nodiscard]] std::optional<std::string> token_hash_of(const std::string& name) const;

  // A cluster (issue 16): names and tokens that span the nodes.
  /// Adopts `token_hash` (64 hex digits) as the resume token of the name `name` (key
  /// `key`), found in the cluster's sessions (issued by another node): a hello with the
  /// token then resumes the name here. False when the hash is malformed.
  bool adopt_token(const std::string& key, const std::string& name, const std::string& token_hash) {
    if (!tokens_.adopt(key, name, token_hash)) return false;
    note_lookalike(key, name);
    return true;
  }
  /// Forgets the resume token of the name of key `key` (a ban revokes it): it resumes
  /// nothing any more; its resume window, if any, ends.
  void drop_token(const std::string& key) {
    tokens_.drop(key);
    lingering_.erase(key);
    release_if_unused(key);
  }
  /// Forgets the resume token of the name of key `key` here: another node of the cluster
  /// took the name and rotated its token, so the one this node knew is stale (a hello
  /// with the new one adopts it from the cluster's sessions). Its resume window ends,
  /// and the name is free here unless it holds a seat here.
  void taken_elsewhere(const std::string& key) {
    tokens_.drop(key);
    lingering_.erase(key);
    release_if_unused(key);
  }
  /// A cluster's resume window (issue 26): a name whose last connection closes while it
  /// holds no seat stays in use, with its resume token, for `window` (0: not at all, as
  /// on a single server), so that a player following `moved`, fenced or dropped resumes
  /// on the next node as the same (registered) player. At most `max_names` names wait
  /// at once; past that a name is freed at once, as before.
  void set_resume_window(std::chrono::milliseconds window, std::size_t max_names) {
    resume_window_ = window;
    max_lingering_ = max_names;
  }
  /// When the name of key `key` is in its resume window: the moment the window ends.
  [[nodiscard]] std::optional<clock_type::time_point> lingers(const std::string& key) const {
    const auto it = lingering_.find(key);
    if (it == lingering_.end()) return std::nullopt;
    return it->second;
  }
  /// The resume window of the name of key `key` that ends at `until` is over: the name
  /// is freed unless it is in use otherwise (a later window, a connection, a seat).
  void end_linger(const std::string& key, clock_type::time_point until) {
    const auto it = lingering_.find(key);
    if (it == lingering_.end() || it->second != until) return;
    lingering_.erase(it);
    release_if_unused(key);
  }
  /// Names in their resume window now (metrics, tests).
  [[nodiscard]] std::size_t lingering() const noexcept { return lingering_.size(); }
  /// Frees the name of key `key` (its token, its ignore list) unless it is in use: after
  /// adopt_token() for a hello that was then refused.
  void release_unused(const std::string& key) { release_if_unused(key); }
  /// Connection `id`'s hello is taken back (the cluster refused its name): the
  /// connection has no name again, and the name is freed unless otherwise in use.
  void revoke(std::uint64_t id);
  /// A name in use here: connected, or holding a seat.
  struct in_use {
    std::string key;
    std::string name;        ///< as written
    std::string token_hash;  ///< 64 hex digits, or "" when the name has no token
    bool connected = false;  ///< a connection says it (else it only holds a seat)
  };
  /// Every name in use here (to publish them again in the cluster's sessions).
  [[nodiscard]] std::vector<in_use> names_in_use() const;
  /// The name in use of key `key`, or nullopt.
  [[nodiscard]] std::optional<in_use> name_in_use(const std::string& key) const;

  /// True when the creator (`s`'s name and address) may create another table: fewer
  /// than `limit` tables it created are open, counted per name and per address.
  [[nodiscard]] bool may_create(const session& s, std::size_t limit) const;
  /// `s` created `table`.
  void created(const std::string& table, const session& s);
  /// `table` is gone: it no longer counts for its creator.
  void forget_table(const std::string& table);

  /// The names said by connections here (each once), as written.
  [[nodiscard]] std::vector<std::string> online_names() const;
  /// Every named connection's client (for the lobby chat).
  [[nodiscard]] std::vector<std::shared_ptr<client>> everyone() const;

  // Moderation (issue 13).
  /// Sets the capacity of the ignore lists made from now on (--max-ignored), and how
  /// many names' last addresses are remembered for /ban (--remembered-addresses).
  void set_limits(std::size_t max_ignored, std::size_t remembered_addresses);
  /// Every named connection's client except those whose player ignores the name of key
  /// `sender_key` (a lobby chat line's audience).
  [[nodiscard]] std::vector<std::shared_ptr<client>> everyone_hearing(
      const std::string& sender_key) const;
  /// The connections that say the name of key `key` (to close them on a ban).
  [[nodiscard]] std::vector<std::shared_ptr<client>> connections_of(const std::string& key) const;
  /// The addresses the name of key `key` uses or used last: its connections' and the
  /// last one remembered, each once.
  [[nodiscard]] std::vector<std::string> addresses_of(const std::string& key) const;
  /// The ignore list of the name of key `key` while it is in use, else nullptr.
  [[nodiscard]] std::shared_ptr<ignore_list> ignores_of(const std::string& key) const;

 private:
  /// The name of key `key` (written `name`) is in use: its lookalike key is remembered
  /// (computed unless `lookalike` is given) until release_if_unused() frees the key.
  void note_lookalike(const std::string& key, const std::string& name, std::string lookalike = {});
  /// True when a name of another key than `key` with lookalike key `lookalike` is in
  /// use or registered.
  [[nodiscard]] bool looks_taken(const std::string& key, const std::string& lookalike) const;

  struct creator {
    std::string key;
    std::string address;
  };
  void release_if_unused(const std::string& key);
  /// The connection `id` takes the name `name` (key `key`): replaces a stale connection
  /// of the name, issues a new token, lists the seats to rejoin.
  welcomed take_name(session& s, std::uint64_t id, const std::string& name, const std::string& key,
                     bool resumed);

  std::unordered_map<std::uint64_t, session> sessions_;
  std::unordered_map<std::string, std::uint64_t> online_;  // name key -> connection id
  resume_tokens tokens_;                                   // by name key
  /// name key -> tables where the name holds a seat in a match in progress
  std::unordered_map<std::string, std::set<std::string>> held_;
  std::unordered_map<std::string, creator> creators_;            // table -> its creator
  std::unordered_map<std::string, std::size_t> created_by_key_;  // open tables per name
  std::unordered_map<std::string, std::size_t> created_by_address_;
  std::unordered_set<std::string> registered_;              // account name keys
  std::unordered_map<std::string, std::uint64_t> claimed_;  // name key -> connection id
  /// name key -> the end of its resume window (issue 26), at most max_lingering_
  std::unordered_map<std::string, clock_type::time_point> lingering_;
  std::chrono::milliseconds resume_window_{0};
  std::size_t max_lingering_ = 0;
  std::function<void(const std::string&)> released_;
  /// name key -> its ignore list, while the name is in use (issue 13)
  std::unordered_map<std::string, std::shared_ptr<ignore_list>> ignores_;
  std::size_t max_ignored_ = 100;
  /// name key -> the address it said hello from last, at most remembered_addresses_ of
  /// them (the oldest forgotten first, in address_order_)
  std::unordered_map<std::string, std::string> last_address_;
  std::deque<std::string> address_order_;
  std::size_t remembered_addresses_ = 100'000;
  /// Lookalike keys (names.hpp) of the names in use (as many as those names: freed
  /// with them) and of the registered names (one per account): key -> lookalike key,
  /// and lookalike key -> the keys that have it.
  std::unordered_map<std::string, std::string> lookalike_of_;
  std::unordered_map<std::string, std::set<std::string>> in_use_lookalikes_;
  std::unordered_map<std::string, std::set<std::string>> registered_lookalikes_;
};

}  // namespace bg::server
