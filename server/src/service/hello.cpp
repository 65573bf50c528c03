// Hello and login: a connection's first message names it, as a guest (a new name or a
// resume token), with a password (an account's login, checked on the auth pool), or
// with a remembered sign-in (issue 27); then it is welcomed and re-enters the tables
// where it holds a seat. In a cluster a hello may be sent on to the node that has its
// seat. Members of game_service (game_service.hpp); registration and the password
// rules are in accounts.cpp.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/account_views.hpp"
#include "bg/bots/bot_names.hpp"
#include "bg/i18n/catalogue.hpp"
#include "bg/protocol/codec.hpp"
#include "bg/server/log_safe.hpp"
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
using service_helpers::unix_ms_now;
using service_helpers::wipe;

namespace {

/// A login without a language of its own (issue 31): the account's, when it chose one
/// that is still a language here, becomes the session's (the welcome says it).
void use_account_lang(client& c, const account& a) {
  if (a.lang.empty()) return;
  if (auto tag = i18n::catalogue::global().supported(a.lang); !tag.empty())
    c.set_lang(std::move(tag));
}

/// True when `text` has a session credential's shape: 64 lowercase hex digits.
bool credential_shaped(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char ch) {
           return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
         });
}

}  // namespace

// ------------------------------------------------------------------------------------
// Hello

void game_service::on_hello(const std::shared_ptr<client>& c, const protocol::client_message& m) {
  // In a cluster a resume token unknown here may be another node's: looked up in the
  // cluster's sessions first (on the bus's thread, never here). A token known here
  // whose name holds no seat here may hold one on another node (issue 26: a login
  // that was sent on, a name in its resume window): its seat is looked up too.
  if (bus_ && !m.resume.empty()) {
    std::optional<std::string> key;
    bool seated_here = false;
    {
      std::lock_guard lock(mutex_);
      key = players_.key_of_token(m.resume);
      seated_here = key && players_.holds_seat(*key);
    }
    if (!key) {
      bus_->find_token(
          resume_tokens::hash_hex(m.resume),
          [self = shared_from_this(), c, m](std::optional<cluster_bus::session_row> row) {
            self->hello_located(c, m, std::move(row), {});
          });
      return;
    }
    if (cluster_ && !seated_here) {
      hello_located(c, m, std::nullopt, *key);
      return;
    }
  }
  hello_as(c, m, std::nullopt);
}

void game_service::hello_located(const std::shared_ptr<client>& c,
                                 const protocol::client_message& m,
                                 std::optional<cluster_bus::session_row> row,
                                 const std::string& known_key) {
  const std::string key = row ? row->key : known_key;
  if (!cluster_ || key.empty()) {
    hello_as(c, m, std::move(row));
    return;
  }
  // Issue 26: where the name's seat is, as the store says now (the heartbeat's view may
  // be a heartbeat old: a table just claimed, a seat just taken).
  cluster_->find_seat(key, [weak = weak_from_this(), c, m, key,
                            row = std::move(row)](std::optional<seat_elsewhere> found) mutable {
    const auto self = weak.lock();
    if (!self) return;
    if (!found) {
      self->send_error(c, protocol::said_error("storage_error", "service.seat_lookup_failed"),
                       m.id);
      return;
    }
    if (!found->seat) {
      asio::post(self->io_, [self, c, m, row = std::move(row)]() mutable {
        self->hello_as(c, m, std::move(row));
      });
      return;
    }
    auto [table, owner] = std::move(*found->seat);
    if (owner.standing_now(self->cluster_->heartbeat(), self->cluster_->lease()) !=
        table_owner::standing::dead) {
      self->send_moved(c, table, owner, json());  // live: there; failing: wait
      return;
    }
    // Its node is dead: the table is claimed here first, so the hello finds the seat
    // (never a welcome without it).
    self->cluster_->claim(table, [weak, c, m, key,
                                  row = std::move(row)](std::optional<claimed_table> t) mutable {
      const auto me = weak.lock();
      if (!me) return;
      if (t) me->adopt_one(std::move(*t));
      // Claimed here, or by another node just now: the hello is looked at again.
      asio::post(me->io_, [me, c, m, key, row = std::move(row), claimed = t.has_value()]() mutable {
        if (claimed) {
          me->hello_as(c, m, std::move(row));
        } else {
          me->hello_located(c, m, std::move(row), key);
        }
      });
    });
  });
}

