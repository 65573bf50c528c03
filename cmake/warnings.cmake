# bg::warnings: the warning set for our own code (never for third-party headers),
# with warnings as errors. Link it PRIVATE to every project target.
add_library(bg_warnings INTERFACE)
add_library(bg::warnings ALIAS bg_warnings)
target_compile_options(bg_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wsign-conversion -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Woverloaded-virtual -Wdouble-promotion -Wformat=2
    -Wimplicit-fallthrough -Werror>
  # GCC 12 reports -Wrestrict on std::string operator+ at -O2/-O3 (GCC bug 105329): a
  # false positive in libstdc++, not in our code.
  $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>)
# A unity build (CMAKE_UNITY_BUILD, the presets' default: scripts/test compiles half as
# much) includes each .cpp into a batch file, and GCC then reports a lambda capturing
# a type of a file's anonymous namespace as -Wsubobject-linkage, which it only means
# for headers.
if(CMAKE_UNITY_BUILD)
  target_compile_options(bg_warnings INTERFACE $<$<CXX_COMPILER_ID:GNU>:-Wno-subobject-linkage>)
endif()
