// Accounts (issue 12): registration, logins and password changes (hashed on the auth
// pool, the account read and written on the storage thread), /whois, /ratings,
// /history, and the /api routes. Members of game_service (game_service.hpp); none of
// them touches SQLite on an I/O thread or under the service's mutex, and no password,
// hash or token is ever logged.

#include <sodium.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/post.hpp>
#include <cctype>
#include <charconv>
#include <ctime>
#include <limits>
#include <map>

#include "api/account_views.hpp"
#include "bg/bots/bot_names.hpp"
#include "bg/i18n/catalogue.hpp"
#include "bg/protocol/codec.hpp"
#include "bg/server/players/names.hpp"
#include "bg/server/players/password_hash.hpp"
#include "bg/server/players/resume_tokens.hpp"
#include "bg/server/service/game_service.hpp"
#include "bg/server/table/frames.hpp"
#include "bg/server/table/table_actor.hpp"
#include "players/name_errors.hpp"
#include "service/service_helpers.hpp"

namespace bg::server {

namespace asio = boost::asio;
using nlohmann::json;
using service_helpers::history_lines;
using service_helpers::info_frame;
using service_helpers::ratings_lines;
using service_helpers::said_info_frame;
using service_helpers::unix_ms_now;
using service_helpers::whole_number;
using service_helpers::wipe;

namespace {

/// The number of characters (UTF-8 code points) of `text`, which the codec checked.
std::size_t characters(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
  }));
}

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

/// Why `password` cannot be the password of `name`, as an error, or nullopt. Codes:
/// "bad_password" (longer than `max_bytes`), "weak_password" (fewer than 8 characters,
/// or the name itself in any letter case). The sentence never repeats the password.
std::optional<engine::error> password_problem(std::string_view password, std::string_view name,
                                              std::size_t max_bytes) {
  if (password.size() > max_bytes)
    return protocol::said_error("bad_password", "service.password_too_long",
                                {{"max", static_cast<std::int64_t>(max_bytes)}});
  if (characters(password) < 8)
    return protocol::said_error("weak_password", "service.password_too_short", {{"min", 8}});
  if (ascii_lower(password) == ascii_lower(name))
    return protocol::said_error("weak_password", "service.password_is_name");
  return std::nullopt;
}

/// A new session credential (issue 27): 256 random bits from the operating system
/// (libsodium's randombytes) as 64 lowercase hex digits.
std::string new_session_credential() {
  std::array<unsigned char, 32> raw{};
  randombytes_buf(raw.data(), raw.size());
  std::array<char, 65> hex{};
  sodium_bin2hex(hex.data(), hex.size(), raw.data(), raw.size());
  return std::string(hex.data(), 64);
}

/// A client's label for its sign-in, kept to letters, digits and " .-_" (others become
/// '?'), "client" when empty.
std::string clean_label(std::string_view label) {
  std::string out;
  for (const char ch : label) {
    const bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                       (ch >= '0' && ch <= '9') || ch == ' ' || ch == '.' || ch == '-' || ch == '_';
    out += plain ? ch : '?';
  }
  return out.empty() ? std::string("client") : out;
}

/// A time in ms since the Unix epoch as "2026-11-27 04:50 UTC".
std::string utc_minute(std::int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buf{};
  std::strftime(buf.data(), buf.size(), "%Y-%m-%d %H:%M UTC", &tm);
  return buf.data();
}

