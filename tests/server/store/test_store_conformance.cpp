// One conformance suite for both stores (issue 16): every behaviour of store.hpp, run
// against sqlite_store and postgres_store alike (store_backends.hpp). What only one
// backend has is tested in test_storage.cpp (SQLite: WAL, quick_check, max_pages, sync,
// sqlite_store::save_table, its migrations), test_account_store.cpp and
// test_moderation_store.cpp (SQLite's migrations), and test_postgres_store.cpp
// (PostgreSQL: reconnection, timeouts, match id blocks).

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "bg/server/records/performance_rating.hpp"
#include "bg/server/records/record_json.hpp"
#include "record_builder.hpp"
#include "store_backends.hpp"

namespace {

using bg::engine::match_kind;
using bg::engine::match_options;
using bg::engine::variant;
using bg::server::performance_rating;
using bg::server::saved_table;
using bg::server::storage_error;
using bg::server::table_write;
using bg::test::play_random_match;
using bg::test::postgres_backend;
using bg::test::record_difference;
using bg::test::sqlite_backend;
using nlohmann::json;

/// A table_write of a snapshot and journal entries (no finished match, no drop).
table_write tw(std::string name, std::string snapshot, bool reset = false,
               std::vector<std::string> entries = {}) {
  table_write w;
  w.name = std::move(name);
  w.snapshot = std::move(snapshot);
  w.reset_record = reset;
  w.record_entries = std::move(entries);
  return w;
}

table_write drop(std::string name) {
  table_write w;
  w.name = std::move(name);
  w.drop = true;
  return w;
}

match_options points(int length) {
  return {variant::standard, match_kind::points, length};
}

std::vector<std::string> names(const std::vector<saved_table>& tables) {
  std::vector<std::string> out;
  for (const auto& t : tables) out.push_back(t.name);
  return out;
}

}  // namespace

TEMPLATE_TEST_CASE("a new database holds no table and no match", "[store]", sqlite_backend,
                   postgres_backend) {
  TestType backend;
  auto db = backend.open();
  CHECK(db->load_tables().empty());
  CHECK_FALSE(db->load_table("t").has_value());
  CHECK(db->match_count() == 0);
  CHECK_FALSE(db->load_match(1).has_value());
  CHECK(db->save_tables({}).empty());
}

TEMPLATE_TEST_CASE("snapshots are saved, replaced, listed in bytewise name order and deleted",
                   "[store]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  // Bytewise order (as std::string compares): upper case before lower case, ASCII before
  // other UTF-8, "a-b" before "ab"; whatever the database's own collation would say.
  const std::vector<std::string> given{"zeta", "alpha", "Beta", "ab", "a-b", "\xc3\xa9t\xc3\xa9"};
  for (const auto& name : given)
    REQUIRE(db->save_tables({tw(name, json{{"n", name}}.dump())}) == std::vector<std::string>{""});
  REQUIRE(db->save_tables({tw("zeta", R"({"n":3})")})[0].empty());  // replaces
  auto sorted = given;
  std::sort(sorted.begin(), sorted.end());
  const auto tables = db->load_tables();
  CHECK(names(tables) == sorted);
  CHECK(tables.back().name == "\xc3\xa9t\xc3\xa9");  // 0xC3 sorts after every ASCII byte
  const auto zeta = std::find_if(tables.begin(), tables.end(),
                                 [](const saved_table& t) { return t.name == "zeta"; });
  REQUIRE(zeta != tables.end());
  CHECK(zeta->snapshot == R"({"n":3})");
  CHECK(db->load_table("zeta")->snapshot == R"({"n":3})");
  db->delete_table("alpha");
  db->delete_table("never-existed");
  CHECK(db->load_tables().size() == given.size() - 1);
  CHECK_FALSE(db->load_table("alpha").has_value());
}

TEMPLATE_TEST_CASE("snapshots and journal entries come back byte for byte", "[store]",
                   sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  // Spacing, key order, escapes, quotes and backslashes, non-ASCII text, a NUL escape.
  const std::string snapshot =
      "{ \"b\" : 1,\n  \"a\": \"quote \\\" backslash \\\\ \\u00e9 \xe2\x80\x94 \\u0000\" }";
  std::vector<std::string> entries{R"({"op":"begin"})", R"(  {"x" : [1, 2.50, "\\"]})",
                                   R"({"s":"a\"b,c}{"})", R"("just a string")", "[]"};
  for (int i = 0; i < 60; ++i) entries.push_back(json{{"i", i}}.dump());
  REQUIRE(db->save_tables({tw("t", snapshot, true, entries)})[0].empty());
  const auto back = db->load_table("t");
  REQUIRE(back.has_value());
  CHECK(back->snapshot == snapshot);
  CHECK(back->record_journal == entries);
  const auto all = db->load_tables();
  REQUIRE(all.size() == 1);
  CHECK(all[0].snapshot == snapshot);
  CHECK(all[0].record_journal == entries);
}

TEMPLATE_TEST_CASE(
    "save_tables writes snapshots and journals in one transaction, appending or "
    "resetting each journal, and a failing write is left out alone",
    "[store]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  const auto errors = db->save_tables({
      tw("b", R"({"n":1})", true, {R"({"op":"begin"})", R"({"op":"game"})"}),
      tw("a", R"({"n":2})", false, {R"({"op":"x"})"}),
      tw("bad", "{not json", false, {R"({"op":"lost"})"}),
      tw("c", R"({"n":5})", false, {}),
  });
  REQUIRE(errors.size() == 4);
  CHECK(errors[0].empty());
  CHECK(errors[1].empty());
  CHECK_FALSE(errors[2].empty());  // refused alone, with its journal entry
  CHECK(errors[3].empty());        // the batch goes on after a failure
  // Appending keeps the journal; a reset replaces it.
  CHECK(db->save_tables({tw("b", R"({"n":3})", false, {R"({"op":"action"})"})})[0].empty());
  auto tables = db->load_tables();
  CHECK(names(tables) == std::vector<std::string>{"a", "b", "c"});
  CHECK(tables[0].record_journal == std::vector<std::string>{R"({"op":"x"})"});
  CHECK(tables[1].snapshot == R"({"n":3})");
  CHECK(tables[1].record_journal ==
        std::vector<std::string>{R"({"op":"begin"})", R"({"op":"game"})", R"({"op":"action"})"});
  CHECK(db->save_tables({tw("b", R"({"n":4})", true, {R"({"op":"new"})"})})[0].empty());
  CHECK(db->load_table("b")->record_journal == std::vector<std::string>{R"({"op":"new"})"});
  CHECK(db->save_tables({tw("b", R"({"n":5})", true, {})})[0].empty());
  CHECK(db->load_table("b")->record_journal.empty());
  CHECK(backend.sql("SELECT count(*) FROM table_records WHERE table_name = 'bad'") == "0");
}

TEMPLATE_TEST_CASE("a snapshot that is not JSON is refused with a reason and the store goes on",
                   "[store]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  REQUIRE(db->save_tables({tw("t", R"({"n":1})", true, {R"({"e":1})"})})[0].empty());
  const auto errors = db->save_tables({tw("t", "{oops", false, {R"({"e":2})"})});
  REQUIRE(errors.size() == 1);
  CHECK_FALSE(errors[0].empty());
  CHECK_THAT(errors[0], Catch::Contains("table t"));
  CHECK(db->load_table("t")->snapshot == R"({"n":1})");
  CHECK(db->load_table("t")->record_journal == std::vector<std::string>{R"({"e":1})"});
  CHECK(db->save_tables({tw("u", "{}")})[0].empty());  // still usable
  CHECK(db->load_tables().size() == 2);
}