void game_service::hello_as(const std::shared_ptr<client>& c, const protocol::client_message& m,
                            std::optional<cluster_bus::session_row> adopted) {
  // Issue 16: a resuming player whose seat is at another live node's table is sent
  // there (its resume token is valid on every node); a seat here wins. (A token of the
  // cluster's sessions was looked up already, in the store: hello_located().)
  if (cluster_ && !m.resume.empty() && !adopted && sent_to_seat_elsewhere(c, m)) return;
  hello_welcome w;
  {
    std::lock_guard lock(mutex_);
    if (!hello_allowed(c, m, adopted) || !take_hello(c, m, adopted, w)) return;
  }
  for (const auto& actor : w.leave) actor->exit(w.replaced_id, w.name);
  if (w.replaced) w.replaced->close("replaced by a new connection");
  if (w.account_key.empty()) {
    c->identified();  // the hello timeout stops here
    welcome_and_rejoin(c, frame_of(w.welcome), std::move(w.rejoin), w.name);
    return;
  }
  welcome_resumed_account(c, std::move(w));
}

bool game_service::sent_to_seat_elsewhere(const std::shared_ptr<client>& c,
                                          const protocol::client_message& m) {
  bool seated_here = false;
  {
    std::lock_guard lock(mutex_);
    seated_here = players_.knows_token(m.resume);
  }
  if (seated_here) return false;
  // The name is the hello's (a hello that resumes may give no name at all).
  const std::string key = name_problem_of(m.name) ? std::string() : name_key(m.name);
  if (const auto seat = key.empty() ? std::nullopt : cluster_->seat_of(key);
      seat && seat->second.alive) {
    send_moved(c, seat->first, seat->second, json());
    return true;
  }
  return false;
}

void game_service::release_adopted(const std::optional<cluster_bus::session_row>& adopted) {
  if (adopted) players_.release_unused(adopted->key);
}

bool game_service::hello_allowed(const std::shared_ptr<client>& c,
                                 const protocol::client_message& m,
                                 std::optional<cluster_bus::session_row>& adopted) {
  // A token another node issued: the hello resumes its name here; a refused hello
  // leaves nothing of it.
  if (adopted &&
      !players_.adopt_token(adopted->key, adopted->name, resume_tokens::hash_hex(m.resume)))
    adopted.reset();
  // Issue 26: an account registered on another node since this one started is an
  // account here too (every node knows every account).
  if (adopted && adopted->registered) players_.add_registered(adopted->key, adopted->name);
  // issue 14: the computer players' names are theirs (a known resume token wins).
  if (bots::is_bot_name(m.name) && !players_.knows_token(m.resume)) {
    release_adopted(adopted);
    metrics_.error("reserved_name");
    c->send(frame_of(protocol::error_message(
        protocol::said_error("reserved_name", "service.bot_name", {{"name", m.name.substr(0, 24)}}),
        m.id)));
    c->strike("refused name");
    return false;
  }
  // A person may not take a name kept for the computer players either.
  if (!players_.knows_token(m.resume) && !name_problem_of(m.name)) {
    if (const auto why = reserved_name_error(m.name)) {
      release_adopted(adopted);
      metrics_.error("reserved_name");
      c->send(frame_of(protocol::error_message(*why, m.id)));
      c->strike("refused name");
      return false;
    }
  }
  // The ban is checked against the name the connection becomes: the resumed one when
  // the token resumes a name (whatever name the hello says), the banned name's when
  // the token is one a ban revoked, else the hello's name.
  std::string becomes = name_problem_of(m.name) ? std::string() : name_key(m.name);
  if (auto resumed = players_.key_of_token(m.resume)) {
    becomes = std::move(*resumed);
  } else if (!m.resume.empty()) {
    if (auto banned = bans_.name_of_token(resume_tokens::hash_hex(m.resume)))
      becomes = std::move(*banned);
  }
  if (auto refused = refusal_if_banned(becomes, c->address(), m.id)) {
    release_adopted(adopted);
    metrics_.error("banned");
    c->send(frame_of(*refused));
    c->strike("banned");
    return false;
  }
  return true;
}

