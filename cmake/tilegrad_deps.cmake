# Third-party dependencies: Debian packages, or headers staged into .deps/ for a bare GPU machine
# (scripts/stage_deps). Nothing is downloaded.
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
  tilegrad_header_dep(glm glm/glm.hpp)
  tilegrad_header_dep(stb stb/stb_image.h)
  tilegrad_header_dep(json nlohmann/json.hpp)
  tilegrad_header_dep(cli11 CLI/CLI.hpp)
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
