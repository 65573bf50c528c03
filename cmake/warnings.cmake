# bg::warnings: the warning set for our own code (never for third-party headers),
# with warnings as errors. Link it PRIVATE to every project target.
add_library(bg_warnings INTERFACE)
add_library(bg::warnings ALIAS bg_warnings)
target_compile_options(bg_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wsign-conversion -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Woverloaded-virtual -Wdouble-promotion -Wformat=2
    -Wimplicit-fallthrough -Werror>)
