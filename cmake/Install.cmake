# `cmake --install build --prefix P`: libopcore, the runtime's and the generated headers, the
# generator (`P/bin/opcore-gen`, python3 -m gen from P/share/opcore, with opcore's YAML), a CMake package
# (find_package(opcore CONFIG) gives the imported target opcore::opcore and the function
# opcore_generate, which runs the installed generator at build time) and a pkg-config file
# (opcore.pc). Every path inside is relative to the prefix, so an installed tree can be moved.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(OPCORE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/opcore)

# The OpenMP build of OpenBLAS lives outside the loader's default path (cmake/CpuLibraries.cmake).
get_filename_component(_opcore_openblas_dir "${OPCORE_OPENBLAS_LIBRARY}" DIRECTORY)
set_target_properties(opcore PROPERTIES INSTALL_RPATH "${_opcore_openblas_dir}")

install(TARGETS opcore EXPORT opcoreTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY runtime/opcore DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "python" EXCLUDE)
install(DIRECTORY ${OPCORE_GENERATED_DIR}/opcore DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(DIRECTORY gen DESTINATION ${CMAKE_INSTALL_DATADIR}/opcore
        PATTERN "__pycache__" EXCLUDE)
# Its bytecode, compiled once here as Debian compiles an installed package's: opcore-gen then
# does not compile its modules on every run where Python may not write them (a read-only prefix,
# PYTHONDONTWRITEBYTECODE). Python checks each .pyc against its source's mtime, which moving
# the prefix keeps.
install(CODE "execute_process(COMMAND \"${OPCORE_PYTHON}\" -m compileall -q
                \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/opcore/gen\"
                COMMAND_ERROR_IS_FATAL ANY)")
# opcore's operators, beside the generator as in the repository: an extension is generated
# with them (gen/pipeline.py ATEN_YAML_DIR).
install(DIRECTORY yaml DESTINATION ${CMAKE_INSTALL_DATADIR}/opcore)
install(PROGRAMS cmake/install/opcore-gen DESTINATION ${CMAKE_INSTALL_BINDIR})

install(EXPORT opcoreTargets NAMESPACE opcore:: DESTINATION ${OPCORE_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/install/opcoreConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/install/opcoreConfig.cmake
                              INSTALL_DESTINATION ${OPCORE_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/opcoreConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/opcoreConfig.cmake
              ${CMAKE_BINARY_DIR}/install/opcoreConfigVersion.cmake
              cmake/install/opcoreGenerate.cmake
        DESTINATION ${OPCORE_INSTALL_CMAKEDIR})
configure_file(cmake/install/opcore.pc.in ${CMAKE_BINARY_DIR}/install/opcore.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/install/opcore.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