/// What /sessions answers: one line a remembered sign-in (in language `lang`), and the
/// same as data.
std::pair<std::string, json> sessions_answer(const std::vector<login_session>& list,
                                             std::int64_t current, std::string_view lang) {
  std::string text = list.empty()
                         ? i18n::render(lang, "service.sessions_none")
                         : i18n::render(lang, "service.sessions_header",
                                        {{"count", static_cast<std::int64_t>(list.size())}});
  json items = json::array();
  for (const auto& one : list) {
    text += "\n" + i18n::render(lang, "service.sessions_line",
                                {{"id", std::to_string(one.id)},
                                 {"label", one.label},
                                 {"used", utc_minute(one.used_ms)},
                                 {"ends", utc_minute(one.expires_ms)},
                                 {"current", one.id == current ? "yes" : "no"}});
    items.push_back(json{{"id", one.id},
                         {"label", one.label},
                         {"created_ms", one.created_ms},
                         {"used_ms", one.used_ms},
                         {"expires_ms", one.expires_ms},
                         {"current", one.id == current}});
  }
  return {text, json{{"sessions", std::move(items)}}};
}

}  // namespace

// ------------------------------------------------------------------------------------
// Registration and login

bool game_service::on_auth_pool(const std::shared_ptr<client>& c, const std::optional<json>& re,
                                auth_pool::lane l, std::function<void()> job) {
  if (auth_.submit(c->address(), l, std::move(job))) return true;
  {
    std::lock_guard lock(mutex_);
    players_.end_claim(c->id());
  }
  send_error(c, protocol::said_error("auth_busy", "service.auth_busy"), re);
  return false;
}

bool game_service::may_register_name(const std::shared_ptr<client>& c,
                                     const protocol::client_message& m) {
  if (const auto why = name_error(m.name, config_.max_name_bytes)) {
    send_error(c, *why, m.id);
    c->strike("refused name");
    return false;
  }
  if (bots::is_bot_name(m.name)) {  // issue 14: the computer players' names are theirs
    send_error(
        c,
        protocol::said_error("reserved_name", "service.bot_name", {{"name", m.name.substr(0, 24)}}),
        m.id);
    c->strike("refused name");
    return false;
  }
  if (const auto why = reserved_name_error(m.name)) {  // gnubg_x, nardy.1: theirs too
    send_error(c, *why, m.id);
    c->strike("refused name");
    return false;
  }
  if (is_admin(name_key(m.name))) {  // --admins names are made on the host only
    send_error(c,
               protocol::said_error("reserved_name", "service.admin_name",
                                    {{"name", m.name.substr(0, 24)}}),
               m.id);
    c->strike("refused name");
    return false;
  }
  return true;
}

bool game_service::claim_for_registration(const std::shared_ptr<client>& c,
                                          const protocol::client_message& m, std::string& key) {
  // Issue 13: a banned name or address registers no new account either.
  if (auto refused = refusal_if_banned(name_key(m.name), c->address(), m.id)) {
    metrics_.error("banned");
    c->send(frame_of(*refused));
    c->strike("banned");
    return false;
  }
  // The computer players' accounts (made at start) do not count against people's.
  const std::size_t bots = std::min(bot_keys_.size(), players_.registered_count());
  if (players_.registered_count() - bots >= config_.max_accounts) {
    metrics_.error("too_many_accounts");
    c->send(frame_of(protocol::error_message(
        protocol::said_error("too_many_accounts", "service.too_many_accounts"), m.id)));
    return false;
  }
  auto claimed = players_.begin_claim(c->id(), m.name, true, config_.max_name_bytes);
  if (!claimed) {
    const auto& code = claimed.err().code;
    send_error(c, claimed.err(), m.id);
    if (code == "name_taken" || code == "name_confusable") c->strike("name taken");
    return false;
  }
  // Counted before any hashing: one address registers a few accounts an hour at most.
  if (const auto wait = throttle_.registration(c->address(), clock_type::now())) {
    players_.end_claim(c->id());
    metrics_.error("register_limited");
    auto e = protocol::error_message(
        protocol::said_error("register_limited", "service.register_limited",
                             {{"seconds", static_cast<std::int64_t>(wait->count())}}),
        m.id);
    e["seconds"] = wait->count();
    c->send(frame_of(e));
    c->strike("register limited");
    return false;
  }
  key = std::move(*claimed);
  return true;
}

