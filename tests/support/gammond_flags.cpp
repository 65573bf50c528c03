#include "gammond_flags.hpp"

#include <iterator>
#include <utility>

namespace bg::test {

std::vector<std::string> no_command_limit(std::vector<std::string> more) {
  std::vector<std::string> flags{"--commands-per-second", "100000", "--command-burst", "100000"};
  flags.insert(flags.end(), std::make_move_iterator(more.begin()),
               std::make_move_iterator(more.end()));
  return flags;
}

std::vector<std::string> gammond_flags(int dice_seed, std::vector<std::string> more) {
  std::vector<std::string> flags{"--dice-seed", std::to_string(dice_seed)};
  auto rest = no_command_limit(std::move(more));
  flags.insert(flags.end(), std::make_move_iterator(rest.begin()),
               std::make_move_iterator(rest.end()));
  return flags;
}

}  // namespace bg::test
