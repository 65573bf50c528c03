// The FIBS port's settings (issue 32, protocol/FIBS.md "The listener"): each has a flag
// and a GAMMOND_ variable, with bounds; the message of the day is read at start.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "parse_flags.hpp"

using namespace std::chrono_literals;

TEST_CASE(
    "the FIBS settings have flags and GAMMOND_ variables, with bounds, and the port is off "
    "by default",
    "[fibs][config]") {
  const auto d = bg::test::parse_flags({});
  REQUIRE_FALSE(d.exit);
  CHECK(d.config.fibs_port == -1);
  const auto r = bg::test::parse_flags(
      {"--fibs-port", "4321", "--fibs-login-timeout", "7", "--fibs-idle-timeout", "8",
       "--fibs-max-line-bytes", "300", "--fibs-who-interval", "2", "--fibs-invitations", "3",
       "--fibs-queue", "40"},
      {{"GAMMOND_FIBS_QUEUE", "99"}, {"GAMMOND_FIBS_PORT_FILE", "/tmp/fp"}});
  REQUIRE_FALSE(r.exit);
  CHECK(r.config.fibs_port == 4321);
  CHECK(r.config.fibs_login_timeout == 7s);
  CHECK(r.config.fibs_idle_timeout == 8s);
  CHECK(r.config.fibs_max_line_bytes == 300);
  CHECK(r.config.fibs_who_interval == 2s);
  CHECK(r.config.fibs_invitations == 3);
  CHECK(r.config.fibs_queue == 40);  // the flag wins over the variable
  CHECK(r.config.fibs_port_file == "/tmp/fp");
  CHECK(bg::test::parse_flags({"--fibs-port", "off"}).config.fibs_port == -1);
  CHECK(bg::test::parse_flags({"--fibs-port", "0"}).config.fibs_port == 0);
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--fibs-port", "65536"},
                                                               {"--fibs-port", "-2"},
                                                               {"--fibs-port", "on"},
                                                               {"--fibs-login-timeout", "0"},
                                                               {"--fibs-max-line-bytes", "10"},
                                                               {"--fibs-who-interval", "0"},
                                                               {"--fibs-invitations", "0"},
                                                               {"--fibs-queue", "1"}}) {
    INFO(bad[0] << " " << bad[1]);
    const auto x = bg::test::parse_flags(bad);
    CHECK(x.exit == 2);
    CHECK_THAT(x.err, Catch::Contains(bad[0]));
  }
}

TEST_CASE(
    "the message of the day is read from --motd-file, bounded to 40 lines and 4 KiB, "
    "control characters taken out, and a file that cannot be read stops gammond",
    "[fibs][config]") {
  const auto path = std::filesystem::temp_directory_path() / "gammond-test-motd.txt";
  {
    std::ofstream out{path, std::ios::binary};
    out << "Welcome\x1b[31m to the club\r\n";
    for (int i = 0; i < 60; ++i) out << "line " << i << "\n";
  }
  const auto r = bg::test::parse_flags({"--motd-file", path.string()});
  REQUIRE_FALSE(r.exit);
  CHECK(r.config.motd.rfind("Welcome[31m to the club\nline 0\n", 0) == 0);
  CHECK(r.config.motd.find('\x1b') == std::string::npos);
  CHECK(r.config.motd.find("line 38") != std::string::npos);
  CHECK(r.config.motd.find("line 39") == std::string::npos);  // 40 lines at most
  std::filesystem::remove(path);
  const auto missing = bg::test::parse_flags({"--motd-file", path.string()});
  CHECK(missing.exit == 2);
  CHECK_THAT(missing.err, Catch::Contains("--motd-file"));
}