void game_service::on_register(const std::shared_ptr<client>& c,
                               const protocol::client_message& m) {
  if (!may_register_name(c, m)) return;
  if (const auto bad = password_problem(*m.password, m.name, config_.max_password_bytes)) {
    send_error(c, *bad, m.id);
    return;
  }
  std::string key;
  {
    std::lock_guard lock(mutex_);
    if (!claim_for_registration(c, m, key)) return;
  }
  // Hashed on the auth pool, stored on the storage thread, welcomed back on an I/O
  // thread.
  on_auth_pool(
      c, m.id, auth_pool::lane::other,
      [self = shared_from_this(), c, key, name = m.name, password = *m.password, re = m.id,
       remember = m.remember, label = m.label]() mutable {
        std::string hash = hash_password(password);
        wipe(password);
        self->writer_->run(
            [self, c, key, name, hash = std::move(hash), re, remember, label](store& db) {
              std::optional<account> made;
              bool failed = false;
              try {
                made = db.create_account(key, name, account::kind::player, hash);
              } catch (const std::exception& e) {
                spdlog::error("registering {}: {}", name, e.what());
                failed = true;
              }
              std::optional<signed_in> session;
              if (made && remember) session = self->start_session(db, key, label);
              asio::post(self->io_, [self, c, key, made = std::move(made), failed, re,
                                     session = std::move(session)] {
                if (!made) {
                  {
                    std::lock_guard lock(self->mutex_);
                    self->players_.end_claim(c->id());
                  }
                  if (failed) {
                    self->send_error(
                        c, protocol::said_error("storage_error", "service.account_not_saved"), re);
                  } else {
                    self->send_error(
                        c, protocol::said_error("name_taken", "service.registered_meanwhile"), re);
                  }
                  return;
                }
                {
                  std::lock_guard lock(self->mutex_);
                  self->players_.add_registered(key, made->name);
                }
                spdlog::info("account {} registered", made->name);
                self->log_in(c, *made, re, {}, session);
              });
            });
      });
}

std::optional<game_service::signed_in> game_service::start_session(store& db,
                                                                   const std::string& key,
                                                                   const std::string& label) {
  if (config_.session_days == 0) return std::nullopt;
  signed_in s;
  s.credential = new_session_credential();
  s.label = clean_label(label);
  const std::int64_t now = unix_ms_now();
  s.expires_ms = now + static_cast<std::int64_t>(config_.session_days) * 86'400'000;
  try {
    s.id = db.create_session(key, resume_tokens::hash_hex(s.credential), s.label, now, s.expires_ms,
                             config_.max_sessions_per_account);
  } catch (const std::exception& e) {
    spdlog::error("storing a remembered sign-in: {}", e.what());
    return std::nullopt;
  }
  if (s.id == 0) return std::nullopt;
  return s;
}

// ------------------------------------------------------------------------------------
// Commands

void game_service::answer_ratings(const std::shared_ptr<client>& c, const protocol::command& cmd,
                                  const std::optional<std::string>& table,
                                  const std::optional<json>& re, clock_type::time_point t0) {
  const std::string kind(protocol::to_string(protocol::command_kind::ratings));
  const auto v = cmd.game_variant;
  const auto order = cmd.by_pr ? leaderboard_order::pr : leaderboard_order::rating;
  const bool with_pr = cmd.with_pr || cmd.by_pr;
  writer_->run([self = shared_from_this(), c, v, order, with_pr, table, re, kind, t0](store& db) {
    try {
      const auto list = db.leaderboard(v, ratings_lines, order);
      c->send(info_frame("ratings", leaderboard_text(v, list, order, with_pr, c->lang()),
                         leaderboard_json(v, list, order, with_pr), table, re));
      self->metrics_.command(kind, clock_type::now() - t0);
    } catch (const std::exception& e) {
      spdlog::error("/ratings: {}", e.what());
      self->send_error(c, protocol::said_error("storage_error", "service.ratings_unavailable"), re);
    }
  });
}

