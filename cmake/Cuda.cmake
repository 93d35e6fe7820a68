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
    # The .cu files see ScalarType.h and Scalar.h (kernels/cuda/CudaLaunch.h), which are C++20;
    # CMake 3.25 does not know nvcc's flag for that dialect, so it is named here.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    find_package(CUDAToolkit REQUIRED)
    set(OPCORE_WITH_CUDA ON)
  endif()
endif()
message(STATUS "opcore: CUDA kernels ${OPCORE_WITH_CUDA}")
