#include "bg/server/cluster/cluster_bus.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <stdexcept>

#include "store/postgres/pg_connection.hpp"

namespace bg::server {

using nlohmann::json;

namespace {

constexpr std::array<const char*, 3> channels{"gammond_lobby", "gammond_chat", "gammond_sessions"};

/// The condition "the node of `alias`.node is live": its heartbeat (cluster_nodes,
/// written by cluster_node) is younger than the lease, which is the statement's parameter `$n`
/// (milliseconds).
std::string live(const std::string& alias, int n) {
  return "EXISTS (SELECT 1 FROM cluster_nodes cn WHERE cn.id = " + alias +
         ".node AND cn.heartbeat_at > now() - $" + std::to_string(n) +
         "::bigint * interval '1 millisecond')";
}

/// The condition "the lobby row `l` is a tournament's" (tournaments are listed under
/// `tournament:KEY`, a name no table can have).
constexpr const char* is_tournament = "l.table_name LIKE 'tournament:%'";

/// The lobby entries of `rows` (columns: entry as JSON text, node), each with its
/// `node`; entries that are not JSON objects are left out.
json entries_of(const pg::result& rows) {
  json list = json::array();
  for (int i = 0; i < rows.rows(); ++i) {
    auto entry = json::parse(rows.text(i, 0), nullptr, false);
    if (entry.is_discarded() || !entry.is_object()) continue;
    entry["node"] = rows.text(i, 1);
    list.push_back(std::move(entry));
  }
  return list;
}

/// Runs `f`; on a storage error logs it (`what`), calls `failed`, and rethrows a lost
/// connection (the bus reconnects).
template <typename F, typename G>
void attempt(const char* what, F&& f, G&& failed) {
  try {
    f();
  } catch (const pg::connection_lost&) {
    failed();
    throw;
  } catch (const std::exception& e) {
    spdlog::error("cluster: {}: {}", what, e.what());
    failed();
  }
}

}  // namespace

cluster_bus::cluster_bus(options o) : o_(std::move(o)) {
  pg::connect_settings settings;
  settings.connect_timeout_s = o_.connect_timeout_s;
  settings.statement_timeout_ms = o_.statement_timeout_ms;
  db_ = std::make_unique<pg::connection>(o_.url, settings);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw std::runtime_error("cluster: cannot create an eventfd");
  // Logged here, before the thread starts: spdlog's default logger (created on first
  // use, inside Debian's uninstrumented libspdlog) then exists before any bus thread logs,
  // so two buses starting at once do not both make its first use (TSan reported that).
  spdlog::debug("cluster: node {}: the bus starts", o_.node_id);
  thread_ = std::thread([this] { run(); });
}

cluster_bus::~cluster_bus() {
  stop();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void cluster_bus::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake();
  if (!thread_.joinable()) return;
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();  // stopped from one of its own callbacks: it ends after it
  } else {
    thread_.join();
  }
}

void cluster_bus::wake() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto n = ::write(wake_fd_, &one, sizeof one);
}

std::optional<std::string> cluster_bus::encode(json payload, const std::string& node) {
  payload["node"] = node;
  std::string text = payload.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > max_payload) return std::nullopt;
  return text;
}

std::optional<cluster_bus::event> cluster_bus::decode(std::string_view channel,
                                                      std::string_view text) {
  constexpr std::string_view prefix = "gammond_";
  if (channel.substr(0, prefix.size()) != prefix) return std::nullopt;
  event e;
  e.channel = std::string(channel.substr(prefix.size()));
  if (e.channel != "lobby" && e.channel != "chat" && e.channel != "sessions") return std::nullopt;
  e.payload = json::parse(text, nullptr, false);
  if (e.payload.is_discarded() || !e.payload.is_object()) return std::nullopt;
  const auto node = e.payload.find("node");
  if (node == e.payload.end() || !node->is_string()) return std::nullopt;
  return e;
}