void game_service::on_account_command(const std::shared_ptr<client>& c, const std::string& name,
                                      const protocol::command& cmd,
                                      const std::optional<std::string>& table,
                                      const std::optional<json>& re, clock_type::time_point t0) {
  using k = protocol::command_kind;
  const auto error = [&](const engine::error& e) { send_error(c, e, re); };
  const std::string kind(protocol::to_string(cmd.kind));
  if (cmd.kind == k::password) {
    on_password(c, cmd, table, re);
    return;
  }
  if (cmd.kind == k::sessions || cmd.kind == k::signout) {
    on_session_command(c, cmd, table, re, t0);
    return;
  }
  if (cmd.kind == k::ratings) {
    answer_ratings(c, cmd, table, re, t0);
    return;
  }
  if (cmd.kind == k::lang) {
    on_lang(c, cmd, table, re, t0);
    return;
  }
  // /whois NAME, /history [NAME]
  const std::string who = cmd.text.empty() ? name : cmd.text;
  if (const auto why = name_error(who, config_.max_name_bytes, "bad_name", name_use::player)) {
    error(*why);
    return;
  }
  const std::string key = name_key(who);
  bool registered = false;
  bool online = false;
  {
    std::lock_guard lock(mutex_);
    registered = players_.is_registered(key);
    online = players_.online(key);
  }
  // A computer player is online whenever it can sit down here (issue 14).
  if (is_bot_account(key)) online = bot_available(who);
  if (!registered) {
    if (cmd.kind == k::whois && online) {
      c->send(said_info_frame("whois", "service.whois_guest_online", {{"name", who}},
                              guest_profile_json(who), table, re));
      metrics_.command(kind, clock_type::now() - t0);
      return;
    }
    if (cmd.kind == k::history && key == name_key(name)) {
      error(protocol::said_error("not_registered", "service.guest_no_history_own"));
      return;
    }
    error(cmd.kind == k::history && online
              ? protocol::said_error("unknown_player", "service.guest_no_history", {{"name", who}})
              : protocol::said_error("unknown_player", "service.unknown_player", {{"name", who}}));
    return;
  }
  writer_->run([self = shared_from_this(), c, cmd_kind = cmd.kind, key, who, online, table, re,
                kind, t0](store& db) {
    try {
      if (cmd_kind == k::whois) {
        const auto a = db.find_account(key);
        if (!a) throw storage_error("the account of " + who + " is missing");
        const auto performance = service_helpers::performance_of(db, key);
        c->send(info_frame("whois", profile_text(*a, online, performance, c->lang()),
                           profile_json(*a, online, performance), table, re));
      } else {
        const auto a = db.find_account(key);
        if (!a) throw storage_error("the account of " + who + " is missing");
        const auto matches = db.account_matches(key, 0, history_lines);
        c->send(info_frame("history", history_text(a->name, matches, c->lang()),
                           history_json(a->name, matches, false), table, re));
      }
      self->metrics_.command(kind, clock_type::now() - t0);
    } catch (const std::exception& e) {
      spdlog::error("/{}: {}", kind, e.what());
      self->send_error(c, protocol::said_error("storage_error", "service.read_failed"), re);
    }
  });
}