bool game_service::take_hello(const std::shared_ptr<client>& c, const protocol::client_message& m,
                              const std::optional<cluster_bus::session_row>& adopted,
                              hello_welcome& out) {
  auto w = players_.hello(c->id(), m.name, m.resume, config_.max_name_bytes);
  if (!w) {
    release_adopted(adopted);
    refuse_hello(c, m, w.err(), adopted.has_value());
    return false;
  }
  out.name = w->name;
  out.replaced = std::move(w->replaced);
  // The replaced connection leaves its tables, once the mutex is released: an actor
  // may run a call at once on this thread, and its change takes this mutex.
  out.replaced_id = w->replaced_id;
  for (const auto& t : w->replaced_tables)
    if (const auto ta = tables_.find(t); ta != tables_.end()) out.leave.push_back(ta->second);
  auto* s = players_.find(c->id());
  out.rejoin = actors_of(w->seated, s);
  json seated = json::array();
  for (const auto& a : out.rejoin) seated.push_back(a->name());
  out.welcome = json{{"type", "welcome"},
                     {"name", out.name},
                     {"resume", w->token},
                     {"resumed", w->resumed},
                     {"protocol", protocol::protocol_version},
                     {"server", std::string("gammond ") + GAMMOND_VERSION},
                     {"tables", seated},
                     {"lang", c->lang()},
                     {"account", guest_account_json()}};
  if (m.id) out.welcome["re"] = *m.id;
  if (w->registered) out.account_key = w->key;
  if (bus_ && !w->resumed) {
    // A new guest's name must be free on every node: welcomed once the cluster's
    // sessions say it is this node's (queued now, before any later announcement).
    if (auto* me = players_.find(c->id())) me->hello_pending = true;
    bus_->claim(
        w->key, out.name, players_.token_hash_of(out.name).value_or(""),
        [self = shared_from_this(), c, welcome = out.welcome, key = w->key, name = out.name,
         re = m.id](cluster_bus::claim_result r) { self->claimed(c, r, welcome, key, name, re); });
    return false;
  }
  cluster_take(w->key, true);  // a resume: the node that had the name closes it
  return true;
}

void game_service::refuse_hello(const std::shared_ptr<client>& c, const protocol::client_message& m,
                                const engine::error& why, bool adopted) {
  const auto& code = why.code;
  // (The name is a stranger's text: escaped. Debug: strangers can send many.)
  spdlog::debug(
      "hello of {} from {} refused: {} (a resume token: {}, found in the "
      "cluster's sessions: {})",
      log_safe(m.name), c->address(), code, !m.resume.empty(), adopted);
  send_error(c, why, m.id);
  // A refused hello is a strike (issue 11.6): guessing tokens or names costs.
  if (code == "bad_resume") c->strike("bad resume token");
  if (code == "bad_name") c->strike("refused name");
  if (code == "name_taken") c->strike("name taken");
  if (code == "name_registered") c->strike("name registered");
  if (code == "name_confusable") c->strike("name taken");
}

