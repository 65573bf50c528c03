#include "bg/server/game/game_service.hpp"

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <ctime>
#include <deque>
#include <functional>
#include <future>
#include <random>

#include "bg/protocol/command.hpp"
#include "bg/server/game/table_actor.hpp"
#include "bg/server/store/mat_export.hpp"
#include "frames.hpp"

namespace bg::server {

namespace asio = boost::asio;
using nlohmann::json;
using clock_type = std::chrono::steady_clock;

// ------------------------------------------------------------------------------------
// shared_dice

shared_dice::shared_dice(std::uint64_t seed) {
  if (seed == 0) {
    source_ = std::make_unique<engine::secure_dice>();
  } else {
    source_ = std::make_unique<engine::seeded_dice>(seed);
  }
}

int shared_dice::roll_die() {
  std::lock_guard lock(mutex_);
  return source_->roll_die();
}

namespace {

std::string iso_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// A 128-bit random token in hex, from the operating system's entropy source.
std::string new_token() {
  thread_local std::random_device rd;  // opened once per thread, not per token
  std::string out;
  static constexpr char hex[] = "0123456789abcdef";
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t v = rd();
    for (int k = 0; k < 8; ++k) out.push_back(hex[(v >> (4 * k)) & 0xF]);
  }
  return out;
}

}  // namespace

// ------------------------------------------------------------------------------------
// game_service

game_service::game_service(const server_config& config, metrics& counters, asio::io_context& io)
    : config_(config),
      metrics_(counters),
      io_(io),
      storage_(std::make_unique<storage>(config.db)),
      writer_(std::make_unique<storage_writer>(*storage_)),
      dice_(config.dice_seed) {
  for (auto& saved : storage_->load_tables()) {
    const std::string& name = saved.name;
    const json snap = json::parse(saved.snapshot, nullptr, false);
    if (snap.is_discarded()) {
      spdlog::error("table {}: its saved state is not JSON; skipped", name);
      continue;
    }
    std::vector<json> journal;
    journal.reserve(saved.record_journal.size());
    for (const auto& entry : saved.record_journal) {
      journal.push_back(json::parse(entry, nullptr, false));
      if (journal.back().is_discarded()) break;
    }
    if (!journal.empty() && journal.back().is_discarded()) {
      spdlog::error("table {}: its match record is not JSON; skipped", name);
      continue;
    }
    table_hooks hooks{[this](const match_record& r) { return storage_->save_match(r); }, iso_now,
                      config_.max_chat_bytes};
    auto t = table::restore(snap, dice_, std::move(hooks), journal);
    if (!t) {
      spdlog::error("table {}: {}; skipped", name, t.err().message);
      continue;
    }
    if ((*t)->idle()) {  // nothing to come back to: no match, no seat
      storage_->delete_table(name);
      continue;
    }
    if (snap.contains("tokens") && snap["tokens"].is_array()) {
      for (std::size_t i = 0; i < 2 && i < snap["tokens"].size(); ++i) {
        const auto& st = (*t)->seats()[i];
        if (st && snap["tokens"][i].is_string())
          tokens_[st->name] = snap["tokens"][i].get<std::string>();
      }
    }
    summaries_[name] = (*t)->summary();
    tables_[name] = std::make_shared<table_actor>(*this, io_, std::move(*t));
  }
  metrics_.set_tables(tables_.size());
  spdlog::info("restored {} table(s) from {}", tables_.size(), config.db);
}

game_service::~game_service() {
  writer_->stop();
}

void game_service::start() {
  std::lock_guard lock(mutex_);
  for (auto& [name, actor] : tables_) actor->arm_timers();
}

std::shared_ptr<service> make_game_service(const server_config& config, metrics& counters,
                                           asio::io_context& io) {
  auto svc = std::make_shared<game_service>(config, counters, io);
  svc->start();
  return svc;
}

void game_service::set_summary(const std::string& table, json summary) {
  std::lock_guard lock(mutex_);
  if (summary.is_null()) {
    // The table is idle: nobody present, no seat, no match. Forget it, unless a
    // message for it is already on its way (then it is not idle for long).
    const auto it = tables_.find(table);
    if (it == tables_.end() || it->second->pending.load() != 0) return;
    summaries_.erase(table);
    tables_.erase(table);
    metrics_.set_tables(tables_.size());
    try {
      storage_->delete_table(table);
    } catch (const std::exception& e) {
      spdlog::error("table {}: {}", table, e.what());
    }
    return;
  }
  summaries_[table] = std::move(summary);
}

