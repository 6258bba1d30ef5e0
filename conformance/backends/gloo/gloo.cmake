# The gloo backend (conformance/backends/gloo/): Gloo's collectives, built
# into cs_harness when CMake finds Gloo's package (Debian's libgloo-dev
# installs /usr/share/cmake/Gloo). Without it, backend_gloo.h gives the
# stub and `collspec list` shows gloo as not built, with what it needs.
# CS_GLOO=OFF leaves it out even when Gloo is installed.
option(CS_GLOO "Build the gloo backend when Gloo is found" ON)
set(CS_HAVE_GLOO OFF)
if(CS_GLOO)
  find_package(Gloo CONFIG QUIET)
endif()
include(CheckLanguage)
if(CS_GLOO AND Gloo_FOUND)
  check_language(CXX)
endif()
if(CS_GLOO AND Gloo_FOUND AND CMAKE_CXX_COMPILER)
  enable_language(CXX)
  set(CS_HAVE_GLOO ON)
  target_sources(cs_harness PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/backend_gloo.cc
    ${CMAKE_CURRENT_LIST_DIR}/backend_gloo_coll.cc
    ${CMAKE_CURRENT_LIST_DIR}/backend_gloo_state.cc)
  set_source_files_properties(
    ${CMAKE_CURRENT_LIST_DIR}/backend_gloo.cc
    ${CMAKE_CURRENT_LIST_DIR}/backend_gloo_coll.cc
    ${CMAKE_CURRENT_LIST_DIR}/backend_gloo_state.cc
    PROPERTIES COMPILE_OPTIONS "-std=gnu++17;-Wall;-Wno-unused-parameter")
  target_include_directories(cs_harness PRIVATE ${GLOO_INCLUDE_DIRS})
  target_compile_definitions(cs_harness PUBLIC CS_HAVE_GLOO=1)
  # the C programs that link cs_harness need C++'s runtime as well: named
  # here, so that they link with the C compiler in any directory
  target_link_libraries(cs_harness PUBLIC gloo stdc++)
  message(STATUS "gloo backend: built (Gloo ${GLOO_VERSION})")
  # for the other folders (tests/findings/, tests/conformance/)
  set_property(GLOBAL PROPERTY CS_HAVE_GLOO ON)
elseif(NOT CS_GLOO)
  message(STATUS "gloo backend: not built (CS_GLOO=OFF)")
elseif(Gloo_FOUND)
  message(STATUS "gloo backend: not built (Gloo found, but no C++ compiler)")
else()
  message(STATUS "gloo backend: not built (Gloo not found: install "
    "libgloo-dev, or set Gloo_DIR)")
endif()
