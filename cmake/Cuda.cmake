# CUDA is optional: kernels in kernels/cuda/ and RegisterCUDA.cpp are built when nvcc is
# found (on PATH or at /usr/local/cuda). Without it, CUDA tensors cannot be created and
# calling a CUDA kernel reports that no kernel is registered for the CUDA key.
option(OPCORE_CUDA "Build the CUDA kernels when nvcc is available" ON)
set(OPCORE_WITH_CUDA OFF)
if(OPCORE_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)  # H100 / H200; override with -DCMAKE_CUDA_ARCHITECTURES
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)  # the .cu files see no opcore headers (kernels/cuda/CudaLaunch.h)
    find_package(CUDAToolkit REQUIRED)
    set(OPCORE_WITH_CUDA ON)
  endif()
endif()
message(STATUS "opcore: CUDA kernels ${OPCORE_WITH_CUDA}")
