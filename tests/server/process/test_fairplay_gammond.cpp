// Clocks, the idle limit and verifiable dice against the real gammond (issue 13,
// "Proof"; RULES.md S2, S3, S4): an ephemeral port, a temporary SQLite file, real
// WebSocket clients, the real gammon-tool. Time-based waits wait for the awaited
// message or condition under a generous deadline, never for a fixed time.
#include <catch2/catch.hpp>

#include <sodium.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "eventually.hpp"
#include "gammond_flags.hpp"
#include "gammond_process.hpp"
#include "http_get.hpp"
#include "test_player.hpp"

using bg::test::duel;
using bg::test::eventually;
using bg::test::gammond_flags;
using bg::test::gammond_process;
using bg::test::player;
using bg::test::seat;
using nlohmann::json;

namespace {

/// Milliseconds since the Unix epoch on this machine (gammond's `since` is on the same
/// time line).
std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// SHA-256 of `bytes` as lower-case hex, computed here with libsodium (not with
/// gammond's code).
std::string sha256_hex(const std::vector<unsigned char>& bytes) {
  REQUIRE(sodium_init() >= 0);
  std::array<unsigned char, crypto_hash_sha256_BYTES> d{};
  crypto_hash_sha256(d.data(), bytes.data(), bytes.size());
  std::string hex(d.size() * 2 + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), d.data(), d.size());
  hex.pop_back();
  return hex;
}

std::vector<unsigned char> from_hex(const std::string& hex) {
  std::vector<unsigned char> out(hex.size() / 2);
  std::size_t len = 0;
  REQUIRE(sodium_hex2bin(out.data(), out.size(), hex.data(), hex.size(), nullptr, &len, nullptr) ==
          0);
  REQUIRE(len == out.size());
  return out;
}

/// Runs gammon-tool verify-dice on `file`; returns its exit status and stdout.
std::pair<int, std::string> verify_dice(const std::filesystem::path& file) {
  const std::string cmd = "'" GAMMON_TOOL_BINARY "' verify-dice '" + file.string() + "'";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = ::pclose(pipe);
  REQUIRE(WIFEXITED(status));
  return {WEXITSTATUS(status), out};
}

/// The first event named `name` at `table` that `p` has received: among those it has
/// read already, else the next one to arrive (awaited under the generous deadline).
json first_event(player& p, const std::string& table, const std::string& name) {
  for (const auto& e : p.events())
    if (e.value("table", "") == table && e.value("event", "") == name) return e;
  return p.await_event(table, name);
}

}  // namespace

// ------------------------------------------------------------------------------------
// S2 clocks