bool cluster_bus::enqueue(job j) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    if (jobs_.size() >= o_.queue) {
      ++dropped_;
      return false;
    }
    jobs_.push_back(std::move(j));
  }
  wake();
  return true;
}

std::uint64_t cluster_bus::dropped() const noexcept {
  std::lock_guard lock(mutex_);
  return dropped_;
}

std::uint64_t cluster_bus::reconnections() const noexcept {
  std::lock_guard lock(mutex_);
  return reconnections_;
}

bool cluster_bus::listening() const noexcept {
  std::lock_guard lock(mutex_);
  return listening_;
}

// --- the bus's thread ---------------------------------------------------------------

bool cluster_bus::connect() {
  try {
    db_->drop();
    db_->ensure();
    for (const auto* channel : channels)
      db_->command("listening", (std::string("LISTEN ") + channel).c_str());
    // This node's rows of before (a restart, or a connection lost meanwhile) go; the
    // service writes what is true now (on_connect) in the same order as anything else.
    db_->command("forgetting this node's rows", "BEGIN");
    db_->exec("forgetting this node's lobby", "DELETE FROM cluster_lobby WHERE node = $1",
              {o_.node_id});
    db_->exec("forgetting this node's sessions", "DELETE FROM cluster_sessions WHERE node = $1",
              {o_.node_id});
    db_->command("forgetting this node's rows", "COMMIT");
  } catch (const std::exception& e) {
    spdlog::warn("cluster: cannot listen on PostgreSQL: {}", e.what());
    db_->drop();
    return false;
  }
  {
    std::lock_guard lock(mutex_);
    listening_ = true;
    ++reconnections_;
  }
  spdlog::info("cluster: node {} listens on {} (lease {} ms)", o_.node_id, db_->masked_url(),
               o_.lease.count());
  if (o_.on_connect) o_.on_connect();
  return true;
}

void cluster_bus::run() {
  auto backoff = std::chrono::milliseconds(100);
  bool first = true;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
    }
    if (!db_->connected()) {
      {
        std::lock_guard lock(mutex_);
        listening_ = false;
      }
      if (!connect()) {
        pollfd p{wake_fd_, POLLIN, 0};
        ::poll(&p, 1, static_cast<int>(backoff.count()));
        std::uint64_t n = 0;
        [[maybe_unused]] const auto r = ::read(wake_fd_, &n, sizeof n);
        backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
        continue;
      }
      if (first) {
        std::lock_guard lock(mutex_);
        reconnections_ = 0;
      }
      first = false;
      backoff = std::chrono::milliseconds(100);
    }
    try {
      flush_lobby(*db_);
      for (;;) {
        job j;
        {
          std::lock_guard lock(mutex_);
          if (stopping_ || jobs_.empty()) break;
          j = std::move(jobs_.front());
          jobs_.pop_front();
        }
        j(*db_);
      }
      receive(*db_);
      std::array<pollfd, 2> fds{pollfd{db_->socket(), POLLIN, 0}, pollfd{wake_fd_, POLLIN, 0}};
      // A timeout all the same: a connection lost without a word is found by the next
      // statement, and a quiet bus stays cheap.
      if (::poll(fds.data(), fds.size(), 1000) < 0 && errno != EINTR)
        throw pg::connection_lost("polling the cluster's connection failed");
      if (fds[1].revents & POLLIN) {
        std::uint64_t n = 0;
        [[maybe_unused]] const auto r = ::read(wake_fd_, &n, sizeof n);
      }
      if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) receive(*db_);
    } catch (const std::exception& e) {
      spdlog::warn("cluster: {}; connecting again", e.what());
      db_->drop();
    }
  }
  db_->drop();
  std::lock_guard lock(mutex_);
  listening_ = false;
}

