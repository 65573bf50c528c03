// Issue 11 item 11: the state message carries what a client needs so that it derives
// no rule of its own (each legal play as its checker moves, whether the cube is in
// play), and the events carry their documented fields. The table with no sockets.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bg/engine/dice_source.hpp"
#include "bg/protocol/codec.hpp"
#include "bg/protocol/command.hpp"
#include "bg/server/table/table.hpp"

using namespace bg::server;
using bg::engine::seeded_dice;
using nlohmann::json;

namespace {

/// Two seated players, alice (red) and bob (black), at table t1.
struct seated_table {
  explicit seated_table(std::uint64_t seed) : dice{seed} {
    t.enter("alice");
    t.enter("bob");
    ok("alice", "/join red");
    ok("bob", "/join black");
  }
  seeded_dice dice;
  table t{"t1", dice, table_hooks{[] { return std::string("2026-11-23T00:00:00Z"); }, 500}};

  table_outcome ok(const std::string& who, const std::string& line) {
    auto c = bg::protocol::parse_line(line);
    REQUIRE(c.ok());
    auto o = t.handle(who, *c);
    if (t.wants_match_id()) t.give_match_id(1);  // as table_actor does after every call
    INFO(who << ": " << line << " -> " << (o.refused ? o.refused->message : ""));
    REQUIRE_FALSE(o.refused);
    return o;
  }
  /// The name of the player whose decision is awaited.
  std::string actor() const {
    const auto st = t.state();
    return st["players"][st["to_act"].get<std::string>()].get<std::string>();
  }
};

/// A board place of the protocol (1..24, "bar", "off") as a string for messages.
std::string place_text(const json& p) {
  return p.is_string() ? p.get<std::string>() : std::to_string(p.get<int>());
}

/// Applies `moves` of `mover` to `board` (state.board) in the listed order, as a
/// client that knows no rule draws them, checking at each move that the list can be
/// made in that order: the checker is there, entering comes first (R8), the point is
/// not held by two or more opposing checkers (R4), `hit` is set exactly when one
/// opposing checker stands there (R7). Returns the board after the moves.
json apply_listed(json board, const std::string& mover, const json& moves) {
  const int sign = mover == "red" ? 1 : -1;
  const std::string other = mover == "red" ? "black" : "red";
  for (const auto& m : moves) {
    INFO("move " << place_text(m["from"]) << " -> " << place_text(m["to"]) << " of " << mover);
    const bool on_bar = board["bar"][mover].get<int>() > 0;
    if (m["from"] == "bar") {
      REQUIRE(on_bar);
      board["bar"][mover] = board["bar"][mover].get<int>() - 1;
    } else {
      REQUIRE_FALSE(on_bar);  // R8: a checker on the bar enters before anything moves
      auto& from = board["points"][m["from"].get<std::size_t>() - 1];
      REQUIRE(from.get<int>() * sign > 0);
      from = from.get<int>() - sign;
    }
    if (m["to"] == "off") {
      REQUIRE(m["hit"] == false);
      board["off"][mover] = board["off"][mover].get<int>() + 1;
      continue;
    }
    auto& to = board["points"][m["to"].get<std::size_t>() - 1];
    const int opposing = -to.get<int>() * sign;
    REQUIRE(opposing <= 1);
    CHECK(m["hit"] == (opposing == 1));
    if (opposing == 1) {
      to = 0;
      board["bar"][other] = board["bar"][other].get<int>() + 1;
    }
    to = to.get<int>() + sign;
  }
  return board;
}

/// Plays `turns` random turns of `variant` free play (a new match when one ends),
/// checking every state in phase move: legal_moves parallels legal, each list can be
/// made in its order, and it leads to the board the server shows after `/move`.
/// Returns {moves seen, hits seen, entries from the bar seen}.
std::array<int, 3> check_legal_moves(const std::string& variant, int turns, std::uint64_t seed) {
  seated_table f{seed};
  f.ok("alice", "/option variant " + variant);
  std::mt19937 rng(static_cast<std::mt19937::result_type>(seed));
  std::array<int, 3> seen{};
  for (int turn = 0; turn < turns;) {
    const json st = f.t.state();
    const std::string phase = st["phase"];
    if (phase == "waiting" || phase == "match_over") {
      f.ok("alice", "/start");
    } else if (phase == "opening" || phase == "roll") {
      f.ok(phase == "opening" ? "alice" : f.actor(), "/roll");
    } else {
      REQUIRE(phase == "move");
      const auto& legal = st["legal"];
      const auto& moves = st["legal_moves"];
      REQUIRE(moves.is_array());
      REQUIRE(moves.size() == legal.size());
      REQUIRE_FALSE(legal.empty());
      const std::string mover = st["turn"];
      std::vector<json> after(legal.size());
      for (std::size_t i = 0; i < legal.size(); ++i) {
        INFO("play " << legal[i].get<std::string>());
        REQUIRE(moves[i].is_array());
        REQUIRE_FALSE(moves[i].empty());
        after[i] = apply_listed(st["board"], mover, moves[i]);
        for (const auto& m : moves[i]) {
          ++seen[0];
          if (m["hit"] == true) ++seen[1];
          if (m["from"] == "bar") ++seen[2];
        }
      }
      std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
      const std::size_t i = pick(rng);
      f.ok(f.actor(), "/move " + legal[i].get<std::string>());
      const json next = f.t.state();
      if (next["game_number"] == st["game_number"] && next["phase"] != "match_over") {
        INFO("play " << legal[i].get<std::string>());
        CHECK(next["board"] == after[i]);
      }
      ++turn;
    }
  }
  return seen;
}

}  // namespace

