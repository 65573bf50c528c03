#include "verify_dice.hpp"

#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "bg/server/dice/dice_verdict.hpp"
#include "bg/server/records/record_json.hpp"

namespace bg::tool {

int run_verify_dice(std::istream& in, std::ostream& out, std::ostream& err) {
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  server::match_record record;
  try {
    record = server::match_record_from_json_text(text);
  } catch (const nlohmann::json::exception& e) {
    err << "gammon-tool: verify-dice: not a match record (as GET /api/matches/ID answers): "
        << e.what() << "\n";
    return 2;
  }
  const auto verdict = server::verify_dice(record);
  if (!verdict.verified) {
    out << "not verified: " << verdict.problem << "\n";
    return 1;
  }
  out << "verified: " << verdict.rolls << (verdict.rolls == 1 ? " roll" : " rolls") << "\n";
  return 0;
}

}  // namespace bg::tool