void cluster_bus::receive(pg::connection& db) {
  for (auto& n : db.notifications()) {
    auto e = decode(n.channel, n.payload);
    if (!e) {
      spdlog::warn("cluster: a notification on {} is not gammond's: ignored",
                   json(n.channel).dump(-1, ' ', false, json::error_handler_t::replace));
      continue;
    }
    if (e->payload["node"] == o_.node_id) continue;  // our own, heard back
    bool post = false;
    {
      std::lock_guard lock(mutex_);
      if (events_.size() >= o_.queue) {
        ++dropped_;
        continue;
      }
      events_.push_back(std::move(*e));
      if (!draining_) draining_ = post = true;
    }
    if (post && o_.post)
      o_.post([this] {
        for (;;) {
          event ev;
          {
            std::lock_guard lock(mutex_);
            if (events_.empty()) {
              draining_ = false;
              return;
            }
            ev = std::move(events_.front());
            events_.pop_front();
          }
          if (o_.on_event) o_.on_event(ev);
        }
      });
  }
}

void cluster_bus::flush_lobby(pg::connection& db) {
  std::map<std::string, std::optional<std::string>> batch;
  {
    std::lock_guard lock(mutex_);
    batch.swap(lobby_);
  }
  if (batch.empty()) return;
  try {
    db.command("publishing the lobby", "BEGIN");
    for (const auto& [table, entry] : batch) {
      if (entry) {
        db.exec("publishing a lobby entry",
                "INSERT INTO cluster_lobby(table_name, node, entry, updated_at) "
                "VALUES ($1, $2, $3, now()) ON CONFLICT (table_name) DO UPDATE SET "
                "node = excluded.node, entry = excluded.entry, updated_at = now()",
                {table, o_.node_id, *entry});
      } else {
        db.exec("removing a lobby entry",
                "DELETE FROM cluster_lobby WHERE table_name = $1 AND node = $2",
                {table, o_.node_id});
      }
      // Sent at COMMIT only: an event announces what was written.
      if (const auto payload = encode(json{{"table", table}}, o_.node_id))
        db.exec("notifying the lobby", "SELECT pg_notify('gammond_lobby', $1)", {*payload});
    }
    db.command("publishing the lobby", "COMMIT");
  } catch (const pg::connection_lost&) {
    // Published again in full on the next connection (on_connect).
    throw;
  } catch (const std::exception& e) {
    spdlog::error("cluster: the lobby could not be published: {}", e.what());
    try {
      db.command("rolling back", "ROLLBACK");
    } catch (const std::exception&) {
      db.drop();  // published again in full on the next connection
    }
  }
}

// --- requests ----------------------------------------------------------------------

void cluster_bus::publish_table(const std::string& table, std::optional<std::string> entry) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    lobby_[table] = std::move(entry);  // bounded by the node's tables (--max-tables)
  }
  wake();
}

void cluster_bus::list_tables(std::size_t page, std::size_t per_page,
                              std::function<void(std::optional<json>)> done) {
  const std::string lease = std::to_string(o_.lease.count());
  const bool queued = enqueue([=](pg::connection& db) {
    attempt(
        "reading the lobby",
        [&] {
          const std::string where =
              " FROM cluster_lobby l WHERE " + live("l", 1) + " AND NOT " + is_tournament;
          const auto total = static_cast<std::size_t>(
              db.exec("counting the lobby", ("SELECT count(*)" + where).c_str(), {lease})
                  .integer(0, 0));
          const std::size_t pages = std::max<std::size_t>(1, (total + per_page - 1) / per_page);
          const std::size_t p = std::clamp<std::size_t>(page, 1, pages);
          const auto rows =
              db.exec("reading the lobby",
                      ("SELECT entry, node" + where +
                       " ORDER BY table_name COLLATE \"C\" LIMIT $2 OFFSET $3")
                          .c_str(),
                      {lease, std::to_string(per_page), std::to_string((p - 1) * per_page)});
          json list = entries_of(rows);
          done(json{{"type", "tables"},
                    {"tables", std::move(list)},
                    {"page", p},
                    {"pages", pages},
                    {"total", total}});
        },
        [&] { done(std::nullopt); });
  });
  if (!queued) done(std::nullopt);
}