std::string game_service::token_of(const std::string& name) {
  std::lock_guard lock(mutex_);
  auto& t = tokens_[name];
  if (t.empty()) t = new_token();
  return t;
}

void game_service::on_open(const std::shared_ptr<client>& c) {
  std::lock_guard lock(mutex_);
  sessions_[c->id()] = session_info{c, {}, {}, 0};
}

void game_service::send_error(const std::shared_ptr<client>& c, std::string_view code,
                              std::string_view message, const std::optional<json>& re) {
  metrics_.error(code);
  c->send(frame_of(protocol::error_message(code, message, re)));
}

bool game_service::valid_name(const std::string& name) const {
  if (name.empty() || name.size() > config_.max_name_bytes) return false;
  if (!protocol::valid_utf8(name) || protocol::has_control(name)) return false;
  if (name.front() == '/') return false;
  for (char ch : name)
    if (ch == ' ' || ch == '\t') return false;
  return true;
}

void game_service::on_text(const std::shared_ptr<client>& c, std::string text) {
  const auto t0 = clock_type::now();
  auto decoded = protocol::decode(text);
  if (!decoded) {
    send_error(c, decoded.err().code, decoded.err().message, no_re);
    return;
  }
  const auto& m = *decoded;
  switch (m.what) {
    case protocol::client_message::kind::ping: {
      json pong{{"type", "pong"}};
      if (m.id) pong["re"] = *m.id;
      c->send(frame_of(pong));
      return;
    }
    case protocol::client_message::kind::hello:
      on_hello(c, m);
      return;
    default:
      break;
  }
  std::string name;
  {
    std::lock_guard lock(mutex_);
    const auto it = sessions_.find(c->id());
    if (it != sessions_.end()) name = it->second.name;
  }
  if (name.empty()) {
    send_error(c, "hello_first", "say hello with your name first", m.id);
    return;
  }
  if (!m.table) {
    if (m.what != protocol::client_message::kind::line) {
      send_error(c, "bad_message", "enter and exit need a table", m.id);
      return;
    }
    on_lobby_line(c, name, m, t0);
    return;
  }
  if (!valid_name(*m.table)) {
    send_error(c, "bad_table",
               "a table name is 1 to " + std::to_string(config_.max_name_bytes) +
                   " bytes without spaces or control characters",
               m.id);
    return;
  }
  if (m.what == protocol::client_message::kind::exit) {
    std::shared_ptr<table_actor> actor;
    {
      std::lock_guard lock(mutex_);
      auto& s = sessions_[c->id()];
      s.tables.erase(*m.table);
      const auto it = tables_.find(*m.table);
      if (it != tables_.end()) actor = it->second;
    }
    if (actor) actor->exit(c->id(), name);
    return;
  }
  std::optional<protocol::command> cmd;
  if (m.what == protocol::client_message::kind::line) {
    if (m.text.size() > config_.max_chat_bytes) {
      send_error(c, "too_long",
                 "a line is at most " + std::to_string(config_.max_chat_bytes) + " bytes", m.id);
      return;
    }
    auto parsed = protocol::parse_line(m.text);
    if (!parsed) {
      send_error(c, parsed.err().code, parsed.err().message, m.id);
      return;
    }
    if (parsed->kind == protocol::command_kind::tables) {
      on_lobby_line(c, name, m, t0);
      return;
    }
    cmd = std::move(*parsed);
  }
  std::shared_ptr<table_actor> actor;
  {
    std::lock_guard lock(mutex_);
    auto& s = sessions_[c->id()];
    std::string code;
    std::string why;
    actor = table_for(*m.table, s, code, why);
    if (!actor) {
      metrics_.error(code);
      c->send(frame_of(protocol::error_message(code, why, m.id)));
      return;
    }
    s.tables.insert(*m.table);
    ++actor->pending;
  }
  if (cmd) {
    actor->line(c, name, std::move(*cmd), t0, m.id);
  } else {
    actor->enter(c, name, m.id);
  }
}

