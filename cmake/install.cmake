# cmake/install.cmake - what `cmake --install` (and cpack) puts in place, under
# GNUInstallDirs: the library with its SONAME links, the header, a pkg-config
# file, a CMake package config (find_package(tiledblas) gives the imported
# target tiledblas::tiledblas) and the license. The command installs itself
# (tool/CMakeLists.txt). Included by the top-level CMakeLists.txt.
include(CMakePackageConfigHelpers)

set_target_properties(tiledblas_lib PROPERTIES EXPORT_NAME tiledblas)
install(TARGETS tiledblas_lib EXPORT tiledblasTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/tiledblas.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# CMake package config: relocatable (the targets file finds its prefix from
# where it lies), version-checked (0.x.y asks for SOVERSION 0).
set(TB_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tiledblas)
install(EXPORT tiledblasTargets NAMESPACE tiledblas:: DESTINATION ${TB_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tiledblasConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tiledblasConfig.cmake INSTALL_DESTINATION ${TB_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tiledblasConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tiledblasConfig.cmake
  ${PROJECT_BINARY_DIR}/tiledblasConfigVersion.cmake DESTINATION ${TB_CMAKE_DIR})

# pkg-config: written at install time, so that its prefix is the one being
# installed to (`cmake --install --prefix P`, or /usr inside the .deb).
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(TB_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(TB_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(TB_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(TB_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# Everything but the prefix is filled in now; the prefix stays a placeholder.
set(TB_PC_PREFIX "@TB_PC_PREFIX@")
configure_file(${CMAKE_CURRENT_LIST_DIR}/tiledblas.pc.in ${PROJECT_BINARY_DIR}/tiledblas.pc.in @ONLY)
install(CODE "
  set(TB_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_BINARY_DIR}/tiledblas.pc.in\" \"${PROJECT_BINARY_DIR}/tiledblas.pc\" @ONLY)
  file(INSTALL \"${PROJECT_BINARY_DIR}/tiledblas.pc\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")")