TEMPLATE_TEST_CASE("a batch in which every write fails writes nothing", "[store]", sqlite_backend,
                   postgres_backend) {
  TestType backend;
  auto db = backend.open();
  const auto errors = db->save_tables({tw("x", "nope", true, {"{}"}), tw("y", "[", false, {})});
  REQUIRE(errors.size() == 2);
  CHECK_FALSE(errors[0].empty());
  CHECK_FALSE(errors[1].empty());
  CHECK(db->load_tables().empty());
  CHECK(backend.sql("SELECT count(*) FROM table_records") == "0");
}

TEMPLATE_TEST_CASE("a drop forgets the snapshot and the journal in the batch's transaction",
                   "[store]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  REQUIRE(db->save_tables({tw("t", "{}", true, {"{}", "[]"}), tw("u", "{}", true, {"{}"})}) ==
          std::vector<std::string>{"", ""});
  const auto errors = db->save_tables({drop("t"), tw("v", "{}"), drop("nothing-there")});
  CHECK(errors == std::vector<std::string>{"", "", ""});
  CHECK(names(db->load_tables()) == std::vector<std::string>{"u", "v"});
  CHECK_FALSE(db->load_table("t").has_value());
  CHECK(backend.sql("SELECT count(*) FROM table_records WHERE table_name = 't'") == "0");
  // delete_table does the same outside a batch.
  db->delete_table("u");
  CHECK(backend.sql("SELECT count(*) FROM table_records") == "0");
  CHECK(names(db->load_tables()) == std::vector<std::string>{"v"});
}

TEMPLATE_TEST_CASE("journals of tables without a snapshot are not loaded", "[store]",
                   sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  REQUIRE(db->save_tables({tw("m", "{}", true, {R"({"m":1})"})})[0].empty());
  (void)backend.sql("INSERT INTO table_records(table_name, entry) VALUES ('orphan', '{}')");
  (void)backend.sql("INSERT INTO table_records(table_name, entry) VALUES ('a', '{}')");
  const auto tables = db->load_tables();
  REQUIRE(tables.size() == 1);
  CHECK(tables[0].record_journal == std::vector<std::string>{R"({"m":1})"});
}

TEMPLATE_TEST_CASE("a saved match loads back equal with its id, and is counted", "[store]",
                   sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  const auto first = play_random_match(points(3), 42);
  const auto second = play_random_match({variant::standard, match_kind::basis, 0}, 43);
  const auto third = play_random_match({variant::long_nardy, match_kind::points, 1}, 44);
  const auto id1 = db->save_match(first);
  const auto id2 = db->save_match(second);
  const auto id3 = db->save_match(third);
  CHECK(id1 > 0);
  CHECK(id2 > id1);
  CHECK(id3 > id2);
  CHECK(db->match_count() == 3);
  for (const auto& [id, record] : {std::pair{id1, first}, {id2, second}, {id3, third}}) {
    const auto loaded = db->load_match(id);
    REQUIRE(loaded.has_value());
    CHECK(loaded->id == id);
    auto expected = record;
    expected.id = id;
    CHECK(record_difference(expected, *loaded).empty());
  }
  CHECK_FALSE(db->load_match(id3 + 1000).has_value());
  // The summary columns agree with the record.
  const auto where = " FROM matches WHERE id = " + std::to_string(id1);
  CHECK(backend.sql("SELECT red" + where) == first.players[0]);
  CHECK(backend.sql("SELECT black" + where) == first.players[1]);
  CHECK(backend.sql("SELECT score_red" + where) == std::to_string(first.final_score[0]));
  CHECK(backend.sql("SELECT score_black" + where) == std::to_string(first.final_score[1]));
  CHECK(backend.sql("SELECT games" + where) == std::to_string(first.games.size()));
  CHECK(backend.sql("SELECT table_name" + where) == first.table);
  CHECK(backend.sql("SELECT started_at" + where) == first.started_at);
}

TEMPLATE_TEST_CASE("a stored record that no longer reads raises storage_error", "[store]",
                   sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  const auto id = db->save_match(play_random_match(points(1), 7));
  (void)backend.sql("UPDATE matches SET record = '{\"id\": 1}' WHERE id = " + std::to_string(id));
  CHECK_THROWS_AS((void)db->load_match(id), storage_error);
  CHECK(db->match_count() == 1);  // the store goes on
}

TEMPLATE_TEST_CASE("a finished match and its table's snapshot are written together or neither is",
                   "[store]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  auto record = play_random_match(points(1), 5);

  // Both written: the match under its reserved id, the snapshot naming it.
  table_write done = tw("t", R"({"last_match_id":1})", true, {});
  const auto id = db->reserve_match_id();
  CHECK(id > 0);
  record.id = id;
  done.finished_match = record;
  REQUIRE(db->save_tables({done}) == std::vector<std::string>{""});
  const auto stored = db->load_match(id);
  REQUIRE(stored);
  CHECK(record_difference(*stored, record).empty());
  CHECK(db->load_table("t")->snapshot == R"({"last_match_id":1})");

  // The snapshot fails (not JSON) after the match row went in: neither stays, and the
  // other write of the batch is committed.
  table_write broken = tw("t", "not json", false, {R"({"lost":true})"});
  broken.finished_match = record;
  broken.finished_match->id = db->reserve_match_id();
  const auto errors = db->save_tables({broken, tw("u", "{}")});
  REQUIRE(errors.size() == 2);
  CHECK_FALSE(errors[0].empty());
  CHECK(errors[1].empty());
  CHECK_FALSE(db->load_match(broken.finished_match->id));
  CHECK(db->match_count() == 1);
  CHECK(db->load_table("t")->snapshot == R"({"last_match_id":1})");
  CHECK(db->load_table("t")->record_journal.empty());
  CHECK(db->load_table("u"));

  // The same failure in a batch of one.
  broken.finished_match->id = db->reserve_match_id();
  CHECK_FALSE(db->save_tables({broken})[0].empty());
  CHECK_FALSE(db->load_match(broken.finished_match->id));

  // A match whose id is taken already fails alone, with its snapshot.
  table_write again = tw("w", R"({"again":1})");
  again.finished_match = record;  // the id of the first, stored above
  const auto twice = db->save_tables({again, tw("x", "{}")});
  CHECK_FALSE(twice[0].empty());
  CHECK(twice[1].empty());
  CHECK_FALSE(db->load_table("w"));
  CHECK(db->match_count() == 1);
  // The next id reserved is above every one reserved before.
  CHECK(db->reserve_match_id() > broken.finished_match->id);
}

TEMPLATE_TEST_CASE(
    "reserved match ids are positive, never handed out twice, and new after a reopen", "[store]",
    sqlite_backend, postgres_backend) {
  TestType backend;
  std::vector<std::int64_t> ids;
  {
    auto db = backend.open();
    for (int i = 0; i < 50; ++i) ids.push_back(db->reserve_match_id());
    ids.push_back(db->save_match(play_random_match(points(1), 8)));
  }
  auto db = backend.open();
  const auto next = db->reserve_match_id();
  CHECK(next > *std::max_element(ids.begin(), ids.end()));
  ids.push_back(next);
  CHECK(std::all_of(ids.begin(), ids.end(), [](auto id) { return id > 0; }));
  std::sort(ids.begin(), ids.end());
  CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());
}

