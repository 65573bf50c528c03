/// @file tournament.cpp
/// One tournament's state machine (tournament.hpp, RULES.md S6).

#include "bg/server/tournament/tournament.hpp"

#include <algorithm>
#include <stdexcept>

#include "bg/i18n/catalogue.hpp"
#include "bg/protocol/codec.hpp"
#include "bg/server/players/names.hpp"

namespace bg::server {

using nlohmann::json;

std::string_view to_string(tournament_kind k) noexcept {
  switch (k) {
    case tournament_kind::knockout:
      return "knockout";
    case tournament_kind::swiss:
      return "swiss";
    case tournament_kind::arena:
      return "arena";
  }
  return "swiss";
}

std::string_view to_string(tournament_status s) noexcept {
  switch (s) {
    case tournament_status::registering:
      return "registering";
    case tournament_status::running:
      return "running";
    case tournament_status::finished:
      return "finished";
    case tournament_status::cancelled:
      return "cancelled";
  }
  return "registering";
}

std::optional<tournament_kind> tournament_kind_of(std::string_view text) noexcept {
  for (const auto k : {tournament_kind::knockout, tournament_kind::swiss, tournament_kind::arena})
    if (to_string(k) == text) return k;
  return std::nullopt;
}

namespace {

std::optional<tournament_status> status_of(std::string_view text) {
  for (const auto s : {tournament_status::registering, tournament_status::running,
                       tournament_status::finished, tournament_status::cancelled})
    if (to_string(s) == text) return s;
  return std::nullopt;
}

const char* win_kind_name(win_kind k) {
  return k == win_kind::backgammon ? "backgammon" : k == win_kind::gammon ? "gammon" : "single";
}

win_kind win_kind_of(std::string_view s) {
  return s == "backgammon" ? win_kind::backgammon
         : s == "gammon"   ? win_kind::gammon
                           : win_kind::single;
}

json optional_name(const std::optional<std::string>& s) {
  return s ? json(*s) : json(nullptr);
}

std::optional<std::string> name_or_none(const json& j) {
  return j.is_string() ? std::optional(j.get<std::string>()) : std::nullopt;
}

}  // namespace

tournament::tournament(std::string name, std::string creator, tournament_terms terms,
                       std::int64_t created_ms)
    : name_(std::move(name)),
      creator_(std::move(creator)),
      terms_(terms),
      created_ms_(created_ms) {}

const tournament_player* tournament::player(const std::string& name) const {
  const auto key = name_key(name);
  for (const auto& p : players_)
    if (name_key(p.name) == key) return &p;
  return nullptr;
}

tournament_player* tournament::find(const std::string& name) {
  return const_cast<tournament_player*>(std::as_const(*this).player(name));
}

const tournament_pairing* tournament::pairing_at(const std::string& table) const {
  for (const auto& p : pairings_)
    if (!p.table.empty() && p.table == table) return &p;
  return nullptr;
}

std::optional<engine::error> tournament::enter(const std::string& who, double rating,
                                               std::int64_t now) {
  if (status_ != tournament_status::registering)
    return protocol::said_error("tournament_started", "tournament.registration_closed",
                                {{"name", name_}, {"status", to_string(status_)}});
  if (player(who) != nullptr)
    return protocol::said_error("already_registered", "tournament.already_registered",
                                {{"name", name_}});
  if (players_.size() >= static_cast<std::size_t>(terms_.max_players))
    return protocol::said_error("tournament_full", "tournament.full",
                                {{"name", name_}, {"count", terms_.max_players}});
  players_.push_back(tournament_player{who, rating, false, {}, now});
  return std::nullopt;
}

std::optional<engine::error> tournament::withdraw(const std::string& who, std::int64_t now) {
  if (!open()) return protocol::said_error("tournament_over", "tournament.over", {{"name", name_}});
  auto* p = find(who);
  if (p == nullptr || p->withdrawn)
    return protocol::said_error("not_registered", "tournament.not_playing", {{"name", name_}});
  if (status_ == tournament_status::registering) {
    const auto key = name_key(who);
    std::erase_if(players_, [&](const tournament_player& q) { return name_key(q.name) == key; });
    return std::nullopt;
  }
  p->withdrawn = true;
  const std::string gone = p->name;
  std::erase(pool_, gone);
  // S6: a withdrawn player forfeits the rest, the match in play included; the next
  // round (or an arena's next pairing) comes at the next tick().
  for (auto& q : pairings_)
    if (!q.winner && q.black && (q.red == gone || *q.black == gone)) {
      const std::string other = q.red == gone ? *q.black : q.red;
      settle(q, other, "withdrawn", win_kind::single);
      q.started_ms = q.started_ms == 0 ? now : q.started_ms;
      if (terms_.kind == tournament_kind::arena && !arena_closed_) pool_.push_back(other);
    }
  return std::nullopt;
}

std::optional<engine::error> tournament::cancel(std::int64_t now) {
  if (!open()) return protocol::said_error("tournament_over", "tournament.over", {{"name", name_}});
  status_ = tournament_status::cancelled;
  ended_ms_ = now;
  end_reason_ = "cancelled";
  pool_.clear();
  return std::nullopt;
}

bool tournament::tick(std::int64_t now, const std::function<std::int64_t()>& reserve_id) {
  if (status_ == tournament_status::registering && now >= terms_.start_ms) {
    if (players_.size() < static_cast<std::size_t>(std::max(2, terms_.min_players))) {
      status_ = tournament_status::cancelled;
      ended_ms_ = now;
      end_reason_ =
          i18n::english("tournament.too_few_players", {{"count", std::max(2, terms_.min_players)}});
      return true;
    }
    start(now, reserve_id);
    return true;
  }
  if (status_ == tournament_status::running && terms_.kind == tournament_kind::arena &&
      !arena_closed_ && now >= started_ms_ + std::int64_t{terms_.minutes} * minute_ms_) {
    arena_closed_ = true;  // S6: pairing stops; matches in progress finish
    pool_.clear();
    if (round_complete()) finish(now);
    return true;
  }
  if (status_ == tournament_status::running && terms_.kind == tournament_kind::arena) {
    const auto before = pairings_.size();
    if (!arena_closed_ && pool_.size() >= 2) pair_arena_pool(now, reserve_id);
    if (arena_closed_ && round_complete()) {
      finish(now);
      return true;
    }
    return pairings_.size() != before;
  }
  // A running tournament whose pairings are all settled (a withdrawal's walkover, a
  // restart) moves on.
  if (status_ == tournament_status::running && round_complete() &&
      terms_.kind != tournament_kind::arena) {
    const auto before = pairings_.size();
    advance(now, reserve_id);
    return pairings_.size() != before || status_ != tournament_status::running;
  }
  return false;
}

void tournament::start(std::int64_t now, const std::function<std::int64_t()>& reserve_id) {
  status_ = tournament_status::running;
  started_ms_ = now;
  round_ = 1;
  switch (terms_.kind) {
    case tournament_kind::knockout:
      add_round(knockout_first_round(active_field()), now, reserve_id);
      break;
    case tournament_kind::swiss:
      add_round(swiss_round(active_field(), {}), now, reserve_id);
      break;
    case tournament_kind::arena:
      for (const auto& e : seeded(active_field())) pool_.push_back(e.name);
      pair_arena_pool(now, reserve_id);
      break;
  }
}

void tournament::finish(std::int64_t now) {
  status_ = tournament_status::finished;
  ended_ms_ = now;
  end_reason_ = "finished";
  pool_.clear();
}

void tournament::add_round(const std::vector<round_pairing>& pairs, std::int64_t now,
                           const std::function<std::int64_t()>& reserve_id) {
  std::size_t n = 0;
  for (const auto& rp : pairs) {
    tournament_pairing p;
    p.round = round_;
    p.red = rp.red;
    p.black = rp.black;
    p.started_ms = now;
    if (!p.black) {
      p.winner = p.red;
      p.how = "bye";
    } else {
      p.table = name_ + "-r" + std::to_string(round_) + "-" + std::to_string(++n);
      const auto* r = player(p.red);
      const auto* b = player(*p.black);
      if ((r && r->withdrawn) || (b && b->withdrawn)) {
        p.winner = (r && r->withdrawn) ? *p.black : p.red;
        p.how = "withdrawn";
        p.table.clear();
      } else {
        p.match_id = reserve_id();
      }
    }
    pairings_.push_back(std::move(p));
  }
}

void tournament::settle(tournament_pairing& p, const std::string& winner, std::string how,
                        win_kind kind) {
  p.winner = winner;
  p.how = std::move(how);
  p.won_by = kind;
  if (terms_.kind != tournament_kind::arena || !p.black) return;
  const std::string loser = winner == p.red ? *p.black : p.red;
  if (auto* w = find(winner)) w->arena.add(true, kind);
  if (auto* l = find(loser)) l->arena.add(false);
}

bool tournament::round_complete() const {
  return std::all_of(pairings_.begin(), pairings_.end(),
                     [](const tournament_pairing& p) { return p.winner.has_value(); });
}

bool tournament::match_finished(const std::string& table, const std::optional<std::string>& winner,
                                win_kind kind, std::int64_t now,
                                const std::function<std::int64_t()>& reserve_id) {
  if (status_ != tournament_status::running) return false;
  auto it = std::find_if(pairings_.begin(), pairings_.end(),
                         [&](const tournament_pairing& p) { return p.table == table; });
  if (it == pairings_.end() || it->winner || it->how == "unfinished") return false;
  if (!winner || (*winner != it->red && *winner != it->black)) {
    it->how = "unfinished";  // closed by an administrator: /tournament adjudicate settles it
    return true;
  }
  const std::string red = it->red;
  const std::string black = *it->black;
  settle(*it, *winner, "played", kind);
  after_result(red, black, now, reserve_id);
  return true;
}

std::optional<engine::error> tournament::adjudicate(
    const std::string& table, const std::string& winner, const std::string& reason,
    std::int64_t now, const std::function<std::int64_t()>& reserve_id) {
  auto it = std::find_if(pairings_.begin(), pairings_.end(),
                         [&](const tournament_pairing& p) { return p.table == table; });
  if (table.empty() || it == pairings_.end())
    return protocol::said_error("unknown_table", "tournament.no_pairing_at",
                                {{"name", name_}, {"table", table}});
  if (it->winner || status_ != tournament_status::running)
    return protocol::said_error("pairing_over", "tournament.pairing_over", {{"table", table}});
  const auto key = name_key(winner);
  if (name_key(it->red) != key && name_key(*it->black) != key)
    return protocol::said_error("not_registered", "tournament.winner_not_at_table",
                                {{"winner", winner}, {"table", table}});
  const std::string red = it->red;
  const std::string black = *it->black;
  settle(*it, name_key(it->red) == key ? it->red : *it->black, "adjudicated", win_kind::single);
  it->reason = reason;
  after_result(red, black, now, reserve_id);
  return std::nullopt;
}

void tournament::after_result(const std::string& red, const std::string& black, std::int64_t now,
                              const std::function<std::int64_t()>& reserve_id) {
  if (terms_.kind != tournament_kind::arena) {
    advance(now, reserve_id);
    return;
  }
  if (arena_closed_) {
    if (round_complete()) finish(now);
    return;
  }
  for (const auto& n : {red, black})
    if (const auto* p = player(n); p && !p->withdrawn) pool_.push_back(n);
  pair_arena_pool(now, reserve_id);
}

void tournament::advance(std::int64_t now, const std::function<std::int64_t()>& reserve_id) {
  if (!round_complete() || status_ != tournament_status::running) return;
  if (terms_.kind == tournament_kind::knockout) {
    std::vector<std::string> winners;
    for (const auto& p : pairings_)
      if (p.round == round_) winners.push_back(*p.winner);
    if (winners.size() <= 1) {
      finish(now);
      return;
    }
    ++round_;
    add_round(knockout_next_round(winners), now, reserve_id);
    advance(now, reserve_id);  // a round of walkovers is complete at once
    return;
  }
  if (terms_.kind == tournament_kind::swiss) {
    const auto field = active_field();
    if (round_ >= terms_.rounds || field.size() < 2) {
      finish(now);
      return;
    }
    ++round_;
    add_round(swiss_round(field, swiss_results()), now, reserve_id);
    advance(now, reserve_id);
  }
}

void tournament::pair_arena_pool(std::int64_t now,
                                 const std::function<std::int64_t()>& reserve_id) {
  std::vector<arena_waiting> pool;
  for (std::size_t i = 0; i < pool_.size(); ++i) {
    arena_waiting w;
    w.name = pool_[i];
    w.arrival = i;
    if (const auto* p = player(pool_[i])) w.points = p->arena.points;
    for (auto it = pairings_.rbegin(); it != pairings_.rend(); ++it)
      if (it->black && (it->red == w.name || *it->black == w.name)) {
        w.last_opponent = it->red == w.name ? *it->black : it->red;
        break;
      }
    pool.push_back(std::move(w));
  }
  std::vector<std::string> paired;
  for (const auto& [a, b] : arena_pairs(pool)) {
    tournament_pairing p;
    p.round = 1;
    p.red = pool[a].name;
    p.black = pool[b].name;
    p.table = name_ + "-a" + std::to_string(++arena_tables_);
    p.match_id = reserve_id();
    p.started_ms = now;
    pairings_.push_back(std::move(p));
    paired.push_back(pool[a].name);
    paired.push_back(pool[b].name);
  }
  std::erase_if(pool_, [&](const std::string& n) {
    return std::find(paired.begin(), paired.end(), n) != paired.end();
  });
}

std::vector<entrant> tournament::whole_field() const {
  std::vector<entrant> out;
  for (const auto& p : players_) out.push_back({p.name, p.rating});
  return out;
}

std::vector<entrant> tournament::active_field() const {
  std::vector<entrant> out;
  for (const auto& p : players_)
    if (!p.withdrawn) out.push_back({p.name, p.rating});
  return out;
}

std::vector<swiss_result> tournament::swiss_results() const {
  std::vector<swiss_result> out;
  for (const auto& p : pairings_) out.push_back({p.red, p.black, p.winner});
  return out;
}

std::vector<tournament_pairing> tournament::take_new_pairings() {
  std::vector<tournament_pairing> out;
  for (; announced_ < pairings_.size(); ++announced_) {
    out.push_back(pairings_[announced_]);
  }
  return out;
}

std::vector<standing> tournament::standings() const {
  if (terms_.kind == tournament_kind::swiss) return swiss_standings(whole_field(), swiss_results());
  std::vector<standing> out;
  for (const auto& p : players_) {
    standing s;
    s.name = p.name;
    s.rating = p.rating;
    if (terms_.kind == tournament_kind::arena) {
      s.wins = p.arena.wins;
      s.points = p.arena.points;
    } else {
      // A knockout: the pairings won (byes and walkovers too) are the rounds survived.
      for (const auto& q : pairings_)
        if (q.winner && *q.winner == p.name) ++s.wins;
      s.points = s.wins;
    }
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const standing& a, const standing& b) {
    if (a.points != b.points) return a.points > b.points;
    if (a.wins != b.wins) return a.wins > b.wins;
    if (a.rating != b.rating) return a.rating > b.rating;
    return a.name < b.name;
  });
  for (std::size_t i = 0; i < out.size(); ++i) out[i].rank = static_cast<int>(i) + 1;
  return out;
}

