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
# GAMMOND_SANITIZE_EXCLUDE: checks left out (-fno-sanitize=). The asan preset leaves
# out UBSan's vptr, alignment, null, object-size and pointer-overflow: under g++ they
# double the compile time of an ASan tree (websocket_session.cpp: 186 s with them, 91 s
# without, at -O1 -g1), and ASan itself reports what null and object-size would (a
# null or out-of-bounds access), while vptr, alignment and pointer-overflow guard
# downcasts, type punning and raw pointer arithmetic, which this code keeps to a few
# audited places (a pointer run past its array is still caught by ASan where it is
# read). scripts/fuzz (clang) keeps the whole of -fsanitize=undefined on the engine and
# the protocol.
set(GAMMOND_SANITIZE "" CACHE STRING "Sanitizers for this build (address,undefined | thread)")
set(GAMMOND_SANITIZE_EXCLUDE "" CACHE STRING "Checks left out of GAMMOND_SANITIZE (-fno-sanitize=)")
if(GAMMOND_SANITIZE)
  add_compile_options(-fsanitize=${GAMMOND_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  if(GAMMOND_SANITIZE_EXCLUDE)
    add_compile_options(-fno-sanitize=${GAMMOND_SANITIZE_EXCLUDE})
  endif()
  add_link_options(-fsanitize=${GAMMOND_SANITIZE})
  if(GAMMOND_SANITIZE MATCHES "address")
    add_compile_definitions(_GLIBCXX_ASSERTIONS)
  endif()
  if(GAMMOND_SANITIZE MATCHES "thread")
    add_compile_definitions(BOOST_ASIO_DISABLE_FENCED_BLOCK)
  endif()
endif()
