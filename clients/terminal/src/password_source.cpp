// Where gammon-term gets a password (password_source.hpp).

#include "bg/term/password_source.hpp"

#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

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

std::optional<std::string> password_from_file(const std::string& path, std::ostream& err) {
  std::ifstream in{path};
  std::string line;
  if (!in || !std::getline(in, line)) {
    err << "gammon-term: cannot read a password from " << path << "\n";
    return std::nullopt;
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.empty()) {
    err << "gammon-term: the first line of " << path << " is empty: it should be the password\n";
    return std::nullopt;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IRGRP | S_IROTH)) != 0)
    err << "gammon-term: warning: other users can read " << path << " (chmod 600 it)\n";
  return line;
}

std::optional<std::string> password_from_terminal(const std::string& name, bool confirm,
                                                  std::ostream& err) {
  if (::isatty(STDIN_FILENO) != 1) {
    err << "gammon-term: no terminal to ask the password on: use --password-file FILE\n";
    return std::nullopt;
  }
  err << "password for " << name << ": " << std::flush;
  auto first = read_hidden_line();
  if (!first || first->empty()) {
    err << "gammon-term: no password given\n";
    return std::nullopt;
  }
  if (!confirm) return first;
  err << "the same password again: " << std::flush;
  const auto second = read_hidden_line();
  if (!second || *second != *first) {
    err << "gammon-term: the two passwords differ\n";
    return std::nullopt;
  }
  return first;
}

}  // namespace bg::term