TEST_CASE(
    "state.legal_moves gives each legal play as its checker moves, in board numbering, in an order "
    "they can be made, hits marked (R4, R7, R8)",
    "[server][table][state]") {
  const auto seen = check_legal_moves("standard", 400, 11);
  // The run met the cases a client used to derive itself.
  CHECK(seen[1] > 0);  // hits
  CHECK(seen[2] > 0);  // entering from the bar
}

TEST_CASE(
    "state.legal_moves in long nardy follows the board numbering of both sides (L1, L2: no hits)",
    "[server][table][state][long]") {
  const auto seen = check_legal_moves("long", 300, 12);
  CHECK(seen[0] > 0);
  CHECK(seen[1] == 0);
}

TEST_CASE("state.legal_moves is empty outside phase move", "[server][table][state]") {
  seated_table f{3};
  CHECK(f.t.state()["legal_moves"] == json::array());
  f.ok("alice", "/start");
  CHECK(f.t.state()["phase"] == "opening");
  CHECK(f.t.state()["legal_moves"] == json::array());
}

TEST_CASE(
    "state.cube.in_play says whether the cube exists: not in free play (R12), in a match (R14) and "
    "a basis session (R16)",
    "[server][table][state]") {
  seated_table f{4};
  // Free play, the default: before and during the match.
  CHECK(f.t.state()["cube"]["in_play"] == false);
  f.ok("alice", "/start");
  CHECK(f.t.state()["cube"]["in_play"] == false);
  seated_table m{5};
  m.ok("alice", "/option match 3");
  CHECK(m.t.state()["cube"]["in_play"] == true);
  m.ok("alice", "/start");
  CHECK(m.t.state()["cube"]["in_play"] == true);
  seated_table b{6};
  b.ok("alice", "/option match basis");
  CHECK(b.t.state()["cube"]["in_play"] == true);
  b.ok("alice", "/start");
  CHECK(b.t.state()["cube"]["in_play"] == true);
}