// ------------------------------------------------------------------------------------
// JSON

namespace {

json terms_json(const tournament_terms& t) {
  return json{{"kind", to_string(t.kind)},
              {"rounds", t.rounds},
              {"minutes", t.minutes},
              {"variant", engine::to_string(t.game_variant)},
              {"match", t.match_length},
              {"clock", {{"minutes", t.clock_minutes}, {"delay", t.clock_delay_seconds}}},
              {"start", t.start_ms},
              {"min", t.min_players},
              {"max", t.max_players},
              {"rated", t.rated}};
}

tournament_terms terms_of(const json& j) {
  tournament_terms t;
  const auto kind = tournament_kind_of(j.at("kind").get<std::string>());
  const auto variant = engine::variant_from_string(j.at("variant").get<std::string>());
  if (!kind || !variant) throw std::runtime_error("a tournament's kind or variant is unknown");
  t.kind = *kind;
  t.game_variant = *variant;
  t.rounds = j.at("rounds").get<int>();
  t.minutes = j.at("minutes").get<int>();
  t.match_length = j.at("match").get<int>();
  t.clock_minutes = j.at("clock").at("minutes").get<int>();
  t.clock_delay_seconds = j.at("clock").at("delay").get<int>();
  t.start_ms = j.at("start").get<std::int64_t>();
  t.min_players = j.at("min").get<int>();
  t.max_players = j.at("max").get<int>();
  t.rated = j.at("rated").get<bool>();
  return t;
}

json pairing_json(const tournament_pairing& p) {
  return json{{"round", p.round},
              {"red", p.red},
              {"black", optional_name(p.black)},
              {"table", p.table.empty() ? json(nullptr) : json(p.table)},
              {"match_id", p.match_id == 0 ? json(nullptr) : json(p.match_id)},
              {"winner", optional_name(p.winner)},
              {"how", p.how},
              {"reason", p.reason},
              {"won_by", win_kind_name(p.won_by)},
              {"started", p.started_ms}};
}

tournament_pairing pairing_of(const json& j) {
  tournament_pairing p;
  p.round = j.at("round").get<int>();
  p.red = j.at("red").get<std::string>();
  p.black = name_or_none(j.at("black"));
  p.table = j.at("table").is_string() ? j.at("table").get<std::string>() : std::string();
  p.match_id = j.at("match_id").is_number() ? j.at("match_id").get<std::int64_t>() : 0;
  p.winner = name_or_none(j.at("winner"));
  p.how = j.at("how").get<std::string>();
  p.reason = j.value("reason", std::string());
  p.won_by = win_kind_of(j.value("won_by", std::string("single")));
  p.started_ms = j.value("started", std::int64_t{0});
  return p;
}

/// The arguments of catalogue message tournament.rules (the rules in words) for `t`.
json rules_args(const tournament_terms& t) {
  return json{{"kind", to_string(t.kind)},      {"rounds", t.rounds},
              {"minutes", t.minutes},           {"variant", engine::to_string(t.game_variant)},
              {"length", t.match_length},       {"clock_minutes", t.clock_minutes},
              {"delay", t.clock_delay_seconds}, {"rated", t.rated ? "yes" : "no"}};
}

}  // namespace

