# catalog_extend.cmake - a dtype and an op added to the catalog make the
# build FAIL, at every switch that must decide what they mean, instead of
# compiling into code that silently computes something (issue 9, part 3).
#
#   cmake -DSOURCE_DIR=<tree> -DWORK=<scratch dir> [-DCC=<C compiler>]
#         -P catalog_extend.cmake
#
# 1. copies spec/cs_catalog.h to WORK/catalog and appends one line to
#    CS_DTYPE_LIST (int16, a 2-byte signed integer) and one to CS_OP_LIST
#    (band, a bitwise and), at the ends of the lists as the ABI asks;
# 2. configures the project in WORK/build against that copy
#    (-DCS_CATALOG_DIR, -DCS_WERROR=ON, no CUDA, Unix Makefiles);
# 3. builds what computes with the catalog's entries on the CPU: the
#    reference (csref: the element arithmetic, the generators, the golden
#    values), the CPU executor of the GPU schedules (gpu/sim/exec.c), the
#    mpi backend (its type and op maps) and the example plugin, with
#    make -k so that every failing place is reported;
# 4. passes when the configure succeeded, the build failed, every error is
#    a -Wswitch-enum error about the new entries (nothing else broke), and
#    the new op is named in each file that gives ops their arithmetic
#    (arith.h, gen.c, golden.c, stats.c, backend_mpi.c, ring_plugin.c); it
#    prints the places, per new entry. The new integer dtype needs no
#    switch: its size, signedness and MPI type are its columns (arith.h
#    checks at compile time that a row is one the arithmetic can compute).
cmake_minimum_required(VERSION 3.24)
foreach(v SOURCE_DIR WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "catalog_extend.cmake: -D${v}=... is required")
  endif()
endforeach()

# 1. the scratch catalog
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/catalog)
file(READ ${SOURCE_DIR}/spec/cs_catalog.h cat)
# a list is its #define line and the lines that end in a backslash, then
# its last line: append after that one
set(cont "([^\n]*\\\\\n)*[^\n]*")
string(REGEX REPLACE "(#define CS_DTYPE_LIST\\(X\\)${cont})"
  "\\1 \\\\\n  X(INT16, int16, 2, CS_KIND_SINT, 0, 0, 0, 0, 0, ncclInt16, MPI_INT16_T)"
  cat2 "${cat}")
string(REGEX REPLACE "(#define CS_OP_LIST\\(X\\)${cont})"
  "\\1 \\\\\n  X(BAND, band, \"elementwise bitwise and\")"
  cat3 "${cat2}")
if(cat2 STREQUAL cat OR cat3 STREQUAL cat2)
  message(FATAL_ERROR "could not find CS_DTYPE_LIST or CS_OP_LIST in "
    "${SOURCE_DIR}/spec/cs_catalog.h")
endif()
file(WRITE ${WORK}/catalog/cs_catalog.h "${cat3}")

# 2. configure against it (C locale: plain quotes in the compiler's text)
set(ENV{LC_ALL} C)
set(cc_arg "")
if(CC)
  set(cc_arg -DCMAKE_C_COMPILER=${CC})
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK}/build
          -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Debug -DCS_CUDA=OFF
          -DCS_WERROR=ON -DCS_CATALOG_DIR=${WORK}/catalog ${cc_arg}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the scratch build failed (rc ${rc}):\n"
    "${out}")
endif()

# 3. build, keeping going past errors: csref whole; the other places as
# their object files (make's per-object rules), which do not wait for the
# libraries they link (a failed csref would stop the targets)
set(log "")
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build
                        --target csref -- -k -j2
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(APPEND log "${out}")
if(NOT rc EQUAL 0)
  list(APPEND failed csref)
endif()
foreach(dir_obj "gpu/sim:exec.o" "conformance:backends/mpi/backend_mpi.o"
                "conformance:backends/mpi/backend_mpi_types.o"
                "tests/plugins:__/__/examples/ring_plugin/ring_plugin.o")
  string(REPLACE ":" ";" pair "${dir_obj}")
  list(GET pair 0 dir)
  list(GET pair 1 obj)
  execute_process(COMMAND make -k -C ${WORK}/build/${dir} ${obj}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(APPEND log "${out}")
  if(NOT rc EQUAL 0)
    list(APPEND failed ${dir}/${obj})
  endif()
endforeach()
file(WRITE ${WORK}/build.log "${log}")

# 4. judge
if(NOT failed)
  message(FATAL_ERROR "the build against a catalog with int16 and band "
    "SUCCEEDED: some place handles a new entry without being told what "
    "it means (log: ${WORK}/build.log)")
endif()
string(REGEX MATCHALL "[^\n]*error:[^\n]*" errors "${log}")
set(places_dtype "")
set(places_op "")
set(other "")
foreach(e IN LISTS errors)
  string(REGEX REPLACE "^${SOURCE_DIR}/" "" e "${e}")
  string(REGEX MATCH "^[^:]+:[0-9]+" where "${e}")
  if(e MATCHES "'CS_DTYPE_INT16' not handled in switch")
    list(APPEND places_dtype ${where})
  elseif(e MATCHES "'CS_OP_BAND' not handled in switch")
    list(APPEND places_op ${where})
  else()
    list(APPEND other "${e}")
  endif()
endforeach()
list(REMOVE_DUPLICATES places_dtype)
list(REMOVE_DUPLICATES places_op)
list(LENGTH places_dtype nd)
list(LENGTH places_op no)
string(REPLACE ";" "\n  " pd "${places_dtype}")
string(REPLACE ";" "\n  " po "${places_op}")
message(STATUS "failed: ${failed}")
message(STATUS "switches that must handle dtype int16 (${nd}):\n  ${pd}")
message(STATUS "switches that must handle op band (${no}):\n  ${po}")
if(other)
  string(REPLACE ";" "\n" o "${other}")
  message(FATAL_ERROR "errors other than -Wswitch-enum on the new entries "
    "(the scratch catalog or the build is broken, not just incomplete):\n"
    "${o}\n(log: ${WORK}/build.log)")
endif()
# Every file that gives an op its arithmetic must be among the places:
# one missing means a switch there takes a new op without naming it.
foreach(f ref/include/csref/arith.h ref/gen.c ref/golden.c ref/stats.c
          conformance/backends/mpi/backend_mpi_types.c examples/ring_plugin/ring_plugin.c)
  if(NOT places_op MATCHES "(^|;)${f}:")
    message(FATAL_ERROR "no switch of ${f} named the new op band: its "
      "arithmetic there would silently be some other op's "
      "(log: ${WORK}/build.log)")
  endif()
endforeach()
