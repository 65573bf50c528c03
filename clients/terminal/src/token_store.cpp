// gammon-term's kept resume token (token_store.hpp).

#include "bg/term/token_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <system_error>

namespace bg::term {
namespace {

/// A file-name part with only [A-Za-z0-9._-]; anything else becomes '_'.
std::string safe_part(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_';
    if (!ok) c = '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

/// Makes `dir` and its missing parents; the ones made get mode 0700.
bool make_private_dirs(const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return true;
  if (dir.has_parent_path() && dir.parent_path() != dir && !make_private_dirs(dir.parent_path()))
    return false;
  return ::mkdir(dir.c_str(), 0700) == 0 || std::filesystem::is_directory(dir, ec);
}

}  // namespace

std::optional<std::filesystem::path> token_path(const std::string& host, const std::string& port,
                                                const std::string& name) {
  std::filesystem::path base;
  const char* state = std::getenv("XDG_STATE_HOME");
  const char* home = std::getenv("HOME");
  if (state != nullptr && *state == '/') {
    base = state;
  } else if (home != nullptr && *home != '\0') {
    base = std::filesystem::path{home} / ".local" / "state";
  } else {
    return std::nullopt;
  }
  return base / "gammon-term" / safe_part(host + "_" + port) / (safe_part(name) + ".token");
}

std::string load_token(const std::filesystem::path& path) {
  std::ifstream in{path};
  std::string token;
  if (!in || !std::getline(in, token)) return "";
  return token;
}

bool save_token(const std::filesystem::path& path, const std::string& token) {
  if (!make_private_dirs(path.parent_path())) return false;
  const std::filesystem::path temp = path.string() + ".tmp" + std::to_string(::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const std::string text = token + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const bool closed = ::close(fd) == 0;
  if (!written || !closed || ::rename(temp.c_str(), path.c_str()) != 0) {
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

bool forget_token(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  return !ec;
}

}  // namespace bg::term