TEMPLATE_TEST_CASE("what was written before close is there after reopening", "[store]",
                   sqlite_backend, postgres_backend) {
  TestType backend;
  const auto record = play_random_match(points(3), 9);
  std::int64_t id = 0;
  {
    auto db = backend.open();
    REQUIRE(db->save_tables({tw("t1", R"({"phase":"roll"})", true, {R"({"j":1})"})})[0].empty());
    id = db->save_match(record);
  }
  auto db = backend.open();
  const auto tables = db->load_tables();
  REQUIRE(tables.size() == 1);
  CHECK(tables[0].snapshot == R"({"phase":"roll"})");
  CHECK(tables[0].record_journal == std::vector<std::string>{R"({"j":1})"});
  CHECK(db->match_count() == 1);
  auto loaded = db->load_match(id);
  REQUIRE(loaded.has_value());
  auto expected = record;
  expected.id = id;
  CHECK(record_difference(expected, *loaded).empty());
}

TEMPLATE_TEST_CASE("two threads writing through one store at once lose nothing", "[store]",
                   sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  const auto record = play_random_match(points(1), 3);
  constexpr int per_thread = 100;
  auto writer = [&](const std::string& prefix) {
    for (int i = 0; i < per_thread; ++i) {
      (void)db->save_tables(
          {tw(prefix + std::to_string(i), json{{"i", i}}.dump(), true, {json{{"e", i}}.dump()})});
      if (i % 10 == 0) db->save_match(record);
      (void)db->load_tables().size();
      (void)db->reserve_match_id();
    }
  };
  std::thread a(writer, "a");
  std::thread b(writer, "b");
  a.join();
  b.join();
  const auto tables = db->load_tables();
  CHECK(tables.size() == 2 * per_thread);
  CHECK(std::all_of(tables.begin(), tables.end(),
                    [](const saved_table& t) { return t.record_journal.size() == 1; }));
  CHECK(db->match_count() == 2 * (per_thread / 10));
}

TEMPLATE_TEST_CASE("two stores on one database in two threads lose nothing", "[store]",
                   sqlite_backend, postgres_backend) {
  TestType backend;
  auto first = backend.open();
  auto second = backend.open();
  constexpr int per_thread = 100;
  std::atomic<int> failed{0};  // Catch's assertions are for the main thread only
  auto writer = [&](bg::server::store& db, const std::string& prefix) {
    for (int i = 0; i < per_thread; ++i)
      if (!db.save_tables({tw(prefix + std::to_string(i), "{}", true, {"{}"})})[0].empty())
        ++failed;
  };
  std::thread a(writer, std::ref(*first), "a");
  std::thread b(writer, std::ref(*second), "b");
  a.join();
  b.join();
  CHECK(failed == 0);
  CHECK(first->load_tables().size() == 2 * per_thread);
  CHECK(second->load_tables().size() == 2 * per_thread);
  CHECK(backend.sql("SELECT count(*) FROM table_records") == std::to_string(2 * per_thread));
}

TEMPLATE_TEST_CASE("a database with a newer schema than this build is refused", "[store]",
                   sqlite_backend, postgres_backend) {
  TestType backend;
  { auto db = backend.open(); }
  backend.set_future_schema();
  try {
    auto db = backend.open();
    FAIL("opened a database of a newer schema");
  } catch (const storage_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("newer"));
  }
}

// --- issue 14: analyses ------------------------------------------------------------------

namespace {

/// Writes `record` as the match a table finished, under a new id, queued for analysis
/// when `analyse`; returns the id.
std::int64_t archive(bg::server::store& db, bg::server::match_record record, bool analyse) {
  table_write w = tw("t", "{}");
  record.id = db.reserve_match_id();
  w.finished_match = record;
  w.analyse_match = analyse;
  REQUIRE(db.save_tables({w}) == std::vector<std::string>{""});
  return record.id;
}

/// True when `text` is ISO 8601 UTC with milliseconds ("2026-11-24T03:10:00.123Z").
bool iso_millis(const std::string& text) {
  if (text.size() != 24) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char want = std::string_view("0000-00-00T00:00:00.000Z")[i];
    if (want == '0' ? (c < '0' || c > '9') : c != want) return false;
  }
  return true;
}

}  // namespace

TEMPLATE_TEST_CASE(
    "a match archived for analysis is pending in the same transaction until its analysis is saved "
    "done or failed",
    "[store][analysis]", sqlite_backend, postgres_backend) {
  using bg::server::analysis_record;
  using bg::server::analysis_status;
  TestType backend;
  auto db = backend.open();
  const auto first = archive(*db, play_random_match(points(1), 5), true);
  const auto second = archive(*db, play_random_match(points(1), 6), true);
  const auto not_queued = archive(*db, play_random_match(points(1), 7), false);

  auto a = db->load_analysis(first);
  REQUIRE(a);
  CHECK(a->match_id == first);
  CHECK(a->status == analysis_status::pending);
  CHECK(a->result.empty());
  CHECK(iso_millis(a->queued_at));
  CHECK(a->finished_at.empty());
  CHECK_FALSE(db->load_analysis(not_queued));
  CHECK_FALSE(db->load_analysis(9999999));
  CHECK(db->pending_analyses(100) == std::vector<std::int64_t>{first, second});
  CHECK(db->pending_analyses(1) == std::vector<std::int64_t>{first});

  // Done: the result (byte for byte) and the level are kept, finished_at set, queued_at kept.
  analysis_record done = *a;
  done.status = analysis_status::done;
  done.result = R"({"players": {}, "n":1.50})";
  done.level = "expert";
  db->save_analysis(done);
  a = db->load_analysis(first);
  REQUIRE(a);
  CHECK(a->status == analysis_status::done);
  CHECK(a->result == done.result);
  CHECK(a->level == "expert");
  CHECK(a->queued_at == done.queued_at);
  CHECK(iso_millis(a->finished_at));
  CHECK(db->pending_analyses(100) == std::vector<std::int64_t>{second});

  // Failed: a reason, no result.
  analysis_record failed;
  failed.match_id = second;
  failed.status = analysis_status::failed;
  failed.reason = "GNU Backgammon crashed twice on this match";
  db->save_analysis(failed);
  CHECK(db->load_analysis(second)->reason == failed.reason);
  CHECK(db->load_analysis(second)->result.empty());
  CHECK(db->pending_analyses(100).empty());

  // A row for a match never queued is inserted (e.g. a refusal written later).
  failed.match_id = not_queued;
  db->save_analysis(failed);
  CHECK(db->load_analysis(not_queued)->status == analysis_status::failed);
  CHECK(iso_millis(db->load_analysis(not_queued)->queued_at));
}

TEMPLATE_TEST_CASE(
    "an analysis of no stored match, or not JSON, is refused, and a failed archive queues nothing",
    "[store][analysis]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  bg::server::analysis_record a;
  a.match_id = 42;
  a.status = bg::server::analysis_status::failed;
  CHECK_THROWS_AS(db->save_analysis(a), storage_error);
  a.match_id = archive(*db, play_random_match(points(1), 5), true);
  a.status = bg::server::analysis_status::done;
  a.result = "{not json";
  CHECK_THROWS_AS(db->save_analysis(a), storage_error);
  CHECK(db->load_analysis(a.match_id)->status == bg::server::analysis_status::pending);
  // The archive fails with its snapshot: neither the match nor its analysis stays.
  table_write broken = tw("t", "not json");
  broken.finished_match = play_random_match(points(1), 6);
  broken.finished_match->id = db->reserve_match_id();
  broken.analyse_match = true;
  CHECK_FALSE(db->save_tables({broken, tw("u", "{}")})[0].empty());
  CHECK_FALSE(db->load_analysis(broken.finished_match->id));
  CHECK(db->pending_analyses(10) == std::vector<std::int64_t>{a.match_id});
}

// --- issue 12: accounts, ratings (S1), histories ---------------------------------------