void cluster_bus::list_tournaments(std::function<void(std::optional<json>)> done) {
  const std::string lease = std::to_string(o_.lease.count());
  const bool queued = enqueue([=](pg::connection& db) {
    attempt(
        "reading the tournaments",
        [&] {
          const auto rows =
              db.exec("reading the tournaments",
                      ("SELECT entry, node FROM cluster_lobby l WHERE " + live("l", 1) + " AND " +
                       is_tournament + " ORDER BY table_name COLLATE \"C\"")
                          .c_str(),
                      {lease});
          json list = entries_of(rows);
          done(std::move(list));
        },
        [&] { done(std::nullopt); });
  });
  if (!queued) done(std::nullopt);
}

bool cluster_bus::deliver(const std::vector<std::string>& keys, const json& message) {
  return say(json{{"deliver", message}, {"to", keys}});
}

bool cluster_bus::say(const json& line) {
  auto payload = encode(line, o_.node_id);
  if (!payload) {
    std::lock_guard lock(mutex_);
    ++dropped_;
    return false;
  }
  return enqueue([payload = std::move(*payload)](pg::connection& db) {
    attempt(
        "sending a lobby chat line",
        [&] {
          db.exec("sending a lobby chat line", "SELECT pg_notify('gammond_chat', $1)", {payload});
        },
        [] {});
  });
}

void cluster_bus::claim(const std::string& key, const std::string& name,
                        const std::string& token_hash, std::function<void(claim_result)> done) {
  const std::string lease = std::to_string(o_.lease.count());
  const bool queued = enqueue([=, this](pg::connection& db) {
    attempt(
        "claiming a name",
        [&] {
          // One statement: an account's name is refused; a row of a live node other than
          // this one keeps the name; otherwise (none, ours, or a dead node's) it is ours.
          const auto r = db.exec(
              "claiming a name",
              ("WITH account AS (SELECT 1 FROM accounts WHERE name_key = $1), "
               "taken AS (INSERT INTO cluster_sessions AS s(name_key, name, node, token_hash, "
               "connected, updated_at) SELECT $1, $2, $3, decode($4, 'hex'), true, now() "
               "WHERE NOT EXISTS (SELECT 1 FROM account) "
               "ON CONFLICT (name_key) DO UPDATE SET name = excluded.name, node = "
               "excluded.node, token_hash = excluded.token_hash, connected = true, updated_at "
               "= now() WHERE s.node = excluded.node OR NOT " +
               live("s", 5) +
               " RETURNING 1) "
               "SELECT (SELECT count(*) FROM account), (SELECT count(*) FROM taken)")
                  .c_str(),
              {key, name, o_.node_id, token_hash, lease});
          if (r.integer(0, 0) != 0) {
            done(claim_result::registered);
          } else {
            done(r.integer(0, 1) != 0 ? claim_result::claimed : claim_result::taken);
          }
        },
        [&] { done(claim_result::failed); });
  });
  if (!queued) done(claim_result::failed);
}

void cluster_bus::take(const std::string& key, const std::string& name,
                       const std::string& token_hash, bool connected, bool announce,
                       bool unless_live_elsewhere) {
  const std::string lease = std::to_string(o_.lease.count());
  enqueue([=, this](pg::connection& db) {
    attempt(
        "taking a name",
        [&] {
          db.command("taking a name", "BEGIN");
          const std::string sql =
              "INSERT INTO cluster_sessions AS s(name_key, name, node, token_hash, connected, "
              "updated_at) VALUES ($1, $2, $3, decode(nullif($4, ''), 'hex'), $5::boolean, "
              "now()) ON CONFLICT (name_key) DO UPDATE SET name = excluded.name, node = "
              "excluded.node, token_hash = excluded.token_hash, connected = "
              "excluded.connected, updated_at = now() WHERE NOT $6::boolean OR s.node = "
              "excluded.node OR NOT " +
              live("s", 7);
          db.exec("taking a name", sql.c_str(),
                  {key, name, o_.node_id, token_hash, connected ? "true" : "false",
                   unless_live_elsewhere ? "true" : "false", lease});
          if (announce)
            if (const auto payload = encode(json{{"op", "take"}, {"key", key}}, o_.node_id))
              db.exec("announcing a session", "SELECT pg_notify('gammond_sessions', $1)",
                      {*payload});
          db.command("taking a name", "COMMIT");
        },
        [&] {
          if (db.connected()) {
            try {
              db.command("rolling back", "ROLLBACK");
            } catch (const std::exception&) {
              db.drop();
            }
          }
        });
  });
}

