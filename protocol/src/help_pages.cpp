#include "bg/protocol/help_pages.hpp"

#include <array>
#include <string>

#include "grammar_words.hpp"

namespace bg::protocol {

namespace {

/// A /help topic (a command name, lower case) and the catalogue key of its page.
struct help_topic {
  std::string_view topic;
  std::string_view key;
};

/// Every topic help_text() knows, plus the rules, in the order of the command list.
constexpr std::array help_topics{
    help_topic{"", "help.commands"},
    help_topic{"join", "help.join"},
    help_topic{"leave", "help.leave"},
    help_topic{"start", "help.start"},
    help_topic{"option", "help.option"},
    help_topic{"option match", "help.option_match"},
    help_topic{"option tutor", "help.option_tutor"},
    help_topic{"option variant", "help.option_variant"},
    help_topic{"option private", "help.option_private"},
    help_topic{"option clock", "help.option_clock"},
    help_topic{"roll", "help.roll"},
    help_topic{"move", "help.move"},
    help_topic{"double", "help.double"},
    help_topic{"take", "help.take"},
    help_topic{"drop", "help.drop"},
    help_topic{"resign", "help.resign"},
    help_topic{"accept", "help.accept"},
    help_topic{"reject", "help.reject"},
    help_topic{"continue", "help.continue"},
    help_topic{"stop", "help.stop"},
    help_topic{"board", "help.board"},
    help_topic{"who", "help.who"},
    help_topic{"help", "help.help"},
    help_topic{"tables", "help.tables"},
    help_topic{"export", "help.export"},
    help_topic{"seed", "help.seed"},
    help_topic{"claim", "help.claim"},
    help_topic{"analysis", "help.analysis"},
    help_topic{"whois", "help.whois"},
    help_topic{"ratings", "help.ratings"},
    help_topic{"history", "help.history"},
    help_topic{"password", "help.password"},
    help_topic{"sessions", "help.sessions"},
    help_topic{"signout", "help.signout"},
    help_topic{"tell", "help.tell"},
    help_topic{"lang", "help.lang"},
    help_topic{"bot", "help.bot"},
    help_topic{"play", "help.play"},
    help_topic{"seek", "help.seek"},
    help_topic{"unseek", "help.unseek"},
    help_topic{"tournaments", "help.tournaments"},
    help_topic{"tournament", "help.tournament"},
    help_topic{"tournament create", "help.tournament_create"},
    help_topic{"tournament cancel", "help.tournament_cancel"},
    help_topic{"tournament adjudicate", "help.tournament_adjudicate"},
    help_topic{"register", "help.register"},
    help_topic{"withdraw", "help.withdraw"},
    help_topic{"kick", "help.kick"},
    help_topic{"invite", "help.invite"},
    help_topic{"uninvite", "help.uninvite"},
    help_topic{"ignore", "help.ignore"},
    help_topic{"unignore", "help.unignore"},
    help_topic{"ban", "help.ban"},
    help_topic{"unban", "help.unban"},
    help_topic{"broadcast", "help.broadcast"},
    help_topic{"close", "help.close"},
    help_topic{"rules", "rules.standard"},
    help_topic{"rules standard", "rules.standard"},
    help_topic{"rules long", "rules.long"},
};

}  // namespace

std::optional<std::string_view> help_key(std::string_view topic) {
  std::string t = detail::lower(topic);
  while (!t.empty() && t.front() == '/') t.erase(t.begin());
  if (t == "refuse") t = "drop";
  for (const auto& h : help_topics)
    if (h.topic == t) return h.key;
  return std::nullopt;
}

}  // namespace bg::protocol