TEST_CASE("game_started after a basis /continue carries its documented crawford field (R16)",
          "[server][table][state]") {
  // Given a basis session whose first game ended by an accepted resignation
  seated_table f{8};
  f.ok("alice", "/option match basis");
  f.ok("alice", "/start");
  f.ok("alice", "/roll");
  const std::string resigner = f.actor();
  const std::string other = resigner == "alice" ? "bob" : "alice";
  f.ok(resigner, "/resign");
  f.ok(other, "/accept");
  REQUIRE(f.t.state()["phase"] == "game_over");
  // When both say /continue
  f.ok("alice", "/continue");
  const auto o = f.ok("bob", "/continue");
  // Then game_started carries game_number and crawford, as PROTOCOL.md documents
  const json* started = nullptr;
  for (const auto& d : o.out)
    if (d.message.value("event", "") == "game_started") started = &d.message;
  REQUIRE(started != nullptr);
  CHECK((*started)["game_number"] == 2);
  REQUIRE(started->contains("crawford"));
  CHECK((*started)["crawford"] == false);
}

namespace {

/// The frames seeded games write, recorded once (tests/server/data/state-frames.txt,
/// from a build whose tree writers were checked against the texts byte for byte): per
/// game, a line "seed N" and then one line per step, the FNV-1a 64-bit digest (16 hex
/// digits; a fixture's fingerprint, not a security measure) of the texts the table
/// wrote then (state, spectators' state, lobby summary, two snapshots). With
/// GAMMOND_RECORD_STATE_FRAMES=1 in the environment the test writes the file instead.
struct recorded_frames {
  std::map<std::uint64_t, std::vector<std::string>> expected;  // by seed
  std::map<std::uint64_t, std::vector<std::string>> seen;
  bool recording = std::getenv("GAMMOND_RECORD_STATE_FRAMES") != nullptr;

  recorded_frames() {
    if (recording) return;
    std::ifstream in(STATE_FRAMES_FILE);
    REQUIRE(in);
    std::vector<std::string>* game = nullptr;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      if (line.rfind("seed ", 0) == 0) {
        game = &expected[std::stoull(line.substr(5))];
      } else if (game != nullptr) {
        game->push_back(line);
      }
    }
  }
  ~recorded_frames() {
    if (!recording) return;
    std::ofstream out(STATE_FRAMES_FILE);
    out << "# The texts a table writes (state, spectators' state, lobby summary, two\n"
           "# snapshots) at every step of the seeded games of test_state_fields.cpp: their\n"
           "# FNV-1a 64-bit digest per step. Written by that test with\n"
           "# GAMMOND_RECORD_STATE_FRAMES=1; a change of the protocol's bytes shows here.\n";
    for (const auto& [seed, steps] : seen) {
      out << "seed " << seed << "\n";
      for (const auto& d : steps) out << d << "\n";
    }
  }

  static std::string digest(const std::string& text) {
    std::uint64_t h = 14695981039346656037ULL;
    for (const char ch : text) {
      h ^= static_cast<unsigned char>(ch);
      h *= 1099511628211ULL;
    }
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
    return out;
  }

  /// The step's texts: checked against the recording (or recorded).
  void step(std::uint64_t seed, const std::string& texts) {
    auto& mine = seen[seed];
    mine.push_back(digest(texts));
    if (recording) return;
    const auto& want = expected[seed];
    const std::size_t i = mine.size() - 1;
    INFO("step " << i << " of seed " << seed << ": the texts written were\n" << texts);
    REQUIRE(i < want.size());
    REQUIRE(mine.back() == want[i]);
  }
};

recorded_frames& frames() {
  static recorded_frames f;
  return f;
}

