# install_test.cmake - CollSpec as a plugin author gets it: install the
# build into a fresh prefix, build examples/ring_plugin as a separate CMake
# project against it (find_package(CollSpec), CollSpec::headers), and run
# that project's own test, which validates the plugin with the installed
# collspec (CollSpec::collspec) on the quick suite.
#
#   cmake -DBUILD_DIR=b -DSOURCE_DIR=s -DWORK=w -DCC=cc
#         [-DMPICC=mpicc -DMPIEXEC=mpiexec] -P install_test.cmake
# MPICC and MPIEXEC, the build's MPI, go to the example's configure: its
# plugin must link the MPI library collspec was built with (Debian can
# hold Open MPI and MPICH side by side).
cmake_minimum_required(VERSION 3.24)
foreach(v BUILD_DIR SOURCE_DIR WORK CC)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_test.cmake: -D${v}=... is required")
  endif()
endforeach()
set(prefix ${WORK}/prefix)
set(ring ${WORK}/ring)
file(REMOVE_RECURSE ${WORK})

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}${err}")
  endif()
  message(STATUS "ok: ${what}")
  set(step_out "${out}" PARENT_SCOPE)
endfunction()

step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f bin/collspec include/collspec/backend.h include/collspec/cs_catalog.h)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the install lacks ${f}")
  endif()
endforeach()
file(GLOB cfg ${prefix}/lib*/cmake/CollSpec/CollSpecConfig.cmake)
file(GLOB ver ${prefix}/lib*/cmake/CollSpec/CollSpecConfigVersion.cmake)
if(NOT cfg OR NOT ver)
  message(FATAL_ERROR "the install lacks lib/cmake/CollSpec/CollSpecConfig"
    "{,Version}.cmake")
endif()

# The installed header compiles on its own (no project include path).
file(WRITE ${WORK}/alone.c "#include \"collspec/backend.h\"\n"
  "_Static_assert(CS_BACKEND_ABI_VERSION >= 1, \"abi\");\n"
  "int cs_alone(void) { return (int)sizeof(cs_backend_t) + CS_NUM_COLLS; }\n")
step("the installed header alone" ${CC} -std=c11 -Wall -Werror
  -I${prefix}/include -c ${WORK}/alone.c -o ${WORK}/alone.o)

set(mpi_args "")
if(MPICC)
  list(APPEND mpi_args -DMPI_C_COMPILER=${MPICC})
endif()
if(MPIEXEC)
  list(APPEND mpi_args -DMPIEXEC_EXECUTABLE=${MPIEXEC})
endif()
step("configure the example" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/ring_plugin
  -B ${ring} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${CC} ${mpi_args})
if(NOT step_out MATCHES "CollSpec [0-9.]+ \\(plugin ABI [0-9]+\\): ${prefix}/bin/collspec")
  message(FATAL_ERROR "the example did not find the installed collspec:\n"
    "${step_out}")
endif()
step("build the example" ${CMAKE_COMMAND} --build ${ring})
step("validate the example with the installed collspec"
  ${CMAKE_CTEST_COMMAND} --test-dir ${ring} --output-on-failure)
message(STATUS "${step_out}")
