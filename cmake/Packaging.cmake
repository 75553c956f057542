# Installs what GASNet clients' build systems look for: a .mak fragment and
# a pkg-config file per conduit and thread mode, and a CMake package.
set(GEXX_C_COMPILER ${CMAKE_C_COMPILER})
set(GEXX_CXX_COMPILER ${CMAKE_CXX_COMPILER})
set(GEXX_COMMON_EXTRA_LIBS "-lstdc++ -lm")

foreach(conduit ${GEXX_CONDUITS})
  set(GEXX_EXTRA_LIBS "${GEXX_COMMON_EXTRA_LIBS}")
  if(conduit STREQUAL "ofi")
    string(REPLACE ";" " " _fabric_libs "${LIBFABRIC_LDFLAGS}")
    string(APPEND GEXX_EXTRA_LIBS " ${_fabric_libs}")
  endif()
  foreach(mode ${GEXX_MODES})
    string(TOUPPER ${mode} MODE)
    set(GEXX_CONDUIT ${conduit})
    set(GEXX_MODE ${mode})
    set(GEXX_MODE_UPPER ${MODE})
    if(mode STREQUAL "seq")
      set(GEXX_MODE_EXTRADEFINES "")
    else()
      set(GEXX_MODE_EXTRADEFINES " -D_REENTRANT")
    endif()
    configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/conduit.mak.in
                   ${PROJECT_BINARY_DIR}/pkg/${conduit}-${mode}.mak @ONLY)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/gasnet.pc.in
                   ${PROJECT_BINARY_DIR}/pkg/gasnet-${conduit}-${mode}.pc @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/pkg/${conduit}-${mode}.mak
            DESTINATION include/${conduit}-conduit)
    install(FILES ${PROJECT_BINARY_DIR}/pkg/gasnet-${conduit}-${mode}.pc
            DESTINATION lib/pkgconfig)
  endforeach()
endforeach()

string(REPLACE ";" " " GEXX_LIBFABRIC_LIBS "${LIBFABRIC_LDFLAGS}")
include(CMakePackageConfigHelpers)
string(REPLACE ";" " " GEXX_CONDUIT_LIST "${GEXX_CONDUITS}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/GASNetConfig.cmake.in
               ${PROJECT_BINARY_DIR}/pkg/GASNetConfig.cmake @ONLY)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pkg/GASNetConfigVersion.cmake
                                 VERSION ${GEXX_VERSION} COMPATIBILITY AnyNewerVersion)
install(FILES ${PROJECT_BINARY_DIR}/pkg/GASNetConfig.cmake
              ${PROJECT_BINARY_DIR}/pkg/GASNetConfigVersion.cmake
        DESTINATION lib/cmake/GASNet)