namespace {

using bg::engine::side;
using bg::server::account;

/// A stand-in for a crypto_pwhash_str() text (the store keeps whatever it is given).
const std::string some_hash = "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$aGFzaA";

/// The write of table `t` finishing `record` (id reserved) between `red` and `black`
/// (name keys, "" for a guest), won by `winner`, rated when `rated`.
table_write finishing(bg::server::store& db, bg::server::match_record record, std::string red,
                      std::string black, side winner, bool rated) {
  table_write w = tw("t", R"({"finished":true})", true);
  record.id = db.reserve_match_id();
  w.finished_match = std::move(record);
  w.winner = winner;
  w.account_keys = {std::move(red), std::move(black)};
  w.rated = rated;
  return w;
}

}  // namespace

TEMPLATE_TEST_CASE("accounts are created once per key, with 1500 and 0 per variant (S1)",
                   "[store][accounts]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  const auto made = db->create_account("alice", "Alice", account::kind::player, some_hash);
  REQUIRE(made);
  CHECK(made->id > 0);
  CHECK(made->name == "Alice");
  CHECK(made->key == "alice");
  CHECK(made->password_hash == some_hash);
  CHECK(iso_millis(made->created_at));
  CHECK(made->last_seen.empty());
  for (const auto v : {variant::standard, variant::long_nardy}) {
    CHECK(made->in(v).rating == 1500.0);
    CHECK(made->in(v).experience == 0);
    CHECK(made->in(v).played == 0);
    CHECK(made->in(v).won == 0);
  }
  // The key cannot be registered again, and nothing of the second try is kept.
  CHECK_FALSE(db->create_account("alice", "ALICE", account::kind::player, some_hash));
  CHECK(backend.sql("SELECT count(*) FROM accounts") == "1");
  CHECK(backend.sql("SELECT count(*) FROM ratings") == "2");
  REQUIRE(db->create_account("Zed", "Zed", account::kind::player, some_hash));
  CHECK(db->account_keys() == std::vector<std::string>{"alice", "Zed"});  // in creation order
  // A player needs a hash; a bot has none and cannot get one.
  CHECK_THROWS_AS(db->create_account("bob", "bob", account::kind::player, ""), storage_error);
  CHECK_THROWS_AS(db->create_account("bot", "bot", account::kind::bot, some_hash), storage_error);
  const auto bot = db->create_account("gnubg", "gnubg", account::kind::bot, "");
  REQUIRE(bot);
  CHECK(bot->what == account::kind::bot);
  CHECK(bot->password_hash.empty());
  CHECK_FALSE(db->set_password_hash("gnubg", some_hash));
  // The schema itself refuses a player without a password and a bot with one: a
  // constraint fails.
  const auto refused_by_a_constraint = Catch::Contains("constraint", Catch::CaseSensitive::No);
  CHECK_THROWS_WITH(
      backend.sql("INSERT INTO accounts(name_key, name, kind, password_hash, created_at) VALUES "
                  "('carol', 'carol', 'player', NULL, '2026-01-01T00:00:00.000Z')"),
      refused_by_a_constraint);
  CHECK_THROWS_WITH(
      backend.sql("INSERT INTO accounts(name_key, name, kind, password_hash, created_at) VALUES "
                  "('dave', 'dave', 'bot', 'x', '2026-01-01T00:00:00.000Z')"),
      refused_by_a_constraint);
  // The password hash changes; last seen is recorded.
  REQUIRE(db->set_password_hash("alice", "$argon2id$other"));
  db->set_last_seen("alice");
  db->set_last_seen("nobody");  // no-op
  const auto found = db->find_account("alice");
  REQUIRE(found);
  CHECK(found->password_hash == "$argon2id$other");
  CHECK(iso_millis(found->last_seen));
  CHECK(found->created_at == made->created_at);
  CHECK_FALSE(db->find_account("nobody"));
  CHECK_FALSE(db->set_password_hash("nobody", some_hash));
  CHECK_THROWS_AS(db->set_password_hash("alice", ""), storage_error);
}

TEMPLATE_TEST_CASE("an account's language is kept until it is changed or cleared (/lang)",
                   "[store][accounts][i18n]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  REQUIRE(db->create_account("alice", "alice", account::kind::player, some_hash));
  CHECK(db->find_account("alice")->lang.empty());  // none chosen yet
  db->set_account_lang("alice", "fr");
  db->set_account_lang("nobody", "ru");  // no-op
  CHECK(db->find_account("alice")->lang == "fr");
  db->set_account_lang("alice", "ru");
  CHECK(db->find_account("alice")->lang == "ru");
  db->set_account_lang("alice", "");
  CHECK(db->find_account("alice")->lang.empty());
  CHECK(backend.sql("SELECT count(*) FROM accounts WHERE lang IS NULL") == "1");
}

