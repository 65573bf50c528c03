#pragma once
/// @file players.hpp
/// Who is connected and under which name, the resume tokens, the seats that keep a
/// name reserved while its player is away, and who created which table.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "bg/engine/error.hpp"
#include "bg/server/game/resume_tokens.hpp"
#include "bg/server/net/client.hpp"

namespace bg::server {

/// The players of one gammond. Not thread-safe: the game service's mutex guards it.
///
/// A name is in use while a connection says it or while it holds a seat in a match in
/// progress (tables report those seats through holds_changed()); names are compared by
/// their key (names.hpp: case-folded). A name's resume token (resume_tokens.hpp) lives
/// exactly as long as the name is in use, and is replaced on every hello and resume.
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
  };

  /// A new connection `c` (nothing said yet).
  void open(const std::shared_ptr<client>& c);
  /// The session of connection `id`, or nullptr.
  [[nodiscard]] session* find(std::uint64_t id);

  /// Connection `id` says hello as `name`, or resumes with `resume_token` (which wins
  /// when it is known; with an unknown token and a name, the name is tried). Names are
  /// checked with name_problem() against `max_name_bytes`. Errors: "already_hello",
  /// "bad_resume" (unknown token and no name), "bad_name", "name_taken" (connected or
  /// seated, in any letter case).
  engine::result<welcomed> hello(std::uint64_t id, const std::string& name,
                                 const std::string& resume_token, std::size_t max_name_bytes);
  /// Connection `id` ended: its session is gone (returned, for the tables it was at),
  /// and its name is free unless it holds a seat. nullopt for an unknown id.
  std::optional<session> close(std::uint64_t id);

  /// Table `table`'s seats held in a match went from `before` to `after` (names as
  /// written): a name that holds no seat any more and is not connected is free again.
  void holds_changed(const std::string& table, const std::vector<std::string>& before,
                     const std::vector<std::string>& after);
  /// After a restart: `name` holds a seat at `table`, with the SHA-256 of its resume
  /// token (`token_hash`, 64 hex digits; empty: unknown). False when the hash is
  /// malformed (the seat is held all the same, but cannot be resumed).
  bool restore_hold(const std::string& table, const std::string& name,
                    const std::string& token_hash);
  /// True when `token` is a live resume token (a hello with it resumes its name).
  [[nodiscard]] bool knows_token(std::string_view token) const {
    return !token.empty() && tokens_.find(token).has_value();
  }
  /// The SHA-256 of `name`'s resume token (64 hex digits), or nullopt.
  [[nodiscard]] std::optional<std::string> token_hash_of(const std::string& name) const;

  /// True when the creator (`s`'s name and address) may create another table: fewer
  /// than `limit` tables it created are open, counted per name and per address.
  [[nodiscard]] bool may_create(const session& s, std::size_t limit) const;
  /// `s` created `table`.
  void created(const std::string& table, const session& s);
  /// `table` is gone: it no longer counts for its creator.
  void forget_table(const std::string& table);

  /// Every named connection's client (for the lobby chat).
  [[nodiscard]] std::vector<std::shared_ptr<client>> everyone() const;

 private:
  struct creator {
    std::string key;
    std::string address;
  };
  void release_if_unused(const std::string& key);

  std::unordered_map<std::uint64_t, session> sessions_;
  std::unordered_map<std::string, std::uint64_t> online_;  // name key -> connection id
  resume_tokens tokens_;                                   // by name key
  /// name key -> tables where the name holds a seat in a match in progress
  std::unordered_map<std::string, std::set<std::string>> held_;
  std::unordered_map<std::string, creator> creators_;            // table -> its creator
  std::unordered_map<std::string, std::size_t> created_by_key_;  // open tables per name
  std::unordered_map<std::string, std::size_t> created_by_address_;
};

}  // namespace bg::server
