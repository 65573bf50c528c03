#include "bg/server/service/game_service.hpp"

#include "bg/i18n/catalogue.hpp"
#include "players/name_errors.hpp"

#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <ctime>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <set>
#include <utility>

#include "api/account_views.hpp"
#include "bg/bots/bot_names.hpp"
#include "bg/bots/gnubg_level.hpp"
#include "bg/protocol/command.hpp"
#include "bg/protocol/help_pages.hpp"
#include "bg/server/api/analysis_view.hpp"
#include "bg/server/api/match_replay.hpp"
#include "bg/server/players/names.hpp"
#include "bg/server/records/mat_export.hpp"
#include "bg/server/records/record_json.hpp"
#include "bg/server/store/database_url.hpp"
#include "bg/server/store/sqlite_store.hpp"
#include "bg/server/table/frames.hpp"
#include "bg/server/table/table_actor.hpp"
#include "service/service_helpers.hpp"

namespace bg::server {

namespace asio = boost::asio;
using nlohmann::json;
using service_helpers::id_of;

namespace {

/// True when `s` is plain ASCII (its name_key() is the same under every version).
bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

std::string iso_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

// ------------------------------------------------------------------------------------
// game_service

game_service::game_service(const server_config& config, metrics& counters, asio::io_context& io,
                           server_parts parts)
    : config_(config),
      metrics_(counters),
      io_(io),
      storage_(std::move(parts.storage)),
      writer_(std::move(parts.writer)),
      reader_(std::move(parts.reader)),
      epoch_ms_at_start_(std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count()),
      steady_at_start_(clock_type::now()),
      gnubg_problem_(std::move(parts.computer_players.gnubg_problem)),
      gnubg_(std::move(parts.computer_players.gnubg)),
      gnubg_players_(std::move(parts.computer_players.gnubg_players)),
      long_bots_(std::move(parts.computer_players.long_bots)),
      long_players_(std::move(parts.computer_players.long_players)),
      throttle_(login_limits{config.login_delay_after, config.login_delay, config.login_lock_after,
                             config.login_lock, config.login_throttle_entries, config.login_forgive,
                             config.login_known_addresses, config.register_per_hour}),
      bans_(config.max_bans),
      auth_(config.auth_threads, config.auth_queue, config.auth_queue_per_address) {
  // Accounts: the registered names' keys, the admins, and the ratings of the names in
  // use (forgotten with the name).
  load_accounts();
  players_.on_release([this](const std::string& key) {
    ratings_.forget(key);
    // In a cluster the name is free on every node, unless its seat moved to another
    // node (a fenced table): its session there keeps its resume token valid.
    if (bus_ && !keep_cluster_sessions_) bus_->release(key);
  });
  // Moderation (issue 13): the bounds of ignore lists and remembered addresses, and the
  // bans still in force, by name.
  players_.set_limits(config.max_ignored, config.remembered_addresses);
  if (config.cluster())
    players_.set_resume_window(config.resume_window, config.resume_window_names);
  load_bans();
  load_admins();
  log_computer_players();
  open_bot_accounts();
  // A node of a cluster restores no table here: its cluster_node claims its own tables
  // (and those of dead nodes) at its first heartbeat, and they are rebuilt then.
  if (!config.cluster()) {
    for (auto& saved : storage_->load_tables()) {
      if (saved.name.starts_with(tournament_row_prefix)) {
        std::lock_guard lock(mutex_);
        restore_tournament(saved, 0);
      } else {
        restore_saved(saved, 0);
      }
    }
  }
  metrics_.set_tables(tables_.size());
  start_analysis(std::move(parts.analysis));
  spdlog::info("{} registered account(s), {} admin name(s)", players_.registered_count(),
               admin_keys_.size());
  log_database();
}

std::string game_service::moved_name_key(const std::string& old, const std::string& name) {
  const std::string now = name_key(name);
  try {
    if (storage_->move_name_key(old, now)) {
      spdlog::info("name {}: stored under its new key (Unicode case folding)", log_safe(name));
      return now;
    }
    spdlog::warn("name {}: its key is now another account's; it stays under its old key",
                 log_safe(name));
  } catch (const std::exception& e) {
    spdlog::error("name {}: its key could not be moved: {}", log_safe(name), e.what());
  }
  return old;
}

void game_service::load_accounts() {
  for (auto& key : storage_->account_keys()) {
    // A key beyond ASCII may be an older name_key()'s (before Unicode's full case
    // folding): moved to the name's key now, with the name's bans and ignore entries.
    std::string name;
    if (!is_ascii(key)) {
      if (auto a = storage_->find_account(key)) name = std::move(a->name);
      if (!name.empty() && name_key(name) != key) key = moved_name_key(key, name);
    }
    players_.add_registered(key, name);
  }
}

void game_service::load_bans() {
  std::map<std::string, std::vector<ban>> by_name;
  for (auto& b : storage_->active_bans(clock_ms())) {
    if (!is_ascii(b.name_key) && name_key(b.name) != b.name_key)
      b.name_key = moved_name_key(b.name_key, b.name);  // a guest's ban, as above
    by_name[b.name_key].push_back(std::move(b));
  }
  for (const auto& [key, bans] : by_name)
    if (bans_.set(bans, clock_ms()) == ban_list::outcome::full)
      spdlog::warn("--max-bans: the bans of {} are not in force (too many bans)",
                   bans.front().name);
}

void game_service::load_admins() {
  for (const auto& admin : config_.admins) {
    if (const auto why = name_problem_of(admin)) {
      spdlog::warn("--admins: \"{}\" cannot be a name ({}); ignored", log_safe(admin), *why);
      continue;
    }
    const auto key = name_key(admin);
    admin_keys_.insert(key);
    if (!players_.is_registered(key))
      spdlog::warn(
          "--admins: {} is not a registered account: make it on this host with "
          "`gammond admin create NAME --db DB` (nobody can register it over the network)",
          admin);
  }
}

void game_service::log_computer_players() const {
  if (gnubg_problem_.empty()) {
    spdlog::info("computer players: GNU Backgammon {} (up to {} processes, {} s an answer)",
                 config_.gnubg, config_.bot_processes, config_.bot_timeout.count());
  } else {
    spdlog::warn("no computer players for standard backgammon: {}", gnubg_problem_);
  }
}

void game_service::log_database() const {
  if (is_postgres_url(config_.db)) {
    spdlog::info(
        "database {}: PostgreSQL, synchronous_commit={}, statement_timeout {} s, match ids in "
        "blocks of {}; restored {} table(s)",
        masked_database(config_.db), config_.sync == "normal" ? "off" : "on",
        config_.db_statement_timeout.count(), config_.db_id_block, tables_.size());
  } else {
    spdlog::info(
        "database {}: WAL, synchronous={}, max pages {}; restored {} table(s)", config_.db,
        config_.sync == "normal" ? "NORMAL" : "FULL",
        config_.db_max_pages == 0 ? std::string("unlimited") : std::to_string(config_.db_max_pages),
        tables_.size());
  }
}

bool game_service::restore_saved(const saved_table& saved, std::int64_t epoch) {
  const std::string& name = saved.name;
  const json snap = json::parse(saved.snapshot, nullptr, false);
  if (snap.is_discarded()) {
    spdlog::error("table {}: its saved state is not JSON; skipped", name);
    return false;
  }
  auto t = rebuild_saved(saved, snap);
  if (!t) return false;
  t->resume_clock();  // S2: the time the server was down is not charged
  if (t->idle()) {    // nothing to come back to: no match, no seat
    drop_saved(name, epoch);
    return false;
  }
  restore_holds(name, *t, snap);
  lobby_entry entry{t->summary_text(), !t->is_private()};
  if (bus_) {
    // Taken over from a dead node: listed as this node's, and its seated names are
    // this node's unless a live node has them now (a player back elsewhere).
    bus_->publish_table(name, entry.listed ? std::optional(entry.text) : std::nullopt);
    for (const auto& held : t->held_seats())
      if (const auto u = players_.name_in_use(name_key(held)))
        bus_->take(u->key, u->name, u->token_hash, u->connected, false, true);
  }
  lobby_.set(name, std::move(entry));
  auto actor = std::make_shared<table_actor>(*this, io_, std::move(t));
  actor->set_epoch(epoch);
  tables_[name] = std::move(actor);
  return true;
}

std::unique_ptr<table> game_service::rebuild_saved(const saved_table& saved, const json& snap) {
  const std::string& name = saved.name;
  std::vector<json> journal;
  journal.reserve(saved.record_journal.size());
  for (const auto& entry : saved.record_journal) {
    journal.push_back(json::parse(entry, nullptr, false));
    if (journal.back().is_discarded()) break;
  }
  if (!journal.empty() && journal.back().is_discarded()) {
    spdlog::error("table {}: its match record is not JSON; skipped", name);
    return nullptr;
  }
  auto t = table::restore(snap, hooks(), journal);
  if (!t) {
    spdlog::error("table {}: {}; skipped", name, t.err().message);
    return nullptr;
  }
  return std::move(*t);
}

void game_service::drop_saved(const std::string& name, std::int64_t epoch) {
  if (epoch == 0) {
    storage_->delete_table(name);
    return;
  }
  table_write drop;
  drop.name = name;
  drop.drop = true;
  drop.epoch = epoch;
  writer_->submit(std::move(drop), [](write_result&) {});
}

void game_service::restore_holds(const std::string& name, const table& t, const json& snap) {
  // Seated players' resume tokens, kept as SHA-256 hashes ("token_hashes"); snapshots
  // written before that kept the tokens themselves ("tokens") and are hashed here.
  const bool hashed = snap.contains("token_hashes");
  const json& saved_tokens = hashed ? snap["token_hashes"] : snap.value("tokens", json());
  for (const auto& held : t.held_seats()) {
    const auto i = static_cast<std::size_t>(engine::index_of(*t.seat_of(held)));
    std::string hash;
    if (saved_tokens.is_array() && i < saved_tokens.size() && saved_tokens[i].is_string()) {
      hash = saved_tokens[i].get<std::string>();
      if (!hashed) hash = resume_tokens::hash_hex(hash);
    }
    if (!players_.restore_hold(name, held, hash))
      spdlog::warn("table {}: a saved resume token hash is malformed; {} cannot resume", name,
                   held);
  }
  for (const auto& held : t.held_seats()) {
    // Issue 26: in a cluster an account may have been registered on another node
    // since this one started: the store is asked for every seat's name.
    const auto key = name_key(held);
    if (!players_.is_registered(key) && !cluster_) continue;
    if (const auto a = storage_->find_account(key)) {
      players_.add_registered(key, a->name);
      ratings_.set(key, {a->standings[0].rating, a->standings[1].rating});
    }
  }
}

game_service::~game_service() {
  if (bus_) bus_->stop();              // its callbacks use everything below
  if (cluster_) cluster_->stop();      // its callbacks use the tables and the writer
  if (long_bots_) long_bots_->stop();  // its answers go to table actors
  if (analysis_) analysis_->stop();    // its handler writes through the writer
  auth_.stop();
  if (reader_) reader_->stop();
  writer_->stop();
}

void game_service::start_analysis(std::optional<bots::analysis_queue::options> options) {
  if (!options) {  // open_server_parts() left it out for one of these two reasons
    if (config_.analysis_workers == 0) {
      spdlog::info("match analysis is off (--analysis-workers 0)");
    } else {
      spdlog::warn("no GNU Backgammon at {} (--gnubg): finished matches are not analysed",
                   config_.gnubg);
    }
    return;
  }
  analysis_ = std::make_unique<bots::analysis_queue>(
      std::move(*options), [this](const bots::analysis_queue::job& j,
                                  bots::analysis_queue::outcome& out) { analysed(j, out); });
  const std::size_t queued = queue_pending_analyses();
  const auto& o = analysis_->settings();
  spdlog::info(
      "match analysis by {} at level {} ({} worker(s), queue {}, time limit {} s); {} "
      "pending analysis(es) queued again",
      config_.gnubg, bots::to_string(o.level), o.workers, o.capacity,
      config_.analysis_timeout.count(), queued);
}

std::size_t game_service::queue_pending_analyses() {
  // Matches archived before a restart whose analysis did not finish (no I/O thread runs
  // yet: the store is read here directly).
  std::size_t queued = 0;
  for (const auto id : storage_->pending_analyses(std::numeric_limits<std::size_t>::max())) {
    std::optional<match_record> m;
    try {
      m = storage_->load_match(id);
    } catch (const storage_error& e) {
      spdlog::error("match {}: {}", id, e.what());
    }
    analysis_record failed;
    failed.match_id = id;
    failed.status = analysis_status::failed;
    if (!m || !can_export_mat(m->options)) {
      failed.reason = "the match could not be read for analysis";
    } else if (const auto s =
                   analysis_->submit({id, m->table, to_mat(*m), m->players, owners_of(m->players)});
               s == bots::analysis_queue::submitted::full ||
               s == bots::analysis_queue::submitted::owner_full) {
      metrics_.analysis_refused();
      failed.reason = s == bots::analysis_queue::submitted::full
                          ? "the analysis queue was full when the server started again"
                          : "its player had as many matches waiting for analysis as the server "
                            "takes when it started again";
    } else {
      ++queued;
      continue;
    }
    spdlog::warn("match {}: not analysed: {}", id, failed.reason);
    storage_->save_analysis(failed);
  }
  return queued;
}

void game_service::queue_analysis(bots::analysis_queue::job j) {
  if (!analysis_) return;
  const auto id = j.match_id;
  const auto table = j.table;
  if (j.owners.empty()) j.owners = owners_of(j.players);
  switch (analysis_->submit(std::move(j))) {
    case bots::analysis_queue::submitted::queued:
      break;
    case bots::analysis_queue::submitted::full:
      spdlog::warn(
          "the analysis queue is full ({} matches waiting, --analysis-queue): match {} "
          "is not analysed",
          analysis_->waiting(), id);
      metrics_.analysis_refused();
      {
        analysis_record failed;
        failed.match_id = id;
        failed.status = analysis_status::failed;
        failed.reason = "the analysis queue was full when the match ended";
        store_analysis(std::move(failed), table);
      }
      break;
    case bots::analysis_queue::submitted::owner_full:
      spdlog::info(
          "a player of match {} has {} matches waiting for analysis (--analysis-per-player): "
          "it is not analysed",
          id, config_.analysis_per_player);
      metrics_.analysis_refused();
      {
        analysis_record failed;
        failed.match_id = id;
        failed.status = analysis_status::failed;
        failed.reason = "its player had " + std::to_string(config_.analysis_per_player) +
                        " matches waiting for analysis already when it ended";
        store_analysis(std::move(failed), table);
      }
      break;
    case bots::analysis_queue::submitted::duplicate:
    case bots::analysis_queue::submitted::stopped:  // stays pending: queued at the next start
      break;
  }
}

std::vector<std::string> game_service::owners_of(const std::array<std::string, 2>& players) const {
  std::vector<std::string> owners;
  for (const auto& p : players) {
    if (p.empty() || bots::is_bot_name(p) || name_problem_of(p)) continue;
    auto key = name_key(p);
    if (std::find(owners.begin(), owners.end(), key) == owners.end())
      owners.push_back(std::move(key));
  }
  return owners;
}

void game_service::analysed(const bots::analysis_queue::job& j, bots::analysis_queue::outcome& o) {
  metrics_.analysis_finished(o.done, o.crashes, o.seconds);
  analysis_record rec;
  rec.match_id = j.match_id;
  rec.status = o.done ? analysis_status::done : analysis_status::failed;
  rec.level = config_.analysis_level;
  if (o.done) {
    rec.result = o.result.dump();  // on the worker thread, not the writer's
  } else {
    rec.reason = o.reason;
  }
  store_analysis(std::move(rec), j.table);
}

void game_service::store_analysis(analysis_record rec, std::string table) {
  writer_->run([this, rec = std::move(rec), table = std::move(table)](store& db) {
    try {
      db.save_analysis(rec);
    } catch (const std::exception& e) {
      spdlog::error("match {}: its analysis could not be saved: {}", rec.match_id, e.what());
      return;
    }
    std::shared_ptr<table_actor> actor;
    {
      std::lock_guard lock(mutex_);
      const auto it = tables_.find(table);
      if (it != tables_.end()) actor = it->second;
    }
    if (actor)
      actor->analysis_finished(rec.match_id, rec.status == analysis_status::done, rec.reason);
  });
}

void game_service::answer_analysis(const std::shared_ptr<client>& c, std::int64_t id,
                                   std::optional<json> re, std::string table) {
  std::string reader;
  {
    std::lock_guard lock(mutex_);
    if (const auto* s = players_.find(c->id())) reader = s->key;
  }
  writer_->run([this, c, id, re = std::move(re), table = std::move(table), on = analysing(),
                reader = std::move(reader)](store& db) {
    json msg;
    try {
      auto match = db.load_match(id);
      if (match && !may_read(*match, reader)) match.reset();  // private: not found
      const auto analysis = match ? db.load_analysis(id) : std::nullopt;
      const auto v = view_analysis(id, match, analysis, on, c->lang());
      if (!v.found) {
        metrics_.error("unknown_match");
        msg = protocol::error_message("unknown_match", v.text, re);
        msg["say"] = v.say;
      } else {
        msg = json{{"type", "info"}, {"topic", "analysis"}, {"text", v.text}, {"data", v.data}};
        if (!v.say.is_null()) msg["say"] = v.say;
        if (!table.empty()) msg["table"] = table;
        if (re) msg["re"] = *re;
      }
    } catch (const std::exception& e) {
      spdlog::error("match {}: its analysis could not be read: {}", id, e.what());
      metrics_.error("storage_error");
      msg = protocol::error_message(
          protocol::said_error("storage_error", "service.analysis_unavailable"), re);
    }
    c->send(frame_of(msg));
  });
}

void game_service::start(std::unique_ptr<cluster_node> node) {
  metrics_.add_section([weak = weak_from_this()] {
    const auto self = weak.lock();
    return self ? self->bot_metrics() : std::string();
  });
  metrics_.add_section([weak = weak_from_this()] {
    const auto self = weak.lock();
    return self ? self->storage_metrics() : std::string();
  });
  {
    std::lock_guard lock(mutex_);
    for (auto& [name, actor] : tables_) actor->arm_timers();
  }
  reconcile_tournaments();  // S6: a restart resumes each tournament where it was
  if (node) {
    start_cluster(std::move(node));
    start_bus();
  }
}

cluster_node::callbacks game_service::cluster_callbacks() {
  cluster_node::callbacks cb;
  const std::weak_ptr<game_service> weak = weak_from_this();
  cb.fenced = [weak] {
    if (const auto self = weak.lock()) self->node_fenced();
  };
  cb.claimed = [weak](std::vector<claimed_table>& claimed) {
    if (const auto self = weak.lock()) self->adopt(claimed);
  };
  cb.room = [weak]() -> std::size_t {
    const auto self = weak.lock();
    if (!self) return 0;
    std::lock_guard lock(self->mutex_);
    const auto held = self->tables_.size();
    return held >= self->config_.max_tables ? 0 : self->config_.max_tables - held;
  };
  return cb;
}

void game_service::start_cluster(std::unique_ptr<cluster_node> node) {
  cluster_ = std::move(node);
  metrics_.add_section([weak = weak_from_this()] {
    const auto self = weak.lock();
    return self ? self->cluster_metrics() : std::string();
  });
  cluster_->start();
}

std::string game_service::cluster_metrics() const {
  if (!cluster_) return std::string();
  const auto& c = *cluster_;
  return "# HELP gammond_cluster_stale_writes_total Table writes refused by the fencing check.\n"
         "# TYPE gammond_cluster_stale_writes_total counter\n"
         "gammond_cluster_stale_writes_total " +
         std::to_string(stale_writes_.load()) +
         "\n# HELP gammond_cluster_claims_lost_total New tables another node claimed "
         "first (two players reached two nodes at once).\n"
         "# TYPE gammond_cluster_claims_lost_total counter\n"
         "gammond_cluster_claims_lost_total " +
         std::to_string(claims_lost_.load()) +
         "\n# HELP gammond_cluster_self_fences_total Times this node found its own lease "
         "expired.\n# TYPE gammond_cluster_self_fences_total counter\n"
         "gammond_cluster_self_fences_total " +
         std::to_string(c.self_fences()) +
         "\n# HELP gammond_cluster_tables_claimed_total Tables claimed from dead nodes or "
         "unowned.\n# TYPE gammond_cluster_tables_claimed_total counter\n"
         "gammond_cluster_tables_claimed_total " +
         std::to_string(c.tables_claimed()) +
         "\n# HELP gammond_cluster_heartbeats_total Heartbeats written.\n"
         "# TYPE gammond_cluster_heartbeats_total counter\ngammond_cluster_heartbeats_total " +
         std::to_string(c.heartbeats()) + "\n";
}

void game_service::adopt(std::vector<claimed_table>& claimed) {
  std::vector<std::shared_ptr<table_actor>> adopted;
  std::vector<std::shared_ptr<table_actor>> replaced;
  {
    std::lock_guard lock(mutex_);
    for (auto& t : claimed) {
      if (t.saved.name.starts_with(tournament_row_prefix)) {  // a tournament's director
        if (restore_tournament(t.saved, t.epoch))
          spdlog::info("cluster: tournament {} taken over at epoch {}", t.saved.name, t.epoch);
        continue;
      }
      if (const auto it = tables_.find(t.saved.name); it != tables_.end()) {
        // A copy here is older than this claim (the store gave the table to this node
        // at a new epoch): a table whose first write failed in a race with another node
        // (left at seq 0 while the other node played it), or one this node lost and has
        // not yet heard of. The stored table is the table: the copy stops, and its
        // members, closed with 4001, come back to the one rebuilt here.
        spdlog::warn("cluster: claimed table {} had an older copy here; the stored one replaces it",
                     t.saved.name);
        replaced.push_back(it->second);
        lobby_.erase(t.saved.name);
        players_.forget_table(t.saved.name);
        tables_.erase(it);
      }
      if (restore_saved(t.saved, t.epoch)) {
        adopted.push_back(tables_[t.saved.name]);
        spdlog::info("cluster: table {} taken over at epoch {}", t.saved.name, t.epoch);
      }
    }
    metrics_.set_tables(tables_.size());
  }
  for (const auto& r : replaced) r->fence(/*release_holds=*/false);
  for (const auto& a : adopted) a->arm_timers();
  reconcile_tournaments();
}

void game_service::adopt_one(claimed_table t) {
  std::vector<claimed_table> one;
  one.push_back(std::move(t));
  adopt(one);
}

void game_service::node_fenced() {
  std::map<std::string, std::shared_ptr<table_actor>> dropped;
  std::vector<std::shared_ptr<client>> everyone;
  {
    std::lock_guard lock(mutex_);
    dropped.swap(tables_);
    for (const auto& [name, actor] : dropped) {
      lobby_.erase(name);
      if (bus_) bus_->publish_table(name, std::nullopt);  // the rows still this node's go
      players_.forget_table(name);
    }
    everyone = players_.everyone();
    metrics_.set_tables(0);
  }
  for (const auto& [name, actor] : dropped) actor->fence();
  for (const auto& c : everyone) c->close_with_code(4001, "node fenced");
}

void game_service::table_fenced(const table_actor& actor, bool claim_lost) {
  ++(claim_lost ? claims_lost_ : stale_writes_);
  std::lock_guard lock(mutex_);
  const auto it = tables_.find(actor.name());
  if (it == tables_.end() || it->second.get() != &actor) return;
  lobby_.erase(actor.name());
  if (bus_) bus_->publish_table(actor.name(), std::nullopt);  // if it is still this node's
  players_.forget_table(actor.name());
  tables_.erase(it);
  metrics_.set_tables(tables_.size());
}

bool game_service::redirect_if_elsewhere(const std::shared_ptr<client>& c,
                                         const protocol::client_message& m,
                                         const std::string& text) {
  if (!cluster_ || !m.table) return false;
  {
    std::lock_guard lock(mutex_);
    if (tables_.count(*m.table) != 0 || preclaimed_.count(*m.table) != 0) return false;
  }
  if (const auto owner = cluster_->owner_of(*m.table)) {
    route_to_owner(c, *m.table, *owner, text, m.id);
    return true;
  }
  // Issue 26: unknown to the last heartbeat (made on another node since, or new): the
  // store says now, and a new table is this node's from this message on (its ownership
  // row is written before the table is made), so no second node makes it too.
  {
    std::lock_guard lock(mutex_);
    const auto* s = players_.find(c->id());
    // A creation that table_for() will refuse claims nothing (it answers the refusal).
    if (s == nullptr || shutting_down_ || tables_.size() >= config_.max_tables ||
        !players_.may_create(*s, config_.max_tables_per_client))
      return false;
    if (preclaimed_.size() >= config_.max_tables) {
      send_error(c, protocol::said_error("table_moving", "service.tables_busy"), m.id);
      return true;
    }
  }
  cluster_->locate(
      *m.table, true,
      [weak = weak_from_this(), c, text, table = *m.table,
       id = m.id](std::optional<located_table> where) {
        const auto self = weak.lock();
        if (!self) return;
        if (!where) {
          self->send_error(c,
                           protocol::said_error("table_moving", "service.table_lookup_failed",
                                                {{"table", table}}),
                           id);
          return;
        }
        asio::post(self->io_, [self, c, text, table, id, where = std::move(*where)] {
          if (where.elsewhere) {
            self->route_to_owner(c, table, *where.elsewhere, text, id);
            return;
          }
          {
            std::lock_guard lock(self->mutex_);
            if (self->tables_.count(table) == 0 && self->preclaimed_.count(table) == 0) {
              // The store gives this node a table it does not hold: made just now (a new
              // table), or one whose copy here was dropped (a write the store refused):
              // that one is taken back from the store, never made again empty.
              if (!where.claimed_now && where.stored) {
                self->take_back(c, text, table, id);
                return;
              }
              self->preclaimed_[table] = {where.epoch, where.claimed_now};
            }
          }
          self->on_text(c, text);  // made here now, at that epoch
        });
      });
  return true;
}

void game_service::take_back(const std::shared_ptr<client>& c, const std::string& text,
                             const std::string& table, const std::optional<json>& id) {
  cluster_->take_back(
      table, [weak = weak_from_this(), c, text, table, id](std::optional<claimed_table> t) {
        const auto self = weak.lock();
        if (!self) return;
        bool held = false;
        if (t && !t->saved.snapshot.empty()) {
          self->adopt_one(std::move(*t));  // rebuilt from its snapshot and journal
          std::lock_guard lock(self->mutex_);
          held = self->tables_.count(table) != 0;
        } else if (t) {
          std::lock_guard lock(self->mutex_);  // nothing stored: a new table at that epoch
          if (self->tables_.count(table) == 0) self->preclaimed_[table] = {t->epoch, true};
          held = true;
        }
        if (!held) {  // this node's lease lapsed (it fences next), or the table moved on
          self->send_error(c,
                           protocol::said_error("table_moving", "service.table_changing_hands",
                                                {{"table", table}}),
                           id);
          return;
        }
        asio::post(self->io_, [self, c, text] { self->on_text(c, text); });
      });
}

void game_service::route_to_owner(const std::shared_ptr<client>& c, const std::string& table,
                                  const table_owner& owner, const std::string& text,
                                  const std::optional<json>& id) {
  using owner_standing = table_owner::standing;
  switch (owner.standing_now(cluster_->heartbeat(), cluster_->lease())) {
    case owner_standing::live:
    case owner_standing::failing:
      send_moved(c, table, owner, json::parse(text, nullptr, false));
      return;
    case owner_standing::dead:
      break;
  }
  // Its node died: claim it now rather than at the next sweep, then handle the
  // message again (it is a table of this node by then, or of a live one).
  cluster_->claim(table, [weak = weak_from_this(), c, text, table,
                          id](std::optional<claimed_table> t) {
    const auto self = weak.lock();
    if (!self) return;
    if (!t) {
      // Taken by another node meanwhile, or the database is unreachable: no loop.
      self->send_error(
          c, protocol::said_error("table_moving", "service.table_taken_over", {{"table", table}}),
          id);
      return;
    }
    self->adopt_one(std::move(*t));
    // Handled again on an I/O thread, as a message from the network is.
    asio::post(self->io_, [self, c, text] { self->on_text(c, text); });
  });
}

void game_service::follow_seat_after_login(const std::shared_ptr<client>& c,
                                           const std::string& key) {
  if (!cluster_ || !bus_) return;
  cluster_->find_seat(key, [weak = weak_from_this(), c](std::optional<seat_elsewhere> found) {
    const auto self = weak.lock();
    if (!self || !found || !found->seat) return;
    auto [seat_table, owner] = std::move(*found->seat);
    const std::string table = seat_table;  // (a structured binding is not captured by clang 14)
    const auto send_on = [self, c, table](const table_owner& to) {
      // (send_moved waits until the cluster's sessions hold the welcome's token.)
      self->send_moved(c, table, to, json());
    };
    if (owner.standing_now(self->cluster_->heartbeat(), self->cluster_->lease()) !=
        table_owner::standing::dead) {
      send_on(std::move(owner));  // live: there; failing: wait, then any node
      return;
    }
    // A dead node's table: claimed here, then the player comes back here with the
    // token the welcome gave and finds the seat.
    self->cluster_->claim(table, [weak, send_on](std::optional<claimed_table> t) {
      const auto me = weak.lock();
      if (!me) return;
      if (t) me->adopt_one(std::move(*t));
      table_owner here{me->config_.node_id, me->config_.node_path, true, 0};
      if (!t) here = table_owner{"", "", true, 0};  // taken elsewhere: any node, at once
      send_on(std::move(here));
    });
  });
}

void game_service::send_moved(const std::shared_ptr<client>& c, const std::string& table,
                              const table_owner& owner, const json& re) {
  json moved{
      {"type", "moved"}, {"table", table}, {"node", owner.node}, {"path", owner.path + "/ws"}};
  if (cluster_ && owner.standing_now(cluster_->heartbeat(), cluster_->lease()) ==
                      table_owner::standing::failing) {
    // Issue 26: its node stopped answering and its lease has not run out: nobody may
    // take the table yet, and the proxy reports that node down. Wait, then ask any node.
    moved["path"] = "/ws";
    moved["retry_ms"] = owner.retry_after(cluster_->heartbeat(), cluster_->lease()).count();
  }
  if (!re.is_null() && !re.is_discarded()) moved["re"] = re;
  spdlog::debug("moved: a client of {} sent to {} for table {}", c->address(),
                moved["path"].get<std::string>(), table);
  auto frame = frame_of(moved);
  const auto go = [c, frame] {
    c->send(frame);
    c->close_with_code(4000, "moved");
  };
  // Issue 26: once the cluster's sessions hold what this node queued for the name (a
  // token just issued by a login or a registration), so that the next node finds it.
  if (bus_ && bus_->after_queued(go)) return;
  go();
}

void game_service::start_bus() {
  std::lock_guard lock(mutex_);
  // Issue 16: the lobby, lobby chat, who is online and the names' sessions span the
  // nodes, through PostgreSQL (the bus connects on its own thread; under mutex_ here,
  // its first republish() waits for bus_ to be set).
  cluster_bus::options o;
  o.url = config_.db;
  o.node_id = config_.node_id;
  o.lease = std::chrono::duration_cast<std::chrono::milliseconds>(config_.lease);
  o.queue = config_.cluster_queue;
  o.connect_timeout_s = static_cast<int>(config_.db_connect_timeout.count());
  o.statement_timeout_ms = static_cast<int>(config_.db_statement_timeout.count() * 1000);
  o.post = [weak = weak_from_this(), this](std::function<void()> f) {
    asio::post(io_, [weak, f = std::move(f)] {
      if (const auto self = weak.lock()) f();
    });
  };
  o.on_event = [this](const cluster_bus::event& e) { on_cluster_event(e); };
  o.on_connect = [this] { republish(); };
  bus_ = std::make_unique<cluster_bus>(std::move(o));
  metrics_.add_section([weak = weak_from_this()] {
    const auto self = weak.lock();
    if (!self || !self->bus_) return std::string();
    return "# HELP gammond_cluster_bus_dropped_total Cluster requests and notifications "
           "refused: --cluster-queue was full, or a payload was over 8000 bytes.\n"
           "# TYPE gammond_cluster_bus_dropped_total counter\n"
           "gammond_cluster_bus_dropped_total " +
           std::to_string(self->bus_->dropped()) +
           "\n# HELP gammond_cluster_bus_reconnections_total Times the cluster bus "
           "connected to PostgreSQL again after losing its connection.\n"
           "# TYPE gammond_cluster_bus_reconnections_total counter\n"
           "gammond_cluster_bus_reconnections_total " +
           std::to_string(self->bus_->reconnections()) +
           "\n# HELP gammond_cluster_bus_listening 1 while the cluster bus LISTENs.\n"
           "# TYPE gammond_cluster_bus_listening gauge\ngammond_cluster_bus_listening " +
           (self->bus_->listening() ? "1" : "0") + "\n";
  });
}

void game_service::republish() {
  std::lock_guard lock(mutex_);
  if (!bus_) return;
  for (const auto& [table, text] : lobby_.entries()) bus_->publish_table(table, text);
  for (const auto& [key, slot] : tournaments_) publish_tournament(key);
  for (const auto& u : players_.names_in_use())
    bus_->take(u.key, u.name, u.token_hash, u.connected, false);
}

void game_service::cluster_take(const std::string& key, bool announce, bool unless_live_elsewhere) {
  if (!bus_) return;
  if (const auto u = players_.name_in_use(key))
    bus_->take(u->key, u->name, u->token_hash, u->connected, announce, unless_live_elsewhere);
}

void game_service::on_cluster_event(const cluster_bus::event& e) {
  const auto text = [&e](const char* field) {
    const auto it = e.payload.find(field);
    return it != e.payload.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (e.channel == "chat" && e.payload.value("broadcast", false)) {
    // An administrator's /broadcast on another node: every session here that said hello.
    const auto from = text("from");
    const auto line = text("text");
    if (from.empty() || line.size() > config_.max_chat_bytes) return;
    const auto frame = frame_of(json{{"type", "broadcast"}, {"from", from}, {"text", line}});
    std::vector<std::shared_ptr<client>> all;
    {
      std::lock_guard lock(mutex_);
      all = players_.everyone();
    }
    for (auto& other : all) other->send(frame);
    return;
  }
  if (e.channel == "chat" && e.payload.contains("deliver")) {
    // Issue 30: a tournament's news or pairing for names that may be connected here.
    const auto& message = e.payload["deliver"];
    const auto to = e.payload.find("to");
    if (!message.is_object() || to == e.payload.end() || !to->is_array() ||
        !service_helpers::relayed_to_other_nodes(message))
      return;
    const auto frame = frame_of(message);
    std::vector<std::shared_ptr<client>> all;
    {
      std::lock_guard lock(mutex_);
      for (const auto& key : *to)
        if (key.is_string())
          for (auto& c : players_.connections_of(key.get<std::string>())) all.push_back(c);
    }
    for (auto& c : all) c->send(frame);
    return;
  }
  if (e.channel == "chat") {
    const auto from = text("from");
    const auto key = text("key");
    const auto line = text("text");
    if (from.empty() || key.empty() || line.size() > config_.max_chat_bytes) return;
    const auto frame = frame_of(json{{"type", "chat"}, {"from", from}, {"text", line}});
    std::vector<std::shared_ptr<client>> all;
    {
      std::lock_guard lock(mutex_);
      all = players_.everyone_hearing(key);  // those who /ignore the speaker do not hear it
    }
    for (auto& other : all) other->send(frame);
    return;
  }
  if (e.channel == "sessions" && text("op") == "take") {
    const auto key = text("key");
    {
      std::lock_guard lock(mutex_);
      // Connected here, or in its resume window here (issue 26).
      if (key.empty() || !bus_ || (!players_.online(key) && !players_.lingers(key))) return;
    }
    // Asked after every statement this node queued before: a name this node took since
    // is not closed by an older announcement.
    bus_->owner_of(key, [self = shared_from_this(), key](std::optional<std::string> owner) {
      if (!owner || owner->empty() || *owner == self->config_.node_id) return;
      std::vector<std::shared_ptr<client>> replaced;
      {
        std::lock_guard lock(self->mutex_);
        replaced = self->players_.connections_of(key);
        // The other node rotated the name's token: the one known here must not resume
        // it any more (before the connections' closes, which may keep it for a while).
        self->players_.taken_elsewhere(key);
      }
      for (auto& c : replaced) c->close("replaced by a new connection");
    });
  }
  // gammond_lobby: the lobby list is read from cluster_lobby when asked (/tables).
}

void game_service::answer_who(const std::shared_ptr<client>& c, const std::optional<json>& re) {
  const auto answer = [c, re](std::vector<std::string> names, std::size_t total) {
    std::string shown;  // names are never translated: one list in every language
    for (std::size_t i = 0; i < names.size(); ++i) shown += (i == 0 ? "" : ", ") + names[i];
    if (!names.empty() && names.size() < total) shown += ", ...";
    json msg{{"type", "info"}, {"topic", "who"}, {"data", {{"online", names}, {"total", total}}}};
    if (names.empty())
      i18n::with_say(msg, "service.who_online", {{"total", total}});
    else
      i18n::with_say(msg, "service.who_online_names", {{"total", total}, {"names", shown}});
    if (re) msg["re"] = *re;
    c->send(frame_of(msg));
  };
  if (bus_) {
    bus_->online(config_.who_limit, [self = shared_from_this(), c, re, answer](auto result) {
      if (!result) {
        self->send_error(c, protocol::said_error("storage_error", "service.who_unavailable"), re);
        return;
      }
      answer(std::move(result->first), result->second);
    });
    return;
  }
  std::vector<std::string> names;
  {
    std::lock_guard lock(mutex_);
    names = players_.online_names();
  }
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return name_key(a) < name_key(b); });
  const std::size_t total = names.size();
  if (names.size() > config_.who_limit) names.resize(config_.who_limit);
  answer(std::move(names), total);
}

bots::player* game_service::bot_player(const std::string& level, engine::variant v) {
  if (v == engine::variant::long_nardy) {
    const auto it = long_players_.find(level);
    return it == long_players_.end() ? nullptr : it->second.get();
  }
  const auto it = gnubg_players_.find(level);
  return it == gnubg_players_.end() ? nullptr : it->second.get();
}

engine::result<std::string> game_service::bot_name(const std::string& level,
                                                   engine::variant v) const {
  const auto l = bots::gnubg_level_from_string(level);
  if (!l) return protocol::said_error("bad_command", "service.bot_levels");
  if (v == engine::variant::long_nardy) return bots::long_bot_name(*l);
  if (!gnubg_) return protocol::said_error("no_bot", "service.no_bot", {{"why", gnubg_problem_}});
  return bots::gnubg_name(*l);
}

void game_service::open_bot_accounts() {
  for (const auto& name : bots::bot_names()) {
    const std::string key = name_key(name);
    auto a = storage_->create_account(key, name, account::kind::bot, "");
    if (a) {
      players_.add_registered(key, name);
      spdlog::info("account {} registered for the computer player", name);
    } else {
      a = storage_->find_account(key);
    }
    if (!a || a->what != account::kind::bot) {
      spdlog::warn(
          "the name {} is a person's account, registered before it was a computer player's: "
          "that computer player's matches are not rated",
          name);
      continue;
    }
    bot_keys_.insert(key);
    ratings_.set(key, {a->standings[0].rating, a->standings[1].rating});
  }
}

bool game_service::bot_available(const std::string& name) const {
  for (const auto level : bots::all_gnubg_levels) {
    if (name_key(name) == bots::long_bot_name(level)) return true;
    if (name_key(name) == bots::gnubg_name(level)) return gnubg_ != nullptr;
  }
  return false;
}

std::string game_service::storage_metrics() const {
  const auto totals = writer_->totals();  // one snapshot: never more transactions than writes
  std::string out =
      "# HELP gammond_db_transactions_total Transactions the storage writer committed (each "
      "holds every table write waiting: a group commit).\n"
      "# TYPE gammond_db_transactions_total counter\n"
      "gammond_db_transactions_total " +
      std::to_string(totals.transactions) +
      "\n# HELP gammond_db_writes_total Table writes (one per change of a table).\n"
      "# TYPE gammond_db_writes_total counter\n"
      "gammond_db_writes_total " +
      std::to_string(totals.writes) + "\n";
  if (const auto* sqlite = dynamic_cast<const sqlite_store*>(storage_.get())) {
    out +=
        "# HELP gammond_db_checkpoints_total SQLite write-ahead log checkpoints, by the "
        "store's checkpoint thread or by the committing thread (the log passed 4 x "
        "--db-checkpoint-pages, or that flag is 0 and SQLite checkpoints itself: not "
        "counted).\n"
        "# TYPE gammond_db_checkpoints_total counter\n"
        "gammond_db_checkpoints_total{by=\"thread\"} " +
        std::to_string(sqlite->background_checkpoints()) +
        "\ngammond_db_checkpoints_total{by=\"writer\"} " +
        std::to_string(sqlite->writer_checkpoints()) + "\n";
  }
  return out;
}

std::string game_service::bot_metrics() const {
  // Without gnubg every count is 0: the lines are there all the same, for dashboards.
  const auto st = gnubg_ ? gnubg_->stats() : bots::gnubg_pool_stats{};
  std::string out;
  const auto metric = [&out](const char* name, const char* type, const char* help,
                             std::uint64_t value) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" +
           name + " " + std::to_string(value) + "\n";
  };
  metric("gammond_bot_processes", "gauge", "GNU Backgammon processes running.",
         st.processes.size());
  out +=
      "# HELP gammond_bot_process A running GNU Backgammon process, by pid and level.\n"
      "# TYPE gammond_bot_process gauge\n";
  for (const auto& p : st.processes)
    out += "gammond_bot_process{pid=\"" + std::to_string(p.pid) + "\",level=\"" +
           std::string(bots::to_string(p.level)) + "\",busy=\"" + (p.busy ? "true" : "false") +
           "\"} 1\n";
  metric("gammond_bot_waiting", "gauge", "Computer players' questions waiting for a process.",
         st.waiting);
  metric("gammond_bot_requests_total", "counter", "Questions asked of GNU Backgammon.",
         st.requests);
  metric("gammond_bot_answers_total", "counter", "Questions GNU Backgammon answered.", st.answers);
  metric("gammond_bot_failures_total", "counter",
         "Questions given up after every retry (the bot then resigns, drops or rolls).", st.failed);
  metric("gammond_bot_processes_started_total", "counter", "GNU Backgammon processes started.",
         st.started);
  metric("gammond_bot_timeouts_total", "counter",
         "Attempts past --bot-timeout (the process was killed, the question asked again).",
         st.timeouts);
  metric("gammond_bot_process_ends_total", "counter",
         "GNU Backgammon processes that ended or closed their connection by themselves.", st.ended);
  metric("gammond_bot_malformed_total", "counter",
         "Answers that were not what was asked for (the process was killed).", st.malformed);
  metric("gammond_bot_refused_total", "counter", "Questions refused: --bot-queue was full.",
         st.refused);
  metric("gammond_bot_start_delays_total", "counter",
         "Times a GNU Backgammon start waited for --bot-starts-per-minute.", st.start_delays);
  const auto lt = long_bots_->stats();
  metric("gammond_long_bot_waiting", "gauge",
         "Long nardy computer players' questions queued or being thought over.", lt.waiting);
  metric("gammond_long_bot_questions_total", "counter",
         "Questions asked of the long nardy computer players.", lt.asked);
  metric("gammond_long_bot_answers_total", "counter",
         "Questions the long nardy computer players thought over to the end.", lt.answered);
  metric("gammond_long_bot_refused_total", "counter",
         "Long nardy questions refused: --bot-queue were waiting.", lt.refused);
  return out;
}

