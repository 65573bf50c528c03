#pragma once
/// @file moderation_action.hpp
/// One moderation action as the store keeps it (issue 13): who did what to whom, and
/// where. The store stamps it with the time it writes it.

#include <string>

namespace bg::server {

/// A kick, a change of a table's privacy, an invitation or its withdrawal, a ban, an
/// unban, a broadcast or a table closed by an administrator. Names are as typed by the
/// players (checked by names.hpp, so safe to log); `detail` is free text (a broadcast's
/// words), escaped before it reaches a log line.
struct moderation_action {
  /// What was done: "kick", "private" (detail "on" or "off"), "invite", "uninvite",
  /// "ban" (detail: the hours, or "until unbanned", and the addresses banned), "unban",
  /// "broadcast" (detail: the text), "close" (detail: the unfinished match's id, if any).
  std::string action;
  std::string actor;   ///< who did it: the table's owner or an administrator
  std::string target;  ///< whom it was done to: a name ("" for a broadcast or a close)
  std::string table;   ///< where: the table ("" in the lobby and for server-wide actions)
  std::string detail;  ///< more, as described for each action
};

}  // namespace bg::server
