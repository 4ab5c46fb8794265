# Helpers: one library target per module (CPU sources always, CUDA sources when the backend is on),
# and GoogleTest executables labelled cpu or gpu.
include_guard(GLOBAL)

# tilegrad_add_module(<name> [SOURCES ... CUDA_SOURCES ...] DEPENDS ... PRIVATE_DEPENDS ...)
# Creates target tilegrad_<name>, alias tilegrad::<name>, exported as tilegrad::<name>. Without SOURCES, the
# module's standard layout: src/*.cpp and src/cpu/*.cpp, and src/cuda/*.cu in CUDA builds.
function(tilegrad_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;CUDA_SOURCES;DEPENDS;PRIVATE_DEPENDS" ${ARGN})
  set(target tilegrad_${name})
  if(NOT ARG_SOURCES)
    file(GLOB ARG_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp
         ${CMAKE_CURRENT_SOURCE_DIR}/src/cpu/*.cpp)
    file(GLOB ARG_CUDA_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/*.cu)
  endif()
  set(sources ${ARG_SOURCES})
  if(TILEGRAD_WITH_CUDA)
    list(APPEND sources ${ARG_CUDA_SOURCES})
  endif()
  add_library(${target} STATIC ${sources})
  add_library(tilegrad::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME tilegrad_${name})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(${target} PUBLIC ${ARG_DEPENDS} PRIVATE ${ARG_PRIVATE_DEPENDS})
  tilegrad_target_flags(${target})
  if(TILEGRAD_WITH_CUDA)
    set_target_properties(${target} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  endif()
  set_property(GLOBAL APPEND PROPERTY TILEGRAD_EXPORTED_TARGETS ${target})
  install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

function(tilegrad_target_flags target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${TILEGRAD_CXX_WARNINGS} ${TILEGRAD_CXX_MATH_FLAGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:${TILEGRAD_CUDA_WARNINGS} ${TILEGRAD_CUDA_MATH_FLAGS} --expt-relaxed-constexpr>)
  if(TILEGRAD_OPENMP AND OpenMP_CXX_FOUND)
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_CXX)
  endif()
endfunction()

# tilegrad_add_test(<name> LABEL cpu|gpu SOURCES ... CUDA_SOURCES ... DEPENDS ...)
# GPU tests are built whenever the CUDA backend is; they skip (not fail) when no device is present. A source in
# both binaries of a folder runs its backend suites on the binary's device (tests/support/backend_test.h).
function(tilegrad_add_test name)
  cmake_parse_arguments(ARG "" "LABEL" "SOURCES;CUDA_SOURCES;DEPENDS" ${ARGN})
  if(ARG_LABEL STREQUAL "gpu" AND NOT TILEGRAD_WITH_CUDA)
    return()
  endif()
  set(sources ${ARG_SOURCES})
  if(TILEGRAD_WITH_CUDA)
    list(APPEND sources ${ARG_CUDA_SOURCES})
  endif()
  add_executable(${name} ${sources})
  target_link_libraries(${name} PRIVATE ${ARG_DEPENDS} tilegrad_test_support GTest::gtest_main)
  # The device of the suites written once for every backend (tests/support/backend_test.h).
  if(ARG_LABEL STREQUAL "gpu")
    target_compile_definitions(${name} PRIVATE TILEGRAD_TEST_DEVICE=Cuda)
  else()
    target_compile_definitions(${name} PRIVATE TILEGRAD_TEST_DEVICE=Cpu)
  endif()
  tilegrad_target_flags(${name})
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    PROPERTIES LABELS ${ARG_LABEL} SKIP_REGULAR_EXPRESSION "  SKIPPED "
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
endfunction()
