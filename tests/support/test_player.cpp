#include "test_player.hpp"

#include <catch2/catch.hpp>

namespace bg::test {

using nlohmann::json;

player::player(std::uint16_t port, std::string name, std::string resume, const json& hello_fields)
    : name_(std::move(name)) {
  ws_.connect("127.0.0.1", port);
  json hello{{"type", "hello"}, {"name", name_}, {"id", "hello"}};
  if (!resume.empty()) hello["resume"] = resume;
  for (const auto& [k, v] : hello_fields.items()) hello[k] = v;
  ws_.send_json(hello);
  auto w = ws_.receive_until([](const json& m) { return m.value("re", json()) == "hello"; });
  REQUIRE(w);
  absorb(ws_.skipped());
  received_.push_back(*w);
  INFO(w->dump());
  REQUIRE((*w)["type"] == "welcome");
  welcome_ = *w;
  token_ = (*w)["resume"].get<std::string>();
}

std::string player::send(const std::string& table, const std::string& line) {
  const std::string id = "c" + std::to_string(++counter_);
  json msg{{"type", "line"}, {"text", line}, {"id", id}};
  if (!table.empty()) msg["table"] = table;
  ws_.send_json(msg);
  return id;
}

void player::send_message(const json& m) {
  ws_.send_json(m);
}

json player::answer(const std::string& id) {
  auto reply = ws_.receive_until([&](const json& m) { return m.value("re", json()) == id; });
  absorb(ws_.skipped());
  INFO(name_ << ": no answer to " << id);
  REQUIRE(reply);
  absorb({*reply});
  return *reply;
}

json player::say(const std::string& table, const std::string& line) {
  INFO(name_ << ": " << line);
  return answer(send(table, line));
}

json player::ok(const std::string& table, const std::string& line) {
  auto r = say(table, line);
  INFO(name_ << ": " << line << " -> " << r.dump());
  REQUIRE(r["type"] != "error");
  return r;
}

void player::refused(const std::string& table, const std::string& line, const std::string& code) {
  auto r = say(table, line);
  INFO(name_ << ": " << line << " -> " << r.dump());
  REQUIRE(r["type"] == "error");
  CHECK(r["code"] == code);
}

json player::await(const std::function<bool(const json&)>& wanted,
                   std::chrono::milliseconds timeout) {
  auto m = ws_.receive_until(wanted, timeout);
  absorb(ws_.skipped());
  INFO(name_ << " waited " << timeout.count() << " ms in vain");
  REQUIRE(m);
  absorb({*m});
  return *m;
}

json player::await_state(const std::string& table, const std::function<bool(const json&)>& wanted) {
  if (const auto& known = states_[table]; !known.is_null() && wanted(known)) return known;
  return await([&](const json& m) {
    return m.value("type", "") == "state" && m.value("table", "") == table && wanted(m);
  });
}

json player::await_event(const std::string& table, const std::string& name) {
  return await([&](const json& m) {
    return m.value("type", "") == "event" && m.value("table", "") == table &&
           m.value("event", "") == name;
  });
}

json player::latest(const std::string& table) const {
  const auto it = states_.find(table);
  return it == states_.end() ? json() : it->second;
}

void player::absorb(const std::vector<json>& messages) {
  for (const auto& m : messages) {
    received_.push_back(m);
    const auto type = m.value("type", "");
    if (type == "state") {
      all_states_.push_back(m);
      const auto t = m["table"].get<std::string>();
      const auto seq = m["seq"].get<std::uint64_t>();
      if (states_[t].is_null() || seq >= states_[t]["seq"].get<std::uint64_t>()) states_[t] = m;
      auto& list = seqs_[t];
      if (list.empty() || list.back() != seq) list.push_back(seq);
    } else if (type == "event") {
      events_.push_back(m);
    }
  }
}

json duel::fresh() {
  return red.ok(table, "/board");
}

json duel::step() {
  auto st = fresh();
  const std::string phase = st["phase"];
  if (phase == "opening") return red.ok(table, "/roll");
  if (phase == "roll") return by_side(st["to_act"]).ok(table, "/roll");
  if (phase == "move") {
    const auto legal = st["legal"].get<std::vector<std::string>>();
    REQUIRE_FALSE(legal.empty());
    std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
    return by_side(st["to_act"]).ok(table, "/move " + legal[pick(rng)]);
  }
  FAIL("no step in phase " << phase);
  return st;
}

json duel::play_until(const std::function<bool(const json&)>& done, int max_steps) {
  json st = fresh();
  for (int i = 0; i < max_steps && !done(st); ++i) {
    const std::string phase = st["phase"];
    if (phase != "opening" && phase != "roll" && phase != "move") break;
    st = step();
  }
  return st;
}

void seat(player& red, player& black, const std::string& table, const std::string& options) {
  red.ok(table, "/join red");
  black.ok(table, "/join black");
  if (!options.empty()) red.ok(table, options);
  black.ok(table, "/start");
}

nlohmann::json first_answer(const gammond_process& server, nlohmann::json hello, ws_client* keep) {
  ws_client own;
  ws_client& c = keep ? *keep : own;
  c.connect("127.0.0.1", server.port());
  hello["id"] = "first";
  c.send_json(hello);
  const auto answer = c.receive_until([](const nlohmann::json& m) {
    return m.value("re", nlohmann::json()) == "first" ||
           (m.value("type", "") == "error" && !m.contains("re"));
  });
  if (!answer)
    FAIL("no answer to " << hello.value("type", "") << "; gammond's log:\n" << server.log());
  return *answer;
}

}  // namespace bg::test