/// Plays seeded random games at a table and checks, after every command, that the texts
/// the table writes (state_text(), summary_text(), snapshot_text(): the one description
/// of each message) are the recorded frames byte for byte, that each is canonical JSON
/// (parsed and written again by nlohmann: the same text, keys sorted), and that the
/// spectators' state differs from the players' only by the legal plays. `options` are the
/// /option lines set before each match.
void check_state_text_through_games(std::uint64_t seed, const std::vector<std::string>& options,
                                    int commands) {
  std::mt19937_64 rng{seed};
  std::int64_t now_ms = 1'764'000'000'000;
  table_hooks hooks{[] { return std::string("2026-11-23T00:00:00Z"); }, 500};
  hooks.clock_ms = [&now_ms] { return now_ms; };
  hooks.match_seed = [seed](const std::string& t, std::uint64_t n) {
    return derived_dice::test_seed(seed, t, n);
  };
  // Registered names have ratings (an integral one too: nlohmann writes 1500.0); the
  // guest has none.
  hooks.rating_of = [](const std::string& who, bg::engine::variant v) -> std::optional<double> {
    if (who == "Ωmega") return v == bg::engine::variant::standard ? 1517.32 : 1482.125;
    if (who == "李白") return 1500.0;
    if (who == "carol-1") return 1234.5678901234;
    return std::nullopt;
  };
  table t{"t\"1", hooks};  // a name a client could not choose: escaped in the text
  int forced_seen = 0;     // states with a forced play (listed to spectators too)
  const auto same = [&](const std::string& what) {
    INFO(what);
    const std::string full_text = t.state_text();
    const std::string lean_text = t.state_text(false);
    const std::string summary_text = t.summary_text();
    // Both written in one pass are the same texts, byte for byte (issue 33).
    const auto [one_pass_full, one_pass_lean] = t.state_texts();
    REQUIRE(one_pass_full == full_text);
    REQUIRE(one_pass_lean == lean_text);
    std::string texts = full_text + "\n" + lean_text + "\n" + summary_text;
    REQUIRE(bg::protocol::encode(json::parse(full_text)) == full_text);
    REQUIRE(bg::protocol::encode(json::parse(lean_text)) == lean_text);
    REQUIRE(bg::protocol::encode(json::parse(summary_text)) == summary_text);
    // The spectators' form: the same message without the legal plays, and the same as
    // the players' whenever nothing is listed.
    const auto lean = t.state(false);
    auto full = t.state();
    // A forced play is listed to spectators too (their client shows it); more are not.
    const bool forced = full["legal"].size() == 1;
    REQUIRE(t.lists_legal() == full["legal"].size() > 1);
    if (forced) {
      ++forced_seen;
      REQUIRE(lean == full);
    } else {
      REQUIRE(lean["legal"] == json::array());
      REQUIRE(lean["legal_moves"] == json::array());
      full["legal"] = json::array();
      full["legal_moves"] = json::array();
      REQUIRE(full == lean);
    }
    // The snapshot stored with each change, with the seats' token hashes.
    for (const auto& tokens : {std::array<std::optional<std::string>, 2>{"h\"1", std::nullopt},
                               std::array<std::optional<std::string>, 2>{}}) {
      const std::string snap = t.snapshot_text(tokens);
      REQUIRE(bg::protocol::encode(json::parse(snap)) == snap);
      texts += "\n" + snap;
    }
    frames().step(seed, texts);
  };
  const auto send = [&](const std::string& who, const std::string& line) {
    auto c = bg::protocol::parse_line(line);
    REQUIRE(c.ok());
    t.handle(who, *c);  // refusals change nothing: the state is compared all the same
    if (t.wants_match_id()) t.give_match_id(7);  // every match is stored as match 7
    now_ms += static_cast<std::int64_t>(rng() % 5000);
    same(who + ": " + line);
  };
  for (const auto* who : {"Ωmega", "李白", "carol-1", "dave"}) {
    t.enter(who);
    same(std::string("enter ") + who);
  }
  send("Ωmega", "/join red");
  send("李白", "/join black");
  for (const auto& o : options) {
    send("Ωmega", o);
    if (o.rfind("/kick ", 0) == 0) REQUIRE(t.snapshot()["kicked"].size() == 1);  // in force
  }
  send("Ωmega", "/start");
  for (int i = 0; i < commands; ++i) {
    const auto st = t.state();
    const std::string phase = st["phase"];
    const auto name_of = [&](const json& s) {
      return s.is_string() ? st["players"][s.get<std::string>()].get<std::string>()
                           : std::string("Ωmega");
    };
    const std::string actor = name_of(st["to_act"]);
    const auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
    if (phase == "match_over" || phase == "waiting") {
      send("Ωmega", "/start");
    } else if (phase == "opening") {
      send(chance(50) ? "Ωmega" : "李白", "/roll");
    } else if (phase == "roll") {
      if (st["may_double"] == true && chance(20)) {
        send(actor, "/double");
      } else if (chance(3)) {
        send(actor, chance(50) ? "/resign" : "/resign gammon");
      } else {
        send(actor, "/roll");
      }
    } else if (phase == "move") {
      const auto& legal = st["legal"];
      REQUIRE_FALSE(legal.empty());
      send(actor, "/move " + legal[rng() % legal.size()].get<std::string>());
    } else if (phase == "cube_offered") {
      send(actor, chance(80) ? "/take" : "/drop");
    } else if (phase == "resign_offered") {
      send(actor, chance(50) ? "/accept" : "/reject");
    } else if (phase == "game_over") {
      for (const auto* side : {"red", "black"})
        if (st["continuing"][side] != true) send(name_of(json(side)), "/continue");
    } else {
      FAIL("unexpected phase " << phase);
    }
  }
  t.exit("dave");
  same("dave left");
  t.exit("李白");
  same("a player left");
  CHECK(forced_seen > 0);  // the seeded games reach forced plays (10 to 36 of them)
}

}  // namespace