TEMPLATE_TEST_CASE(
    "a rated match is rated in the transaction that archives it (S1), and its record, the "
    "histories and the ratings list say the same",
    "[store][accounts][S1]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  REQUIRE(db->create_account("alice", "Alice", account::kind::player, some_hash));
  REQUIRE(db->create_account("bob", "bob", account::kind::player, some_hash));
  const auto record = play_random_match(points(3), 11, {}, "Alice", "bob");
  const auto w = finishing(*db, record, "alice", "bob", side::red, true);
  const auto outcomes = db->write_tables({w});
  REQUIRE(outcomes.size() == 1);
  REQUIRE(outcomes[0].error.empty());
  REQUIRE(outcomes[0].ratings);
  const auto& r = *outcomes[0].ratings;
  CHECK(r[0].name == "Alice");
  CHECK(r[1].name == "bob");
  CHECK(r[0].before == 1500.0);
  CHECK(r[0].after == Approx(1500.0 + 10 * std::sqrt(3.0)).epsilon(1e-12));
  CHECK(r[1].after == Approx(1500.0 - 10 * std::sqrt(3.0)).epsilon(1e-12));
  CHECK(r[0].experience_before == 0);
  CHECK(r[0].experience_after == 3);
  CHECK(r[1].experience_after == 3);
  // The stored doubles read back exactly.
  const auto alice = db->find_account("alice");
  const auto bob = db->find_account("bob");
  REQUIRE(alice);
  REQUIRE(bob);
  CHECK(alice->in(variant::standard).rating == r[0].after);
  CHECK(alice->in(variant::standard).experience == 3);
  CHECK(alice->in(variant::standard).played == 1);
  CHECK(alice->in(variant::standard).won == 1);
  CHECK(bob->in(variant::standard).rating == r[1].after);
  CHECK(bob->in(variant::standard).played == 1);
  CHECK(bob->in(variant::standard).won == 0);
  CHECK(alice->in(variant::long_nardy).rating == 1500.0);  // the other variant is apart
  CHECK(alice->in(variant::long_nardy).played == 0);
  const auto stored = db->load_match(w.finished_match->id);
  REQUIRE(stored);
  REQUIRE(stored->ratings);
  CHECK(*stored->ratings == r);
  const auto history = db->account_matches("bob", 0, 10);
  REQUIRE(history.size() == 1);
  CHECK(history[0].match_id == w.finished_match->id);
  CHECK(history[0].ended_at == record.ended_at);
  CHECK(history[0].side == side::black);
  CHECK(history[0].opponent == "Alice");
  CHECK(history[0].won == false);
  CHECK(history[0].options == points(3));
  CHECK(history[0].final_score == record.final_score);
  REQUIRE(history[0].rating);
  CHECK(*history[0].rating == r[1]);
  const auto leaders = db->leaderboard(variant::standard, 10);
  REQUIRE(leaders.size() == 2);
  CHECK(leaders[0].rank == 1);
  CHECK(leaders[0].name == "Alice");
  CHECK(leaders[1].rank == 2);
  CHECK(leaders[1].name == "bob");
  CHECK(leaders[1].standing.rating == r[1].after);
  CHECK(leaders[1].standing.played == 1);
  CHECK(db->leaderboard(variant::long_nardy, 10).empty());
  CHECK(db->leaderboard(variant::standard, 0).empty());

  // Bob wins the next one: the hand-computed upset (17.810988 each, K = 4.97), in a
  // batch with another write.
  const auto w2 = finishing(*db, play_random_match(points(3), 12, {}, "Alice", "bob"), "alice",
                            "bob", side::black, true);
  const auto second = db->write_tables({tw("other", "{}"), w2});
  REQUIRE(second[1].error.empty());
  REQUIRE(second[1].ratings);
  CHECK((*second[1].ratings)[1].after - (*second[1].ratings)[1].before ==
        Approx(17.810988467).epsilon(1e-9));
  CHECK((*second[1].ratings)[0].before - (*second[1].ratings)[0].after ==
        Approx(17.810988467).epsilon(1e-9));
  CHECK_FALSE(second[0].ratings);
  // The history pages from the newest down.
  const auto page1 = db->account_matches("alice", 0, 1);
  REQUIRE(page1.size() == 1);
  CHECK(page1[0].match_id == w2.finished_match->id);
  const auto page2 = db->account_matches("alice", page1[0].match_id, 1);
  REQUIRE(page2.size() == 1);
  CHECK(page2[0].match_id == w.finished_match->id);
  CHECK(db->account_matches("alice", page2[0].match_id, 1).empty());
  CHECK(db->account_matches("nobody", 0, 10).empty());
  CHECK(db->account_matches("alice", 0, 0).empty());
  // Equal ratings are listed by name, bytewise.
  REQUIRE(db->create_account("b2", "B2", account::kind::player, some_hash));
  REQUIRE(db->create_account("a2", "a2", account::kind::player, some_hash));
  const auto w3 =
      finishing(*db, play_random_match(points(1), 13, {}, "B2", "a2"), "b2", "a2", side::red, true);
  REQUIRE(db->write_tables({w3})[0].error.empty());
  const auto w4 = finishing(*db, play_random_match(points(1), 14, {}, "B2", "a2"), "b2", "a2",
                            side::black, true);
  REQUIRE(db->write_tables({w4})[0].error.empty());
  const auto all = db->leaderboard(variant::standard, 10);
  REQUIRE(all.size() == 4);
  CHECK(all[3].rank == 4);
  for (const auto& e : all) CHECK_FALSE(e.bot);
  // A bot's account (issue 14) is listed as a bot once it has played a rated match.
  REQUIRE(db->create_account("gnubg-expert", "gnubg-expert", account::kind::bot, ""));
  const auto w5 = finishing(*db, play_random_match(points(1), 15, {}, "gnubg-expert", "a2"),
                            "gnubg-expert", "a2", side::red, true);
  REQUIRE(db->write_tables({w5})[0].error.empty());
  const auto with_bot = db->leaderboard(variant::standard, 10);
  REQUIRE(with_bot.size() == 5);
  int bots = 0;
  for (const auto& e : with_bot) {
    CHECK(e.bot == (e.name == "gnubg-expert"));
    bots += e.bot ? 1 : 0;
  }
  CHECK(bots == 1);
}

TEMPLATE_TEST_CASE(
    "an unrated match counts in the accounts' histories but moves no rating (S1), and a failed "
    "write rates nothing",
    "[store][accounts][S1]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  REQUIRE(db->create_account("alice", "alice", account::kind::player, some_hash));
  REQUIRE(db->create_account("bob", "bob", account::kind::player, some_hash));
  const auto guest = finishing(*db, play_random_match(points(3), 4, {}, "alice", "guest"), "alice",
                               "", side::red, false);
  const auto o1 = db->write_tables({guest});
  REQUIRE(o1[0].error.empty());
  CHECK_FALSE(o1[0].ratings);
  auto alice = db->find_account("alice");
  CHECK(alice->in(variant::standard).rating == 1500.0);
  CHECK(alice->in(variant::standard).experience == 0);
  CHECK(alice->in(variant::standard).played == 1);
  CHECK(alice->in(variant::standard).won == 1);
  const auto h = db->account_matches("alice", 0, 10);
  REQUIRE(h.size() == 1);
  CHECK(h[0].opponent == "guest");
  CHECK_FALSE(h[0].rating);
  CHECK_FALSE(db->load_match(guest.finished_match->id)->ratings);

  // "rated" without a winner (a level basis session) rates nothing either.
  auto level = finishing(*db, play_random_match({variant::long_nardy, match_kind::basis, 0}, 5),
                         "alice", "bob", side::red, true);
  level.winner.reset();
  const auto o2 = db->write_tables({level});
  REQUIRE(o2[0].error.empty());
  CHECK_FALSE(o2[0].ratings);
  alice = db->find_account("alice");
  CHECK(alice->in(variant::long_nardy).played == 1);
  CHECK(alice->in(variant::long_nardy).won == 0);
  CHECK(alice->in(variant::long_nardy).experience == 0);
  CHECK(db->account_matches("bob", 0, 10).at(0).won == std::nullopt);

  // A rated write whose snapshot fails, alone or in a batch: no match, no rating, no
  // history row.
  auto broken = finishing(*db, play_random_match(points(3), 6, {}, "alice", "bob"), "alice", "bob",
                          side::red, true);
  broken.snapshot = "not json";
  const auto o3 = db->write_tables({broken});
  CHECK_FALSE(o3[0].error.empty());
  CHECK_FALSE(o3[0].ratings);
  CHECK_FALSE(db->load_match(broken.finished_match->id));
  broken.finished_match->id = db->reserve_match_id();
  const auto o4 = db->write_tables({broken, tw("u", "{}")});
  CHECK_FALSE(o4[0].error.empty());
  CHECK(o4[1].error.empty());
  CHECK_FALSE(db->load_match(broken.finished_match->id));
  CHECK(db->find_account("alice")->in(variant::standard).rating == 1500.0);
  CHECK(db->find_account("bob")->in(variant::standard).played == 0);
  CHECK(backend.sql("SELECT count(*) FROM account_matches") == "3");
}

// --- issue 13: moderation: the log, bans, ignores, unfinished matches --------------------

namespace {

using bg::server::ban;
using bg::server::moderation_action;

moderation_action action(std::string what, std::string actor, std::string target,
                         std::string table = {}, std::string detail = {}) {
  return moderation_action{std::move(what), std::move(actor), std::move(target), std::move(table),
                           std::move(detail)};
}

ban ban_of(std::string key, std::string name, std::string address, std::int64_t until_ms) {
  ban b;
  b.name_key = std::move(key);
  b.name = std::move(name);
  b.address = std::move(address);
  b.by = "admin";
  b.until_ms = until_ms;
  return b;
}

/// Returns once the wall clock shows a later millisecond than when called, so that two
/// writes around it get different times in both stores (SQLite keeps milliseconds).
void next_millisecond() {
  using namespace std::chrono;
  const auto ms = [] {
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  };
  const auto now = ms();
  while (ms() == now) std::this_thread::yield();
}

}  // namespace