bool game_service::password_change_may_try(const std::shared_ptr<client>& c,
                                           const protocol::command& cmd,
                                           const std::optional<json>& re, password_change& out) {
  const auto* s = players_.find(c->id());
  if (s == nullptr) return false;
  if (!s->registered) {
    metrics_.error("not_registered");
    c->send(frame_of(protocol::error_message(
        protocol::said_error("not_registered", "service.guest_no_password"), re)));
    return false;
  }
  out.key = s->key;
  out.had_session = s->login_session != 0;
  out.session_label = s->session_label;
  if (const auto bad = password_problem(cmd.new_password, s->name, config_.max_password_bytes)) {
    send_error(c, *bad, re);
    return false;
  }
  // Counted as a failure now, before any hashing, until it succeeds.
  const auto verdict = throttle_.attempt(out.key, c->address(), clock_type::now());
  if (verdict.clean) out.lane = auth_pool::lane::clean;
  if (const auto& wait = verdict.wait) {
    metrics_.error("login_locked");
    auto e = protocol::error_message(
        protocol::said_error("login_locked", "service.password_locked",
                             {{"seconds", static_cast<std::int64_t>(wait->count())}}),
        re);
    e["seconds"] = wait->count();
    c->send(frame_of(e));
    c->strike("login locked");
    return false;
  }
  return true;
}

void game_service::on_password(const std::shared_ptr<client>& c, const protocol::command& cmd,
                               const std::optional<std::string>& table,
                               const std::optional<json>& re) {
  password_change change;
  {
    std::lock_guard lock(mutex_);
    if (!password_change_may_try(c, cmd, re, change)) return;
  }
  writer_->run([self = shared_from_this(), c, key = change.key, table, re, lane = change.lane,
                old = cmd.text, fresh = cmd.new_password, had_session = change.had_session,
                session_label = change.session_label](store& db) mutable {
    std::optional<account> found;
    try {
      found = db.find_account(key);
    } catch (const std::exception& e) {
      spdlog::error("/password: reading an account: {}", e.what());
    }
    if (!found) {
      self->send_error(c, protocol::said_error("storage_error", "service.passwords_unavailable"),
                       re);
      return;
    }
    self->on_auth_pool(
        c, re, lane,
        [self, c, key, table, re, hash = found->password_hash, old = std::move(old),
         fresh = std::move(fresh), had_session, session_label]() mutable {
          const bool right =
              old.size() <= self->config_.max_password_bytes && verify_password(hash, old);
          wipe(old);
          std::string new_hash = right ? hash_password(fresh) : std::string{};
          wipe(fresh);
          if (!right) {
            asio::post(self->io_, [self, c, re] {  // counted already by attempt()
              self->send_error(c, protocol::said_error("wrong_password", "service.wrong_password"),
                               re);
              c->strike("wrong password");
            });
            return;
          }
          self->writer_->run([self, c, key, table, re, new_hash = std::move(new_hash), had_session,
                              session_label](store& later) {
            bool changed = false;
            std::optional<signed_in> session;
            try {
              changed = later.set_password_hash(key, new_hash);
              // Issue 27: every remembered sign-in ends with the old password; this
              // connection's, if it had one, is replaced by a new one.
              if (changed) later.end_sessions(key, 0);
            } catch (const std::exception& e) {
              spdlog::error("/password: {}", e.what());
            }
            if (changed && had_session) session = self->start_session(later, key, session_label);
            asio::post(self->io_, [self, c, key, table, re, changed, session] {
              self->password_saved(c, key, table, re, changed, session);
            });
          });
        });
  });
}

void game_service::password_saved(const std::shared_ptr<client>& c, const std::string& key,
                                  const std::optional<std::string>& table,
                                  const std::optional<json>& re, bool changed,
                                  const std::optional<signed_in>& session) {
  if (!changed) {
    send_error(c, protocol::said_error("storage_error", "service.password_not_saved"), re);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    throttle_.succeeded(key, c->address(), clock_type::now());
    if (auto* s = players_.find(c->id())) {
      s->login_session = session ? session->id : 0;
      if (!session) s->session_label.clear();
    }
  }
  spdlog::info("client {} changed its account's password", c->id());
  // Every other session of the account ends: the old resume token stops working and any
  // other connection of the name is closed.
  close_other_sessions(c, key, "password changed", [&](const std::string& token) {
    json data{{"resume", token}};
    if (session) {
      data["session"] = session->credential;
      data["session_id"] = session->id;
      data["session_expires_ms"] = session->expires_ms;
    }
    return said_info_frame("password", "service.password_changed",
                           {{"new_session", session ? "yes" : "no"}}, std::move(data), table, re);
  });
}