void game_service::welcome_resumed_account(const std::shared_ptr<client>& c, hello_welcome w) {
  // A resumed account is logged in: its welcome carries its ratings, read on the
  // storage thread (never here); the ratings also go to the states of its tables.
  writer_->run([self = shared_from_this(), c, welcome = std::move(w.welcome),
                rejoin = std::move(w.rejoin), name = w.name,
                account_key = w.account_key](store& db) mutable {
    std::optional<account> a;
    try {
      a = db.find_account(account_key);
      db.set_last_seen(account_key);
      // Issue 13: the account's ignore list, as the database keeps it.
      auto ignored = db.ignored_by(account_key);
      std::vector<std::pair<std::string, std::string>> names;
      for (auto& n : ignored)
        if (!self->name_problem_of(n)) names.emplace_back(name_key(n), std::move(n));
      std::lock_guard lock(self->mutex_);
      if (const auto* s = self->players_.find(c->id()); s != nullptr && s->ignores)
        s->ignores->replace(names);
    } catch (const std::exception& e) {
      spdlog::error("account {}: cannot be read: {}", name, e.what());
    }
    if (a) {
      self->ratings_.set(account_key, {a->standings[0].rating, a->standings[1].rating});
      welcome["account"] = account_json(*a, self->is_admin(account_key));
    }
    c->identified();
    self->welcome_and_rejoin(c, frame_of(welcome), std::move(rejoin), name);
  });
}

void game_service::claimed(const std::shared_ptr<client>& c, cluster_bus::claim_result r,
                           const json& welcome, const std::string& key, const std::string& name,
                           const std::optional<json>& re) {
  using result = cluster_bus::claim_result;
  {
    std::lock_guard lock(mutex_);
    auto* s = players_.find(c->id());
    if (s == nullptr || s->key != key) return;  // closed meanwhile
    if (r == result::claimed) {
      s->hello_pending = false;
    } else {
      players_.revoke(c->id());
      if (r == result::registered)
        players_.add_registered(key, name);  // registered on another node
    }
  }
  switch (r) {
    case result::claimed:
      c->identified();  // the hello timeout stops here
      c->send(frame_of(welcome));
      return;
    case result::taken:
      send_error(
          c, protocol::said_error("name_taken", "service.name_in_use_elsewhere", {{"name", name}}),
          re);
      c->strike("name taken");
      return;
    case result::registered:
      send_error(
          c, protocol::said_error("name_registered", "service.name_registered", {{"name", name}}),
          re);
      c->strike("name registered");
      return;
    case result::failed:
      send_error(c, protocol::said_error("storage_error", "service.name_check_failed"), re);
      return;
  }
}

void game_service::welcome_and_rejoin(const std::shared_ptr<client>& c,
                                      std::shared_ptr<const std::string> frame,
                                      std::vector<std::shared_ptr<table_actor>> rejoin,
                                      const std::string& name) {
  if (rejoin.empty()) {
    c->send(std::move(frame));
    return;
  }
  // The seats' snapshots keep the hash of the new token: write them before the
  // welcome hands the token out, so a restart never forgets a token a client holds.
  struct gate {
    std::mutex mutex;
    std::size_t waiting;
    bool all_written = true;
  };
  auto g = std::make_shared<gate>();
  g->waiting = rejoin.size();
  for (auto& actor : rejoin) {
    actor->save_now([g, c, frame, rejoin, name](bool written) {
      {
        std::lock_guard lock(g->mutex);
        g->all_written = g->all_written && written;
        if (--g->waiting != 0) return;
      }
      if (!g->all_written)  // names are checked (names.hpp): safe to log as they are
        spdlog::error("the resume token of {} could not be written with its seats", name);
      c->send(frame);
      for (const auto& a : rejoin) a->enter(c, name, no_re);
    });
  }
}

std::vector<std::shared_ptr<table_actor>> game_service::actors_of(
    const std::set<std::string>& tables, players::session* s) {
  std::vector<std::shared_ptr<table_actor>> out;
  for (const auto& tname : tables) {
    const auto ta = tables_.find(tname);
    if (ta == tables_.end()) continue;
    out.push_back(ta->second);
    ++ta->second->pending;
    if (s) s->tables.insert(tname);
  }
  return out;
}

