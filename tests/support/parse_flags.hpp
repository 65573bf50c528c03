#pragma once

#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bg/server/server_config.hpp"

namespace bg::test {

/// What gammond's command line and environment parse to (bg::server::parse_config).
struct parsed_flags {
  std::optional<int> exit;           ///< nullopt: gammond would run; else its exit code
  bg::server::server_config config;  ///< the settings (partly filled when exit is set)
  std::string out;                   ///< what --help or --version printed
  std::string err;                   ///< the sentence for a refused flag or variable
};

/// Parses `args` (the flags, without the program name) with `env` as the environment
/// (GAMMOND_* variables by name) as gammond would at start. A test needs
/// bg::server_net linked (server_config.cpp). Never throws but std::bad_alloc.
inline parsed_flags parse_flags(std::vector<std::string> args,
                                std::map<std::string, std::string> env = {}) {
  args.insert(args.begin(), "gammond");
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const auto& a : args) argv.push_back(a.c_str());
  parsed_flags result;
  std::ostringstream out;
  std::ostringstream err;
  result.exit = bg::server::parse_config(
      argv,
      [&env](std::string_view name) -> std::optional<std::string> {
        const auto it = env.find(std::string{name});
        if (it == env.end()) return std::nullopt;
        return it->second;
      },
      result.config, out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

}  // namespace bg::test
