# Third-party dependencies: Debian packages, or headers and static libraries staged into .deps/ for a bare GPU
# machine (scripts/stage_deps). Nothing is downloaded.
include_guard(GLOBAL)

set(TILEGRAD_DEPS_DIR "${PROJECT_SOURCE_DIR}/.deps" CACHE PATH "Folder with staged header-only dependencies")

# Header-only libraries become INTERFACE targets named tilegrad_dep_<name> (internal, not exported).
function(tilegrad_header_dep name header)
  find_path(TILEGRAD_${name}_INCLUDE_DIR "${header}"
            HINTS "${TILEGRAD_DEPS_DIR}/include" PATHS /usr/include /usr/local/include)
  if(NOT TILEGRAD_${name}_INCLUDE_DIR)
    message(FATAL_ERROR "tilegrad: '${header}' not found. Run scripts/setup (Debian packages) "
                        "or stage headers with scripts/stage_deps into ${TILEGRAD_DEPS_DIR}.")
  endif()
  add_library(tilegrad_dep_${name} INTERFACE IMPORTED GLOBAL)
  set_target_properties(tilegrad_dep_${name} PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${TILEGRAD_${name}_INCLUDE_DIR}"
    INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${TILEGRAD_${name}_INCLUDE_DIR}")
endfunction()

if(TILEGRAD_BUILD_APPS)
  tilegrad_header_dep(stb stb/stb_image.h)
  tilegrad_header_dep(json nlohmann/json.hpp)
  tilegrad_header_dep(cli11 CLI/CLI.hpp)
  # Image decoding (docs/ARCHITECTURE.md): libjpeg-turbo and libpng. A staged copy in .deps/ comes first.
  list(PREPEND CMAKE_PREFIX_PATH "${TILEGRAD_DEPS_DIR}")
  find_package(JPEG)
  find_package(PNG)
  if(NOT JPEG_FOUND OR NOT PNG_FOUND)
    message(FATAL_ERROR "tilegrad: libjpeg or libpng not found. Run scripts/setup (Debian packages) "
                        "or stage them with scripts/stage_deps into ${TILEGRAD_DEPS_DIR}.")
  endif()
endif()

if(TILEGRAD_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    # The GPU machine ships GoogleTest as source only; build it from there (no download).
    find_path(TILEGRAD_GTEST_SOURCE_DIR CMakeLists.txt PATHS /usr/src/googletest NO_DEFAULT_PATH)
    if(NOT TILEGRAD_GTEST_SOURCE_DIR)
      message(FATAL_ERROR "tilegrad: GoogleTest not found (install libgtest-dev, or set TILEGRAD_BUILD_TESTS=OFF)")
    endif()
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
    add_subdirectory("${TILEGRAD_GTEST_SOURCE_DIR}" "${PROJECT_BINARY_DIR}/_gtest" EXCLUDE_FROM_ALL)
    add_library(GTest::gtest ALIAS gtest)
    add_library(GTest::gtest_main ALIAS gtest_main)
  endif()
  include(GoogleTest)
endif()

# CHOLMOD (SuiteSparse, Debian's libsuitesparse-dev): the sparse Cholesky factorisation behind Newton's direct
# solver (ad/sparse_cholesky.h). AUTO uses it when found; without it that solver is unavailable and Newton
# falls back to PCG. A bare GPU machine can take the headers and shared libraries staged into .deps/ by
# scripts/stage_deps.
set(TILEGRAD_CHOLMOD AUTO CACHE STRING "Build Newton's direct solver with CHOLMOD: AUTO, ON or OFF")
set_property(CACHE TILEGRAD_CHOLMOD PROPERTY STRINGS AUTO ON OFF)
set(TILEGRAD_WITH_CHOLMOD OFF)
if(NOT TILEGRAD_CHOLMOD STREQUAL "OFF")
  find_path(TILEGRAD_CHOLMOD_INCLUDE_DIR cholmod.h
            HINTS "${TILEGRAD_DEPS_DIR}/include/suitesparse" PATHS /usr/include/suitesparse /usr/local/include/suitesparse)
  find_library(TILEGRAD_CHOLMOD_LIBRARY NAMES cholmod HINTS "${TILEGRAD_DEPS_DIR}/lib")
  if(TILEGRAD_CHOLMOD_INCLUDE_DIR AND TILEGRAD_CHOLMOD_LIBRARY)
    set(TILEGRAD_WITH_CHOLMOD ON)
    message(STATUS "tilegrad: CHOLMOD ${TILEGRAD_CHOLMOD_LIBRARY}")
  elseif(TILEGRAD_CHOLMOD STREQUAL "ON")
    message(FATAL_ERROR "tilegrad: CHOLMOD not found (install libsuitesparse-dev: scripts/setup, or stage it with "
                        "scripts/stage_deps into ${TILEGRAD_DEPS_DIR})")
  else()
    message(STATUS "tilegrad: CHOLMOD not found: Newton's direct solver is unavailable (scripts/setup installs it)")
  endif()
endif()
