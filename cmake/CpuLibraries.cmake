# The libraries behind the CPU kernels, all Debian packages that scripts/setup.sh installs:
# OpenMP (parallel_for), the OpenMP build of OpenBLAS (matrix products; one thread pool with
# parallel_for, Note [Threads] in runtime/opcore/core/Parallel.cpp) and SLEEF (vectorized
# math, Note [Vectorized math] in kernels/cpu/VecMath.cpp). Debian installs OpenBLAS's OpenMP
# build beside the default pthread one, under openblas-openmp/.
# oneDNN (libdnnl-dev, which scripts/setup.sh installs too) is optional: when found,
# OPCORE_WITH_ONEDNN is set and kernels/cpu/OneDnnGemm.cpp is built (float and BFloat16
# products, Note [Matrix-product libraries] in kernels/cpu/Gemm.h); without it, OpenBLAS
# computes the float products and BFloat16 ones go through float.
# Defines opcore_link_cpu_libraries(target). Only the sources that use them see OpenMP's flag,
# cblas.h and oneDNN's headers, so the rest of the library builds without them.
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

find_path(OPCORE_ONEDNN_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
find_library(OPCORE_ONEDNN_LIBRARY dnnl)
if(OPCORE_ONEDNN_INCLUDE_DIR AND OPCORE_ONEDNN_LIBRARY)
  set(OPCORE_WITH_ONEDNN 1)
  message(STATUS "oneDNN: ${OPCORE_ONEDNN_LIBRARY} (float and bfloat16 matrix products)")
else()
  set(OPCORE_WITH_ONEDNN 0)
  message(STATUS "oneDNN: not found (apt-get install libdnnl-dev); OpenBLAS computes every product")
endif()

function(opcore_link_cpu_libraries target)
  set_source_files_properties(runtime/opcore/core/Parallel.cpp TARGET_DIRECTORY ${target}
                              PROPERTIES COMPILE_OPTIONS "${OpenMP_CXX_FLAGS}")
  set_source_files_properties(kernels/cpu/OpenBlasGemm.cpp TARGET_DIRECTORY ${target}
                              PROPERTIES INCLUDE_DIRECTORIES "${OPCORE_OPENBLAS_INCLUDE_DIR}")
  target_link_libraries(${target} PRIVATE ${OpenMP_CXX_LIBRARIES} "${OPCORE_OPENBLAS_LIBRARY}"
                        "${OPCORE_SLEEF_LIBRARY}")
  target_compile_definitions(${target} PRIVATE OPCORE_WITH_ONEDNN=${OPCORE_WITH_ONEDNN})
  if(OPCORE_WITH_ONEDNN)
    set_source_files_properties(kernels/cpu/OneDnnGemm.cpp TARGET_DIRECTORY ${target}
                                PROPERTIES INCLUDE_DIRECTORIES "${OPCORE_ONEDNN_INCLUDE_DIR}")
    target_link_libraries(${target} PRIVATE "${OPCORE_ONEDNN_LIBRARY}")
  else()
    set_source_files_properties(kernels/cpu/OneDnnGemm.cpp TARGET_DIRECTORY ${target}
                                PROPERTIES HEADER_FILE_ONLY TRUE)
  endif()
endfunction()
