// Where gammon-term gets a password (password_source.hpp).

#include "bg/term/password_source.hpp"

#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "bg/term/board_view.hpp"

namespace bg::term {

namespace {

/// Reads one line from stdin with the terminal's echo off; restores the terminal.
std::optional<std::string> read_hidden_line() {
  termios before{};
  if (::tcgetattr(STDIN_FILENO, &before) != 0) return std::nullopt;
  termios quiet = before;
  quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
  quiet.c_lflag |= static_cast<tcflag_t>(ECHONL);
  if (::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) != 0) return std::nullopt;
  std::string line;
  const bool got = static_cast<bool>(std::getline(std::cin, line));
  ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &before);
  if (!got) return std::nullopt;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace

std::optional<std::string> password_from_file(const std::string& path, std::ostream& err,
                                              std::string_view lang) {
  std::ifstream in{path};
  std::string line;
  if (!in || !std::getline(in, line)) {
    err << "gammon-term: " << tr(lang, "term.password.unreadable", {{"file", path}}) << "\n";
    return std::nullopt;
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.empty()) {
    err << "gammon-term: " << tr(lang, "term.password.empty_file", {{"file", path}}) << "\n";
    return std::nullopt;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IRGRP | S_IROTH)) != 0)
    err << "gammon-term: " << tr(lang, "term.password.readable", {{"file", path}}) << "\n";
  return line;
}

std::optional<std::string> password_from_terminal(const std::string& name, bool confirm,
                                                  std::ostream& err, std::string_view lang) {
  if (::isatty(STDIN_FILENO) != 1) {
    err << "gammon-term: " << tr(lang, "term.password.no_terminal") << "\n";
    return std::nullopt;
  }
  err << tr(lang, "term.password.prompt", {{"name", name}}) << " " << std::flush;
  auto first = read_hidden_line();
  if (!first || first->empty()) {
    err << "gammon-term: " << tr(lang, "term.password.none") << "\n";
    return std::nullopt;
  }
  if (!confirm) return first;
  err << tr(lang, "term.password.again") << " " << std::flush;
  const auto second = read_hidden_line();
  if (!second || *second != *first) {
    err << "gammon-term: " << tr(lang, "term.password.differ") << "\n";
    return std::nullopt;
  }
  return first;
}

}  // namespace bg::term
