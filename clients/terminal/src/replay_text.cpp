#include "bg/term/replay_text.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <vector>

namespace bg::term {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using json = nlohmann::json;

namespace {

/// `j[key]` as text: a string as it is, a number written, "" otherwise.
std::string text_or_number(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return "";
  const json& v = j[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return v.dump();
  return "";
}

/// "31" for dice [3, 1], "" for none.
std::string dice_text(const json& step) {
  std::string out;
  if (step.contains("dice") && step["dice"].is_array()) {
    for (const auto& d : step["dice"])
      if (d.is_number_integer()) out += std::to_string(d.get<int>());
  }
  return out;
}

/// A `state` message (as board_view draws it) for step `step` of game `game` of the
/// replay: its board, pips, dice and cube, the score before the game, the tutor's
/// numbers on.
json state_of(const json& replay, const json& game, const json& step) {
  const json match = replay.value("match", json::object());
  json st;
  st["table"] = "replay";
  st["variant"] = match.value("variant", "standard");
  st["players"] = match.value("players", json::object());
  st["board"] = step.value("board", json::object());
  st["pips"] = step.value("pips", json::object());
  st["score"] = game.value("score_before", json::object());
  st["game_number"] = game.value("number", 0);
  st["match_length"] = match.value("length", 0);
  st["phase"] = "replay";
  st["turn"] = step.value("who", "");
  st["dice"] = step.value("dice", json::array());
  st["cube"] = step.value("cube", json::object());
  st["options"] = {{"tutor", true}};
  return st;
}

}  // namespace

std::optional<std::string> http_get(const std::string& host, const std::string& port,
                                    const std::string& target, std::string& error,
                                    std::string_view lang) {
  try {
    net::io_context io;
    net::ip::tcp::resolver resolver{io};
    beast::tcp_stream stream{io};
    stream.expires_after(std::chrono::seconds{10});
    stream.connect(resolver.resolve(host, port));
    http::request<http::empty_body> req{http::verb::get, target, 11};
    req.set(http::field::host, host + ":" + port);
    req.set(http::field::user_agent, "gammon-term/" GAMMOND_VERSION);
    req.set(http::field::accept, "application/json");
    req.set(http::field::accept_language, std::string{lang});
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(64U * 1024U * 1024U);  // a long session's replay is a few MB
    http::read(stream, buffer, parser);
    auto res = parser.release();
    beast::error_code ignored;
    stream.socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
    if (res.result() == http::status::ok) return std::move(res.body());
    const auto body = json::parse(res.body(), nullptr, false);
    error =
        body.is_object() && body.contains("message") && body["message"].is_string()
            ? body["message"].get<std::string>()
            : tr(lang, "term.replay.http_status", {{"status", std::to_string(res.result_int())}});
  } catch (const std::exception& e) {
    error = tr(lang, "term.replay.http_failed", {{"why", e.what()}});
  }
  return std::nullopt;
}

std::string replay_step_text(const json& step, const json& players, std::string_view lang) {
  const std::string side = text_or_number(step, "who");
  std::string who = text_or_number(players, side.c_str());
  if (who.empty()) who = side;
  const std::string what = text_or_number(step, "what");
  const std::string dice = dice_text(step);
  const json args{{"who", who}, {"dice", dice}};
  if (what == "start") {
    return dice.empty() ? tr(lang, "term.replay.starting_position")
                        : tr(lang, "term.replay.starts", args);
  }
  if (what == "play") return who + " " + dice + ": " + text_or_number(step, "play");
  if (what == "pass") return tr(lang, "term.replay.pass", args);
  if (what == "double") {
    return tr(
        lang, "term.replay.double",
        {{"who", who}, {"value", text_or_number(step.value("cube", json::object()), "value")}});
  }
  if (what == "take") return tr(lang, "term.replay.take", args);
  if (what == "drop") return tr(lang, "term.replay.drop", args);
  if (what == "resign_offer")
    return tr(lang, "term.replay.resign_offer",
              {{"who", who}, {"kind", text_or_number(step, "resign")}});
  if (what == "resign_accept") return tr(lang, "term.replay.resign_accept", args);
  if (what == "resign_reject") return tr(lang, "term.replay.resign_reject", args);
  if (what == "forfeit") return tr(lang, "term.replay.forfeit", args);
  return who + " " + what;
}

std::string replay_lines(std::int64_t id, const json& replay, std::optional<std::size_t> step,
                         const board_view& board) {
  const json match = replay.value("match", json::object());
  const json players = match.value("players", json::object());
  const json games = replay.value("games", json::array());
  // Every step in order, with its game.
  std::vector<std::pair<const json*, const json*>> all;
  for (const auto& g : games) {
    if (!g.is_object() || !g.contains("steps") || !g["steps"].is_array()) continue;
    for (const auto& s : g["steps"]) all.emplace_back(&g, &s);
  }
  const json score = match.value("score", json::object());
  std::string out =
      "REPLAY " + std::to_string(id) + " " + text_or_number(players, "red") + "-" +
      text_or_number(players, "black") + " steps=" + std::to_string(all.size()) +
      " games=" + std::to_string(games.size()) + " variant=" + text_or_number(match, "variant") +
      " length=" + text_or_number(match, "length") + " score=" + text_or_number(score, "red") +
      "-" + text_or_number(score, "black") + "\n";
  if (step && (*step == 0 || *step > all.size())) {
    return out + "ERROR bad_step: " +
           tr(board.lang(), "term.replay.bad_step",
              {{"match", std::to_string(id)}, {"count", all.size()}}) +
           "\n";
  }
  const auto line = [&](const char* keyword, std::size_t k) {
    const auto& [g, s] = all[k - 1];
    return std::string{keyword} + " " + std::to_string(k) +
           " game=" + text_or_number(*g, "number") + " " +
           replay_step_text(*s, players, board.lang()) + "\n";
  };
  if (!step) {
    for (std::size_t k = 1; k <= all.size(); ++k) out += line("STEP", k);
  }
  if (!all.empty()) {
    const std::size_t shown = step.value_or(all.size());
    out += line("AT", shown);
    const auto& [g, s] = all[shown - 1];
    for (const auto& l : board.render(state_of(replay, *g, *s))) out += "  " + l + "\n";
  }
  if (replay.value("truncated", false))
    out += "INFO - replay: " + tr(board.lang(), "term.replay.truncated") + "\n";
  return out + "END REPLAY " + std::to_string(id) + "\n";
}

}  // namespace bg::term