// ------------------------------------------------------------------------------------
// Login with a password or a remembered sign-in

void game_service::on_login(const std::shared_ptr<client>& c, const protocol::client_message& m) {
  if (const auto why = name_error(m.name, config_.max_name_bytes)) {
    send_error(c, *why, m.id);
    c->strike("refused name");
    return;
  }
  if (bots::is_bot_name(m.name)) {  // issue 14: a computer player's account never logs in
    send_error(c,
               protocol::said_error("reserved_name", "service.bot_name_no_login",
                                    {{"name", m.name.substr(0, 24)}}),
               m.id);
    c->strike("refused name");
    return;
  }
  password_login login{c,       std::string(), m.id, m.remember,
                       m.label, std::nullopt,  {},   !m.lang.empty()};
  auto lane = auth_pool::lane::other;
  {
    std::lock_guard lock(mutex_);
    login.key = name_key(m.name);
    if (!login_may_try(c, m, login.key, lane)) return;
  }
  // The account is read on the storage thread, the password checked on the auth pool.
  writer_->run([self = shared_from_this(), login = std::move(login), lane, password = *m.password](
                   store& db) mutable { self->read_login_account(db, login, password, lane); });
}

bool game_service::login_may_try(const std::shared_ptr<client>& c,
                                 const protocol::client_message& m, const std::string& key,
                                 auth_pool::lane& lane) {
  if (auto refused = refusal_if_banned(key, c->address(), m.id)) {
    metrics_.error("banned");
    c->send(frame_of(*refused));
    c->strike("banned");
    return false;
  }
  // Counted as a failure now, before any hashing, until it succeeds.
  const auto verdict = throttle_.attempt(key, c->address(), clock_type::now());
  if (const auto& wait = verdict.wait) {
    metrics_.error("login_locked");
    auto e = protocol::error_message(
        protocol::said_error("login_locked", "service.login_locked",
                             {{"seconds", static_cast<std::int64_t>(wait->count())}}),
        m.id);
    e["seconds"] = wait->count();
    c->send(frame_of(e));
    c->strike("login locked");
    return false;
  }
  if (verdict.clean) lane = auth_pool::lane::clean;
  auto claimed = players_.begin_claim(c->id(), m.name, false, config_.max_name_bytes);
  if (!claimed) {
    send_error(c, claimed.err(), m.id);
    return false;
  }
  return true;
}

void game_service::read_login_account(store& db, password_login& login, std::string& password,
                                      auth_pool::lane lane) {
  const std::shared_ptr<client> c = login.c;  // a copy: `login` moves to the auth pool
  try {
    login.found = db.find_account(login.key);
    if (login.found) login.ignored = db.ignored_by(login.key);
  } catch (const std::exception& e) {
    spdlog::error("login: reading an account: {}", e.what());
    {
      std::lock_guard lock(mutex_);
      players_.end_claim(c->id());
    }
    send_error(c, protocol::said_error("storage_error", "service.logins_unavailable"), login.re);
    return;
  }
  const auto re = login.re;
  on_auth_pool(
      c, re, lane,
      [self = shared_from_this(), login = std::move(login),
       password = std::move(password)]() mutable { self->check_login_password(login, password); });
}

void game_service::check_login_password(password_login& login, std::string& password) {
  // An unknown name (or a bot) costs the same check as a wrong password: the answers
  // are the same bad_login.
  const bool can_log_in = login.found && login.found->what == account::kind::player &&
                          password.size() <= config_.max_password_bytes;
  const std::string& hash = can_log_in ? login.found->password_hash : decoy_password_hash();
  const bool right = verify_password(hash, password) && can_log_in;
  std::optional<std::string> rehashed;
  if (right && password_needs_rehash(hash)) rehashed = hash_password(password);
  wipe(password);
  asio::post(io_, [self = shared_from_this(), login = std::move(login), right,
                   rehashed = std::move(rehashed)]() mutable {
    self->password_checked(login, right, rehashed);
  });
}

