# Build options: CUDA on/off/auto, language standards, warnings.
include_guard(GLOBAL)
include(GNUInstallDirs)

set(TILEGRAD_CUDA "AUTO" CACHE STRING "Build the CUDA backend: AUTO (when a CUDA compiler is found), ON, OFF")
set_property(CACHE TILEGRAD_CUDA PROPERTY STRINGS AUTO ON OFF)
option(TILEGRAD_BUILD_TESTS "Build the GoogleTest suites" ON)
option(TILEGRAD_BUILD_APPS "Build the tilegrad command-line tool" ON)
option(TILEGRAD_BUILD_PYTHON "Build the Python extension (python/; `pip install .` turns it on)" OFF)
option(TILEGRAD_OPENMP "Use OpenMP in the CPU backend" ON)
option(TILEGRAD_PORTABLE_MATH "The same float exp, log and rsqrt on the host and the device, no fused multiply-adds \
but explicit ones: CPU and CUDA results with the same bits (docs/ARCHITECTURE.md)" OFF)

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)

string(TOUPPER "${TILEGRAD_CUDA}" _tg_cuda)
set(TILEGRAD_WITH_CUDA OFF)
if(_tg_cuda STREQUAL "ON")
  enable_language(CUDA)  # fails loudly when no CUDA compiler exists
  set(TILEGRAD_WITH_CUDA ON)
elseif(_tg_cuda STREQUAL "AUTO")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    set(TILEGRAD_WITH_CUDA ON)
  else()
    message(STATUS "tilegrad: no CUDA compiler found, building the CPU backend only")
  endif()
elseif(NOT _tg_cuda STREQUAL "OFF")
  message(FATAL_ERROR "TILEGRAD_CUDA must be AUTO, ON or OFF (got '${TILEGRAD_CUDA}')")
endif()

if(TILEGRAD_WITH_CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CMAKE_CUDA_EXTENSIONS OFF)
  find_package(CUDAToolkit REQUIRED)
  message(STATUS "tilegrad: CUDA backend ON (architectures: ${CMAKE_CUDA_ARCHITECTURES})")
endif()

if(TILEGRAD_OPENMP)
  find_package(OpenMP COMPONENTS CXX)
endif()

# Warnings for our own targets only (third-party headers are included as SYSTEM).
set(TILEGRAD_CXX_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wno-unknown-pragmas)
set(TILEGRAD_CUDA_WARNINGS -Xcompiler=-Wall,-Wextra,-Wno-unknown-pragmas)
# Portable math: no contraction of a * b + c into a fused multiply-add, on either side.
set(TILEGRAD_CXX_MATH_FLAGS)
set(TILEGRAD_CUDA_MATH_FLAGS)
if(TILEGRAD_PORTABLE_MATH)
  set(TILEGRAD_CXX_MATH_FLAGS -ffp-contract=off)
  set(TILEGRAD_CUDA_MATH_FLAGS --fmad=false -Xcompiler=-ffp-contract=off)
endif()