void game_service::close_other_sessions(
    const std::shared_ptr<client>& c, const std::string& key, const char* why,
    const std::function<std::shared_ptr<const std::string>(const std::string&)>& answer_of) {
  std::optional<players::rotated> r;
  std::vector<std::shared_ptr<table_actor>> seats;
  {
    std::lock_guard lock(mutex_);
    r = players_.rotate_token(c->id());
    if (r) {
      cluster_take(key, true);  // other nodes close the account's sessions
      for (const auto& t : r->seated)
        if (const auto it = tables_.find(t); it != tables_.end()) seats.push_back(it->second);
    }
  }
  if (!r) return;  // the connection is gone
  for (const auto& other : r->others) other->close(why);
  auto answer = answer_of(r->token);
  if (seats.empty()) {
    c->send(answer);
    return;
  }
  // The seats' snapshots keep the new token's hash before the client hears of it.
  auto waiting = std::make_shared<std::atomic<std::size_t>>(seats.size());
  for (const auto& actor : seats) {
    actor->save_now([c, answer, waiting](bool) {
      if (--*waiting == 0) c->send(answer);
    });
  }
}

void game_service::on_session_command(const std::shared_ptr<client>& c,
                                      const protocol::command& cmd,
                                      const std::optional<std::string>& table,
                                      const std::optional<json>& re, clock_type::time_point t0) {
  using k = protocol::command_kind;
  std::string key;
  std::int64_t current = 0;
  {
    std::lock_guard lock(mutex_);
    const auto* s = players_.find(c->id());
    if (s == nullptr) return;
    if (!s->registered) {
      metrics_.error("not_registered");
      c->send(frame_of(protocol::error_message(
          protocol::said_error("not_registered", "service.guest_no_sessions"), re)));
      return;
    }
    key = s->key;
    current = s->login_session;
  }
  const std::string kind(protocol::to_string(cmd.kind));
  if (cmd.kind == k::sessions) {
    writer_->run([self = shared_from_this(), c, key, current, table, re, kind, t0](store& db) {
      try {
        const auto [text, data] =
            sessions_answer(db.sessions_of(key, unix_ms_now()), current, c->lang());
        c->send(info_frame("sessions", text, data, table, re));
        self->metrics_.command(kind, clock_type::now() - t0);
      } catch (const std::exception& e) {
        spdlog::error("/sessions: {}", e.what());
        self->send_error(c, protocol::said_error("storage_error", "service.sessions_unavailable"),
                         re);
      }
    });
    return;
  }
  on_signout(c, cmd, key, current, table, re, t0);
}

