#include "store/store_core.hpp"

#include <algorithm>
#include <climits>
#include <limits>
#include <utility>

#include <nlohmann/json.hpp>

#include "bg/server/records/record_json.hpp"

namespace bg::server::store_core {

std::string pr_side_sum(const char* what) {
  return std::string("CASE am.side WHEN 'red' THEN an.red_") + what + " ELSE an.black_" + what +
         " END";
}

std::string pr_sum(const char* what) {
  return "sum(" + pr_side_sum(what) + ")";
}

std::string line_pr_sums() {
  const std::string from =
      " FROM account_matches am JOIN analyses an ON an.match_id = am.match_id AND an.status = "
      "'done' WHERE am.account_id = l.id)";
  return "(SELECT " + pr_sum("equity_lost") + from + ", (SELECT " + pr_sum("decisions") + from;
}

// --- the checks of a call's arguments ------------------------------------------------

void check_new_account(account::kind what, const std::string& password_hash) {
  if (what == account::kind::player && password_hash.empty())
    throw storage_error("a player account needs a password hash");
  if (what == account::kind::bot && !password_hash.empty())
    throw storage_error("a bot account has no password");
}

void check_password_hash(const std::string& password_hash) {
  if (password_hash.empty()) throw storage_error("a player account needs a password hash");
}

void check_bans(const std::vector<ban>& bans) {
  if (bans.empty()) throw storage_error("a ban needs a name");
  for (const auto& b : bans)
    if (b.name_key != bans.front().name_key)
      throw storage_error("the bans of one /ban are all of one name");
}

std::int64_t row_limit(std::size_t limit) noexcept {
  return static_cast<std::int64_t>(std::min<std::size_t>(limit, INT32_MAX));
}

std::int64_t analysis_limit(std::size_t limit) noexcept {
  return static_cast<std::int64_t>(
      std::min<std::size_t>(limit, std::numeric_limits<std::int64_t>::max()));
}

std::int64_t history_bound(std::int64_t before_id) noexcept {
  return before_id > 0 ? before_id : std::numeric_limits<std::int64_t>::max();
}

// --- result rows -------------------------------------------------------------------

account account_of(const row& r) {
  account a;
  a.id = r.integer(0);
  a.key = r.text(1);
  a.name = r.text(2);
  a.what = r.text(3) == "bot" ? account::kind::bot : account::kind::player;
  a.password_hash = r.text(4);
  a.created_at = r.text(5);
  a.last_seen = r.text(6);
  a.lang = r.text(7);
  return a;
}

void add_standing(account& a, const row& r) {
  const auto v = engine::variant_from_string(r.text(0));
  if (!v) return;
  auto& standing = a.standings[*v == engine::variant::standard ? 0 : 1];
  standing.rating = r.real(1);
  standing.experience = static_cast<int>(r.integer(2));
  standing.played = static_cast<int>(r.integer(3));
  standing.won = static_cast<int>(r.integer(4));
}

account_match account_match_of(const row& r) {
  account_match m;
  m.match_id = r.integer(0);
  m.ended_at = r.text(1);
  try {
    m.options = nlohmann::json::parse(r.text(2)).get<engine::match_options>();
  } catch (const nlohmann::json::exception& e) {
    throw storage_error("match " + std::to_string(m.match_id) +
                        " has unreadable options: " + e.what());
  }
  m.side = r.text(3) == "black" ? engine::side::black : engine::side::red;
  m.opponent = r.text(4);
  m.final_score = {static_cast<int>(r.integer(5)), static_cast<int>(r.integer(6))};
  if (!r.is_null(7)) m.won = r.boolean(7);
  if (!r.is_null(8)) {
    m.rating = rating_change{r.text(12), r.real(8), r.real(9), static_cast<int>(r.integer(10)),
                             static_cast<int>(r.integer(11))};
  }
  if (!r.is_null(13) && !r.is_null(14)) m.performance = pr_sums{r.real(13), r.integer(14)};
  return m;
}

leaderboard_entry leaderboard_entry_of(const row& r, int rank) {
  leaderboard_entry e;
  e.rank = rank;
  e.name = r.text(0);
  e.standing = account::standing{r.real(1), static_cast<int>(r.integer(2)),
                                 static_cast<int>(r.integer(3)), static_cast<int>(r.integer(4))};
  e.bot = r.text(5) == "bot";
  if (!r.is_null(6) && !r.is_null(7)) e.performance = pr_sums{r.real(6), r.integer(7)};
  return e;
}

performance_sums performance_sums_of(const row& r) {
  performance_sums p;
  if (!r.is_null(0)) p.sums.equity_lost = r.real(0);
  if (!r.is_null(1)) p.sums.decisions = r.integer(1);
  p.matches = static_cast<int>(r.integer(2));
  return p;
}

std::optional<std::array<pr_sums, 2>> analysis_pr_sums(const analysis_record& a) {
  if (a.status != analysis_status::done || a.result.empty()) return std::nullopt;
  const auto result = nlohmann::json::parse(a.result, nullptr, false);
  if (result.is_discarded() || !result.is_object()) return std::nullopt;
  const auto players = result.find("players");
  if (players == result.end() || !players->is_object())
    return std::array<pr_sums, 2>{};  // an analysis without players: nothing judged
  const auto side = [&](const char* name) {
    const auto p = players->find(name);
    return p == players->end() ? pr_sums{} : pr_sums_of(*p);
  };
  return std::array<pr_sums, 2>{side("red"), side("black")};
}

ban ban_of(const row& r) {
  ban b;
  b.name_key = r.text(0);
  b.address = r.text(1);
  b.name = r.text(2);
  b.by = r.text(3);
  b.created_at = r.text(4);
  b.until_ms = r.integer(5);
  return b;
}

login_session login_session_of(const row& r) {
  login_session out;
  out.id = r.integer(0);
  out.account_key = r.text(1);
  out.label = r.text(2);
  out.created_ms = r.integer(3);
  out.used_ms = r.integer(4);
  out.expires_ms = r.integer(5);
  return out;
}

analysis_record analysis_of(std::int64_t match_id, const row& r) {
  analysis_record a;
  a.match_id = match_id;
  const auto status = analysis_status_from_string(r.text(0));
  if (!status)
    throw storage_error("the analysis of match " + std::to_string(match_id) +
                        " has an unknown status");
  a.status = *status;
  a.level = r.text(1);
  a.result = r.text(2);
  a.reason = r.text(3);
  a.queued_at = r.text(4);
  a.finished_at = r.text(5);
  return a;
}

match_record match_of(std::int64_t id, const std::string& record_json) {
  try {
    match_record record = match_record_from_json_text(record_json);
    record.id = id;
    return record;
  } catch (const nlohmann::json::exception& e) {
    throw storage_error("match " + std::to_string(id) + " has an unreadable record: " + e.what());
  }
}

match_row match_row_of(std::int64_t id, const match_record& record) {
  if (id <= 0) throw storage_error("a finished match has no id");
  const nlohmann::json options = record.options;
  match_record stored = record;
  stored.id = 0;  // the row's id is the id; load_match() sets it
  match_row out;
  out.id = id;
  out.table = record.table;
  out.red = record.players[0];
  out.black = record.players[1];
  out.options = options.dump();
  out.record = to_json_text(stored);
  out.started_at = record.started_at;
  out.ended_at = record.ended_at;
  out.score_red = record.final_score[0];
  out.score_black = record.final_score[1];
  out.games = static_cast<std::int64_t>(record.games.size());
  out.unfinished = record.unfinished;
  return out;
}

void journal_merge::add(const std::string& table_name, std::string entry) {
  while (next_ < tables_.size() && tables_[next_].name < table_name) ++next_;
  if (next_ < tables_.size() && tables_[next_].name == table_name)
    tables_[next_].record_journal.push_back(std::move(entry));
}

// --- one table write ------------------------------------------------------------------

namespace {

/// The accounts of a finished match's players, [red, black]: nullopt for a guest (no
/// key, or no such account).
std::array<std::optional<match_player>, 2> players_of(const table_write& w,
                                                      std::string_view variant,
                                                      table_writer& backend) {
  std::array<std::optional<match_player>, 2> players;
  for (std::size_t i = 0; i < 2; ++i)
    if (!w.account_keys[i].empty()) players[i] = backend.rating_of(w.account_keys[i], variant);
  return players;
}

/// The ratings of the finished match of `w` between `players` (rate_finished_match()).
std::optional<std::array<rating_change, 2>> rate(
    const table_write& w, const std::array<std::optional<match_player>, 2>& players) {
  std::array<std::optional<rating_standing>, 2> standing;
  std::array<std::string, 2> names;
  for (std::size_t i = 0; i < 2; ++i) {
    if (!players[i]) continue;
    standing[i] = players[i]->standing;
    names[i] = players[i]->name;
  }
  return rate_finished_match(w.rated, w.winner, standing, names, w.finished_match->options.length);
}

/// Writes side `i`'s account standing and history row for the stored match `record`.
void record_player(const table_write& w, const match_record& record, std::string_view variant,
                   std::size_t i, const match_player& player, table_writer& backend) {
  const auto s = static_cast<engine::side>(i);
  const bool won = w.winner && *w.winner == s;
  const auto& ratings = record.ratings;
  standing_update update{player.account_id, variant, player.standing.rating,
                         player.standing.experience, won};
  if (ratings) {
    update.rating = (*ratings)[i].after;
    update.experience = (*ratings)[i].experience_after;
  }
  backend.update_standing(update);
  history_entry entry{player.account_id,     record.id,    s,
                      record.players[1 - i], std::nullopt, std::nullopt};
  if (w.winner) entry.won = won;
  if (ratings) entry.rating = (*ratings)[i];
  backend.insert_history(entry);
}

/// The finished match of `w`: the ratings are read, computed and kept in the record
/// before it is stored; the history rows name the stored match (a foreign key), so they
/// follow it. Returns the ratings when rated.
std::optional<std::array<rating_change, 2>> archive_match(const table_write& w,
                                                          table_writer& backend) {
  match_record record = *w.finished_match;
  const std::string_view variant = engine::to_string(record.options.game_variant);
  const auto players = players_of(w, variant, backend);
  record.ratings = rate(w, players);
  backend.insert_match(record);
  for (std::size_t i = 0; i < 2; ++i)
    if (players[i]) record_player(w, record, variant, i, *players[i], backend);
  return record.ratings;
}

}  // namespace

std::optional<std::array<rating_change, 2>> write_table(const table_write& w,
                                                        table_writer& backend) {
  if (w.drop) {
    backend.drop_table(w);
    for (const auto& a : w.moderation) backend.insert_moderation(a);
    return std::nullopt;
  }
  std::optional<std::array<rating_change, 2>> ratings;
  if (w.finished_match) {
    ratings = archive_match(w, backend);
    if (w.analyse_match) backend.queue_analysis(w.finished_match->id);
  }
  backend.save_table(w);
  for (const auto& a : w.moderation) backend.insert_moderation(a);
  return ratings;
}

}  // namespace bg::server::store_core
