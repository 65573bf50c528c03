# GAMMOND_SANITIZE: a comma list passed to -fsanitize= for every target of this
# build (e.g. "address,undefined" or "thread"). CI builds the tests once per set
# (scripts/test: stages asan and tsan; scripts/fuzz adds libFuzzer with clang).
#
# -fno-sanitize-recover=all makes every UBSan report fatal, so a report always fails
# the test (or the fuzz run) that caused it; ASan and TSan stop at their first report
# (TSan with halt_on_error=1 from scripts/test; without it a report still turns the
# exit status into 66). With address, libstdc++'s own checks are on as well
# (_GLIBCXX_ASSERTIONS: indexing past size() within a vector's capacity, front() of an
# empty string, * on an empty optional), which ASan alone does not see.
#
# With thread, Boost.Asio's fenced blocks are off (BOOST_ASIO_DISABLE_FENCED_BLOCK):
# they surround every handler with std::atomic_thread_fence, which TSan does not model
# (g++ 12 refuses it under -Werror: -Wtsan). Handlers are handed between threads
# through the scheduler's mutex-protected queues, which TSan does see, so no
# suppression file is needed.
set(GAMMOND_SANITIZE "" CACHE STRING "Sanitizers for this build (address,undefined | thread)")
if(GAMMOND_SANITIZE)
  add_compile_options(-fsanitize=${GAMMOND_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${GAMMOND_SANITIZE})
  if(GAMMOND_SANITIZE MATCHES "address")
    add_compile_definitions(_GLIBCXX_ASSERTIONS)
  endif()
  if(GAMMOND_SANITIZE MATCHES "thread")
    add_compile_definitions(BOOST_ASIO_DISABLE_FENCED_BLOCK)
  endif()
endif()