std::shared_ptr<table_actor> game_service::table_for(const std::string& name, session_info& s,
                                                     std::string& code, std::string& why) {
  if (shutting_down_) {
    code = "shutting_down";
    why = "the server is shutting down";
    return nullptr;
  }
  const auto it = tables_.find(name);
  if (it != tables_.end()) return it->second;
  if (tables_.size() >= config_.max_tables) {
    code = "too_many_tables";
    why = "the server has as many tables as it allows: join an existing one";
    return nullptr;
  }
  if (s.tables_created >= config_.max_tables_per_client) {
    code = "too_many_tables";
    why = "you have created as many tables as one player may";
    return nullptr;
  }
  ++s.tables_created;
  table_hooks hooks{[this](const match_record& r) { return storage_->save_match(r); }, iso_now,
                    config_.max_chat_bytes};
  auto actor = std::make_shared<table_actor>(
      *this, io_, std::make_unique<table>(name, dice_, std::move(hooks)));
  tables_[name] = actor;
  metrics_.set_tables(tables_.size());
  return actor;
}

void game_service::on_hello(const std::shared_ptr<client>& c, const protocol::client_message& m) {
  std::vector<std::shared_ptr<table_actor>> rejoin;
  std::shared_ptr<client> replaced;
  json welcome;
  {
    std::lock_guard lock(mutex_);
    auto& s = sessions_[c->id()];
    if (!s.name.empty()) {
      metrics_.error("already_hello");
      c->send(frame_of(
          protocol::error_message("already_hello", "you already said hello as " + s.name, m.id)));
      return;
    }
    std::string name = m.name;
    bool resumed = false;
    if (!m.resume.empty()) {
      for (const auto& [n, t] : tokens_) {
        if (t == m.resume) {
          name = n;
          resumed = true;
          break;
        }
      }
      if (!resumed && name.empty()) {
        metrics_.error("bad_resume");
        c->send(frame_of(protocol::error_message(
            "bad_resume", "that resume token is not known: say hello with a name", m.id)));
        c->strike("bad resume token");
        return;
      }
    }
    if (!resumed) {
      if (!valid_name(name)) {
        metrics_.error("bad_name");
        c->send(frame_of(protocol::error_message(
            "bad_name",
            "a name is 1 to " + std::to_string(config_.max_name_bytes) +
                " bytes of UTF-8 without spaces or control characters, not starting with /",
            m.id)));
        c->strike("refused name");
        return;
      }
      if (online_.count(name) || tokens_.count(name)) {
        metrics_.error("name_taken");
        c->send(frame_of(protocol::error_message(
            "name_taken",
            "the name " + name + " is in use: choose another, or resume with its token", m.id)));
        c->strike("name taken");
        return;
      }
    }
    // A resumed name may still be held by a stale connection: the new one wins.
    if (const auto it = online_.find(name); it != online_.end() && it->second != c->id()) {
      const auto old = sessions_.find(it->second);
      if (old != sessions_.end()) {
        replaced = old->second.who.lock();
        for (const auto& t : old->second.tables) {
          const auto ta = tables_.find(t);
          if (ta != tables_.end()) ta->second->exit(it->second, name);
        }
        old->second.tables.clear();
        old->second.name.clear();
      }
    }
    s.name = name;
    online_[name] = c->id();
    auto& token = tokens_[name];
    if (token.empty()) token = new_token();
    json seated = json::array();
    for (const auto& [tname, summary] : summaries_) {
      const auto& players = summary["players"];
      if (players["red"] == name || players["black"] == name) {
        seated.push_back(tname);
        const auto ta = tables_.find(tname);
        if (ta != tables_.end()) {
          rejoin.push_back(ta->second);
          ++ta->second->pending;
          s.tables.insert(tname);
        }
      }
    }
    welcome = json{{"type", "welcome"},
                   {"name", name},
                   {"resume", token},
                   {"resumed", resumed},
                   {"protocol", protocol::protocol_version},
                   {"server", std::string("gammond ") + GAMMOND_VERSION},
                   {"tables", seated}};
    if (m.id) welcome["re"] = *m.id;
  }
  if (replaced) replaced->close("replaced by a new connection");
  c->send(frame_of(welcome));
  c->identified();
  for (auto& actor : rejoin) actor->enter(c, welcome["name"].get<std::string>(), no_re);
}