void game_service::set_summary(const std::string& table, std::optional<lobby_entry> summary,
                               const table_actor* from) {
  std::lock_guard lock(mutex_);
  if (from) {
    const auto it = tables_.find(table);
    if (it == tables_.end() || it->second.get() != from) return;
  }
  if (!summary) {
    // The table is idle: nobody present, no seat, no match. Forget it, unless a
    // message for it is already on its way (then it is not idle for long).
    const auto it = tables_.find(table);
    if (it == tables_.end() || it->second->pending.load() != 0) return;
    const auto epoch = it->second->epoch();
    lobby_.erase(table);
    if (bus_) bus_->publish_table(table, std::nullopt);
    tables_.erase(table);
    players_.forget_table(table);
    metrics_.set_tables(tables_.size());
    // Through the writer, in order with the table's writes (and with those of a new
    // table of the same name, submitted later): no SQLite call under this mutex.
    if (config_.cluster() && epoch == 0) return;  // never written: nothing to delete
    table_write drop;
    drop.name = table;
    drop.drop = true;
    drop.epoch = epoch;  // issue 16: only its owner deletes it
    writer_->submit(std::move(drop), [table](write_result& r) {
      if (!r.error.empty()) spdlog::error("table {}: not deleted: {}", table, r.error);
    });
    return;
  }
  if (bus_)  // a private table is published as gone
    bus_->publish_table(table, summary->listed ? std::optional(summary->text) : std::nullopt);
  lobby_.set(table, std::move(*summary));
}

