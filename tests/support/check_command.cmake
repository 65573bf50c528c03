# check_command.cmake: runs a command and checks its exit code AND what it printed, for
# CTest's command-line smoke tests. (PASS_REGULAR_EXPRESSION alone ignores the exit
# code, and WILL_FAIL passes on any non-zero exit, a crash included.)
#
#   cmake -DEXIT_CODE=N [-DSTDOUT_MATCHES=REGEX] [-DSTDERR_MATCHES=REGEX]
#         [-DSTDOUT_EMPTY=ON] [-DSTDERR_EMPTY=ON] -P check_command.cmake -- COMMAND ARG...
#
# EXIT_CODE is required: the exact status the command must end with (a signal is
# never a match). The REGEXes are CMake regular expressions searched in the output
# with its last newline removed (so "^name [0-9.]+$" means exactly one line). The
# arguments hold no ";" (CMake would split them there).
# Fails (exit status 1) after printing both outputs and one sentence per mismatch.
cmake_minimum_required(VERSION 3.20)

if(NOT DEFINED EXIT_CODE)
  message(FATAL_ERROR "check_command.cmake: -DEXIT_CODE=N is required")
endif()
set(_command)
set(_after_dashes FALSE)
math(EXPR _last "${CMAKE_ARGC} - 1")
foreach(_i RANGE 1 ${_last})
  if(_after_dashes)
    list(APPEND _command "${CMAKE_ARGV${_i}}")
  elseif(CMAKE_ARGV${_i} STREQUAL "--")
    set(_after_dashes TRUE)
  endif()
endforeach()
if(NOT _command)
  message(FATAL_ERROR "check_command.cmake: no command after --")
endif()

execute_process(COMMAND ${_command} RESULT_VARIABLE _status OUTPUT_VARIABLE _out
                ERROR_VARIABLE _err)
string(REGEX REPLACE "\n$" "" _out_text "${_out}")
string(REGEX REPLACE "\n$" "" _err_text "${_err}")

set(_problems)
# RESULT_VARIABLE holds the exit code, or a sentence ("Child aborted", "Segmentation
# fault") when a signal ended the command: compared as strings, never equal to a number.
if(NOT "${_status}" STREQUAL "${EXIT_CODE}")
  list(APPEND _problems "exited with '${_status}', expected ${EXIT_CODE}")
endif()
if(DEFINED STDOUT_MATCHES AND NOT _out_text MATCHES "${STDOUT_MATCHES}")
  list(APPEND _problems "stdout does not match '${STDOUT_MATCHES}'")
endif()
if(DEFINED STDERR_MATCHES AND NOT _err_text MATCHES "${STDERR_MATCHES}")
  list(APPEND _problems "stderr does not match '${STDERR_MATCHES}'")
endif()
if(STDOUT_EMPTY AND NOT _out STREQUAL "")
  list(APPEND _problems "stdout is not empty")
endif()
if(STDERR_EMPTY AND NOT _err STREQUAL "")
  list(APPEND _problems "stderr is not empty")
endif()

list(JOIN _command " " _shown)
if(_problems)
  list(JOIN _problems "; " _why)
  # message(NOTICE) prints as is (FATAL_ERROR's text is re-wrapped), for the reader and
  # for the checker's own tests that match this sentence.
  message(NOTICE "--- stdout of ${_shown}:\n${_out}\n--- stderr:\n${_err}\n---")
  message(NOTICE "check_command: ${_shown}: ${_why}")
  message(FATAL_ERROR "check_command: the check failed")
endif()
message(STATUS "check_command: ${_shown}: exit ${_status} and output as expected")