TEST_CASE("gammond: S2 state.clock gives both banks, the delay, the running side and the time",
          "[server][fairplay][clock]") {
  gammond_process server{gammond_flags(31)};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  alice.ok("c", "/join red");
  bob.ok("c", "/join black");
  auto st = alice.ok("c", "/option clock 5 12");
  // Before /start: the option's full banks, nobody's clock running.
  CHECK(st["options"]["clock"] == json({{"minutes", 5}, {"delay", 12}}));
  CHECK(st["clock"]["red"] == 300'000);
  CHECK(st["clock"]["black"] == 300'000);
  CHECK(st["clock"]["delay_ms"] == 12'000);
  CHECK(st["clock"]["running"].is_null());
  CHECK(st["dice_commitment"].is_null());
  st = bob.ok("c", "/start");
  CHECK(st["clock"]["running"].is_null());  // the opening roll: nobody's clock runs
  const auto started = first_event(alice, "c", "started");
  REQUIRE(started.is_object());
  CHECK(started["dice_commitment"].get<std::string>().size() == 64);
  CHECK(st["dice_commitment"] == started["dice_commitment"]);
  const auto before = wall_ms();
  st = alice.ok("c", "/roll");
  const auto after = wall_ms();
  // After the opening roll the first mover's clock runs from about now.
  CHECK(st["clock"]["running"] == st["turn"]);
  CHECK(st["clock"]["since"].get<std::int64_t>() >= before - 2'000);
  CHECK(st["clock"]["since"].get<std::int64_t>() <= after + 2'000);
  CHECK(st["clock"]["delay_ms"] == 12'000);
  CHECK(st["clock"]["red"] == 300'000);
  CHECK(st["clock"]["black"] == 300'000);
  // And /option shows the clock; it is locked during the match.
  const auto shown = alice.ok("c", "/option");
  CHECK(shown["text"].get<std::string>().find("clock 5 min + 12 s delay") != std::string::npos);
  alice.refused("c", "/option clock off", "options_locked");
  alice.refused("c", "/option clock 999", "bad_command");
}

TEST_CASE("gammond: S2 a stalled player loses the match on time (--clock-minute-seconds 1)",
          "[server][fairplay][clock]") {
  // --clock-minute-seconds 1 is a test-only flag: one "minute" of /option clock lasts
  // one second, so a 1-minute bank runs out in a second.
  gammond_process server{gammond_flags(32, {"--clock-minute-seconds", "1"})};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  alice.ok("t", "/join red");
  bob.ok("t", "/join black");
  alice.ok("t", "/option match 5");
  auto st = alice.ok("t", "/option clock 1 0");
  CHECK(st["clock"]["red"] == 1'000);
  bob.ok("t", "/start");
  st = alice.ok("t", "/roll");
  const std::string stalled = st["turn"];
  // The player on turn does nothing: the server's timer ends the match on time.
  const auto out = alice.await_event("t", "out_of_time");
  CHECK(out["side"] == stalled);
  const auto over = alice.await_event("t", "match_over");
  CHECK(over["winner"] != stalled);
  CHECK(over["winner"].is_string());
  st = alice.ok("t", "/board");
  CHECK(st["phase"] == "match_over");
  CHECK(st["last_result"]["reason"] == "time");
  CHECK(st["clock"][stalled] == 0);
  CHECK(st["clock"]["running"].is_null());
  // The stored record says so too.
  const auto record = server.get("/api/matches/" + std::to_string(over["match_id"].get<int>()));
  REQUIRE(record.status == 200);
  const auto r = json::parse(record.body);
  CHECK(r["games"].back()["result"]["reason"] == "time");
}

TEST_CASE(
    "gammond: S2 clocks after a restart: a graceful stop keeps the time used, downtime "
    "is not charged",
    "[server][fairplay][clock]") {
  gammond_process server{gammond_flags(33)};
  std::string alice_token;
  std::string bob_token;
  json before;
  {
    player alice(server.port(), "alice");
    player bob(server.port(), "bob");
    alice.ok("r", "/join red");
    bob.ok("r", "/join black");
    alice.ok("r", "/option clock 1 0");  // a 60 s bank, no delay: every ms counts
    bob.ok("r", "/start");
    before = alice.ok("r", "/roll");
    alice_token = alice.token();
    bob_token = bob.token();
  }
  const std::string running = before["clock"]["running"];
  const auto since = before["clock"]["since"].get<std::int64_t>();
  REQUIRE(before["clock"][running] == 60'000);
  // Let some of the running side's time pass (a condition on the clock, not a sleep of
  // the test's own choosing: at least 400 ms since the clock started).
  REQUIRE(eventually([&] { return wall_ms() >= since + 400; }));

  SECTION("SIGTERM: the time used until the stop is charged and kept") {
    const auto stop_from = wall_ms();
    server.restart(SIGTERM);
    const auto back_by = wall_ms();
    player alice(server.port(), "", alice_token);
    player bob(server.port(), "", bob_token);
    const auto after = alice.ok("r", "/board");
    const auto bank = after["clock"][running].get<std::int64_t>();
    INFO("bank " << bank << ", since " << since << ", stop from " << stop_from << " to "
                 << back_by);
    CHECK(after["clock"]["running"] == running);
    // Charged from `since` to the stop (which came between stop_from and back_by), with
    // 100 ms of slack between this machine's wall clock and gammond's steady one.
    CHECK(bank <= 60'000 - (stop_from - since) + 100);
    CHECK(bank >= 60'000 - (back_by - since) - 100);
    CHECK(bank < 60'000);
    // And the clock runs again from the restart.
    CHECK(after["clock"]["since"].get<std::int64_t>() >= stop_from - 100);
  }
  SECTION("SIGKILL: the bank is what it was at the last written change") {
    server.restart(SIGKILL);
    const auto back_by = wall_ms();
    player alice(server.port(), "", alice_token);
    const auto after = alice.ok("r", "/board");
    // Nothing is charged for the time between the last change and the crash, nor for
    // the time down: the bank is exactly the one of the last state before the crash.
    CHECK(after["clock"]["running"] == running);
    CHECK(after["clock"][running] == 60'000);
    CHECK(after["clock"]["since"].get<std::int64_t>() > since);
    CHECK(after["clock"]["since"].get<std::int64_t>() <= back_by + 100);
  }
}

// ------------------------------------------------------------------------------------
// S3 the idle limit

TEST_CASE("gammond: S3 /claim after a short --idle-limit wins the idle player's match",
          "[server][fairplay][claim]") {
  gammond_process server{gammond_flags(34, {"--idle-limit", "3"})};
  player alice(server.port(), "alice");
  player bob(server.port(), "bob");
  player carol(server.port(), "carol");
  seat(alice, bob, "i", "/option match 3");
  carol.refused("i", "/claim", "not_seated");
  alice.refused("i", "/claim", "nothing_to_claim");  // the opening roll: nobody is waited for
  auto st = alice.ok("i", "/roll");
  player& idle = st["to_act"] == "red" ? alice : bob;
  player& claimer = &idle == &alice ? bob : alice;
  idle.refused("i", "/claim", "nothing_to_claim");  // it is their own turn
  // Right away it is too early: the sentence says how long the idle limit is.
  const auto early = claimer.say("i", "/claim");
  REQUIRE(early["type"] == "error");
  CHECK(early["code"] == "claim_too_early");
  CHECK(early["message"].get<std::string>().find("3 s") != std::string::npos);
  // Once the idle player has not acted for 3 s, the claim is granted.
  json granted;
  REQUIRE(eventually([&] {
    granted = claimer.say("i", "/claim");
    if (granted["type"] == "error") REQUIRE(granted["code"] == "claim_too_early");
    return granted["type"] != "error";
  }));
  CHECK(granted["phase"] == "match_over");
  CHECK(granted["last_result"]["reason"] == "forfeit");
  CHECK(granted["last_result"]["winner"] == (&claimer == &alice ? "red" : "black"));
  const auto forfeit = first_event(claimer, "i", "forfeit");
  REQUIRE(forfeit.is_object());
  CHECK(forfeit["why"] == "idle");
  claimer.refused("i", "/claim", "nothing_to_claim");
}

// ------------------------------------------------------------------------------------
// S4 verifiable dice

TEST_CASE("gammond: S4 a whole match's dice, a crash included, re-derived by gammon-tool",
          "[server][fairplay][dice]") {
  gammond_process server{gammond_flags(41)};
  json over;
  json started;
  std::string alice_token;
  std::string bob_token;
  {
    player alice(server.port(), "alice");
    player bob(server.port(), "bob");
    seat(alice, bob, "v", "/option match 3");
    started = first_event(alice, "v", "started");
    alice.ok("v", "/seed alice's own words");
    bob.ok("v", "/seed 42");
    duel d{alice, bob, "v"};
    for (int i = 0; i < 20; ++i) d.step();
    alice_token = alice.token();
    bob_token = bob.token();
  }
  // A crash in the middle: the restarted server goes on with the same dice.
  server.restart(SIGKILL);
  {
    player alice(server.port(), "", alice_token);
    player bob(server.port(), "", bob_token);
    duel d{alice, bob, "v"};
    const auto st = d.play_until([](const json& s) { return s["phase"] == "match_over"; }, 20000);
    REQUIRE(st["phase"] == "match_over");
    over = first_event(alice, "v", "match_over");
  }
  REQUIRE(over.is_object());
  REQUIRE(started.is_object());
  // The commitment announced at /start is SHA-256 of the seed revealed at the end.
  const std::string seed = over["dice_seed"];
  const std::string commitment = started["dice_commitment"];
  CHECK(over["dice_commitment"] == commitment);
  CHECK(sha256_hex(from_hex(seed)) == commitment);
  // --dice-seed 41 (tests only): the seed is SHA-256("gammond-test-seed:41:v:0").
  const std::string text = "gammond-test-seed:41:v:0";
  CHECK(sha256_hex(std::vector<unsigned char>(text.begin(), text.end())) == seed);

  // GET /api/matches/ID serves the record as JSON; gammon-tool verifies every roll.
  const auto id = over["match_id"].get<int>();
  const auto got = server.get("/api/matches/" + std::to_string(id));
  REQUIRE(got.status == 200);
  CHECK(got.content_type().find("application/json") == 0);
  auto record = json::parse(got.body);
  CHECK(record["dice"]["seed"] == seed);
  CHECK(record["dice"]["player_seeds"] == json::array({"alice's own words", "42"}));
  const auto rolls = record["dice"]["rolls"].size();
  REQUIRE(rolls > 20);
  const auto file = server.directory() / "match.json";
  std::ofstream(file) << got.body;
  const auto [status, out] = verify_dice(file);
  CHECK(status == 0);
  CHECK(out == "verified: " + std::to_string(rolls) + " rolls\n");

  // A tampered record is detected: one die of roll 8 changed.
  auto& die = record["dice"]["rolls"][7]["dice"][0];
  die = die.get<int>() % 6 + 1;
  const auto tampered = server.directory() / "tampered.json";
  std::ofstream(tampered) << record.dump();
  const auto [bad_status, bad_out] = verify_dice(tampered);
  CHECK(bad_status == 1);
  CHECK(bad_out.find("not verified: roll 8 (game ") == 0);

  // Unknown or malformed ids are 404.
  CHECK(server.get("/api/matches/999999").status == 404);
  CHECK(server.get("/api/matches/x1").status == 404);
  CHECK(server.get("/api/matches/").status == 404);
}

TEST_CASE("gammond: S4 /seed changes the dice, before the first roll only",
          "[server][fairplay][dice]") {
  // Two servers with the same --dice-seed and table: the same match seed. One match is
  // played with the players' seeds, the other without.
  std::vector<json> openings;
  for (const bool seeded : {false, true}) {
    gammond_process server{gammond_flags(51)};
    player alice(server.port(), "alice");
    player bob(server.port(), "bob");
    player carol(server.port(), "carol");
    alice.ok("s", "/join red");
    bob.ok("s", "/join black");
    alice.refused("s", "/seed too soon", "wrong_phase");
    bob.ok("s", "/start");
    carol.refused("s", "/seed mine", "not_seated");
    alice.refused("s", "/seed " + std::string(65, 'x'), "too_long");
    if (seeded) {
      alice.ok("s", "/seed red's words");
      bob.ok("s", "/seed black's words");
      const auto e = first_event(carol, "s", "seeded");
      CHECK(e.is_object());
    }
    alice.ok("s", "/roll");
    bob.refused("s", "/seed late", "seed_locked");
    const auto o = first_event(alice, "s", "opening_roll");
    REQUIRE(o.is_object());
    openings.push_back(json{o["red_die"], o["black_die"], o["ties"]});
  }
  CHECK(openings[0] != openings[1]);
}