// The id is reserved now (no I/O); the record is stored with the snapshot of the change
// that finishes the match (table_outcome::finished_match).
std::int64_t game_service::reserve_match_id() {
  return storage_->reserve_match_id();
}

table_hooks game_service::hooks() {
  table_hooks h{iso_now, config_.max_chat_bytes, config_.max_spectators};
  h.clock_ms = [this] { return clock_ms(); };
  // S4: a seed from the OS for every match; --dice-seed N (tests only): derived from N.
  if (config_.dice_seed == 0) {
    h.match_seed = [](const std::string&, std::uint64_t) { return derived_dice::random_seed(); };
  } else {
    h.match_seed = [n = config_.dice_seed](const std::string& table, std::uint64_t match_number) {
      return derived_dice::test_seed(n, table, match_number);
    };
  }
  h.clock_minute_ms = std::int64_t{config_.clock_minute_seconds} * 1000;
  h.grace_period_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(config_.grace_period).count();
  h.idle_limit_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(config_.idle_limit).count();
  h.max_seed_bytes = config_.max_seed_bytes;
  h.bot = [this](const std::string& level, engine::variant v) { return bot_name(level, v); };
  h.rating_of = [this](const std::string& name, engine::variant v) { return ratings_.of(name, v); };
  h.ratings_version = [this] { return ratings_.version(); };
  // Moderation (issue 13).
  h.max_name_bytes = config_.max_name_bytes;
  h.kick_bar_ms = std::chrono::duration_cast<std::chrono::milliseconds>(config_.kick_bar).count();
  h.max_kicked = config_.max_kicked;
  h.max_invited = config_.max_invited;
  h.chat_interval_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(config_.table_chat_interval).count();
  h.chat_per_minute = config_.table_chat_per_minute;
  return h;
}