json tournament::to_json() const {
  json players = json::array();
  for (const auto& p : players_)
    players.push_back(
        {{"name", p.name},
         {"rating", p.rating},
         {"withdrawn", p.withdrawn},
         {"registered", p.registered_ms},
         {"arena",
          {{"points", p.arena.points}, {"wins", p.arena.wins}, {"streak", p.arena.streak}}}});
  json pairings = json::array();
  for (const auto& p : pairings_) pairings.push_back(pairing_json(p));
  return json{{"version", 1},
              {"name", name_},
              {"creator", creator_},
              {"terms", terms_json(terms_)},
              {"status", to_string(status_)},
              {"created", created_ms_},
              {"started", started_ms_},
              {"ended", ended_ms_},
              {"end_reason", end_reason_},
              {"players", std::move(players)},
              {"pairings", std::move(pairings)},
              {"round", round_},
              {"pool", pool_},
              {"arena_tables", arena_tables_},
              {"arena_closed", arena_closed_}};
}

tournament tournament::from_json(const json& doc) {
  tournament t;
  t.name_ = doc.at("name").get<std::string>();
  t.creator_ = doc.at("creator").get<std::string>();
  t.terms_ = terms_of(doc.at("terms"));
  const auto status = status_of(doc.at("status").get<std::string>());
  if (!status) throw std::runtime_error("a tournament's status is unknown");
  t.status_ = *status;
  t.created_ms_ = doc.at("created").get<std::int64_t>();
  t.started_ms_ = doc.at("started").get<std::int64_t>();
  t.ended_ms_ = doc.at("ended").get<std::int64_t>();
  t.end_reason_ = doc.value("end_reason", std::string());
  for (const auto& p : doc.at("players")) {
    tournament_player q;
    q.name = p.at("name").get<std::string>();
    q.rating = p.at("rating").get<double>();
    q.withdrawn = p.at("withdrawn").get<bool>();
    q.registered_ms = p.value("registered", std::int64_t{0});
    q.arena.points = p.at("arena").at("points").get<int>();
    q.arena.wins = p.at("arena").at("wins").get<int>();
    q.arena.streak = p.at("arena").at("streak").get<int>();
    t.players_.push_back(std::move(q));
  }
  for (const auto& p : doc.at("pairings")) t.pairings_.push_back(pairing_of(p));
  t.round_ = doc.at("round").get<int>();
  t.pool_ = doc.at("pool").get<std::vector<std::string>>();
  t.arena_tables_ = doc.at("arena_tables").get<std::size_t>();
  t.arena_closed_ = doc.at("arena_closed").get<bool>();
  t.announced_ = t.pairings_.size();  // the service seats what is not seated yet
  return t;
}