TEMPLATE_TEST_CASE(
    "moderation written with a table's change is logged in its transaction, a failed change logs "
    "nothing, a drop logs its own",
    "[store][moderation]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  table_write kick = tw("t1", R"({"seq":3})");
  kick.moderation = {action("kick", "alice", "mallory", "t1", "600 s"),
                     action("private", "alice", "", "t1", "on")};
  table_write broken = tw("t2", "not json");  // refused, and its moderation with it
  broken.moderation = {action("invite", "bob", "carol", "t2")};
  const auto errors = db->save_tables({kick, broken});
  CHECK(errors[0].empty());
  CHECK_FALSE(errors[1].empty());
  CHECK(backend.sql("SELECT count(*) FROM moderation") == "2");
  CHECK(backend.sql("SELECT actor || ' ' || action || ' ' || target || ' at ' || table_name || "
                    "': ' || detail FROM moderation ORDER BY id") ==
        "alice kick mallory at t1: 600 s");
  CHECK(backend.sql("SELECT detail FROM moderation WHERE action = 'private'") == "on");
  CHECK(backend.sql("SELECT count(*) FROM moderation WHERE at IS NULL") == "0");
  // A batch of one that fails logs nothing either.
  CHECK_FALSE(db->save_tables({broken})[0].empty());
  CHECK(backend.sql("SELECT count(*) FROM moderation") == "2");
  // A dropped table's moderation (a table closed by an administrator) is logged too.
  table_write closed = drop("t1");
  closed.moderation = {action("close", "admin", "", "t1", "match 4")};
  CHECK(db->save_tables({closed})[0].empty());
  CHECK(backend.sql("SELECT count(*) FROM moderation WHERE action = 'close'") == "1");
  CHECK(db->load_tables().empty());
  // Outside a table's change, and the schema refuses an action it does not know.
  db->record_moderation(action("broadcast", "admin", "", "", "hello 'all' \"of\" you"));
  CHECK(backend.sql("SELECT detail FROM moderation WHERE action = 'broadcast'") ==
        "hello 'all' \"of\" you");
  CHECK_THROWS(db->record_moderation(action("smite", "admin", "x")));
  CHECK(backend.sql("SELECT count(*) FROM moderation") == "4");
}

TEMPLATE_TEST_CASE("a name's bans are replaced together, expire, and are lifted together",
                   "[store][moderation]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  CHECK(db->active_bans(0).empty());
  // mallory until t = 5000 ms with two addresses, then eve until unbanned
  db->save_bans(
      {ban_of("mallory", "Mallory", "", 5000), ban_of("mallory", "Mallory", "10.0.0.1", 5000),
       ban_of("mallory", "Mallory", "10.0.0.2", 5000)},
      action("ban", "admin", "Mallory", "", "1 h"));
  next_millisecond();
  db->save_bans({ban_of("eve", "eve", "", 0)}, action("ban", "admin", "eve"));
  auto now = db->active_bans(4999);
  REQUIRE(now.size() == 4);
  CHECK(now[0].name_key == "mallory");  // oldest first
  CHECK(now[0].address.empty());
  CHECK(now[1].address == "10.0.0.1");
  CHECK(now[0].until_ms == 5000);
  CHECK(now[3].name_key == "eve");
  CHECK(iso_millis(now[0].created_at));
  now = db->active_bans(5000);
  REQUIRE(now.size() == 1);
  CHECK(now[0].name_key == "eve");
  CHECK(now[0].name == "eve");
  CHECK(now[0].until_ms == 0);
  CHECK(now[0].by == "admin");
  CHECK(now[0].active(1'000'000'000'000));
  // Banned again: the new bans replace the old ones (one address now).
  db->save_bans(
      {ban_of("mallory", "Mallory", "", 9000), ban_of("mallory", "Mallory", "10.0.0.3", 9000)},
      action("ban", "admin", "Mallory"));
  CHECK(db->active_bans(6000).size() == 3);
  CHECK(backend.sql("SELECT count(*) FROM bans WHERE name_key = 'mallory'") == "2");
  // Lifting a name lifts its addresses and is logged; lifting nothing logs nothing.
  CHECK(db->lift_bans("mallory", action("unban", "admin", "Mallory")) == 2);
  CHECK(db->lift_bans("mallory", action("unban", "admin", "Mallory")) == 0);
  CHECK(db->active_bans(0).size() == 1);
  CHECK(backend.sql("SELECT count(*) FROM moderation WHERE action = 'ban'") == "3");
  CHECK(backend.sql("SELECT count(*) FROM moderation WHERE action = 'unban'") == "1");
  CHECK(backend.sql("SELECT action FROM moderation ORDER BY id DESC LIMIT 1") == "unban");
  // Bans of nobody, or of two names at once, are refused and write nothing; a ban whose
  // log entry fails is not kept either.
  CHECK_THROWS_AS(db->save_bans({}, action("ban", "admin", "")), storage_error);
  CHECK_THROWS_AS(db->save_bans({ban_of("a", "a", "", 0), ban_of("b", "b", "", 0)},
                                action("ban", "admin", "a")),
                  storage_error);
  CHECK_THROWS(db->save_bans({ban_of("zed", "zed", "", 0)}, action("smite", "admin", "zed")));
  CHECK(backend.sql("SELECT count(*) FROM bans WHERE name_key = 'zed'") == "0");
  CHECK(backend.sql("SELECT count(*) FROM moderation") == "4");
  // The store goes on after the refusals.
  db->save_bans({ban_of("zed", "zed", "", 0)}, action("ban", "admin", "zed"));
  CHECK(db->active_bans(0).size() == 2);
}

TEMPLATE_TEST_CASE("the names an account ignores are kept in order, once each",
                   "[store][moderation]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  REQUIRE(db->create_account("alice", "Alice", account::kind::player, some_hash));
  db->set_ignored("alice", "mallory", "Mallory", true);
  next_millisecond();
  db->set_ignored("alice", "eve", "eve", true);
  db->set_ignored("alice", "mallory", "MALLORY", true);  // once: the first spelling stays
  CHECK(db->ignored_by("alice") == std::vector<std::string>{"Mallory", "eve"});
  db->set_ignored("alice", "mallory", "mallory", false);
  CHECK(db->ignored_by("alice") == std::vector<std::string>{"eve"});
  db->set_ignored("alice", "nobody", "nobody", false);  // not ignored: nothing to do
  // An unknown account ignores nobody and keeps nothing.
  db->set_ignored("zed", "eve", "eve", true);
  CHECK(db->ignored_by("zed").empty());
  CHECK(backend.sql("SELECT count(*) FROM ignores") == "1");
  // It survives closing the store.
  db.reset();
  db = backend.open();
  CHECK(db->ignored_by("alice") == std::vector<std::string>{"eve"});
}

TEMPLATE_TEST_CASE("a match closed before it finished is stored as unfinished",
                   "[store][moderation]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  auto record = play_random_match(points(5), 11);
  record.games.back().result.reset();  // closed in the middle of its last game
  record.unfinished = true;
  record.closed_by = "admin";
  record.id = db->reserve_match_id();
  table_write w = tw("t1", "{}", true);
  w.finished_match = record;
  w.moderation = {action("close", "admin", "", "t1", "match " + std::to_string(record.id))};
  const auto finished_id = db->save_match(play_random_match(points(1), 2));
  REQUIRE(db->save_tables({w})[0].empty());
  CHECK(backend.sql("SELECT count(*) FROM matches WHERE unfinished") == "1");
  CHECK(backend.sql("SELECT id FROM matches WHERE unfinished") == std::to_string(record.id));
  const auto loaded = db->load_match(record.id);
  REQUIRE(loaded);
  CHECK(loaded->unfinished);
  CHECK(loaded->closed_by == "admin");
  CHECK_FALSE(loaded->games.back().result);
  CHECK(record_difference(record, *loaded).empty());
  const auto other = db->load_match(finished_id);
  REQUIRE(other);
  CHECK_FALSE(other->unfinished);
  CHECK(other->closed_by.empty());
}

