# Locate NCCL (header and library) for the nccl backends.
# Sets CS_HAVE_NCCL and the imported target cs_nccl when NCCL 2.13+ is found.
# Hints: NCCL_ROOT (CMake or environment variable), the CUDA toolkit.
# With NCCL 2.28+ whose library links ncclAlltoAll, ncclGather and
# ncclScatter, cs_nccl carries CS_NCCL_NATIVE_COLLS=1: the backends then
# call those (checked again at load, conformance/backend_nccl_p2p.c).
find_path(NCCL_INCLUDE_DIR nccl.h
  HINTS ${NCCL_ROOT} ENV NCCL_ROOT ${CUDAToolkit_INCLUDE_DIRS}
        /usr/local/cuda/include /usr/local/include
  PATH_SUFFIXES include)
find_library(NCCL_LIBRARY nccl
  HINTS ${NCCL_ROOT} ENV NCCL_ROOT ${CUDAToolkit_LIBRARY_DIR}
        /usr/local/cuda/lib64 /usr/local/lib
  PATH_SUFFIXES lib lib64)
set(CS_NCCL_VERSION "")
if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
  file(STRINGS ${NCCL_INCLUDE_DIR}/nccl.h _cs_nccl_line
    REGEX "^#define NCCL_VERSION_CODE +[0-9]+")
  string(REGEX MATCH "[0-9]+$" CS_NCCL_VERSION "${_cs_nccl_line}")
endif()
if(CS_NCCL_VERSION AND CS_NCCL_VERSION GREATER_EQUAL 21300)
  # Imported, so that nccl.h is a system header (it has declarations
  # without prototypes, which -Wstrict-prototypes would reject).
  add_library(cs_nccl UNKNOWN IMPORTED)
  set_target_properties(cs_nccl PROPERTIES
    IMPORTED_LOCATION ${NCCL_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR}
    INTERFACE_LINK_LIBRARIES "CUDA::cudart;${CMAKE_DL_LIBS}")
  set(CS_HAVE_NCCL ON)
  message(STATUS "NCCL ${CS_NCCL_VERSION}: ${NCCL_LIBRARY}")
  if(CS_NCCL_VERSION GREATER_EQUAL 22800)
    include(CheckSymbolExists)
    set(CMAKE_REQUIRED_INCLUDES ${NCCL_INCLUDE_DIR}
      ${CUDAToolkit_INCLUDE_DIRS})
    set(CMAKE_REQUIRED_LIBRARIES ${NCCL_LIBRARY})
    check_symbol_exists(ncclAlltoAll nccl.h CS_NCCL_HAS_ALLTOALL)
    check_symbol_exists(ncclGather nccl.h CS_NCCL_HAS_GATHER)
    check_symbol_exists(ncclScatter nccl.h CS_NCCL_HAS_SCATTER)
    unset(CMAKE_REQUIRED_INCLUDES)
    unset(CMAKE_REQUIRED_LIBRARIES)
    if(CS_NCCL_HAS_ALLTOALL AND CS_NCCL_HAS_GATHER AND CS_NCCL_HAS_SCATTER)
      set_property(TARGET cs_nccl APPEND PROPERTY
        INTERFACE_COMPILE_DEFINITIONS CS_NCCL_NATIVE_COLLS=1)
      message(STATUS "NCCL has ncclAlltoAll, ncclGather, ncclScatter")
    endif()
  endif()
else()
  message(STATUS "NCCL 2.13+ not found: the nccl backends are not built")
endif()