bool cluster_bus::after_queued(std::function<void()> done) {
  return enqueue([done = std::move(done)](pg::connection&) { done(); });
}

void cluster_bus::release(const std::string& key) {
  enqueue([=, this](pg::connection& db) {
    attempt(
        "releasing a name",
        [&] {
          db.exec("releasing a name",
                  "DELETE FROM cluster_sessions WHERE name_key = $1 AND node = $2",
                  {key, o_.node_id});
        },
        [] {});
  });
}

void cluster_bus::find_token(const std::string& token_hash,
                             std::function<void(std::optional<session_row>)> done) {
  const std::string lease = std::to_string(o_.lease.count());
  const bool queued = enqueue([=](pg::connection& db) {
    attempt(
        "finding a resume token",
        [&] {
          const auto r = db.exec("finding a resume token",
                                 ("SELECT name_key, name, node, " + live("s", 2) +
                                  ", EXISTS (SELECT 1 FROM accounts a WHERE a.name_key = "
                                  "s.name_key) FROM cluster_sessions s WHERE token_hash = "
                                  "decode($1, 'hex')")
                                     .c_str(),
                                 {token_hash, lease});
          if (r.rows() == 0) {
            done(std::nullopt);
            return;
          }
          done(session_row{r.text(0, 0), r.text(0, 1), r.text(0, 2), r.text(0, 3) == "t",
                           r.text(0, 4) == "t"});
        },
        [&] { done(std::nullopt); });
  });
  if (!queued) done(std::nullopt);
}

void cluster_bus::owner_of(const std::string& key,
                           std::function<void(std::optional<std::string>)> done) {
  const bool queued = enqueue([=](pg::connection& db) {
    attempt(
        "reading a session",
        [&] {
          const auto r = db.exec("reading a session",
                                 "SELECT node FROM cluster_sessions WHERE name_key = $1", {key});
          done(r.rows() == 0 ? std::string() : r.text(0, 0));
        },
        [&] { done(std::nullopt); });
  });
  if (!queued) done(std::nullopt);
}

void cluster_bus::online(
    std::size_t limit,
    std::function<void(std::optional<std::pair<std::vector<std::string>, std::size_t>>)> done) {
  const std::string lease = std::to_string(o_.lease.count());
  const bool queued = enqueue([=](pg::connection& db) {
    attempt(
        "reading who is online",
        [&] {
          const auto r = db.exec("reading who is online",
                                 ("SELECT name, count(*) OVER () FROM cluster_sessions s WHERE "
                                  "connected AND " +
                                  live("s", 1) + " ORDER BY name_key COLLATE \"C\" LIMIT $2")
                                     .c_str(),
                                 {lease, std::to_string(limit)});
          std::vector<std::string> names;
          for (int i = 0; i < r.rows(); ++i) names.push_back(r.text(i, 0));
          const std::size_t total = r.rows() == 0 ? 0 : static_cast<std::size_t>(r.integer(0, 1));
          done(std::make_pair(std::move(names), total));
        },
        [&] { done(std::nullopt); });
  });
  if (!queued) done(std::nullopt);
}

}  // namespace bg::server
