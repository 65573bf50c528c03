// gammond-test-postgres: starts one throwaway PostgreSQL server (postgres_server.hpp)
// for a whole test stage, prints a superuser URL of its maintenance database on one
// line (for GAMMOND_TEST_POSTGRES), and keeps it until its standard input closes or it
// gets SIGTERM or SIGINT; then it stops the server and removes its directory.
//
//   coproc PG { build/tests/gammond-test-postgres; }
//   read -r GAMMOND_TEST_POSTGRES <&"${PG[0]}"; export GAMMOND_TEST_POSTGRES
//   ... tests ...
//   kill "$PG_PID"; wait "$PG_PID"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <thread>

#include "postgres_server.hpp"

int main() {
  // SIGTERM and SIGINT are waited for below, in every thread blocked.
  sigset_t stop;
  ::sigemptyset(&stop);
  ::sigaddset(&stop, SIGTERM);
  ::sigaddset(&stop, SIGINT);
  ::pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  try {
    bg::test::postgres_server server;
    std::cout << server.admin_url() << std::endl;
    // The end of standard input (the stage's script ended) stops the server too.
    std::thread([] {
      char c = 0;
      while (::read(0, &c, 1) > 0) {
      }
      ::kill(::getpid(), SIGTERM);
    }).detach();
    int signal = 0;
    ::sigwait(&stop, &signal);
  } catch (const std::exception& e) {
    std::cerr << "gammond-test-postgres: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