std::int64_t game_service::clock_ms() const {
  return epoch_ms_at_start_ +
         std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - steady_at_start_)
             .count();
}

std::optional<std::string> game_service::token_hash_of(const std::string& name) {
  std::lock_guard lock(mutex_);
  return players_.token_hash_of(name);
}

void game_service::holds_changed(const std::string& table, const std::vector<std::string>& before,
                                 const std::vector<std::string>& after, bool moved_away) {
  std::lock_guard lock(mutex_);
  keep_cluster_sessions_ = moved_away;
  players_.holds_changed(table, before, after);
  keep_cluster_sessions_ = false;
}

std::string game_service::account_key_of(const std::string& name) {
  if (name_problem_of(name)) return {};
  std::string key = name_key(name);
  // issue 14: a computer player's name is its account's only when that account is a
  // bot's (never a person's who registered the name before it was reserved).
  if (bots::is_bot_name(name)) return is_bot_account(key) ? key : std::string{};
  std::lock_guard lock(mutex_);
  return players_.is_registered(key) ? key : std::string{};
}

void game_service::ratings_changed(engine::variant v, const std::array<rating_change, 2>& changes) {
  for (const auto& c : changes) ratings_.update(name_key(c.name), v, c.after);
}

void game_service::on_open(const std::shared_ptr<client>& c) {
  std::lock_guard lock(mutex_);
  players_.open(c);
}

