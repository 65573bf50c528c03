// The JSON message decoder (PROTOCOL.md "Client -> server") and its defences against
// bad input: not JSON, truncated, deeply nested, wrong types, bad UTF-8, control chars.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "bg/i18n/catalogue.hpp"
#include "bg/protocol/codec.hpp"
#include "bg/protocol/json_writer.hpp"

using namespace bg::protocol;

// Named, so that these helpers and another file's of the same name share a unity
// build (CMAKE_UNITY_BUILD).
namespace codec_tests {

namespace {
std::string code_of(std::string_view frame) {
  auto r = decode(frame);
  REQUIRE_FALSE(r.ok());
  return r.err().code;
}
}  // namespace

TEST_CASE("hello, line, enter, exit and ping decode with their fields", "[protocol][codec]") {
  auto h = decode(R"({"type":"hello","name":"alice","resume":"abc","id":7})");
  REQUIRE(h.ok());
  CHECK(h->what == client_message::kind::hello);
  CHECK(h->name == "alice");
  CHECK(h->resume == "abc");
  CHECK(*h->id == 7);
  auto l = decode(R"({"type":"line","table":"t1","text":"/join","id":"x"})");
  REQUIRE(l.ok());
  CHECK(l->what == client_message::kind::line);
  CHECK(*l->table == "t1");
  CHECK(l->text == "/join");
  CHECK(*l->id == "x");
  auto lobby = decode(R"({"type":"line","text":"/tables"})");
  REQUIRE(lobby.ok());
  CHECK_FALSE(lobby->table.has_value());
  CHECK(decode(R"({"type":"enter","table":"t1"})")->what == client_message::kind::enter);
  CHECK(decode(R"({"type":"exit","table":"t1"})")->what == client_message::kind::exit);
  CHECK(decode(R"({"type":"ping"})")->what == client_message::kind::ping);
}

TEST_CASE("frames that are not one JSON object are bad_json", "[protocol][codec]") {
  CHECK(code_of("") == "bad_json");
  CHECK(code_of("hello") == "bad_json");
  CHECK(code_of(R"({"type":"line","text":"/jo)") == "bad_json");  // truncated
  CHECK(code_of("[1,2,3]") == "bad_json");
  CHECK(code_of("42") == "bad_json");
  CHECK(code_of(std::string(10000, '[')) == "bad_json");  // deeply nested
  std::string deep = R"({"type":"ping","x":)" + std::string(17, '[') + std::string(17, ']') + "}";
  CHECK(code_of(deep) == "bad_json");
  std::string shallow =
      R"({"type":"ping","x":)" + std::string(10, '[') + std::string(10, ']') + "}";
  CHECK(decode(shallow).ok());
}

TEST_CASE("missing or wrong-typed fields are bad_message, unknown types unknown_type",
          "[protocol][codec]") {
  CHECK(code_of(R"({"name":"alice"})") == "bad_message");
  CHECK(code_of(R"({"type":5})") == "bad_message");
  CHECK(code_of(R"({"type":"hello"})") == "bad_message");
  CHECK(code_of(R"({"type":"hello","name":42})") == "bad_message");
  CHECK(code_of(R"({"type":"line"})") == "bad_message");
  CHECK(code_of(R"({"type":"line","text":["a"]})") == "bad_message");
  CHECK(code_of(R"({"type":"line","text":"x","table":7})") == "bad_message");
  CHECK(code_of(R"({"type":"enter"})") == "bad_message");
  CHECK(code_of(R"({"type":"ping","id":{"a":1}})") == "bad_message");
  CHECK(code_of(R"({"type":"ping","id":1.5})") == "bad_message");
  CHECK(code_of(R"({"type":"dance"})") == "unknown_type");
}

TEST_CASE("text that is not valid UTF-8 or holds control characters is refused",
          "[protocol][codec]") {
  CHECK(code_of("{\"type\":\"hello\",\"name\":\"a\\u0007b\"}") == "bad_message");
  CHECK(code_of("{\"type\":\"line\",\"text\":\"a\\nb\"}") == "bad_message");
  CHECK(code_of("{\"type\":\"line\",\"text\":\"\\u0085\"}") == "bad_message");  // C1 control
  // A raw invalid byte is rejected by the JSON parser itself.
  CHECK_FALSE(decode("{\"type\":\"line\",\"text\":\"\xff\"}").ok());
  CHECK(decode("{\"type\":\"line\",\"text\":\"caf\xc3\xa9 \xe2\x9a\x80\"}").ok());
}

TEST_CASE("valid_utf8 rejects overlong forms, surrogates and truncation", "[protocol][codec]") {
  CHECK(valid_utf8("plain"));
  CHECK(valid_utf8("\xc3\xa9\xe2\x82\xac\xf0\x9f\x8e\xb2"));
  CHECK_FALSE(valid_utf8("\xc0\xaf"));          // overlong '/'
  CHECK_FALSE(valid_utf8("\xed\xa0\x80"));      // surrogate D800
  CHECK_FALSE(valid_utf8("\xe2\x82"));          // truncated
  CHECK_FALSE(valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  CHECK_FALSE(valid_utf8("\x80"));
}

TEST_CASE("encode never throws on bad UTF-8 and error_message echoes re", "[protocol][codec]") {
  nlohmann::json j{{"type", "chat"}, {"text", std::string("bad \xff byte")}};
  const auto text = encode(j);
  CHECK(text.find("bad") != std::string::npos);
  const auto e = error_message("illegal_play", "point 5 is blocked", nlohmann::json("m1"));
  CHECK(e["type"] == "error");
  CHECK(e["code"] == "illegal_play");
  CHECK(e["message"] == "point 5 is blocked");
  CHECK(e["re"] == "m1");
  CHECK_FALSE(error_message("x", "y").contains("re"));
}

TEST_CASE("hello takes a password, register a name and a password", "[protocol][codec][accounts]") {
  // A guest's hello has no password; an account's has one (even an empty one).
  auto guest = decode(R"({"type":"hello","name":"bob"})");
  REQUIRE(guest.ok());
  CHECK_FALSE(guest->password);
  auto login = decode(R"({"type":"hello","name":"alice","password":"s3cret pass"})");
  REQUIRE(login.ok());
  CHECK(login->what == client_message::kind::hello);
  REQUIRE(login->password);
  CHECK(*login->password == "s3cret pass");
  auto empty = decode(R"({"type":"hello","name":"alice","password":""})");
  REQUIRE(empty.ok());
  CHECK(empty->password == std::string());
  auto reg = decode(R"({"type":"register","name":"alice","password":"longenough","id":3})");
  REQUIRE(reg.ok());
  CHECK(reg->what == client_message::kind::register_account);
  CHECK(reg->name == "alice");
  CHECK(*reg->password == "longenough");
  CHECK(*reg->id == 3);
  // Missing or wrong-typed fields, and a password that is not text, are refused
  // without repeating the password.
  CHECK(code_of(R"({"type":"register","name":"alice"})") == "bad_message");
  CHECK(code_of(R"({"type":"register","password":"longenough"})") == "bad_message");
  CHECK(code_of(R"({"type":"hello","resume":"abc","password":"x"})") == "bad_message");
  CHECK(code_of(R"({"type":"hello","name":"alice","password":7})") == "bad_message");
  const auto control =
      decode("{\"type\":\"register\",\"name\":\"a\",\"password\":\"zq\\u0001zq\"}");
  REQUIRE_FALSE(control.ok());
  CHECK(control.err().code == "bad_message");
  CHECK(control.err().message.find("zq") == std::string::npos);
}

TEST_CASE("json_writer writes what nlohmann's dump writes for the same tree",
          "[protocol][codec][issue15]") {
  using bg::protocol::encode_by_nlohmann;
  using bg::protocol::json_writer;
  using nlohmann::json;
  SECTION("strings: quotes, backslashes, every control character, UTF-8, invalid UTF-8") {
    std::string controls;
    for (char c = 0; c < 0x20; ++c) controls += c;
    for (const std::string& s :
         {std::string{}, std::string{"plain"}, std::string{"a\"b\\c/d"}, controls,
          std::string{"\x7f del"}, std::string{"Ωmega 李白 ✓"}, std::string{"bad \xff\xfe utf-8"},
          std::string{"cut \xe2\x82"}, std::string{"~ printable ASCII !"}, std::string{"tab\tlast"},
          std::string{"\"first"}, std::string{"last\\"}}) {
      INFO(s);
      json_writer w;
      w.value(s);
      CHECK(w.text() == encode_by_nlohmann(json(s)));
    }
  }
  SECTION("numbers, booleans, null") {
    const std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
    const std::uint64_t highest = std::numeric_limits<std::uint64_t>::max();
    json_writer w;
    w.begin_array()
        .value(0)
        .value(-17)
        .value(lowest)
        .value(highest)
        .value(1500.0)
        .value(1517.32)
        .value(0.1)
        .value(-2.5e-300)
        .value(1e300)
        .value(std::nan(""))
        .value(true)
        .value(false)
        .null()
        .end_array();
    const json tree = {0,         -17,   lowest,       highest, 1500.0, 1517.32, 0.1,
                       -2.5e-300, 1e300, std::nan(""), true,    false,  nullptr};
    CHECK(w.text() == encode_by_nlohmann(tree));
  }
  SECTION("nested objects and arrays, empty ones, keys that need escaping, raw values") {
    json_writer w;
    w.begin_object()
        .key("a")
        .begin_array()
        .end_array()
        .key("b")
        .begin_object()
        .end_object()
        .key("c")
        .begin_array()
        .begin_array()
        .value(1)
        .value(2)
        .end_array()
        .begin_object()
        .key("k\"ey")
        .value("v")
        .key("n")
        .null()
        .end_object()
        .end_array()
        .key("d")
        .raw(R"({"x":[1,2]})")
        .end_object();
    const json tree = {{"a", json::array()},
                       {"b", json::object()},
                       {"c", {{1, 2}, {{"k\"ey", "v"}, {"n", nullptr}}}},
                       {"d", {{"x", {1, 2}}}}};
    CHECK(w.text() == encode_by_nlohmann(tree));
  }
  SECTION("encode() of any tree is nlohmann's dump, byte for byte") {
    // 3,000 seeded trees of every kind of value, a deep one and a discarded one.
    std::mt19937 rng(15);
    const std::vector<json> leaves{
        nullptr, true, false,  0,        -1,    7,          1500.0, 1517.32,
        1e-7,    "",   "name", "a\"b\n", "Zoë", "bad \xff", 42U,    -9007199254740993LL};
    std::function<json(int)> make = [&](int depth) -> json {
      const int kind = std::uniform_int_distribution<int>(0, depth > 4 ? 0 : 2)(rng);
      if (kind == 0)
        return leaves[std::uniform_int_distribution<std::size_t>(0, leaves.size() - 1)(rng)];
      const int n = std::uniform_int_distribution<int>(0, 4)(rng);
      json j = kind == 1 ? json::array() : json::object();
      for (int k = 0; k < n; ++k) {
        if (kind == 1) {
          j.push_back(make(depth + 1));
        } else {
          j["k" + std::to_string(std::uniform_int_distribution<int>(0, 9)(rng))] = make(depth + 1);
        }
      }
      return j;
    };
    for (int k = 0; k < 3000; ++k) {
      const json tree = make(0);
      INFO(encode_by_nlohmann(tree));
      CHECK(bg::protocol::encode(tree) == encode_by_nlohmann(tree));
    }
    json deep = 1;
    for (int k = 0; k < 80; ++k) deep = json::array({deep, json{{"d", k}}});
    CHECK(bg::protocol::encode(deep) == encode_by_nlohmann(deep));
    const json discarded(json::value_t::discarded);
    CHECK(bg::protocol::encode(json{{"x", discarded}}) ==
          encode_by_nlohmann(json{{"x", discarded}}));
  }
}

/// Both decoders agree on `frame`: the same message, or the same refusal.
void same_as_tree(std::string_view frame) {
  INFO(frame);
  const auto fast = decode(frame);
  const auto tree = decode_tree(frame);
  REQUIRE(fast.ok() == tree.ok());
  if (!fast.ok()) {
    CHECK(fast.err().code == tree.err().code);
    CHECK(fast.err().message == tree.err().message);
    return;
  }
  CHECK(fast->what == tree->what);
  CHECK(fast->table == tree->table);
  CHECK(fast->text == tree->text);
  CHECK(fast->name == tree->name);
  REQUIRE(fast->id.has_value() == tree->id.has_value());
  if (fast->id) {
    CHECK(*fast->id == *tree->id);
    CHECK(fast->id->type() == tree->id->type());  // "re" is echoed as it was read
  }
}

TEST_CASE("the flat reader of lines, enter, exit and ping agrees with the tree reader",
          "[protocol][codec]") {
  // Hand-picked edges, then 20,000 seeded frames put together from pieces that are
  // valid, nearly valid and wrong (the reader must take exactly what it can read the
  // same way, and leave the rest to the tree).
  for (const std::string_view frame :
       {R"({"type":"line","table":"t1","text":"/roll","id":7})",
        R"( { "id" : "a" , "type" : "line" , "text" : "/move 24/18 13/11" } )",
        R"({"type":"line","text":"/roll","id":-12})",
        R"({"type":"line","text":"x","id":-0})",
        R"({"type":"line","text":"x","id":007})",
        R"({"type":"line","text":"x","id":1.5})",
        R"({"type":"line","text":"x","id":1e3})",
        R"({"type":"line","text":"x","id":null})",
        R"({"type":"line","text":"x","id":123456789012345678901234})",
        R"({"type":"line","text":"a\nb"})",
        R"({"type":"line","text":"caf\u00e9"})",
        R"({"type":"line","text":"café"})",
        "{\"type\":\"line\",\"text\":\"\xc3\"}",
        R"({"type":"line","text":"x","text":"y"})",
        R"({"type":"line"})",
        R"({"type":"enter","table":"t1"})",
        R"({"type":"enter"})",
        R"({"type":"exit","table":""})",
        R"({"type":"enter","table":"t1","text":"x"})",
        R"({"type":"ping","id":"p"})",
        R"({"type":"ping","table":"t"})",
        R"({"type":"hello","name":"alice"})",
        R"({})",
        R"({"type":"line","text":"x"} x)",
        R"({"type":"line","text":"x",})",
        R"({"type":"line","text":"x","other":1})",
        R"({"type":"dance"})",
        "{\"type\":\"line\",\"text\":\"a\x7f\"}",
        "{\"type\":\"line\",\"text\":\"\xc2\x85\"}",
        R"({"type":"line","table":7,"text":"x"})"})
    same_as_tree(frame);
  const std::vector<std::string> keys{R"("type")", R"("table")",     R"("text")", R"("id")",
                                      R"("name")", R"("ty\u0070e")", R"("")",     "type"};
  const std::vector<std::string> values{
      R"("line")",  R"("enter")", R"("exit")",
      R"("ping")",  R"("hello")", R"("t1")",
      R"("/roll")", R"("")",      "7",
      "-3",         "0",          "01",
      "2.5",        "null",       "true",
      R"("a\"b")",  R"("é")",     "\"\xff\"",
      "[]",         "{}",         std::string(R"(")") + std::string(70, 'x') + "\""};
  const std::vector<std::string> spaces{"", " ", "\n", "\t "};
  std::mt19937 rng(33);
  const auto pick = [&](const std::vector<std::string>& from) {
    return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)];
  };
  for (int k = 0; k < 20000; ++k) {
    std::string frame = pick(spaces) + "{";
    const int members = std::uniform_int_distribution<int>(0, 4)(rng);
    for (int m = 0; m < members; ++m) {
      if (m > 0) frame += pick(spaces) + ",";
      frame += pick(spaces) + pick(keys) + pick(spaces) + ":" + pick(spaces) + pick(values);
    }
    frame += pick(spaces) + "}" + pick(spaces);
    if (k % 50 == 0) frame.pop_back();  // now and then cut short
    same_as_tree(frame);
  }
}

}  // namespace codec_tests