void game_service::password_checked(password_login& login, bool right,
                                    const std::optional<std::string>& rehashed) {
  const auto& c = login.c;
  if (!right) {
    login_failed(c, login.re);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    throttle_.succeeded(login.key, c->address(), clock_type::now());
  }
  if (rehashed) {
    writer_->run([key = login.key, hash = *rehashed](store& later) {
      if (later.set_password_hash(key, hash))
        spdlog::info("a password hash was renewed with today's parameters");
    });
  }
  if (!login.hello_lang) use_account_lang(*c, *login.found);
  if (!login.remember || config_.session_days == 0) {
    log_in(c, *login.found, login.re, std::move(login.ignored));
    return;
  }
  // A remembered sign-in is stored first: the welcome carries it.
  writer_->run([self = shared_from_this(), login = std::move(login)](store& later) mutable {
    auto session = self->start_session(later, login.key, login.label);
    asio::post(self->io_,
               [self, c = login.c, found = std::move(login.found), re = login.re,
                ignored = std::move(login.ignored), session = std::move(session)]() mutable {
                 self->log_in(c, *found, re, std::move(ignored), std::move(session));
               });
  });
}

void game_service::login_failed(const std::shared_ptr<client>& c, const std::optional<json>& re) {
  {
    std::lock_guard lock(mutex_);
    players_.end_claim(c->id());
  }
  send_error(c, protocol::said_error("bad_login", "service.bad_login"), re);
  c->strike("bad login");
}

void game_service::on_session_login(const std::shared_ptr<client>& c,
                                    const protocol::client_message& m) {
  if (const auto why = name_error(m.name, config_.max_name_bytes)) {
    send_error(c, *why, m.id);
    c->strike("refused name");
    return;
  }
  if (config_.session_days == 0 || !credential_shaped(m.session) || bots::is_bot_name(m.name)) {
    refuse_session(c, m.id);
    return;
  }
  std::string key;
  {
    std::lock_guard lock(mutex_);
    key = name_key(m.name);
    if (auto refused = refusal_if_banned(key, c->address(), m.id)) {
      metrics_.error("banned");
      c->send(frame_of(*refused));
      c->strike("banned");
      return;
    }
    auto claimed = players_.begin_claim(c->id(), m.name, false, config_.max_name_bytes);
    if (!claimed) {
      send_error(c, claimed.err(), m.id);
      return;
    }
  }
  const std::int64_t now = unix_ms_now();
  const std::int64_t until = now + static_cast<std::int64_t>(config_.session_days) * 86'400'000;
  writer_->run([self = shared_from_this(), c, key, credential = m.session, re = m.id, now, until,
                hello_lang = !m.lang.empty()](store& db) {
    std::optional<login_session> session;
    std::optional<account> found;
    std::vector<std::string> ignored;
    bool failed = false;
    try {
      session = db.use_session(resume_tokens::hash_hex(credential), now, until);
      if (session && session->account_key == key) {
        found = db.find_account(key);
        if (found) ignored = db.ignored_by(key);
      }
    } catch (const std::exception& e) {
      spdlog::error("login with a remembered sign-in: {}", e.what());
      failed = true;
    }
    asio::post(self->io_, [self, c, key, credential, re, session = std::move(session),
                           found = std::move(found), ignored = std::move(ignored), failed,
                           hello_lang]() mutable {
      if (failed) {
        {
          std::lock_guard lock(self->mutex_);
          self->players_.end_claim(c->id());
        }
        self->send_error(c, protocol::said_error("storage_error", "service.logins_unavailable"),
                         re);
        return;
      }
      if (!session || !found || found->what != account::kind::player) {
        {
          std::lock_guard lock(self->mutex_);
          self->players_.end_claim(c->id());
        }
        self->refuse_session(c, re);
        return;
      }
      if (!hello_lang) use_account_lang(*c, *found);
      self->log_in(c, *found, re, std::move(ignored),
                   signed_in{credential, session->id, session->expires_ms, session->label});
    });
  });
}

