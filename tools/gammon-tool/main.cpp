// gammon-tool: a command-line window onto bg::engine.
//
//   gammon-tool moves [--variant long] POSITION_ID D1 D2
//   gammon-tool show  [--variant long] POSITION_ID
//   gammon-tool selfplay --games N --seed S [--match L] [--variant long]
//                        [--red POLICY] [--black POLICY]
//   gammon-tool verify-dice FILE|-
//
// Exit status: 0 on success, 2 on bad input (with a message on stderr); verify-dice
// exits 1 when the dice do not verify.

#include <boost/program_options.hpp>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bg/engine/board.hpp"
#include "bg/engine/move_generator.hpp"
#include "bg/engine/notation.hpp"
#include "bg/engine/position_id.hpp"
#include "selfplay.hpp"
#include "verify_dice.hpp"

namespace po = boost::program_options;
using namespace bg::engine;

namespace {

constexpr const char* usage =
    "usage:\n"
    "  gammon-tool moves [--variant standard|long] POSITION_ID D1 D2\n"
    "      every distinct legal play: the play, a tab, the Position ID after it\n"
    "      (opponent on roll, as gnubg shows it)\n"
    "  gammon-tool show [--variant standard|long] POSITION_ID\n"
    "      the board in text with pip counts (X is the side on roll)\n"
    "  gammon-tool selfplay [--games N] [--seed S] [--match L] [--variant standard|long]\n"
    "                       [--red POLICY] [--black POLICY]\n"
    "      N games (or N matches to L with the cube) between two policies: random\n"
    "      (default), greedy (lowest pip count after the play), bot or bot2 (the long\n"
    "      nardy bot, one or two plies), beginner, intermediate or advanced (its noisy\n"
    "      levels at a table; the bots need --variant long); prints each side's wins\n"
    "  gammon-tool verify-dice FILE|-\n"
    "      re-derive every roll of a finished match from its revealed seed (FILE: the\n"
    "      JSON of GET /api/matches/ID; -: standard input); exit status 0: verified,\n"
    "      1: not verified (the first roll that differs and why), 2: bad input\n"
    "  gammon-tool --help | --version\n";

int bad_input(const std::string& message) {
  std::cerr << "gammon-tool: " << message << "\n";
  return 2;
}

bool parse_die(const std::string& text, int& die) {
  if (text.size() != 1 || text[0] < '1' || text[0] > '6') return false;
  die = text[0] - '0';
  return true;
}

/// Draws the position in text: the side on roll (X) moves 24 -> 1 along the bottom
/// row's numbering, as gnubg's diagram does.
void show(const position& p, std::ostream& out) {
  auto cell = [&](int point) {
    const int x = p.mover(point);
    const int o = p.opponent(25 - point);  // standard geometry for the diagram
    std::ostringstream s;
    if (x > 0)
      s << x << "X";
    else if (o > 0)
      s << o << "O";
    else
      s << ".";
    return s.str();
  };
  out << " 13  14  15  16  17  18 | 19  20  21  22  23  24\n";
  for (int point = 13; point <= 24; ++point) {
    out << std::setw(3) << cell(point) << (point == 18 ? " |" : " ");
  }
  out << "\n";
  for (int point = 12; point >= 1; --point) {
    out << std::setw(3) << cell(point) << (point == 7 ? " |" : " ");
  }
  out << "\n 12  11  10   9   8   7 |  6   5   4   3   2   1\n";
  out << "X (on roll): bar " << p.mover(bar_index) << ", off " << p.mover(off_index) << ", pips "
      << p.mover_pip_count() << "\n";
  out << "O:           bar " << p.opponent(bar_index) << ", off " << p.opponent(off_index)
      << ", pips " << p.opponent_pip_count() << "\n";
  out << "Position ID: " << position_id(p) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::string command;
  std::vector<std::string> args;
  std::string variant_name = "standard";
  std::string red_name = "random";
  std::string black_name = "random";
  bg::tool::selfplay_options sp;
  po::options_description opts("options");
  opts.add_options()("help,h", "show this help")("version", "print the version")(
      "variant", po::value(&variant_name), "standard (default) or long")(
      "games", po::value(&sp.games), "selfplay: number of games (or matches)")(
      "seed", po::value(&sp.seed), "selfplay: dice seed")("match", po::value(&sp.match_length),
                                                          "selfplay: play matches to this length")(
      "red", po::value(&red_name),
      "selfplay: red's policy (random, greedy, bot, bot2, beginner, intermediate, advanced)")(
      "black", po::value(&black_name),
      "selfplay: black's policy (random, greedy, bot, bot2, beginner, intermediate, advanced)");
  po::options_description hidden;
  hidden.add_options()("command", po::value(&command))("args", po::value(&args));
  po::positional_options_description pos;
  pos.add("command", 1).add("args", -1);
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  try {
    po::store(
        po::command_line_parser(argc, argv)
            .options(all)
            .positional(pos)
            .style(po::command_line_style::unix_style ^ po::command_line_style::allow_guessing)
            .run(),
        vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    return bad_input(std::string(e.what()) + "\n" + usage);
  }
  if (vm.count("help")) {
    std::cout << usage << opts;
    return 0;
  }
  if (vm.count("version")) {
    std::cout << "gammon-tool " << GAMMOND_VERSION << "\n";
    return 0;
  }
  const auto v = variant_from_string(variant_name);
  if (!v) return bad_input("unknown variant \"" + variant_name + "\" (standard or long)");

  if (command == "moves") {
    if (args.size() != 3) return bad_input("moves takes POSITION_ID D1 D2\n" + std::string(usage));
    auto p = position_from_id(args[0], *v);
    if (!p) return bad_input(p.err().message + ": \"" + args[0] + "\"");
    roll r;
    if (!parse_die(args[1], r.die1) || !parse_die(args[2], r.die2))
      return bad_input("dice are two numbers from 1 to 6");
    const auto plays = legal_plays(*p, r, *v);
    for (const auto& pl : plays)
      std::cout << format_play(*p, pl, *v) << '\t' << position_id(pl.result.swapped()) << '\n';
    return 0;
  }
  if (command == "show") {
    if (args.size() != 1) return bad_input("show takes POSITION_ID\n" + std::string(usage));
    auto p = position_from_id(args[0], *v);
    if (!p) return bad_input(p.err().message + ": \"" + args[0] + "\"");
    show(*p, std::cout);
    return 0;
  }
  if (command == "selfplay") {
    if (!args.empty()) return bad_input("selfplay takes only options\n" + std::string(usage));
    if (sp.games < 1) return bad_input("--games must be at least 1");
    if (sp.match_length < 0 || sp.match_length > 64) return bad_input("--match is 1..64");
    sp.game_variant = *v;
    for (const auto& [name, policy] : {std::pair{&red_name, &sp.red}, {&black_name, &sp.black}}) {
      const auto p = bg::tool::policy_from_string(*name);
      if (!p)
        return bad_input("unknown policy \"" + *name +
                         "\" (random, greedy, bot, bot2, beginner, intermediate or advanced)");
      if (bg::tool::is_bot_policy(*p) && *v != variant::long_nardy)
        return bad_input("the bot policies play long nardy only: add --variant long");
      *policy = *p;
    }
    return bg::tool::run_selfplay(sp, std::cout);
  }
  if (command == "verify-dice") {
    if (args.size() != 1)
      return bad_input("verify-dice takes one FILE (or - for standard input)\n" +
                       std::string(usage));
    if (args[0] == "-") return bg::tool::run_verify_dice(std::cin, std::cout, std::cerr);
    std::ifstream file(args[0], std::ios::binary);
    if (!file) return bad_input("cannot read \"" + args[0] + "\"");
    return bg::tool::run_verify_dice(file, std::cout, std::cerr);
  }
  if (command.empty()) return bad_input("no command given\n" + std::string(usage));
  return bad_input("unknown command \"" + command + "\"\n" + usage);
}
