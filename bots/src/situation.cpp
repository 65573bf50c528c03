#include "bg/bots/situation.hpp"

namespace bg::bots {

std::string_view to_string(question q) noexcept {
  switch (q) {
    case question::play:
      return "play";
    case question::double_or_roll:
      return "double_or_roll";
    case question::take_or_drop:
      return "take_or_drop";
    case question::accept_or_reject:
      return "accept_or_reject";
  }
  return "play";
}

}  // namespace bg::bots
