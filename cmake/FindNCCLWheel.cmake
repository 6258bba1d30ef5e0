# NCCL from the PyPI wheel (nvidia-nccl-cu13, nvidia-nccl-cu12) when the
# system has none: the GPU test machine has the wheel under PyTorch's
# python3 and no libnccl of its own (docs/gpu.md). Included after
# FindNCCLLocal.cmake when that found nothing; it looks for the wheel's
# nvidia/nccl/include/nccl.h and nvidia/nccl/lib/libnccl.so.2 (the wheel
# has no libnccl.so) through the Python that CS_NCCL_PYTHON names
# (default: python3 on PATH), then includes FindNCCLLocal.cmake again,
# which checks the version and makes the target cs_nccl as for any NCCL.
# Nothing here is needed where the wheel is absent (CI): it only says so.
set(CS_NCCL_PYTHON python3 CACHE STRING
  "Python whose site-packages may hold the nvidia-nccl wheel")

# The wheel's folder nvidia/nccl: the package's own path, else the first
# site-packages folder (system, user, venv) that holds one.
set(_cs_wheel_py [=[
import os, site, sys, sysconfig
dirs = []
try:
    import nvidia.nccl as m
    dirs += list(getattr(m, "__path__", []))
except Exception:
    pass
try:
    dirs += site.getsitepackages()
except Exception:
    pass
dirs += [site.getusersitepackages(), sysconfig.get_paths()["purelib"]]
dirs += [p for p in sys.path if p]
for d in dirs:
    for c in (d, os.path.join(d, "nvidia", "nccl")):
        if os.path.isfile(os.path.join(c, "include", "nccl.h")):
            print(c)
            sys.exit(0)
sys.exit(1)
]=])
execute_process(COMMAND ${CS_NCCL_PYTHON} -c "${_cs_wheel_py}"
  OUTPUT_VARIABLE _cs_wheel_dir OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE _cs_wheel_rc ERROR_QUIET TIMEOUT 30)
if(_cs_wheel_rc EQUAL 0 AND IS_DIRECTORY "${_cs_wheel_dir}")
  # the wheel's header and library together, not a header found elsewhere
  unset(NCCL_INCLUDE_DIR CACHE)
  unset(NCCL_LIBRARY CACHE)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_cs_wheel_dir}/include
    NO_DEFAULT_PATH)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2
    HINTS ${_cs_wheel_dir}/lib NO_DEFAULT_PATH)
  message(STATUS "NCCL wheel: ${_cs_wheel_dir}")
  include(${CMAKE_CURRENT_LIST_DIR}/FindNCCLLocal.cmake)
else()
  message(STATUS "NCCL wheel (nvidia-nccl-cu13) not found through "
    "${CS_NCCL_PYTHON}")
endif()
