# cmake/package.cmake - the Debian package: `cpack -G DEB` in the build
# directory makes libtiledblas_<version>_<arch>.deb from the install rules,
# with prefix /usr, so that the library lands in the loader's search path
# (LD_PRELOAD=libtiledblas.so.0 finds it by name). Included last by the
# top-level CMakeLists.txt; it adds no install rules of its own.
set(CPACK_PACKAGE_NAME libtiledblas)
set(CPACK_PACKAGE_VENDOR "the libtiledblas authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "single and double GEMM (cblas_ and Fortran names) on NVIDIA GPUs, LD_PRELOAD-able")
set(CPACK_PACKAGE_DESCRIPTION "libtiledblas is a shared library that exports the BLAS matrix product in
single and double precision: cblas_sgemm and cblas_dgemm, and the Fortran
names sgemm_, sgemm, dgemm_ and dgemm. Preloaded into a program
(LD_PRELOAD=libtiledblas.so.0) it runs large products on an NVIDIA GPU with
its own tiled CUDA kernels and forwards the others, unchanged, to the BLAS
the program loaded. Without a GPU or a driver every call goes to that BLAS.

The package also holds the tiledblas command (run, ab, info, bench,
calibrate, animate), the C header for products on device pointers, a
pkg-config file and a CMake package config (find_package(tiledblas)).")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)

# The install scripts run with CMAKE_INSTALL_PREFIX=/usr and the staging
# directory as DESTDIR, so that tiledblas.pc says prefix=/usr.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)

set(CPACK_DEBIAN_PACKAGE_NAME libtiledblas)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "libtiledblas authors")
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# ldconfig runs after install and removal: a dpkg trigger (as debhelper
# does), present whatever tools build the package; where CPack can read the
# binaries (below) it adds postinst/postrm calls of its own as well.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_LIST_DIR}/debian/triggers)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
# Installed-Size as dpkg counts it: CPack's counts each link to the library
# as a copy of it (cmake/deb_installed_size.cmake).
set(CPACK_POST_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/deb_installed_size.cmake)
# Depends from what the binaries link (dpkg-shlibdeps reads the local dpkg
# database, no network) where dpkg-dev and file are installed; libc6 else.
find_program(TB_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(TB_FILE_PROGRAM file)
if(TB_DPKG_SHLIBDEPS AND TB_FILE_PROGRAM)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6")
endif()
include(CPack)
