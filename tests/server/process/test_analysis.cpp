// Match analysis by GNU Backgammon through the real gammond (issue 14): a finished
// match is archived with a pending analysis, analysed off the tables by the real gnubg,
// and answered by GET /api/matches/ID/analysis ("pending", then "done"), by /analysis at
// the table and in the lobby, and announced to everyone still at the table
// (analysis_ready). The recorded match with known blunders (data/analysis_blunder.mat)
// is found with the equities noted by hand; a gnubg that crashes does not stop the
// queue; a full queue refuses and says so; long nardy and a server without gnubg answer
// "unavailable".
//
// gnubg is required (scripts/setup installs it); GNUBG overrides /usr/games/gnubg.
// Every test uses the expert level (0-ply: fast and deterministic) and short matches.

#include <sys/stat.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "bg/engine/dice_source.hpp"
#include "bg/server/store/open_store.hpp"
#include "eventually.hpp"
#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "record_builder.hpp"
#include "test_player.hpp"

namespace {

namespace fs = std::filesystem;
using bg::engine::side;
using bg::test::gammond_process;
using bg::test::player;
using bg::test::seat;
using nlohmann::json;
using namespace std::chrono_literals;

std::string gnubg_binary() {
  const char* env = std::getenv("GNUBG");  // NOLINT(concurrency-mt-unsafe): tests
  return env && *env ? env : "/usr/games/gnubg";
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Wrapper scripts around the real gnubg, in a scratch directory: one that waits for a
/// gate file before it runs gnubg (so "pending" can be seen, and the queue held), one
/// that crashes (SIGSEGV) on its first `crashes` runs.
struct wrappers {
  bg::test::temp_dir dir;
  [[nodiscard]] std::string gate() const { return dir.file("open"); }
  void open_gate() const { std::ofstream(gate()).put('\n'); }
  [[nodiscard]] std::string script(const std::string& name, const std::string& body) const {
    const auto p = dir.file(name);
    std::ofstream(p) << "#!/bin/sh\n" << body << "\nexec " << gnubg_binary() << " \"$@\"\n";
    REQUIRE(::chmod(p.c_str(), 0755) == 0);
    return p;
  }
  [[nodiscard]] std::string gated() const {
    // It gives up when the test's directory is gone (a failed test leaves no process).
    return script("gated-gnubg", "while [ ! -e " + gate() + " ]; do [ -d " + dir.path().string() +
                                     " ] || exit 1; sleep 0.05; done");
  }
  [[nodiscard]] std::string crashing(int crashes) const {
    const auto count = dir.file("runs");
    return script("crashing-gnubg", "n=$(cat " + count +
                                        " 2>/dev/null || echo 0)\necho $((n + 1)) > " + count +
                                        "\nif [ \"$n\" -lt " + std::to_string(crashes) +
                                        " ]; then kill -SEGV $$; fi");
  }
};

/// gammond flags: bg::test::gammond_flags (reproducible dice, no rate limit for the test
/// clients) with analysis on (gammond_process turns it off by default) at the expert
/// level and `gnubg` as the program, then `more`.
std::vector<std::string> flags(const std::string& gnubg, std::vector<std::string> more = {}) {
  more.insert(more.begin(),
              {"--analysis-level", "expert", "--analysis-workers", "1", "--gnubg", gnubg});
  return bg::test::gammond_flags(5, std::move(more));
}

/// The analysis API's answer for match `id` (status and JSON body).
std::pair<unsigned, json> api(const gammond_process& server, std::int64_t id) {
  const auto r = server.get("/api/matches/" + std::to_string(id) + "/analysis");
  INFO(r.body);
  CHECK(r.content_type() == "application/json");
  return {r.status, json::parse(r.body)};
}

/// Plays a 1-point match at `table` that red resigns right after the opening roll;
/// returns the finished match's id.
std::int64_t quick_match(player& red, player& black, const std::string& table, bool first = true) {
  if (first) {
    seat(red, black, table, "/option match 1");
  } else {
    black.ok(table, "/start");
  }
  red.ok(table, "/roll");
  red.ok(table, "/resign");
  const auto st = black.ok(table, "/accept");
  REQUIRE(st["phase"] == "match_over");
  return st["last_match_id"].get<std::int64_t>();
}

// --- the recorded match, read from gnubg's .mat export -----------------------------

/// A dice source that gives the dice it is told, in order.
class scripted_dice final : public bg::engine::dice_source {
 public:
  void push(int die) { dice_.push_back(die); }
  int roll_die() override {
    REQUIRE(next_ < dice_.size());
    return dice_[next_++];
  }

 private:
  std::vector<int> dice_;
  std::size_t next_ = 0;
};

/// Replays the .mat text `mat` (gnubg's own export of a points match: plays, doubles,
/// takes, drops) through the engine, recording it as a table does. Good enough for
/// data/analysis_blunder.mat; not a general .mat reader.
bg::server::match_record replay_mat(const std::string& mat) {
  std::istringstream in(mat);
  std::string line;
  int length = 0;
  while (length == 0 && std::getline(in, line))
    if (const auto at = line.find(" point match"); at != std::string::npos)
      length = std::stoi(line.substr(0, at));
  REQUIRE(length > 0);
  bg::test::recorder rec({bg::engine::variant::standard, bg::engine::match_kind::points, length},
                         "alice", "bob");
  scripted_dice dice;
  bool opening = true;
  while (std::getline(in, line)) {
    if (line.find(" Game ") == 0) {
      opening = true;
      continue;
    }
    const auto paren = line.find(") ");
    if (paren == std::string::npos || line.find_first_not_of(" 0123456789") != paren) continue;
    // The left cell is red's; an empty left cell (black opens) is a run of blanks
    // (a cube action in the left cell starts with one: " Drops").
    side who = line.find_first_not_of(' ', paren + 2) - (paren + 2) > 10 ? side::black : side::red;
    std::istringstream cells(line.substr(paren + 2));
    std::vector<std::string> words;
    for (std::string w; cells >> w;) words.push_back(w);
    for (std::size_t i = 0; i < words.size();) {
      const std::string& w = words[i];
      if (w.size() == 3 && w[2] == ':') {  // "42: 24/22 5/1" (a roll with no play: "42:")
        const int high = w[0] - '0';
        const int low = w[1] - '0';
        std::string play;
        for (++i; i < words.size() && words[i].find('/') != std::string::npos; ++i)
          play += (play.empty() ? "" : " ") + words[i];
        if (opening) {  // the engine rolls red's die, then black's
          dice.push(who == side::red ? high : low);
          dice.push(who == side::red ? low : high);
          rec.opening(dice);
          opening = false;
        } else {
          dice.push(high);
          dice.push(low);
          rec.roll(who, dice);
        }
        if (!play.empty()) rec.play(who, std::string_view(play));
      } else if (w == "Doubles") {
        rec.offer_double(who);
        i += 3;  // Doubles => N
      } else if (w == "Takes") {
        rec.take(who);
        ++i;
      } else if (w == "Drops") {
        rec.drop(who);
        ++i;
      } else if (w == "Wins") {
        i = words.size();  // the engine ends the game by itself
      } else {
        FAIL("unexpected word \"" << w << "\" in: " << line);
      }
      who = bg::engine::opponent_of(who);
    }
  }
  REQUIRE(rec.match().phase() == bg::engine::match_phase::match_over);
  return rec.record();
}

/// Now as matches are stamped (ISO 8601 UTC, "2026-11-23T10:00:00Z").
std::string iso_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

const json* decision_with(const json& analysis, const std::string& kind, const std::string& skill) {
  for (const auto& d : analysis["decisions"])
    if (d["kind"] == kind && d["skill"] == skill) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE(
    "the recorded match with known blunders, archived before a restart, is analysed after it: "
    "pending, then done with gnubg's equities",
    "[analysis][gammond]") {
  // Given the match of data/analysis_blunder.mat stored with a pending analysis while
  // gammond was stopped (as a crash before its analysis would leave it),
  const wrappers w;
  gammond_process server{flags(w.gated())};
  REQUIRE(server.stop() == 0);
  std::int64_t id = 0;
  {
    // The store gammond uses (the SQLite file, or PostgreSQL in the pg test stage).
    const auto db = bg::server::open_store(server.db(), {});
    id = db->save_match(
        replay_mat(read_text(fs::path(BG_SERVER_TEST_DATA) / "analysis_blunder.mat")));
    bg::server::analysis_record pending;
    pending.match_id = id;
    db->save_analysis(pending);
  }
  // when gammond starts again, the analysis is queued and is pending while gnubg waits,
  server.restart();
  auto [status, body] = api(server, id);
  CHECK(status == 200);
  CHECK(body["status"] == "pending");
  CHECK(body["match_id"] == id);
  CHECK(body["match"]["players"]["red"] == "alice");
  CHECK(body["match"]["length"] == 2);
  CHECK(server.metric("gammond_analyses_running") + server.metric("gammond_analyses_waiting") == 1);
  // then done once gnubg runs,
  w.open_gate();
  REQUIRE(bg::test::eventually([&] { return api(server, id).second["status"] == "done"; }, 120s));
  std::tie(status, body) = api(server, id);
  CHECK(body["level"] == "expert");
  CHECK_FALSE(body["analysed_at"].get<std::string>().empty());
  // with red's 42 played 24/22 5/1 a blunder costing 0.2245 and red's drop a blunder
  // costing 0.988, as noted by hand from gnubg (data/README.md).
  const json* blunder = decision_with(body, "move", "very bad");
  REQUIRE(blunder);
  CHECK((*blunder)["side"] == "red");
  CHECK((*blunder)["played"] == "24/22 5/1");
  CHECK((*blunder)["best"] == "13/11 13/9");
  CHECK((*blunder)["position_id"] == "2J7dAADYVuQAJg");
  CHECK((*blunder)["equity_lost"].get<double>() == Approx(0.2245).margin(0.0005));
  const json* pass = decision_with(body, "drop", "very bad");
  REQUIRE(pass);
  CHECK((*pass)["equity_lost"].get<double>() == Approx(0.9881).margin(0.0005));
  CHECK(body["players"]["red"]["name"] == "alice");
  CHECK(body["players"]["red"]["snowie_error_rate"].get<double>() == Approx(28.9).margin(0.05));
  CHECK(body["players"]["red"]["checker"]["blunders"] == 1);
  CHECK(body["players"]["red"]["cube"]["blunders"] == 1);
  CHECK(body["players"]["black"]["rating"] == "Supernatural");
  // S7: the PR is 500 x the equity lost per unforced decision, half gnubg's own error
  // rate in mEMG (its `show statistics match` figure, 55.1 for red).
  const json& red = body["players"]["red"];
  const double lost =
      red["checker"]["error_total"].get<double>() + red["cube"]["error_total"].get<double>();
  const double decisions =
      red["checker"]["unforced"].get<double>() + red["cube"]["close"].get<double>();
  REQUIRE(decisions > 0);
  CHECK(red["pr"].get<double>() == Approx(500.0 * lost / decisions).margin(0.005));
  CHECK(red["pr"].get<double>() == Approx(55.1 / 2).margin(0.05));
  CHECK(red["pr_band"] == "distracted");
  CHECK(body["players"]["black"]["pr"].get<double>() < 2.5);
  CHECK(body["players"]["black"]["pr_band"] == "world class");
  CHECK(server.metric("gammond_analyses_done_total") == 1);
  // /analysis in the lobby gives the same for people.
  player carol(server.port(), "carol");
  const auto info = carol.ok("", "/analysis " + std::to_string(id));
  CHECK(info["type"] == "info");
  CHECK(info["topic"] == "analysis");
  CHECK_THAT(info["text"].get<std::string>(),
             Catch::Contains("24/22 5/1 (best 13/11 13/9), -0.225, a blunder"));
  CHECK_THAT(info["text"].get<std::string>(),
             Catch::Contains("alice (red): error rate 55.1 (Snowie 28.9), Awful!"));
  CHECK_THAT(info["text"].get<std::string>(), Catch::Contains("; PR 27.5"));
  CHECK(info["data"]["players"]["red"]["pr_band"] == "distracted");
  CHECK(info["data"]["errors"].size() == 2);
  CHECK(info["data"]["url"] == "/#analysis/" + std::to_string(id));
}

TEST_CASE(
    "S7 once the recorded match is analysed, its players' history rows, player pages and the "
    "ratings carry their PRs",
    "[analysis][gammond][accounts][S7]") {
  // Given alice and bob, registered, whose rated match (data/analysis_blunder.mat, ended
  // just now) was archived with a pending analysis while gammond was stopped,
  gammond_process server{flags(gnubg_binary())};
  REQUIRE(server.stop() == 0);
  std::int64_t id = 0;
  {
    const auto db = bg::server::open_store(server.db(), {});
    for (const char* name : {"alice", "bob"})
      REQUIRE(db->create_account(name, name, bg::server::account::kind::player, "not-a-hash"));
    auto record = replay_mat(read_text(fs::path(BG_SERVER_TEST_DATA) / "analysis_blunder.mat"));
    record.ended_at = iso_now();
    record.id = db->reserve_match_id();
    id = record.id;
    bg::server::table_write w;
    w.name = "recorded";
    w.snapshot = "{}";
    w.winner = record.final_score[0] > record.final_score[1] ? side::red : side::black;
    w.finished_match = std::move(record);
    w.analyse_match = true;
    w.account_keys = {"alice", "bob"};
    w.rated = true;
    REQUIRE(db->write_tables({w})[0].error.empty());
    db->delete_table("recorded");  // the match stays; gammond restores no such table
  }
  server.restart();
  // when gammond has analysed it,
  REQUIRE(bg::test::eventually([&] { return api(server, id).second["status"] == "done"; }, 120s));
  const json analysis = api(server, id).second;
  const json& red = analysis["players"]["red"];
  const json& black = analysis["players"]["black"];
  REQUIRE(red["pr"].is_number());
  CHECK(red["pr"].get<double>() == Approx(27.56).margin(0.05));  // half of 55.1 mEMG
  // then alice's history row carries her PR (2 decimals) and its band, as the analysis,
  const auto history = server.get("/api/players/alice/matches");
  REQUIRE(history.status == 200);
  const auto row = json::parse(history.body)["matches"].at(0);
  CHECK(row["match_id"] == id);
  CHECK(row["pr"] == red["pr"]);
  CHECK(row["pr_band"] == "distracted");
  const auto bob_row = json::parse(server.get("/api/players/bob/matches").body)["matches"].at(0);
  CHECK(bob_row["pr"] == black["pr"]);
  CHECK(bob_row["pr_band"] == "world class");
  // her player page the same PR over the last 30 days and all time (one match),
  const auto page = json::parse(server.get("/api/players/alice").body);
  for (const char* period : {"last_30_days", "all_time"}) {
    INFO(period);
    CHECK(page["performance"][period]["pr"] == red["pr"]);
    CHECK(page["performance"][period]["pr_band"] == "distracted");
    CHECK(page["performance"][period]["matches"] == 1);
  }
  // the ratings their all-time PRs with pr=1, the best first with sort=pr,
  const auto ratings = json::parse(server.get("/api/ratings?pr=1").body);
  CHECK(ratings["sort"] == "rating");
  REQUIRE(ratings["players"].size() == 2);
  for (const auto& e : ratings["players"])
    CHECK(e["pr"] == (e["name"] == "alice" ? red["pr"] : black["pr"]));
  CHECK_FALSE(json::parse(server.get("/api/ratings").body)["players"][0].contains("pr"));
  const auto by_pr = json::parse(server.get("/api/ratings?sort=pr").body);
  CHECK(by_pr["sort"] == "pr");
  CHECK(by_pr["players"][0]["name"] == "bob");
  CHECK(by_pr["players"][0]["rank"] == 1);
  CHECK(by_pr["players"][1]["name"] == "alice");
  CHECK(by_pr["players"][1]["pr_band"] == "distracted");
  CHECK(server.get("/api/ratings?sort=name").status == 400);
  CHECK(server.get("/api/ratings?pr=yes").status == 400);
  // and the lobby's /history, /whois and /ratings by pr say it in words.
  player carol(server.port(), "carol");
  const auto said = carol.ok("", "/history alice");
  CHECK(said["data"]["matches"][0]["pr"] == red["pr"]);
  CHECK_THAT(said["text"].get<std::string>(), Catch::Contains(", PR 27.5"));
  CHECK_THAT(said["text"].get<std::string>(), Catch::Contains("(distracted)"));
  const auto whois = carol.ok("", "/whois alice");
  CHECK(whois["data"]["performance"]["all_time"]["pr"] == red["pr"]);
  CHECK_THAT(whois["text"].get<std::string>(), Catch::Contains("PR last 30 days 27.5"));
  const auto list = carol.ok("", "/ratings by pr");
  CHECK(list["data"]["sort"] == "pr");
  CHECK(list["data"]["players"][0]["name"] == "bob");
  CHECK_THAT(list["text"].get<std::string>(), Catch::Contains("the best PR first"));
}

TEST_CASE(
    "a match finished at a table is analysed, and everyone still there gets analysis_ready, and "
    "/analysis answers there and in the lobby",
    "[analysis][gammond]") {
  const wrappers w;
  gammond_process server{flags(w.gated())};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  player carol(server.port(), "carol");
  carol.ok("t1", "/board");  // a spectator
  // Nothing finished here yet.
  alice.refused("t1", "/analysis", "no_match");
  // A whole 1-point game with random legal plays,
  seat(alice, bob, "t1", "/option match 1");
  bg::test::duel d{alice, bob, "t1"};
  const auto st = d.play_until([](const json& s) { return s["phase"] == "match_over"; });
  REQUIRE(st["phase"] == "match_over");
  const auto id = st["last_match_id"].get<std::int64_t>();
  // pending while gnubg waits (the table goes on meanwhile: it answers at once),
  CHECK(api(server, id).second["status"] == "pending");
  const auto pending = bob.ok("t1", "/analysis");
  CHECK(pending["data"]["status"] == "pending");
  CHECK_THAT(pending["text"].get<std::string>(), Catch::Contains("not ready yet"));
  CHECK(alice.ok("t1", "/board")["phase"] == "match_over");
  // then every one present hears it is ready,
  w.open_gate();
  for (player* p : {&alice, &bob, &carol}) {
    const auto e = p->await_event("t1", "analysis_ready");
    CHECK(e["match_id"] == id);
    CHECK(e["url"] == "/#analysis/" + std::to_string(id));
  }
  const auto [status, body] = api(server, id);
  CHECK(status == 200);
  REQUIRE(body["status"] == "done");
  CHECK(body["match"]["table"] == "t1");
  CHECK(body["players"]["red"]["name"] == "alice");
  CHECK(body["players"]["black"]["name"] == "bob");
  CHECK(body["players"]["red"]["checker"]["moves"].get<int>() > 0);
  REQUIRE(body["decisions"].size() > 10);
  for (const auto& dec : body["decisions"]) {
    CHECK(dec["board_before"]["points"].size() == 24);
    CHECK(dec["position_id"].get<std::string>().size() == 14);
  }
  // /analysis at the table is the table's last match; an id works too.
  const auto info = alice.ok("t1", "/analysis");
  CHECK(info["table"] == "t1");
  CHECK(info["data"]["status"] == "done");
  CHECK(info["data"]["match_id"] == id);
  CHECK_FALSE(info["data"].contains("decisions"));
  CHECK(carol.ok("", "/analysis " + std::to_string(id))["data"]["status"] == "done");
  // Misuse: no id in the lobby, an unknown match, a malformed id.
  carol.refused("", "/analysis", "bad_command");
  carol.refused("", "/analysis 999", "unknown_match");
  carol.refused("t1", "/analysis 999", "unknown_match");
  carol.refused("", "/analysis x", "bad_command");
  const auto [missing, why] = api(server, 999);
  CHECK(missing == 404);
  CHECK(why["error"] == "unknown_match");
  CHECK(server.get("/api/matches/abc/analysis").status == 404);
}

TEST_CASE("a gnubg that crashes fails one analysis and the queue goes on", "[analysis][gammond]") {
  // gnubg crashes on its first two runs: the first match's run and its retry.
  const wrappers w;
  gammond_process server{flags(w.crashing(2))};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  const auto first = quick_match(alice, bob, "t1");
  const auto failed = alice.await_event("t1", "analysis_failed");
  CHECK(failed["match_id"] == first);
  CHECK_THAT(failed["reason"].get<std::string>(), Catch::Contains("crashed twice"));
  CHECK(failed["say"]["args"]["reason"]["args"]["why"] == "crashed");  // said in each language
  const auto [status, body] = api(server, first);
  CHECK(body["status"] == "failed");
  CHECK_THAT(body["reason"].get<std::string>(), Catch::Contains("crashed twice"));
  CHECK(server.metric("gammond_analysis_crashes_total") == 2);
  // The next match is analysed.
  const auto second = quick_match(alice, bob, "t1", false);
  CHECK(alice.await_event("t1", "analysis_ready")["match_id"] == second);
  CHECK(api(server, second).second["status"] == "done");
  CHECK(server.metric("gammond_analyses_failed_total") == 1);
  CHECK(server.metric("gammond_analyses_done_total") == 1);
}

TEST_CASE("a full analysis queue refuses a match, says why, and counts it", "[analysis][gammond]") {
  const wrappers w;
  gammond_process server{flags(w.gated(), {"--analysis-queue", "1"})};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  const auto first = quick_match(alice, bob, "t1");  // held by gnubg at the gate
  REQUIRE(bg::test::eventually([&] { return server.metric("gammond_analyses_running") == 1; }));
  const auto second = quick_match(alice, bob, "t1", false);  // waits
  const auto third = quick_match(alice, bob, "t1", false);   // no room
  const auto refused = bob.await_event("t1", "analysis_failed");
  CHECK(refused["match_id"] == third);
  CHECK_THAT(refused["reason"].get<std::string>(), Catch::Contains("queue was full"));
  CHECK(refused["say"]["args"]["reason"]["key"] == "analysis.failure_reason");
  CHECK(refused["say"]["args"]["reason"]["args"]["why"] == "full");
  REQUIRE(api(server, third).second["status"] == "failed");
  CHECK_THAT(api(server, third).second["reason"].get<std::string>(),
             Catch::Contains("analysis queue was full"));
  CHECK(server.metric("gammond_analyses_refused_total") == 1);
  CHECK(server.metric("gammond_analyses_waiting") == 1);
  CHECK(api(server, second).second["status"] == "pending");
  w.open_gate();
  REQUIRE(
      bg::test::eventually([&] { return api(server, second).second["status"] == "done"; }, 120s));
  CHECK(api(server, first).second["status"] == "done");
}

TEST_CASE("long nardy matches and a server without gnubg are not analysed, and say why",
          "[analysis][gammond]") {
  SECTION("long nardy: gnubg knows no long nardy") {
    const wrappers w;
    gammond_process server{flags(gnubg_binary())};
    player alice(server.port(), "alice");
    player bob(server.port(), "bob");
    alice.ok("t1", "/join red");
    bob.ok("t1", "/join black");
    alice.ok("t1", "/option variant long");
    alice.ok("t1", "/option match 1");
    bob.ok("t1", "/start");
    alice.ok("t1", "/roll");
    alice.ok("t1", "/resign");
    const auto st = bob.ok("t1", "/accept");
    REQUIRE(st["phase"] == "match_over");
    const auto id = st["last_match_id"].get<std::int64_t>();
    const auto [status, body] = api(server, id);
    CHECK(status == 200);
    CHECK(body["status"] == "unavailable");
    CHECK_THAT(body["reason"].get<std::string>(), Catch::Contains("Long Nardy"));
    CHECK(alice.ok("t1", "/analysis")["data"]["status"] == "unavailable");
  }
  SECTION("no gnubg at --gnubg") {
    gammond_process server{flags("/nonexistent/gnubg")};
    player alice(server.port(), "alice");
    player bob(server.port(), "bob");
    const auto id = quick_match(alice, bob, "t1");
    const auto [status, body] = api(server, id);
    CHECK(body["status"] == "unavailable");
    CHECK_THAT(body["reason"].get<std::string>(), Catch::Contains("did not analyse matches"));
    CHECK_THAT(server.log(), Catch::Contains("no GNU Backgammon at /nonexistent/gnubg"));
  }
}