TEMPLATE_TEST_CASE(
    "a name's key moves with its account, bans and ignore entries, never onto "
    "another account's",
    "[store][accounts][names]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  // Keys as an older name_key() made them (Ž and Ż not folded).
  REQUIRE(db->create_account("Žan", "Žan", account::kind::player, some_hash));
  REQUIRE(db->create_account("alice", "alice", account::kind::player, some_hash));
  REQUIRE(db->create_account("żaneta", "żaneta", account::kind::player, some_hash));
  REQUIRE(db->create_account("Żaneta", "Żaneta", account::kind::player, some_hash));
  db->save_bans({ban_of("Žan", "Žan", "", 0), ban_of("Žan", "Žan", "10.0.0.1", 0)},
                action("ban", "admin", "Žan"));
  db->set_ignored("alice", "Žan", "Žan", true);
  CHECK(db->move_name_key("Žan", "žan"));
  CHECK_FALSE(db->find_account("Žan"));
  const auto moved = db->find_account("žan");
  REQUIRE(moved);
  CHECK(moved->name == "Žan");
  CHECK(moved->password_hash == some_hash);
  const auto bans = db->active_bans(0);
  CHECK(bans.size() == 2);
  for (const auto& b : bans) CHECK(b.name_key == "žan");
  CHECK(backend.sql("SELECT ignored_key FROM ignores") == "žan");
  // Onto another account's key: refused, nothing changed.
  CHECK_FALSE(db->move_name_key("Żaneta", "żaneta"));
  CHECK(db->find_account("Żaneta"));
  CHECK(db->find_account("żaneta"));
  // A key with nothing under it moves nothing, and that is no error.
  CHECK(db->move_name_key("nobody", "nobody2"));
}

