// The HTTP routes of the game service (net/service.hpp's on_http_request): the stored
// matches (GET /matches/<id>.mat, /api/matches/<id>, its /analysis and /replay) and the
// account routes (issue 12: GET /api/ratings, /api/players/NAME and its /matches), each
// read on the reader thread, never on an I/O thread. Members of game_service
// (game_service.hpp).

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "api/account_views.hpp"
#include "bg/i18n/catalogue.hpp"
#include "bg/protocol/codec.hpp"
#include "bg/server/api/analysis_view.hpp"
#include "bg/server/api/match_replay.hpp"
#include "bg/server/players/names.hpp"
#include "bg/server/records/mat_export.hpp"
#include "bg/server/records/record_json.hpp"
#include "bg/server/service/game_service.hpp"
#include "players/name_errors.hpp"
#include "service/service_helpers.hpp"

namespace bg::server {

using nlohmann::json;
using service_helpers::history_lines;
using service_helpers::id_of;
using service_helpers::ratings_lines;
using service_helpers::whole_number;

namespace {

/// What `GET /api/matches/<id>/...` asks of a stored match.
enum class match_view : unsigned char {
  analysis,  ///< `/analysis`: GNU Backgammon's analysis (analysis_view.hpp)
  replay,    ///< `/replay`: every step with its board (match_replay.hpp)
};

/// A path `/api/matches/<digits>/analysis` or `/api/matches/<digits>/replay` (no query):
/// which view and the digits between (not checked: id_of() reads them); nullopt for any
/// other path.
std::optional<std::pair<match_view, std::string_view>> match_view_of(std::string_view path) {
  constexpr std::string_view api = "/api/matches/";
  constexpr std::array<std::pair<std::string_view, match_view>, 2> suffixes{
      {{"/analysis", match_view::analysis}, {"/replay", match_view::replay}}};
  if (path.substr(0, api.size()) != api) return std::nullopt;
  for (const auto& [suffix, view] : suffixes)
    if (path.size() > api.size() + suffix.size() &&
        path.substr(path.size() - suffix.size()) == suffix)
      return std::pair{view, path.substr(api.size(), path.size() - api.size() - suffix.size())};
  return std::nullopt;
}

/// An /api error of `e`: the HTTP status and {"code", "message", "say"} (a client may
/// render `say` in its player's language).
http_reply api_error(unsigned status, const engine::error& e) {
  json body{{"code", e.code}, {"message", e.message}};
  if (!e.key.empty()) body["say"] = i18n::say(e.key, protocol::sentence_args(e.args));
  return http_reply{status, "application/json", protocol::encode(body)};
}

/// A 200 /api answer: `body` as JSON.
http_reply api_ok(const json& body) {
  return http_reply{200, "application/json", protocol::encode(body)};
}

/// `text` with %XX decoded (and '+' as a space in a query); nullopt when malformed or
/// not UTF-8 without control characters.
std::optional<std::string> url_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+' && plus_is_space) {
      out += ' ';
      continue;
    }
    if (c != '%') {
      out += c;
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    unsigned value = 0;
    const auto [ptr, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
    if (ec != std::errc{} || ptr != text.data() + i + 3) return std::nullopt;
    out += static_cast<char>(value);
    i += 2;
  }
  if (!protocol::valid_utf8(out) || protocol::has_control(out)) return std::nullopt;
  return out;
}

/// The parameters of a query string, or an error sentence: each decoded, none twice,
/// each one of `allowed`.
struct query_params {
  std::map<std::string, std::string> values;
  std::optional<engine::error> problem;  ///< a bad_parameter error, when there is one
};

/// The parameters of `query`, each one of `allowed` (a problem otherwise).
query_params parse_query(std::string_view query, std::initializer_list<std::string_view> allowed) {
  query_params out;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const auto key = url_decode(item.substr(0, eq), true);
    const auto value =
        url_decode(eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1), true);
    if (!key || !value) {
      out.problem = protocol::said_error("bad_parameter", "service.api_bad_encoding");
      return out;
    }
    if (std::find(allowed.begin(), allowed.end(), *key) == allowed.end()) {
      std::string names;
      for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
      out.problem = protocol::said_error("bad_parameter", "service.api_unknown_parameter",
                                         {{"names", names}});
      return out;
    }
    if (!out.values.emplace(*key, *value).second) {
      out.problem = protocol::said_error("bad_parameter", "service.api_parameter_twice");
      return out;
    }
  }
  return out;
}