json tournament::summary() const {
  std::size_t playing = 0;
  for (const auto& p : players_)
    if (!p.withdrawn) ++playing;
  return json{{"name", name_},
              {"kind", to_string(terms_.kind)},
              {"status", to_string(status_)},
              {"registered", playing},
              {"max", terms_.max_players},
              {"start", terms_.start_ms},
              {"round", round_},
              {"variant", engine::to_string(terms_.game_variant)},
              {"match", terms_.match_length},
              {"creator", creator_}};
}

json tournament::view() const {
  json out = summary();
  out["terms"] = terms_json(terms_);
  // The rules in words, and their sentence for a client that says them itself.
  out["rules"] = i18n::english("tournament.rules", rules_args(terms_));
  out["rules_say"] = i18n::say("tournament.rules", rules_args(terms_));
  out["started"] = started_ms_;
  out["ended"] = ended_ms_;
  out["end_reason"] = end_reason_;
  if (status_ == tournament_status::cancelled && end_reason_ != "cancelled")
    out["end_reason_say"] =
        i18n::say("tournament.too_few_players", {{"count", std::max(2, terms_.min_players)}});
  json names = json::array();
  json entrants = json::array();
  for (const auto& p : players_) {
    if (!p.withdrawn) names.push_back(p.name);
    entrants.push_back({{"name", p.name}, {"rating", p.rating}, {"withdrawn", p.withdrawn}});
  }
  out["players"] = std::move(names);
  out["entrants"] = std::move(entrants);
  json rounds = json::array();
  for (const auto& p : pairings_) {
    while (rounds.size() < static_cast<std::size_t>(p.round)) rounds.push_back(json::array());
    auto j = pairing_json(p);
    j.erase("started");
    rounds[static_cast<std::size_t>(p.round - 1)].push_back(std::move(j));
  }
  if (terms_.kind == tournament_kind::knockout) out["bracket"] = rounds;
  out["rounds"] = std::move(rounds);
  json table = json::array();
  for (const auto& s : standings()) {
    json line{{"name", s.name},
              {"wins", s.wins},
              {"points", s.points},
              {"buchholz", s.buchholz},
              {"rank", s.rank}};
    if (terms_.kind == tournament_kind::arena)
      if (const auto* p = player(s.name)) line["streak"] = p->arena.streak;
    table.push_back(std::move(line));
  }
  out["standings"] = std::move(table);
  out["waiting"] = pool_;
  return out;
}

}  // namespace bg::server