TEST_CASE(
    "the state, summary and snapshot texts of seeded games are the recorded frames byte for "
    "byte, each canonical JSON",
    "[server][table][state][issue15]") {
  SECTION("a 5-point match, standard, cube and resignations, a private table (issue 13)") {
    check_state_text_through_games(
        1,
        {"/option match 5", "/option private on", "/invite carol-1", "/invite Zoë", "/kick dave"},
        600);
  }
  SECTION("long nardy, a 3-point match with a clock") {
    check_state_text_through_games(
        2, {"/option variant long", "/option match 3", "/option clock 5 12", "/option tutor on"},
        600);
  }
  SECTION("free play, then a basis session") {
    check_state_text_through_games(3, {}, 300);
    check_state_text_through_games(4, {"/option match basis", "/option clock 1 0"}, 600);
  }
}

TEST_CASE(
    "a table's state asks for the ratings of the names present again only when the "
    "ratings' version or the names change, and shows the ratings as they are then",
    "[server][table][state]") {
  table_hooks hooks{[] { return std::string("2026-11-23T00:00:00Z"); }, 500};
  std::map<std::string, double> known{{"alice", 1600.0}, {"carol", 1400.0}};
  std::uint64_t version = 1;
  int asked = 0;
  hooks.rating_of = [&](const std::string& who, bg::engine::variant) -> std::optional<double> {
    ++asked;
    const auto it = known.find(who);
    return it == known.end() ? std::nullopt : std::optional<double>{it->second};
  };
  hooks.ratings_version = [&] { return version; };
  seeded_dice dice{3};
  table t{"r1", dice, hooks};
  t.enter("alice");
  t.enter("bob");
  auto st = t.state();
  CHECK(st["ratings"] == json{{"alice", 1600.0}});
  const int first = asked;
  CHECK(first == 2);
  // The same names and version: nothing asked again.
  st = t.state();
  (void)t.state_text(false);
  CHECK(asked == first);
  // A rating changed (the version says so): asked again, and the new rating shown.
  known["alice"] = 1612.5;
  ++version;
  CHECK(t.state()["ratings"] == json{{"alice", 1612.5}});
  CHECK(asked == first + 2);
  // Someone came: asked again, with the same version.
  (void)t.enter("carol");
  CHECK(t.state()["ratings"] == json{{"alice", 1612.5}, {"carol", 1400.0}});
  CHECK(asked == first + 5);
  // Someone left.
  (void)t.exit("carol");
  CHECK(t.state()["ratings"] == json{{"alice", 1612.5}});
}
