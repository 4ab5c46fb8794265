# install() rules and the exported CMake package: find_package(tilegrad) + tilegrad::<module>.
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

get_property(_tg_targets GLOBAL PROPERTY TILEGRAD_EXPORTED_TARGETS)
install(TARGETS ${_tg_targets} EXPORT tilegradTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT tilegradTargets NAMESPACE tilegrad:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilegrad)

set(TILEGRAD_PACKAGE_USES_OPENMP OFF)
if(TILEGRAD_OPENMP AND OpenMP_CXX_FOUND)
  set(TILEGRAD_PACKAGE_USES_OPENMP ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tilegradConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tilegradConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilegrad)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tilegradConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tilegradConfig.cmake ${PROJECT_BINARY_DIR}/tilegradConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilegrad)