void game_service::send_error(const std::shared_ptr<client>& c, std::string_view code,
                              std::string_view message, const std::optional<json>& re) {
  metrics_.error(code);
  c->send(frame_of(protocol::error_message(code, message, re)));
}

void game_service::send_error(const std::shared_ptr<client>& c, const engine::error& e,
                              const std::optional<json>& re) {
  metrics_.error(e.code);
  c->send(frame_of(protocol::error_message(e, re)));
}

std::string game_service::lang_of(const client& c, const protocol::client_message& m) {
  return i18n::catalogue::global().pick(m.lang.empty() ? c.accept_language() : m.lang);
}

std::optional<std::string> game_service::name_problem_of(const std::string& name) const {
  return name_problem(name, config_.max_name_bytes);
}

void game_service::on_text(const std::shared_ptr<client>& c, std::string text) {
  const auto t0 = clock_type::now();
  auto decoded = protocol::decode(text);
  if (!decoded) {
    send_error(c, decoded.err(), no_re);
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
      c->set_lang(lang_of(*c, m));  // before any answer, a refusal included
      if (m.password) {
        on_login(c, m);
      } else if (!m.session.empty()) {  // a remembered sign-in (issue 27)
        on_session_login(c, m);
      } else {
        on_hello(c, m);
      }
      return;
    case protocol::client_message::kind::register_account:
      c->set_lang(lang_of(*c, m));
      on_register(c, m);
      return;
    default:
      break;
  }
  std::string name;
  bool pending = false;
  {
    std::lock_guard lock(mutex_);
    if (const auto* s = players_.find(c->id())) {
      name = s->name;
      pending = s->hello_pending;
    }
  }
  if (name.empty() || pending) {
    send_error(c,
               pending ? protocol::said_error("hello_first", "service.hello_pending_first")
                       : protocol::said_error("hello_first", "service.hello_first"),
               m.id);
    return;
  }
  if (!m.table) {
    if (m.what != protocol::client_message::kind::line) {
      send_error(c, protocol::said_error("bad_message", "service.needs_table"), m.id);
      return;
    }
    auto parsed = protocol::parse_line(m.text);
    if (!parsed) {
      send_error(c, parsed.err(), m.id);
      return;
    }
    if (protocol::place_of(parsed->kind) == protocol::command_place::service) {
      on_service_command(c, name, *parsed, std::nullopt, m.id, t0);
      return;
    }
    if (cluster_ && route_tournament(c, name, *parsed, text, m.id, t0)) return;
    on_lobby_line(c, name, std::move(*parsed), m.id, t0);
    return;
  }
  on_table_message(c, name, m, std::move(text), t0);
}