TEST_CASE(
    "hello and register carry a language, and every refusal of the decoder names its catalogue "
    "sentence",
    "[codec][i18n]") {
  const auto fr = decode(R"({"type":"hello","name":"alice","lang":"fr-CH, de;q=0.8"})");
  REQUIRE(fr.ok());
  CHECK(fr->lang == "fr-CH, de;q=0.8");
  CHECK(decode(R"({"type":"register","name":"a","password":"p","lang":"ru"})")->lang == "ru");
  CHECK(decode(R"({"type":"hello","name":"alice"})")->lang.empty());
  for (const std::string_view frame :
       {R"({"type":"hello","name":"alice","lang":7})", "[]", "nope", R"({"type":"dance"})",
        R"({"type":"hello"})", R"({"type":"enter"})", R"({"type":"line"})",
        R"({"type":"hello","name":"a","remember":"yes"})",
        R"({"type":"hello","name":"a","password":"p","session":"s"})"}) {
    const auto r = decode(frame);
    REQUIRE_FALSE(r.ok());
    INFO(frame);
    CHECK_FALSE(r.err().key.empty());
    CHECK(bg::i18n::catalogue::global().has("en", r.err().key));
    CHECK(bg::i18n::english(r.err().key, sentence_args(r.err().args)) == r.err().message);
    // The error message carries `say`, and its English is the message's.
    const auto m = error_message(r.err());
    CHECK(m["say"]["key"] == r.err().key);
    CHECK(m["message"] == r.err().message);
  }
  std::string long_lang(65, 'a');
  CHECK_FALSE(decode(R"({"type":"hello","name":"a","lang":")" + long_lang + "\"}").ok());
}