void game_service::on_lobby_line(const std::shared_ptr<client>& c, const std::string& name,
                                 const protocol::client_message& m, clock_type::time_point t0) {
  auto parsed = protocol::parse_line(m.text);
  if (!parsed) {
    send_error(c, parsed.err().code, parsed.err().message, m.id);
    return;
  }
  switch (parsed->kind) {
    case protocol::command_kind::tables: {
      json msg = tables_message();
      if (m.id) msg["re"] = *m.id;
      c->send(frame_of(msg));
      break;
    }
    case protocol::command_kind::help: {
      const auto text = protocol::help_text(parsed->text);
      if (!text) {
        send_error(c, "unknown_command", "no help for that: try /help", m.id);
        return;
      }
      json msg{{"type", "info"}, {"topic", "help"}, {"text", *text}};
      if (m.id) msg["re"] = *m.id;
      c->send(frame_of(msg));
      break;
    }
    case protocol::command_kind::chat: {
      if (parsed->text.size() > config_.max_chat_bytes) {
        send_error(c, "too_long", "a chat line is too long", m.id);
        return;
      }
      auto frame = frame_of(json{{"type", "chat"}, {"from", name}, {"text", parsed->text}});
      std::vector<std::shared_ptr<client>> all;
      {
        std::lock_guard lock(mutex_);
        for (const auto& [id, s] : sessions_)
          if (!s.name.empty())
            if (auto other = s.who.lock()) all.push_back(other);
      }
      for (auto& other : all) other->send(frame);
      break;
    }
    default:
      send_error(c, "no_table", "that command works at a table: enter one first", m.id);
      return;
  }
  metrics_.command(protocol::to_string(parsed->kind), clock_type::now() - t0);
}

json game_service::tables_message() const {
  std::lock_guard lock(mutex_);
  json list = json::array();
  for (const auto& [name, summary] : summaries_) list.push_back(summary);
  return json{{"type", "tables"}, {"tables", std::move(list)}};
}

void game_service::on_close(const std::shared_ptr<client>& c) {
  std::vector<std::pair<std::shared_ptr<table_actor>, std::string>> leave;
  {
    std::lock_guard lock(mutex_);
    const auto it = sessions_.find(c->id());
    if (it == sessions_.end()) return;
    const std::string name = it->second.name;
    for (const auto& t : it->second.tables) {
      const auto ta = tables_.find(t);
      if (ta != tables_.end()) leave.emplace_back(ta->second, name);
    }
    if (!name.empty()) {
      const auto on = online_.find(name);
      if (on != online_.end() && on->second == c->id()) {
        online_.erase(on);
        // The token outlives the connection only while the name holds a seat.
        bool seated = false;
        for (const auto& [tname, summary] : summaries_) {
          const auto& players = summary["players"];
          if (players["red"] == name || players["black"] == name) seated = true;
        }
        if (!seated) tokens_.erase(name);
      }
    }
    sessions_.erase(it);
  }
  for (auto& [actor, name] : leave) actor->exit(c->id(), name);
}

std::optional<http_reply> game_service::on_http_get(std::string_view target) {
  constexpr std::string_view prefix = "/matches/";
  constexpr std::string_view suffix = ".mat";
  if (target.substr(0, prefix.size()) != prefix || target.size() <= prefix.size() + suffix.size() ||
      target.substr(target.size() - suffix.size()) != suffix)
    return std::nullopt;
  const auto digits = target.substr(prefix.size(), target.size() - prefix.size() - suffix.size());
  if (digits.size() > 18) return std::nullopt;
  std::int64_t id = 0;
  for (char ch : digits) {
    if (ch < '0' || ch > '9') return std::nullopt;
    id = id * 10 + (ch - '0');
  }
  const auto record = storage_->load_match(id);
  if (!record) return std::nullopt;
  return http_reply{200, "text/plain; charset=utf-8", to_mat(*record)};
}

void game_service::shutdown() {
  std::vector<std::shared_ptr<table_actor>> all;
  {
    std::lock_guard lock(mutex_);
    shutting_down_ = true;
    for (auto& [name, actor] : tables_) all.push_back(actor);
  }
  for (auto& actor : all) {
    auto done = std::make_shared<std::promise<void>>();
    auto f = done->get_future();
    actor->flush(done);
    if (f.wait_for(std::chrono::seconds(5)) != std::future_status::ready)
      spdlog::warn("table {} did not flush in time", actor->name());
  }
  writer_->stop();  // everything queued is on disk when this returns
  spdlog::info("saved {} table(s) ({} writes in {} transactions since the start)", all.size(),
               writer_->writes(), writer_->transactions());
}

std::shared_ptr<const std::string> game_service::rate_limited_reply(std::string_view text) {
  const auto decoded = protocol::decode(text);
  if (!decoded || !decoded->id) return nullptr;
  return frame_of(
      protocol::error_message("rate_limited", "too many commands: slow down", decoded->id));
}

}  // namespace bg::server