void game_service::on_exit_table(const std::shared_ptr<client>& c, const std::string& name,
                                 const std::string& table) {
  std::shared_ptr<table_actor> actor;
  {
    std::lock_guard lock(mutex_);
    if (auto* s = players_.find(c->id())) s->tables.erase(table);
    const auto it = tables_.find(table);
    if (it != tables_.end()) actor = it->second;
  }
  if (actor) actor->exit(c->id(), name);
}

void game_service::on_table_message(const std::shared_ptr<client>& c, const std::string& name,
                                    const protocol::client_message& m, std::string text,
                                    clock_type::time_point t0) {
  if (const auto why = name_error(*m.table, config_.max_name_bytes, "bad_table", name_use::table)) {
    send_error(c, *why, m.id);
    return;
  }
  if (m.what != protocol::client_message::kind::exit && redirect_if_elsewhere(c, m, text)) return;
  if (m.what == protocol::client_message::kind::exit) {
    on_exit_table(c, name, *m.table);
    return;
  }
  std::optional<protocol::command> cmd;
  if (m.what == protocol::client_message::kind::line) {
    if (m.text.size() > config_.max_chat_bytes) {
      send_error(c,
                 protocol::said_error("too_long", "service.line_too_long",
                                      {{"max", std::to_string(config_.max_chat_bytes)}}),
                 m.id);
      return;
    }
    auto parsed = protocol::parse_line(m.text);
    if (!parsed) {
      send_error(c, parsed.err(), m.id);
      return;
    }
    switch (protocol::place_of(parsed->kind)) {
      case protocol::command_place::lobby:
        on_lobby_line(c, name, std::move(*parsed), m.id, t0);
        return;
      case protocol::command_place::service:
        on_service_command(c, name, *parsed, m.table, m.id, t0);
        return;
      case protocol::command_place::table:
      case protocol::command_place::both:
        break;
    }
    cmd = std::move(*parsed);
  }
  std::shared_ptr<table_actor> actor;
  bool look_again = false;
  {
    std::lock_guard lock(mutex_);
    auto* s = players_.find(c->id());
    if (s == nullptr) return;  // closed meanwhile
    // In a cluster the table redirect_if_elsewhere() found here may have gone since (this
    // node fenced, or the store refused its write: another node has it now). A table
    // made here afresh would hide the stored one behind an empty table: the message is
    // looked at again from the start, and the store says where the table is. (Unless
    // table_for() would refuse to make it: then redirect_if_elsewhere() asks nothing,
    // and the refusal is answered below, never looked at again.)
    if (cluster_ && !shutting_down_ && tables_.count(*m.table) == 0 &&
        preclaimed_.count(*m.table) == 0 && tables_.size() < config_.max_tables &&
        players_.may_create(*s, config_.max_tables_per_client)) {
      look_again = true;
    } else {
      engine::error why;
      actor = table_for(*m.table, *s, why);
      if (!actor) {
        send_error(c, why, m.id);
        return;
      }
      s->tables.insert(*m.table);
      ++actor->pending;
    }
  }
  if (look_again) {
    asio::post(io_, [weak = weak_from_this(), c, text = std::move(text)]() mutable {
      if (const auto self = weak.lock()) self->on_text(c, std::move(text));
    });
    return;
  }
  if (cmd) {
    actor->line(c, name, std::move(*cmd), t0, m.id);
  } else {
    actor->enter(c, name, m.id);
  }
}

