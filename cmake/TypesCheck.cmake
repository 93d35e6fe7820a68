# The types compile check: generates the C++ API of tests/gen/fixtures/types (every schema
# type in every shape, every kind of default) into build/generated-types and compiles it,
# with tests/types/GeneratedApi.cpp, as an object library that is never linked (the
# fixture's opcore::Tensor differs from the real one). A generator change that emits a C++
# type the runtime lacks, or one that cannot be boxed, unboxed or inferred, fails the build.
set(_types_yaml ${CMAKE_SOURCE_DIR}/tests/gen/fixtures/types)
set(_types_out ${CMAKE_BINARY_DIR}/generated-types)
opcore_generate(opcore_types_generate YAML_DIR ${_types_yaml} OUT_DIR ${_types_out}
                COMMENT "Generating the types compile check from tests/gen/fixtures/types")
set(_types_files ${opcore_types_generate_OUTPUTS})
# The dispatcher entry points, the schemas and the CPU registrations (every fixture operator
# has a CPU kernel, so its boxing adapters and schema check are instantiated there); the
# other keys' registrations would compile the same adapters again, except the
# CompositeExplicitAutograd ones, which hold the kernels generated for `autogen:`. The
# autograd kernels (Autograd_<i>.cpp: the fixture has no formulas, so NotImplemented nodes,
# view and in-place bookkeeping) pass every type through the autograd runtime's functions. The
# Python bindings (python/PythonFunctions_<i>.cpp) read every type Python can pass.
set(_types_sources ${_types_files})
list(FILTER _types_sources INCLUDE REGEX "/(Operators|RegisterSchema|RegisterCPU|RegisterCompositeExplicitAutograd|Autograd|PythonFunctions)(_[0-9]+)?\\.cpp$")

add_library(opcore_types_check OBJECT ${_types_sources} tests/types/GeneratedApi.cpp)
add_dependencies(opcore_types_check opcore_types_generate)
target_include_directories(opcore_types_check PRIVATE runtime ${_types_out} ${_types_out}/python)
target_link_libraries(opcore_types_check PRIVATE Python3::Module)
# -O0: the objects are never linked, so optimizing them would be wasted work.
target_compile_options(opcore_types_check PRIVATE -O0 -Wall -Wextra -Wno-unused-parameter)
