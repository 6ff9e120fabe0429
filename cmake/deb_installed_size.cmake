# cmake/deb_installed_size.cmake - run by cpack once it has built the .deb
# (CPACK_POST_BUILD_SCRIPTS, cmake/package.cmake). CPack's DEB generator
# sums the sizes of the package's files as stat() gives them, through
# symbolic links: libtiledblas.so and libtiledblas.so.0 each count as a whole
# copy of the library, and Installed-Size came out about three times the
# files' size. This sets it as dpkg-gencontrol counts (each file's size
# rounded up to KiB, 1 KiB for a link or a directory) and builds the package
# again from its own contents with dpkg-deb. Without dpkg-deb the package is
# left as cpack made it, with a warning.
find_program(TB_DPKG_DEB dpkg-deb)
foreach(deb IN LISTS CPACK_PACKAGE_FILES)
  if(NOT deb MATCHES "\\.deb$")
    continue()
  endif()
  if(NOT TB_DPKG_DEB)
    message(WARNING "dpkg-deb not found: ${deb} keeps CPack's Installed-Size, which counts "
                    "each link to the library as a copy of it")
    return()
  endif()
  set(tree "${deb}.tree")
  file(REMOVE_RECURSE "${tree}")
  execute_process(COMMAND ${TB_DPKG_DEB} -R "${deb}" "${tree}" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "dpkg-deb -R ${deb}: ${err}")
  endif()
  file(GLOB_RECURSE entries LIST_DIRECTORIES true RELATIVE "${tree}" "${tree}/*")
  set(kib 0)
  foreach(e IN LISTS entries)
    if(e MATCHES "^DEBIAN(/|$)")
      continue()
    endif()
    if(IS_SYMLINK "${tree}/${e}" OR IS_DIRECTORY "${tree}/${e}")
      math(EXPR kib "${kib} + 1")
    else()
      file(SIZE "${tree}/${e}" bytes)
      math(EXPR kib "${kib} + (${bytes} + 1023) / 1024")
    endif()
  endforeach()
  file(READ "${tree}/DEBIAN/control" control)
  string(REGEX REPLACE "Installed-Size: [0-9]+" "Installed-Size: ${kib}" control "${control}")
  file(WRITE "${tree}/DEBIAN/control" "${control}")
  execute_process(COMMAND ${TB_DPKG_DEB} --root-owner-group -Zgzip -b "${tree}" "${deb}"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  file(REMOVE_RECURSE "${tree}")
  if(rc)
    message(FATAL_ERROR "dpkg-deb -b ${deb}: ${err}")
  endif()
  message(STATUS "${deb}: Installed-Size ${kib} KiB")
endforeach()
