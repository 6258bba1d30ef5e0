# expect.cmake - run one command and check its exit status and output.
#   cmake -DCMD="a|b|c" -DRC=2 -DREGEX="message" [-DNOT_FILE=path] -P expect.cmake
# Fails unless the command exits with RC and its stdout+stderr match REGEX;
# with NOT_FILE, also fails when that file exists and holds a testcase or
# result line that is not an error (a partial report must not claim success).
if(DEFINED NOT_FILE)
  file(REMOVE ${NOT_FILE})
endif()
string(REPLACE "|" ";" CMD "${CMD}")
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE err TIMEOUT 120)
set(all "${out}${err}")
if(NOT rc STREQUAL "${RC}")
  message(FATAL_ERROR "exit status ${rc}, expected ${RC}; output:\n${all}")
endif()
if(NOT all MATCHES "${REGEX}")
  message(FATAL_ERROR "output does not match '${REGEX}':\n${all}")
endif()
if(DEFINED NOT_FILE AND EXISTS ${NOT_FILE})
  file(READ ${NOT_FILE} report)
  if(report MATCHES "\"verdict\":\"PASS\"" OR report MATCHES "<testcase classname=\"collspec\\.[a-z]+\" name=\"#")
    message(FATAL_ERROR "${NOT_FILE} reports cases although the run failed:\n${report}")
  endif()
endif()
message(STATUS "ok: exit ${rc}, output matches '${REGEX}'")
