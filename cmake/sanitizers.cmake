# GAMMOND_SANITIZE: a comma list passed to -fsanitize= for every target of this
# build (e.g. "address,undefined" or "thread"). CI builds the tests once per set.
set(GAMMOND_SANITIZE "" CACHE STRING "Sanitizers for this build (address,undefined | thread)")
if(GAMMOND_SANITIZE)
  add_compile_options(-fsanitize=${GAMMOND_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${GAMMOND_SANITIZE})
endif()
