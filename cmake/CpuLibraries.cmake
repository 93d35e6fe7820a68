# The libraries behind the CPU kernels, all Debian packages that scripts/setup.sh installs:
# OpenMP (parallel_for), the OpenMP build of OpenBLAS (matrix products; one thread pool with
# parallel_for, Note [Threads] in runtime/opcore/core/Parallel.cpp) and SLEEF (vectorized
# math, Note [Vectorized math] in kernels/cpu/VecMath.cpp). Debian installs OpenBLAS's OpenMP
# build beside the default pthread one, under openblas-openmp/.
# Defines opcore_link_cpu_libraries(target). Only the sources that use them see OpenMP's flag
# and cblas.h, so the rest of the library builds without either.
find_package(OpenMP REQUIRED COMPONENTS CXX)

set(_opcore_multiarch "${CMAKE_LIBRARY_ARCHITECTURE}")
find_path(OPCORE_OPENBLAS_INCLUDE_DIR cblas.h
          PATHS "/usr/include/${_opcore_multiarch}/openblas-openmp" NO_DEFAULT_PATH)
find_library(OPCORE_OPENBLAS_LIBRARY openblas
             PATHS "/usr/lib/${_opcore_multiarch}/openblas-openmp" NO_DEFAULT_PATH)
find_library(OPCORE_SLEEF_LIBRARY sleef)
if(NOT OPCORE_OPENBLAS_INCLUDE_DIR OR NOT OPCORE_OPENBLAS_LIBRARY OR NOT OPCORE_SLEEF_LIBRARY)
  message(FATAL_ERROR "opcore needs OpenBLAS's OpenMP build and SLEEF: "
                      "apt-get install libopenblas-openmp-dev libsleef-dev (scripts/setup.sh does)")
endif()

function(opcore_link_cpu_libraries target)
  set_source_files_properties(runtime/opcore/core/Parallel.cpp TARGET_DIRECTORY ${target}
                              PROPERTIES COMPILE_OPTIONS "${OpenMP_CXX_FLAGS}")
  set_source_files_properties(kernels/cpu/Linear.cpp TARGET_DIRECTORY ${target}
                              PROPERTIES INCLUDE_DIRECTORIES "${OPCORE_OPENBLAS_INCLUDE_DIR}")
  target_link_libraries(${target} PRIVATE ${OpenMP_CXX_LIBRARIES} "${OPCORE_OPENBLAS_LIBRARY}"
                        "${OPCORE_SLEEF_LIBRARY}")
endfunction()