std::shared_ptr<table_actor> game_service::table_for(const std::string& name,
                                                     const players::session& s,
                                                     engine::error& why) {
  const auto it = tables_.find(name);
  if (it != tables_.end() && !shutting_down_) return it->second;
  // Cluster (issue 26): the ownership row redirect_if_elsewhere() made for it.
  std::pair<std::int64_t, bool> claimed{0, false};
  if (const auto p = preclaimed_.find(name); p != preclaimed_.end()) {
    claimed = p->second;
    preclaimed_.erase(p);
  }
  const auto refuse = [&] {  // a row made for a table not made goes again
    if (claimed.second && cluster_) cluster_->release(name);
    return nullptr;
  };
  if (shutting_down_) {
    why = protocol::said_error("shutting_down", "service.tables_shutting_down");
    return refuse();
  }
  if (tables_.size() >= config_.max_tables) {
    why = protocol::said_error("too_many_tables", "service.too_many_tables");
    return refuse();
  }
  if (!players_.may_create(s, config_.max_tables_per_client)) {
    why = protocol::said_error("too_many_tables", "service.too_many_own_tables",
                               {{"max", std::to_string(config_.max_tables_per_client)}});
    return refuse();
  }
  players_.created(name, s);
  auto actor = std::make_shared<table_actor>(*this, io_, std::make_unique<table>(name, hooks()));
  if (claimed.first != 0) actor->set_epoch(claimed.first);
  tables_[name] = actor;
  metrics_.set_tables(tables_.size());
  return actor;
}

void game_service::on_service_command(const std::shared_ptr<client>& c, const std::string& name,
                                      const protocol::command& cmd,
                                      const std::optional<std::string>& table,
                                      const std::optional<json>& re, clock_type::time_point t0) {
  switch (cmd.kind) {
    case protocol::command_kind::ignore:
    case protocol::command_kind::unignore:
    case protocol::command_kind::ban:
    case protocol::command_kind::unban:
    case protocol::command_kind::broadcast:
    case protocol::command_kind::close_table:
      on_moderation_command(c, name, cmd, re);
      metrics_.command(protocol::to_string(cmd.kind), clock_type::now() - t0);
      return;
    case protocol::command_kind::tell:
      if (tell(c, name, cmd, re)) metrics_.command("tell", clock_type::now() - t0);
      return;
    default:  // the account's commands: counted when answered
      on_account_command(c, name, cmd, table, re, t0);
      return;
  }
}

void game_service::on_lobby_line(const std::shared_ptr<client>& c, const std::string& name,
                                 protocol::command cmd, const std::optional<json>& re,
                                 clock_type::time_point t0) {
  switch (cmd.kind) {
    case protocol::command_kind::tables:
      answer_tables(c, cmd.text.empty() ? 1 : std::stoul(cmd.text), re);
      break;
    case protocol::command_kind::help: {
      const auto key = protocol::help_key(cmd.text);
      if (!key) {
        send_error(c, protocol::said_error("unknown_command", "help.no_help_lobby"), re);
        return;
      }
      json msg{{"type", "info"}, {"topic", "help"}};
      i18n::with_say(msg, std::string(*key));
      if (re) msg["re"] = *re;
      c->send(frame_of(msg));
      break;
    }
    case protocol::command_kind::chat:
      if (!say_in_lobby(c, name, std::move(cmd.text), re)) return;
      break;
    case protocol::command_kind::who:
      answer_who(c, re);
      break;
    case protocol::command_kind::analysis: {
      if (cmd.text.empty()) {
        send_error(c, protocol::said_error("bad_command", "service.analysis_needs_id"), re);
        return;
      }
      answer_analysis(c, *id_of(cmd.text), re, "");
      break;
    }
    case protocol::command_kind::play_bot:
      on_play_bot(c, name, cmd, re, t0);
      return;  // the table's actor counts it once the table is written
    case protocol::command_kind::seek:
      if (!on_seek(c, name, cmd, re)) return;
      pair_waiting_seeks();
      break;
    case protocol::command_kind::unseek:
      if (!on_unseek(c, re)) return;
      break;
    case protocol::command_kind::tournament:
      on_tournament(c, name, cmd, re);
      break;
    case protocol::command_kind::tournaments:
      on_tournaments(c, re);
      break;
    case protocol::command_kind::register_tournament:
      on_register(c, name, cmd, re);
      break;
    case protocol::command_kind::withdraw_tournament:
      on_withdraw(c, name, cmd, re);
      break;
    default:  // command_place::table
      send_error(c, protocol::said_error("no_table", "service.no_table"), re);
      return;
  }
  metrics_.command(protocol::to_string(cmd.kind), clock_type::now() - t0);
}

void game_service::answer_tables(const std::shared_ptr<client>& c, std::size_t page,
                                 const std::optional<json>& re) {
  if (bus_) {  // a cluster: every live node's tables, as the database has them
    bus_->list_tables(
        page, config_.tables_page_size,
        [self = shared_from_this(), c, re](std::optional<json> msg) {
          if (!msg) {
            self->send_error(c, protocol::said_error("storage_error", "service.tables_unavailable"),
                             re);
            return;
          }
          {  // S5: this node's requests (a cluster pairs each node's own)
            std::lock_guard lock(self->mutex_);
            (*msg)["seeking"] = self->seeks_waiting();
          }
          if (re) (*msg)["re"] = *re;
          c->send(frame_of(*msg));
        });
    return;
  }
  json msg = tables_message(page);
  if (re) msg["re"] = *re;
  c->send(frame_of(msg));
}

bool game_service::say_in_lobby(const std::shared_ptr<client>& c, const std::string& name,
                                std::string text, const std::optional<json>& re) {
  if (text.size() > config_.max_chat_bytes) {
    send_error(c, protocol::said_error("too_long", "service.chat_too_long"), re);
    return false;
  }
  // Like table chat: bidirectional overrides and zero-width characters taken out.
  text = strip_invisible(text);
  if (blank(text)) {
    send_error(c, protocol::said_error("empty_line", "service.chat_invisible"), re);
    return false;
  }
  auto frame = frame_of(json{{"type", "chat"}, {"from", name}, {"text", text}});
  std::vector<std::shared_ptr<client>> all;
  {
    std::lock_guard lock(mutex_);
    // Lobby chat reaches every session: bounded per player and for everyone together.
    auto* me = players_.find(c->id());
    if (me == nullptr) return false;
    if (const auto why =
            lobby_.allow_chat(me->last_lobby_chat, clock_type::now(), config_.lobby_chat_interval,
                              config_.lobby_chat_per_minute)) {
      metrics_.error("chat_throttled");
      c->send(frame_of(protocol::error_message(*why, re)));
      return false;
    }
    // Not to those who ignore the speaker (issue 13).
    all = players_.everyone_hearing(me->key);
    // In a cluster, the other nodes hear it too (NOTIFY: at most 8000 bytes).
    if (bus_ && !bus_->say(json{{"from", name}, {"key", me->key}, {"text", text}})) {
      metrics_.error("chat_throttled");
      c->send(frame_of(protocol::error_message(
          protocol::said_error("chat_throttled", "service.lobby_chat_cluster"), re)));
      return false;
    }
  }
  for (auto& other : all) other->send(frame);
  return true;
}