/// The `limit` parameter in `q` (a query's parameters), at most `max_limit` (--api-max-limit: a
/// larger limit is cut to it), `fallback` (also cut) when there is none; 0 with `problem` set when
/// it is not a whole number from 1.
std::int64_t limit_of(const std::map<std::string, std::string>& q, std::int64_t fallback,
                      std::int64_t max_limit, std::optional<engine::error>& problem) {
  const auto it = q.find("limit");
  if (it == q.end()) return std::min(fallback, max_limit);
  const auto n = whole_number(it->second, 1, 1'000'000'000);
  if (!n) {
    problem = protocol::said_error("bad_parameter", "service.api_limit");
    return 0;
  }
  return std::min(*n, max_limit);  // bounded: a larger limit is cut to the maximum
}

}  // namespace

// ------------------------------------------------------------------------------------
// The stored matches

void game_service::on_http_request(std::string_view target, http_callback reply) {
  const std::string_view path = target.substr(0, target.find('?'));
  if (const auto view = match_view_of(path)) {
    const auto id = id_of(view->second);
    if (!id) {
      reply(std::nullopt);
      return;
    }
    answer_match_view(target, view->first == match_view::analysis, *id, std::move(reply));
    return;
  }
  constexpr std::string_view api_prefix = "/api/matches/";
  // The account routes (issue 12) answer every other /api/ path, with a JSON 404 when
  // none fits.
  if (target.substr(0, api_prefix.size()) != api_prefix && on_api_request(target, reply)) return;
  answer_match_record(target, path, std::move(reply));
}

void game_service::answer_match_view(std::string_view target, bool analysis, std::int64_t id,
                                     http_callback reply) {
  // Read on the reader thread, like the .mat export. A private match is not found.
  read_for_http(std::move(reply), [this, analysis, id, on = analysing(),
                                   max_steps = config_.replay_max_steps,
                                   reader = reader_of(target)](store& db, http_callback& respond) {
    std::optional<http_reply> answer;
    try {
      auto match = db.load_match(id);
      if (match && !may_read(*match, reader)) match.reset();
      if (analysis) {
        const auto stored = match ? db.load_analysis(id) : std::nullopt;
        const auto v = view_analysis(id, match, stored, on);
        answer = http_reply{v.found ? 200U : 404U, "application/json", v.api.dump()};
      } else if (match) {
        answer = http_reply{200, "application/json", replay_json(id, *match, max_steps).dump()};
      } else {
        answer = http_reply{404, "application/json", unknown_match_json(id).dump()};
      }
    } catch (const std::exception& e) {
      const char* name = analysis ? "analysis" : "replay";
      spdlog::error("match {}: its {} could not be read: {}", id, name, e.what());
      json body{{"error", "storage_error"}};
      i18n::with_say(
          body, analysis ? "service.http_analysis_unreadable" : "service.http_replay_unreadable",
          json::object(), "message");
      answer = http_reply{500, "application/json", body.dump()};
    }
    respond(std::move(answer));
  });
}

void game_service::answer_match_record(std::string_view target, std::string_view path,
                                       http_callback reply) {
  constexpr std::string_view prefix = "/matches/";
  constexpr std::string_view suffix = ".mat";
  constexpr std::string_view api_prefix = "/api/matches/";
  // GET /api/matches/<id>: the record as JSON; GET /matches/<id>.mat: the .mat file
  // (either with ?token=RESUME_TOKEN for a private table's match).
  const bool as_json = path.substr(0, api_prefix.size()) == api_prefix;
  std::string_view digits;
  if (as_json) {
    digits = path.substr(api_prefix.size());
  } else if (path.substr(0, prefix.size()) == prefix &&
             path.size() > prefix.size() + suffix.size() &&
             path.substr(path.size() - suffix.size()) == suffix) {
    digits = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  } else {
    reply(std::nullopt);
    return;
  }
  const auto id = id_of(digits);
  if (!id) {
    reply(std::nullopt);
    return;
  }
  // Read on the reader thread: an I/O thread never waits on SQLite, nor does the writer.
  read_for_http(std::move(reply), [this, id = *id, as_json, reader = reader_of(target)](
                                      store& db, http_callback& respond) {
    std::optional<http_reply> answer;
    try {
      if (const auto record = db.load_match(id); record && may_read(*record, reader)) {
        if (as_json) {
          answer = http_reply{200, "application/json", to_json_text(*record)};
        } else {
          answer = http_reply{200, "text/plain; charset=utf-8", to_mat(*record)};
        }
      }
    } catch (const std::exception& e) {
      spdlog::error("match {}: {}", id, e.what());
      answer = http_reply{500, "text/plain; charset=utf-8", "the match could not be read\n"};
    }
    respond(std::move(answer));
  });
}