void game_service::refuse_session(const std::shared_ptr<client>& c, const std::optional<json>& re) {
  metrics_.error("bad_session");
  c->send(frame_of(
      protocol::error_message(protocol::said_error("bad_session", "service.session_ended"), re)));
  c->strike("bad session");
}

void game_service::log_in(const std::shared_ptr<client>& c, const account& a,
                          const std::optional<json>& re, std::vector<std::string> ignored,
                          std::optional<signed_in> session) {
  std::vector<std::shared_ptr<table_actor>> rejoin;
  std::vector<std::shared_ptr<table_actor>> leave;
  std::uint64_t replaced_id = 0;
  std::shared_ptr<client> replaced;
  json welcome;
  {
    std::lock_guard lock(mutex_);
    // A ban made while the password was checked (or the account made) holds too.
    if (auto refused = refusal_if_banned(a.key, c->address(), re)) {
      players_.end_claim(c->id());
      metrics_.error("banned");
      c->send(frame_of(*refused));
      c->strike("banned");
      return;
    }
    auto w = players_.login(c->id(), a.key, a.name);
    if (!w) return;  // the connection is gone (or was answered meanwhile)
    throttle_.trust(a.key, c->address(), clock_type::now());  // the owner's address
    ratings_.set(a.key, {a.standings[0].rating, a.standings[1].rating});
    if (auto* s = players_.find(c->id()); s != nullptr) {  // issue 27
      s->login_session = session ? session->id : 0;
      s->session_label = session ? session->label : std::string{};
    }
    // Issue 13: the account's ignore list, as the database keeps it.
    if (const auto* s = players_.find(c->id()); s != nullptr && s->ignores) {
      std::vector<std::pair<std::string, std::string>> names;
      for (auto& n : ignored)
        if (!name_problem_of(n)) names.emplace_back(name_key(n), std::move(n));
      s->ignores->replace(names);
    }
    replaced = std::move(w->replaced);
    // The replaced connection leaves its tables, once the mutex is released: an actor
    // may run a call at once on this thread, and its change takes this mutex.
    replaced_id = w->replaced_id;
    for (const auto& t : w->replaced_tables)
      if (const auto ta = tables_.find(t); ta != tables_.end()) leave.push_back(ta->second);
    rejoin = actors_of(w->seated, players_.find(c->id()));
    json seated = json::array();
    for (const auto& actor : rejoin) seated.push_back(actor->name());
    welcome = json{{"type", "welcome"},
                   {"name", a.name},
                   {"resume", w->token},
                   {"resumed", false},
                   {"protocol", protocol::protocol_version},
                   {"server", std::string("gammond ") + GAMMOND_VERSION},
                   {"tables", seated},
                   {"lang", c->lang()},
                   {"account", account_json(a, is_admin(a.key))}};
    if (session) {  // issue 27: the remembered sign-in, to send instead of the password
      welcome["session"] = session->credential;
      welcome["session_id"] = session->id;
      welcome["session_expires_ms"] = session->expires_ms;
    }
    if (re) welcome["re"] = *re;
    cluster_take(a.key, true);  // in a cluster: the node that had the account closes it
  }
  for (const auto& actor : leave) actor->exit(replaced_id, a.name);
  if (replaced) replaced->close("replaced by a new connection");
  writer_->run([key = a.key](store& db) { db.set_last_seen(key); });
  c->identified();
  const bool seated_here = !rejoin.empty();
  welcome_and_rejoin(c, frame_of(welcome), std::move(rejoin), a.name);
  // Issue 26: in a cluster the account's seat may be at another node's table: the
  // player is sent there (one redirect), logged in already.
  if (!seated_here) follow_seat_after_login(c, a.key);
}

}  // namespace bg::server
