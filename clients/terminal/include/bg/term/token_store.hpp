#pragma once
/// gammon-term's kept resume token: one file per server and player name, readable by
/// its user only, so that a restarted gammon-term resumes its seat.
///
///   $XDG_STATE_HOME/gammon-term/<host>_<port>/<name>.token   (mode 0600, dirs 0700)
///
/// XDG_STATE_HOME defaults to $HOME/.local/state. The file holds the token alone.

#include <filesystem>
#include <optional>
#include <string>

namespace bg::term {

/// The token file of player `name` on server `host`:`port`; nullopt when neither
/// XDG_STATE_HOME nor HOME is set (tokens are then not kept).
[[nodiscard]] std::optional<std::filesystem::path> token_path(const std::string& host,
                                                              const std::string& port,
                                                              const std::string& name);

/// The token kept at `path` ("" when there is none or it cannot be read).
[[nodiscard]] std::string load_token(const std::filesystem::path& path);

/// Keeps `token` at `path`: the directories are made with mode 0700, a temporary file
/// with mode 0600 is written and renamed over the old one. False on any failure.
bool save_token(const std::filesystem::path& path, const std::string& token);

/// Removes the token at `path`; true when none is left there.
bool forget_token(const std::filesystem::path& path);

}  // namespace bg::term