bool game_service::may_read(const match_record& m, const std::string& reader) const {
  if (!m.private_table) return true;
  if (reader.empty()) return false;
  for (const auto& p : m.players)
    if (!name_problem_of(p) && name_key(p) == reader) return true;
  return is_admin(reader);
}

std::string game_service::reader_of(std::string_view target) const {
  const auto q = target.find('?');
  if (q == std::string_view::npos) return {};
  std::string_view query = target.substr(q + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    if (pair.substr(0, 6) == "token=") {
      std::lock_guard lock(mutex_);
      return players_.key_of_token(pair.substr(6)).value_or(std::string{});
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return {};
}

void game_service::read_for_http(http_callback reply,
                                 std::function<void(store& db, http_callback& reply)> t) {
  if (!reader_) {
    writer_->run([reply = std::move(reply), t = std::move(t)](store& db) mutable { t(db, reply); });
    return;
  }
  auto shared = std::make_shared<http_callback>(std::move(reply));
  if (reader_->run([shared, t = std::move(t)](store& db) { t(db, *shared); })) return;
  metrics_.error("busy");
  (*shared)(http_reply{503, "application/json",
                       R"({"error":"busy","message":"the server has too many reads waiting: )"
                       R"(try again in a moment","say":{"key":"service.http_busy","args":{}}})"});
}

// ------------------------------------------------------------------------------------
// The account routes (issue 12)

bool game_service::on_api_request(std::string_view target, http_callback& reply) {
  constexpr std::string_view prefix = "/api/";
  const auto qmark = target.find('?');
  const std::string_view path = target.substr(0, qmark);
  const std::string_view query =
      qmark == std::string_view::npos ? std::string_view{} : target.substr(qmark + 1);
  if (path.substr(0, prefix.size()) != prefix) return false;
  const std::string_view route = path.substr(prefix.size());
  if (route == "ratings") {
    answer_api_ratings(query, reply);
    return true;
  }
  constexpr std::string_view tournaments = "tournaments";
  if (route == tournaments) {
    answer_api_tournaments("", reply);
    return true;
  }
  if (route.substr(0, tournaments.size() + 1) == "tournaments/") {
    const auto rest = route.substr(tournaments.size() + 1);
    const auto decoded = url_decode(rest, false);
    if (!decoded || decoded->empty() || rest.find('/') != std::string_view::npos) {
      reply(api_error(
          404, protocol::said_error("unknown_tournament", "service.api_unknown_tournament")));
      return true;
    }
    answer_api_tournaments(*decoded, reply);
    return true;
  }
  constexpr std::string_view players = "players/";
  if (route.substr(0, players.size()) != players) {
    reply(api_error(404, protocol::said_error("not_found", "service.api_no_route")));
    return true;
  }
  answer_api_player(route.substr(players.size()), query, reply);
  return true;
}

void game_service::answer_api_ratings(std::string_view query, http_callback& reply) {
  const auto q = parse_query(query, {"variant", "limit", "pr", "sort"});
  if (q.problem) {
    reply(api_error(400, *q.problem));
    return;
  }
  engine::variant v = engine::variant::standard;
  if (const auto it = q.values.find("variant"); it != q.values.end()) {
    const auto parsed = engine::variant_from_string(it->second);
    if (!parsed) {
      reply(api_error(400, protocol::said_error("bad_parameter", "service.api_variant")));
      return;
    }
    v = *parsed;
  }
  std::optional<engine::error> problem;
  const auto limit = limit_of(q.values, static_cast<std::int64_t>(ratings_lines),
                              static_cast<std::int64_t>(config_.api_max_limit), problem);
  if (problem) {
    reply(api_error(400, *problem));
    return;
  }
  // S7: pr=1 adds each entry's all-time PR; sort=pr sorts by it (and adds it).
  bool with_pr = false;
  if (const auto it = q.values.find("pr"); it != q.values.end()) {
    if (it->second != "0" && it->second != "1") {
      reply(api_error(400, protocol::said_error("bad_parameter", "service.api_pr")));
      return;
    }
    with_pr = it->second == "1";
  }
  auto order = leaderboard_order::rating;
  if (const auto it = q.values.find("sort"); it != q.values.end()) {
    if (it->second != "rating" && it->second != "pr") {
      reply(api_error(400, protocol::said_error("bad_parameter", "service.api_sort")));
      return;
    }
    if (it->second == "pr") {
      order = leaderboard_order::pr;
      with_pr = true;
    }
  }
  read_for_http(std::move(reply), [v, limit, order, with_pr](store& db, http_callback& respond) {
    try {
      respond(api_ok(leaderboard_json(v, db.leaderboard(v, static_cast<std::size_t>(limit), order),
                                      order, with_pr)));
    } catch (const std::exception& e) {
      spdlog::error("GET /api/ratings: {}", e.what());
      respond(
          api_error(500, protocol::said_error("storage_error", "service.api_ratings_unavailable")));
    }
  });
}

void game_service::answer_api_player(std::string_view rest, std::string_view query,
                                     http_callback& reply) {
  bool matches = false;
  constexpr std::string_view matches_suffix = "/matches";
  if (rest.size() > matches_suffix.size() &&
      rest.substr(rest.size() - matches_suffix.size()) == matches_suffix) {
    matches = true;
    rest.remove_suffix(matches_suffix.size());
  }
  const auto decoded = url_decode(rest, false);
  if (!decoded || rest.find('/') != std::string_view::npos) {
    reply(api_error(400, protocol::said_error("bad_name", "service.api_path_name")));
    return;
  }
  if (const auto why = name_error(*decoded, config_.max_name_bytes, "bad_name", name_use::player)) {
    reply(api_error(400, *why));
    return;
  }
  const std::string name = *decoded;
  const std::string key = name_key(name);
  const auto q =
      parse_query(query, matches ? std::initializer_list<std::string_view>{"before", "limit"}
                                 : std::initializer_list<std::string_view>{});
  if (q.problem) {
    reply(api_error(400, *q.problem));
    return;
  }
  bool registered = false;
  bool online = false;
  {
    std::lock_guard lock(mutex_);
    registered = players_.is_registered(key);
    online = players_.online(key);
  }
  if (is_bot_account(key)) online = bot_available(name);
  if (matches) {
    answer_api_history(name, key, registered, q.values, reply);
  } else {
    answer_api_profile(name, key, registered, online, reply);
  }
}

void game_service::answer_api_profile(const std::string& name, const std::string& key,
                                      bool registered, bool online, http_callback& reply) {
  if (!registered) {
    if (online)
      reply(api_ok(guest_profile_json(name)));
    else
      reply(api_error(
          404, protocol::said_error("unknown_player", "service.unknown_player", {{"name", name}})));
    return;
  }
  read_for_http(std::move(reply), [key, name, online](store& db, http_callback& respond) {
    try {
      const auto a = db.find_account(key);
      if (a) {
        respond(api_ok(profile_json(*a, online, service_helpers::performance_of(db, key))));
      } else {
        respond(api_error(404, protocol::said_error("unknown_player", "service.api_not_registered",
                                                    {{"name", name}})));
      }
    } catch (const std::exception& e) {
      spdlog::error("GET /api/players: {}", e.what());
      respond(
          api_error(500, protocol::said_error("storage_error", "service.api_player_unavailable")));
    }
  });
}

void game_service::answer_api_history(const std::string& name, const std::string& key,
                                      bool registered,
                                      const std::map<std::string, std::string>& params,
                                      http_callback& reply) {
  std::int64_t before = 0;
  if (const auto it = params.find("before"); it != params.end()) {
    const auto n = whole_number(it->second, 1, std::numeric_limits<std::int64_t>::max());
    if (!n) {
      reply(api_error(400, protocol::said_error("bad_parameter", "service.api_before")));
      return;
    }
    before = *n;
  }
  std::optional<engine::error> problem;
  const auto limit = limit_of(params, static_cast<std::int64_t>(history_lines),
                              static_cast<std::int64_t>(config_.api_max_limit), problem);
  if (problem) {
    reply(api_error(400, *problem));
    return;
  }
  if (!registered) {
    reply(api_error(404, protocol::said_error("unknown_player", "service.api_not_registered",
                                              {{"name", name}})));
    return;
  }
  read_for_http(std::move(reply), [key, name, before, limit](store& db, http_callback& respond) {
    try {
      const auto a = db.find_account(key);
      if (!a) {
        respond(api_error(404, protocol::said_error("unknown_player", "service.api_not_registered",
                                                    {{"name", name}})));
        return;
      }
      // One more than asked tells whether there is a next page.
      auto list = db.account_matches(key, before, static_cast<std::size_t>(limit) + 1);
      const bool more = list.size() > static_cast<std::size_t>(limit);
      if (more) list.pop_back();
      respond(api_ok(history_json(a->name, list, more)));
    } catch (const std::exception& e) {
      spdlog::error("GET /api/players/.../matches: {}", e.what());
      respond(
          api_error(500, protocol::said_error("storage_error", "service.api_matches_unavailable")));
    }
  });
}

}  // namespace bg::server
