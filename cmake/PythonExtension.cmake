# opcore._C, the Python extension, and the importable package in the build tree:
#   build/python/opcore/   symlinks to every entry of python/opcore/ (edits show at once),
#                          _C.cpython-311-x86_64-linux-gnu.so, and _C/ (its generated stubs)
# so that `PYTHONPATH=build/python python3 -c "import opcore"` works, and scripts/main.sh
# adds build/python to the user's site-packages through a .pth file (docs/python.md).
# The extension is built for OPCORE_PYTHON (Debian's python3), against its headers
# (python3-dev).
set(Python3_EXECUTABLE ${OPCORE_PYTHON})
find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)

file(GLOB OPCORE_PYTHON_RUNTIME_SOURCES CONFIGURE_DEPENDS runtime/opcore/python/*.cpp)
Python3_add_library(opcore_python MODULE WITH_SOABI
                    ${OPCORE_PYTHON_RUNTIME_SOURCES} ${OPCORE_GENERATED_PYTHON_SOURCES})
add_dependencies(opcore_python opcore_generate)
set(OPCORE_PYTHON_PACKAGE_DIR ${CMAKE_BINARY_DIR}/python/opcore)
set_target_properties(opcore_python PROPERTIES OUTPUT_NAME _C
                      LIBRARY_OUTPUT_DIRECTORY ${OPCORE_PYTHON_PACKAGE_DIR})
# kernels/ for common/TypePromotion.h: result_type() applies the kernels' own promotion rules.
target_include_directories(opcore_python PRIVATE ${OPCORE_GENERATED_DIR}/python ${CMAKE_SOURCE_DIR}/kernels)
target_compile_options(opcore_python PRIVATE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
target_link_libraries(opcore_python PRIVATE opcore)

file(MAKE_DIRECTORY ${OPCORE_PYTHON_PACKAGE_DIR})
file(GLOB _package_entries LIST_DIRECTORIES true CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/python/opcore/*)
foreach(_entry IN LISTS _package_entries)
  get_filename_component(_name ${_entry} NAME)
  if(NOT _name STREQUAL "__pycache__")
    file(CREATE_LINK ${_entry} ${OPCORE_PYTHON_PACKAGE_DIR}/${_name} SYMBOLIC)
  endif()
endforeach()
file(CREATE_LINK ${OPCORE_GENERATED_DIR}/python/opcore/_C ${OPCORE_PYTHON_PACKAGE_DIR}/_C SYMBOLIC)

# The environment Python tests run in: this build's package (and tests/python's helpers); under
# the sanitizers, the ASan runtime preloaded (the interpreter is not instrumented) with
# libstdc++ (ASan's __cxa_throw interceptor must find it at start-up, before opcore._C loads
# it, or the first C++ exception aborts), and leak checks off (the interpreter keeps memory
# until exit by design). The ThreadSanitizer build (OPCORE_SANITIZE=thread) does not run the
# Python tests: scripts/tsan.sh runs the C++ thread tests only.
set(OPCORE_PYTHON_TEST_ENV "PYTHONPATH=${CMAKE_BINARY_DIR}/python:${CMAKE_SOURCE_DIR}/tests/python"
    "PYTHONDONTWRITEBYTECODE=1")
if(OPCORE_SANITIZE_MODE STREQUAL "address")
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE _libasan OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so
                  OUTPUT_VARIABLE _libstdcxx OUTPUT_STRIP_TRAILING_WHITESPACE)
  list(APPEND OPCORE_PYTHON_TEST_ENV "LD_PRELOAD=${_libasan}:${_libstdcxx}"
       "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1")
endif()