bool game_service::tell(const std::shared_ptr<client>& c, const std::string& name,
                        const protocol::command& cmd, const std::optional<json>& re) {
  // FIBS's `tell` (issue 32): one line to one name, bounded and filtered like lobby chat.
  if (cmd.message.size() > config_.max_chat_bytes) {
    send_error(c, protocol::said_error("too_long", "service.chat_too_long"), re);
    return false;
  }
  const std::string text = strip_invisible(cmd.message);
  if (blank(text)) {
    send_error(c, protocol::said_error("empty_line", "service.chat_invisible"), re);
    return false;
  }
  if (auto why = name_error(cmd.text, config_.max_name_bytes, "bad_name", name_use::player)) {
    send_error(c, *why, re);
    return false;
  }
  const std::string to_key = name_key(cmd.text);
  std::vector<std::shared_ptr<client>> to;
  const std::string& to_name = cmd.text;
  {
    std::lock_guard lock(mutex_);
    auto* me = players_.find(c->id());
    if (me == nullptr) return false;
    if (to_key == me->key) {
      send_error(c, protocol::said_error("bad_command", "service.tell_self"), re);
      return false;
    }
    if (const auto why =
            lobby_.allow_chat(me->last_lobby_chat, clock_type::now(), config_.lobby_chat_interval,
                              config_.lobby_chat_per_minute)) {
      metrics_.error("chat_throttled");
      c->send(frame_of(protocol::error_message(*why, re)));
      return false;
    }
    to = players_.connections_of(to_key);
    if (to.empty()) {
      send_error(
          c, protocol::said_error("not_online", "service.tell_offline", {{"name", cmd.text}}), re);
      return false;
    }
    // One who ignores the sender hears nothing; the sender is told nothing different.
    if (const auto ignores = players_.ignores_of(to_key); ignores && ignores->ignores(me->key))
      to.clear();
  }
  json message{{"type", "chat"}, {"from", name}, {"to", to_name}, {"text", text}};
  const auto frame = frame_of(message);
  for (auto& other : to) other->send(frame);
  if (re) message["re"] = *re;
  c->send(frame_of(message));
  return true;
}

void game_service::on_play_bot(const std::shared_ptr<client>& c, const std::string& name,
                               const protocol::command& cmd, const std::optional<json>& re,
                               clock_type::time_point t0) {
  // The computer player first: a refusal creates no table.
  if (const auto bot = bot_name(cmd.text, cmd.game_variant); !bot) {
    send_error(c, bot.err(), re);
    return;
  }
  std::shared_ptr<table_actor> actor;
  {
    std::lock_guard lock(mutex_);
    auto* s = players_.find(c->id());
    if (s == nullptr) return;  // closed meanwhile
    std::string table;
    do {
      table = (cmd.game_variant == engine::variant::long_nardy ? "vs-nardy-" : "vs-gnubg-") +
              std::to_string(next_bot_table_++);
    } while (tables_.count(table) != 0);
    engine::error why;
    actor = table_for(table, *s, why);  // bounded like any table creation
    if (!actor) {
      send_error(c, why, re);
      return;
    }
    s->tables.insert(table);
    ++actor->pending;
  }
  actor->play_bot(c, name, cmd, t0, re);
}

json game_service::tables_message(std::size_t page) const {
  std::lock_guard lock(mutex_);
  auto msg = lobby_.page(page, config_.tables_page_size);
  msg["seeking"] = seeks_waiting();  // S5: the players waiting for an opponent, per variant
  return msg;
}

void game_service::on_close(const std::shared_ptr<client>& c) {
  std::vector<std::pair<std::shared_ptr<table_actor>, std::string>> leave;
  {
    std::lock_guard lock(mutex_);
    drop_seek_of(c->id());  // S5: a request goes with its connection
    const auto gone = players_.close(c->id());
    if (!gone) return;
    // Issue 26: a name kept for its resume window is freed when the window ends.
    if (const auto until = gone->key.empty() ? std::nullopt : players_.lingers(gone->key)) {
      auto timer = std::make_shared<asio::steady_timer>(io_, *until);
      timer->async_wait([weak = weak_from_this(), timer, key = gone->key,
                         until = *until](const boost::system::error_code& ec) {
        const auto self = weak.lock();
        if (ec || !self) return;
        std::lock_guard relock(self->mutex_);
        self->players_.end_linger(key, until);
      });
    }
    // In a cluster a name that still holds a seat stays this node's, not connected.
    if (!gone->key.empty() && !players_.online(gone->key))
      cluster_take(gone->key, false, /*unless_live_elsewhere=*/true);
    if (gone->registered && !gone->key.empty())
      writer_->run([key = gone->key](store& db) { db.set_last_seen(key); });
    for (const auto& t : gone->tables) {
      const auto ta = tables_.find(t);
      if (ta != tables_.end()) leave.emplace_back(ta->second, gone->name);
    }
  }
  for (auto& [actor, name] : leave) actor->exit(c->id(), name);
}

void game_service::shutdown(std::function<void()> saved) {
  if (bus_) bus_->stop();  // the other nodes stop listing this one's tables after the lease
  // Running analyses are killed and stay pending: they are queued again at the next start.
  if (analysis_) analysis_->stop();
  std::vector<std::shared_ptr<table_actor>> all;
  {
    std::lock_guard lock(mutex_);
    shutting_down_ = true;
    for (auto& [name, actor] : tables_) all.push_back(actor);
  }
  // Every table flushes on its own strand at once; this thread (an I/O thread, maybe the
  // only one) waits for none of them. The last one to finish, or the --stop-timeout
  // timer, stops the rest of the service and calls `saved`.
  struct stopping {
    std::mutex mutex;
    std::set<std::string> left;  // tables not flushed yet
    bool finished = false;
    std::function<void()> saved;
    std::unique_ptr<asio::steady_timer> deadline;
  };
  auto st = std::make_shared<stopping>();
  st->saved = std::move(saved);
  st->deadline = std::make_unique<asio::steady_timer>(io_, config_.stop_timeout);
  for (const auto& actor : all) st->left.insert(actor->name());
  const std::size_t count = all.size();
  auto finish = [self = shared_from_this(), st, count](bool timed_out) {
    {
      std::lock_guard lock(st->mutex);
      if (st->finished) return;
      st->finished = true;
      if (timed_out) self->log_unsaved(st->left, count);
    }
    st->deadline->cancel();
    self->stop_after_tables(count);
    if (st->saved) st->saved();
  };
  if (all.empty()) {
    finish(false);
    return;
  }
  st->deadline->async_wait([finish](const boost::system::error_code& ec) {
    if (!ec) finish(true);
  });
  for (const auto& actor : all) {
    actor->flush([st, finish, name = actor->name()] {
      bool last = false;
      {
        std::lock_guard lock(st->mutex);
        st->left.erase(name);
        last = st->left.empty() && !st->finished;
      }
      if (last) finish(false);
    });
  }
}

void game_service::log_unsaved(const std::set<std::string>& left, std::size_t count) const {
  std::string names;
  std::size_t listed = 0;
  for (const auto& n : left) {
    if (listed++ == 10) break;
    names += (names.empty() ? "" : ", ") + log_safe(n);
  }
  spdlog::warn("{} of {} table(s) did not save in {} s (--stop-timeout): {}{}", left.size(), count,
               config_.stop_timeout.count(), names, left.size() > 10 ? ", ..." : "");
}

void game_service::stop_after_tables(std::size_t count) {
  auth_.stop();  // no login is checked any more
  if (reader_) reader_->stop();
  writer_->stop();             // everything queued is on disk when this returns
  if (gnubg_) gnubg_->stop();  // GNU Backgammon's processes end with the server
  long_bots_->stop();          // and the long nardy bots' thread
  spdlog::info("saved {} table(s) ({} writes in {} transactions since the start)", count,
               writer_->totals().writes, writer_->totals().transactions);
}

std::shared_ptr<const std::string> game_service::rate_limited_reply(std::string_view text) {
  const auto decoded = protocol::decode(text);
  if (!decoded || !decoded->id) return nullptr;
  return frame_of(protocol::error_message(
      protocol::said_error("rate_limited", "service.rate_limited"), decoded->id));
}

}  // namespace bg::server