TEMPLATE_TEST_CASE(
    "a session is found by its hash while it lasts, each use moves its end on, an expired one is "
    "forgotten, and an account keeps its most recently used ones only",
    "[store][sessions]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  REQUIRE(db->create_account("alice", "Alice", account::kind::player, some_hash));
  REQUIRE(db->create_account("bob", "bob", account::kind::player, some_hash));
  REQUIRE(db->create_account("gnubg-expert", "gnubg-expert", account::kind::bot, ""));
  const std::string h1(64, 'a');
  const std::string h2(64, 'b');
  // A new session, found by its hash until it ends; each use moves the end on
  const auto id1 = db->create_session("alice", h1, "browser", 1'000, 2'000, 3);
  REQUIRE(id1 > 0);
  const auto used = db->use_session(h1, 1'500, 3'500);
  REQUIRE(used);
  CHECK(used->id == id1);
  CHECK(used->account_key == "alice");
  CHECK(used->label == "browser");
  CHECK(used->created_ms == 1'000);
  CHECK(used->used_ms == 1'500);
  CHECK(used->expires_ms == 3'500);
  CHECK(db->use_session(h1, 3'000, 5'000));  // still within the moved end
  CHECK_FALSE(db->use_session(h2, 3'000, 5'000));
  // Past its end it is gone for good
  CHECK_FALSE(db->use_session(h1, 5'000, 7'000));
  CHECK_FALSE(db->use_session(h1, 4'000, 7'000));
  CHECK(db->sessions_of("alice", 4'000).empty());
  // An unknown account and a computer player's get none
  CHECK(db->create_session("zed", h2, "x", 1'000, 9'000, 3) == 0);
  CHECK(db->create_session("gnubg-expert", h2, "x", 1'000, 9'000, 3) == 0);
  // Three kept at most: the least recently used goes
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 4; ++i)
    ids.push_back(db->create_session("alice", std::string(63, 'c') + char('0' + i), "t", 10'000 + i,
                                     100'000, 3));
  auto listed = db->sessions_of("alice", 20'000);
  REQUIRE(listed.size() == 3);
  CHECK(listed[0].id == ids[3]);  // the most recently used first
  CHECK(listed[2].id == ids[1]);
  CHECK_FALSE(db->use_session(std::string(63, 'c') + '0', 20'000, 100'000));
  // Using an older one makes it the most recent
  REQUIRE(db->use_session(std::string(63, 'c') + '1', 20'000, 100'000));
  listed = db->sessions_of("alice", 20'000);
  CHECK(listed[0].id == ids[1]);
  // Ending one, then all; another account's are untouched
  REQUIRE(db->create_session("bob", h2, "t", 10'000, 100'000, 3) > 0);
  CHECK(db->end_sessions("alice", ids[2]) == 1);
  CHECK(db->end_sessions("alice", ids[2]) == 0);
  CHECK(db->end_sessions("bob", ids[3]) == 0);  // not bob's
  CHECK(db->end_sessions("alice", 0) == 2);
  CHECK(db->sessions_of("alice", 20'000).empty());
  CHECK(db->sessions_of("bob", 20'000).size() == 1);
  // They survive closing the store
  db.reset();
  db = backend.open();
  CHECK(db->use_session(h2, 30'000, 100'000));
}

// --- RULES.md S7: the performance rating's sums ---------------------------------------

namespace {

/// A done analysis of match `id` in which red lost `red_lost` EMG over `red_decisions`
/// decisions and black `black_lost` over `black_decisions` (checker play and cube split
/// as gnubg's JSON has them, through bg::bots::to_gammond_analysis()'s field names).
bg::server::analysis_record analysed(std::int64_t id, double red_lost, int red_decisions,
                                     double black_lost, int black_decisions) {
  const auto player = [](double lost, int decisions) {
    // The cube part holds a quarter of the error and one close decision.
    return json{{"checker", {{"unforced", decisions - 1}, {"error_total", lost * 0.75}}},
                {"cube", {{"close", 1}, {"error_total", lost * 0.25}}}};
  };
  bg::server::analysis_record a;
  a.match_id = id;
  a.status = bg::server::analysis_status::done;
  a.level = "expert";
  a.result = json{{"players",
                   {{"red", player(red_lost, red_decisions)},
                    {"black", player(black_lost, black_decisions)}}}}
                 .dump();
  return a;
}

/// Archives a rated 1-point match between the accounts `red` and `black` (name keys),
/// won by red, that ended at `ended_at`, queued for analysis; returns its id.
std::int64_t rated_match(bg::server::store& db, const std::string& red, const std::string& black,
                         const std::string& ended_at, std::uint64_t seed) {
  auto record = play_random_match(points(1), seed, {}, red, black);
  record.ended_at = ended_at;
  auto w = finishing(db, std::move(record), red, black, side::red, true);
  w.analyse_match = true;
  REQUIRE(db.write_tables({w})[0].error.empty());
  return w.finished_match->id;
}

}  // namespace

TEMPLATE_TEST_CASE(
    "S7 a done analysis stores each side's PR sums, which the history rows carry, none before it "
    "is done",
    "[store][analysis][S7]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  REQUIRE(db->create_account("alice", "alice", account::kind::player, some_hash));
  REQUIRE(db->create_account("bob", "bob", account::kind::player, some_hash));
  // Given a finished match whose analysis is pending,
  const auto id = rated_match(*db, "alice", "bob", "2026-01-10T10:00:00Z", 31);
  REQUIRE(db->account_matches("alice", 0, 10).size() == 1);
  CHECK_FALSE(db->account_matches("alice", 0, 10)[0].performance);
  // when it is saved done (red lost 0.5 EMG over 40 decisions, black 0.1 over 50),
  db->save_analysis(analysed(id, 0.5, 40, 0.1, 50));
  // then each player's history row has its own side's sums,
  const auto alice = db->account_matches("alice", 0, 10);
  REQUIRE(alice.size() == 1);
  REQUIRE(alice[0].performance);
  CHECK(alice[0].performance->equity_lost == Approx(0.5));
  CHECK(alice[0].performance->decisions == 40);
  const auto bob = db->account_matches("bob", 0, 10);
  REQUIRE(bob[0].performance);
  CHECK(bob[0].performance->equity_lost == Approx(0.1));
  CHECK(bob[0].performance->decisions == 50);
  // and a failed analysis saved over it has none.
  bg::server::analysis_record failed;
  failed.match_id = id;
  failed.status = bg::server::analysis_status::failed;
  failed.reason = "gnubg crashed";
  db->save_analysis(failed);
  CHECK_FALSE(db->account_matches("alice", 0, 10)[0].performance);
  CHECK(db->account_performance("alice", "").matches == 0);
}

TEMPLATE_TEST_CASE(
    "S7 a period's PR is the sum of equity lost over the sum of decisions of its analysed "
    "matches: the last 30 days apart from all time",
    "[store][analysis][S7]", sqlite_backend, postgres_backend) {
  TestType backend;
  auto db = backend.open();
  REQUIRE(db->create_account("alice", "alice", account::kind::player, some_hash));
  REQUIRE(db->create_account("bob", "bob", account::kind::player, some_hash));
  // Given alice's three matches: an old one (red, 1.0 EMG over 90 decisions), a recent
  // one as black (0.2 over 10), and a recent one whose analysis is still pending,
  const auto old = rated_match(*db, "alice", "bob", "2026-01-01T09:00:00Z", 41);
  const auto recent = rated_match(*db, "bob", "alice", "2026-03-01T09:00:00Z", 42);
  (void)rated_match(*db, "alice", "bob", "2026-03-02T09:00:00Z", 43);
  db->save_analysis(analysed(old, 1.0, 90, 0.3, 30));
  db->save_analysis(analysed(recent, 0.4, 20, 0.2, 10));
  // the period since 2026-02-01 holds the recent analysed match only,
  const auto since = db->account_performance("alice", "2026-02-01T00:00:00Z");
  CHECK(since.matches == 1);
  CHECK(since.sums.equity_lost == Approx(0.2));
  CHECK(since.sums.decisions == 10);
  CHECK(performance_rating(since.sums.equity_lost, since.sums.decisions).value() == Approx(10.0));
  // all time both: 500 * 1.2 / 100 = 6.0, not the mean of 5.56 and 10.0,
  const auto all = db->account_performance("alice", "");
  CHECK(all.matches == 2);
  CHECK(all.sums.equity_lost == Approx(1.2));
  CHECK(all.sums.decisions == 100);
  CHECK(performance_rating(all.sums.equity_lost, all.sums.decisions).value() == Approx(6.0));
  // a match that ended exactly at the bound counts, and a period with none is empty.
  CHECK(db->account_performance("alice", "2026-03-01T09:00:00Z").matches == 1);
  CHECK(db->account_performance("alice", "2026-04-01T00:00:00Z").matches == 0);
  CHECK(db->account_performance("nobody", "").matches == 0);
  CHECK(db->account_performance("nobody", "").sums.decisions == 0);
}

TEMPLATE_TEST_CASE(
    "S7 the ratings list carries each account's all-time PR sums and sorts by PR, the lowest "
    "first and the accounts without one last",
    "[store][accounts][S7]", sqlite_backend, postgres_backend) {
  using bg::server::leaderboard_order;
  TestType backend;
  auto db = backend.open();
  for (const char* n : {"ann", "ben", "cat", "dan"})
    REQUIRE(db->create_account(n, n, account::kind::player, some_hash));
  // ann beats ben (ann PR 2.5, ben 20.0), cat beats dan (cat 12.5, dan not analysed),
  const auto m1 = rated_match(*db, "ann", "ben", "2026-03-01T09:00:00Z", 51);
  (void)rated_match(*db, "cat", "dan", "2026-03-01T10:00:00Z", 52);
  db->save_analysis(analysed(m1, 0.2, 40, 1.6, 40));
  // and ann beats cat, analysed: ann 0.05 over 10 more, cat 0.5 over 20.
  const auto m3 = rated_match(*db, "ann", "cat", "2026-03-01T11:00:00Z", 53);
  db->save_analysis(analysed(m3, 0.05, 10, 0.5, 20));
  // By rating: ann first (two wins), each line with its all-time sums.
  const auto by_rating = db->leaderboard(variant::standard, 10);
  REQUIRE(by_rating.size() == 4);
  CHECK(by_rating[0].name == "ann");
  REQUIRE(by_rating[0].performance);
  CHECK(by_rating[0].performance->equity_lost == Approx(0.25));
  CHECK(by_rating[0].performance->decisions == 50);
  for (const auto& e : by_rating) CHECK(e.performance.has_value() == (e.name != "dan"));
  // By PR: ann 2.5, cat 12.5 (0.5 / 20), ben 20.0, then dan without a PR; ranks in that order.
  const auto by_pr = db->leaderboard(variant::standard, 10, leaderboard_order::pr);
  REQUIRE(by_pr.size() == 4);
  CHECK(by_pr[0].name == "ann");
  CHECK(by_pr[1].name == "cat");
  CHECK(by_pr[2].name == "ben");
  CHECK(by_pr[3].name == "dan");
  CHECK_FALSE(by_pr[3].performance);
  for (int i = 0; i < 4; ++i) CHECK(by_pr[static_cast<std::size_t>(i)].rank == i + 1);
  CHECK(performance_rating(by_pr[1].performance->equity_lost, by_pr[1].performance->decisions)
            .value() == Approx(12.5));
  // The limit applies after the sort; the other variant still lists nobody.
  const auto top2 = db->leaderboard(variant::standard, 2, leaderboard_order::pr);
  REQUIRE(top2.size() == 2);
  CHECK(top2[1].name == "cat");
  CHECK(db->leaderboard(variant::long_nardy, 10, leaderboard_order::pr).empty());
}

TEMPLATE_TEST_CASE(
    "S7 the migration to the PR sums fills them in for the analyses done before it, from their "
    "results",
    "[store][analysis][S7]", sqlite_backend, postgres_backend) {
  TestType backend;
  std::int64_t id = 0;
  {
    auto db = backend.open();
    REQUIRE(db->create_account("alice", "alice", account::kind::player, some_hash));
    REQUIRE(db->create_account("bob", "bob", account::kind::player, some_hash));
    id = rated_match(*db, "alice", "bob", "2026-03-01T09:00:00Z", 61);
    db->save_analysis(analysed(id, 0.5, 40, 0.1, 50));
  }
  // Given the database as the schema before the sums left it (the columns gone, and the
  // accounts' language that came after them, the version two back),
  for (const char* column :
       {"red_equity_lost", "red_decisions", "black_equity_lost", "black_decisions"})
    (void)backend.sql(std::string("ALTER TABLE analyses DROP COLUMN ") + column);
  (void)backend.sql("ALTER TABLE accounts DROP COLUMN lang");
  if constexpr (std::is_same_v<TestType, sqlite_backend>) {
    (void)backend.sql("PRAGMA user_version = 6");  // before the sums (7) and lang (8)
  } else {
    (void)backend.sql("DELETE FROM schema_version WHERE version >= " +
                      std::to_string(bg::server::postgres_store::schema_version - 1));
  }
  // when this build opens it, the done analysis has its sums again.
  auto db = backend.open();
  const auto alice = db->account_matches("alice", 0, 10);
  REQUIRE(alice.size() == 1);
  REQUIRE(alice[0].performance);
  CHECK(alice[0].performance->equity_lost == Approx(0.5));
  CHECK(alice[0].performance->decisions == 40);
  const auto bob = db->account_performance("bob", "");
  CHECK(bob.matches == 1);
  CHECK(bob.sums.equity_lost == Approx(0.1));
  CHECK(bob.sums.decisions == 50);
}