void game_service::on_signout(const std::shared_ptr<client>& c, const protocol::command& cmd,
                              const std::string& key, std::int64_t current,
                              const std::optional<std::string>& table,
                              const std::optional<json>& re, clock_type::time_point t0) {
  const std::string kind(protocol::to_string(cmd.kind));
  // /signout: this sign-in (""), all of the account's ("all"), or one by its id.
  const bool all = cmd.text == "all";
  std::int64_t id = current;
  if (!all && !cmd.text.empty()) {
    const auto n = whole_number(cmd.text, 1, std::numeric_limits<std::int64_t>::max());
    if (!n) {
      send_error(c, protocol::said_error("no_session", "service.no_such_session"), re);
      return;
    }
    id = *n;
  }
  if (!all && id == 0) {
    send_error(c, protocol::said_error("no_session", "service.not_remembered"), re);
    return;
  }
  writer_->run([self = shared_from_this(), c, key, id = all ? 0 : id, all, current, table, re, kind,
                t0](store& db) {
    std::size_t ended = 0;
    try {
      ended = db.end_sessions(key, id);
    } catch (const std::exception& e) {
      spdlog::error("/signout: {}", e.what());
      self->send_error(c, protocol::said_error("storage_error", "service.signout_unavailable"), re);
      return;
    }
    asio::post(self->io_, [self, c, key, id, all, current, table, re, kind, t0, ended] {
      if (!all && ended == 0) {
        self->send_error(c,
                         protocol::said_error("no_session", "service.session_not_yours",
                                              {{"id", std::to_string(id)}}),
                         re);
        return;
      }
      json data{{"ended", ended}, {"all", all}, {"current", all || id == current}};
      const json say = all ? i18n::say("service.signed_out_everywhere", {{"count", ended}})
                       : id == current
                           ? i18n::say("service.signed_out_this")
                           : i18n::say("service.signed_out_one", {{"id", std::to_string(id)}});
      if (all || id == current) {
        std::lock_guard lock(self->mutex_);
        if (auto* s = self->players_.find(c->id())) s->login_session = 0;
      }
      if (!all) {
        c->send(said_info_frame("signout", say["key"], say["args"], data, table, re));
        self->metrics_.command(kind, clock_type::now() - t0);
        return;
      }
      // Everywhere: the account's other connections close and the resume token changes,
      // as with /password, so no browser comes back without the password.
      self->metrics_.command(kind, clock_type::now() - t0);
      self->close_other_sessions(c, key, "signed out everywhere", [&](const std::string& token) {
        data["resume"] = token;
        return said_info_frame("signout", say["key"], say["args"], data, table, re);
      });
    });
  });
}

namespace {

/// The tags of the languages there are, as one line ("en, de, fr, ru"): tags are never
/// translated, so the list is the same in every language.
std::string language_list() {
  std::string out;
  for (const auto& tag : i18n::catalogue::global().languages()) {
    if (!out.empty()) out += ", ";
    out += tag;
  }
  return out;
}

/// `typed` as it may be shown back: at most 16 ASCII letters, digits, '-' and '_'; "?"
/// when it holds anything else.
std::string shown_tag(const std::string& typed) {
  const bool plain = !typed.empty() && typed.size() <= 16 &&
                     std::all_of(typed.begin(), typed.end(), [](unsigned char ch) {
                       return std::isalnum(ch) != 0 || ch == '-' || ch == '_';
                     });
  return plain ? typed : "?";
}

}  // namespace

void game_service::on_lang(const std::shared_ptr<client>& c, const protocol::command& cmd,
                           const std::optional<std::string>& table, const std::optional<json>& re,
                           clock_type::time_point t0) {
  const auto& catalogues = i18n::catalogue::global();
  const std::string kind(protocol::to_string(cmd.kind));
  if (cmd.text.empty()) {
    const std::string now = c->lang();
    c->send(said_info_frame("lang", "service.lang_current",
                            {{"lang", now}, {"languages", language_list()}},
                            {{"lang", now}, {"languages", catalogues.languages()}}, table, re));
    metrics_.command(kind, clock_type::now() - t0);
    return;
  }
  const std::string tag = catalogues.supported(cmd.text);
  if (tag.empty()) {
    send_error(
        c,
        protocol::said_error("unknown_lang", "service.unknown_lang",
                             {{"lang", shown_tag(cmd.text)}, {"languages", language_list()}}),
        re);
    return;
  }
  c->set_lang(tag);  // before the answer: it is said in the new language
  std::string key;
  {
    std::lock_guard lock(mutex_);
    if (const auto* s = players_.find(c->id()); s != nullptr && s->registered) key = s->key;
  }
  if (!key.empty()) writer_->run([key, tag](store& db) { db.set_account_lang(key, tag); });
  c->send(said_info_frame("lang", "service.lang_set", {{"lang", tag}}, {{"lang", tag}}, table, re));
  metrics_.command(kind, clock_type::now() - t0);
}

}  // namespace bg::server
