# Runs the generator (python3 -m gen) as part of the build. Its .cpp files do not depend on
# the YAML (operators are sharded into a fixed number of files; see Note [One-op rebuilds] in
# gen/emit/common.py), so they are listed once at configure time: OPCORE_GENERATED_SOURCES
# (the library), OPCORE_GENERATED_CUDA_SOURCES and OPCORE_GENERATED_TEST_SOURCES (opcore_tests);
# the per-operator headers (opcore/ops/) are found through the compilers' depfiles. The command
# reruns whenever a YAML file, a template or a generator source changes: the generator writes a
# depfile naming every file it read (the YAML, its Python modules, the templates it used).
# Files whose content did not change keep their mtime (the generator writes only on change),
# and restat makes Ninja skip everything downstream.
# opcore_generate(<target> YAML_DIR <dir> OUT_DIR <dir> COMMENT <text>) is the function the
# installed package gives consumers (cmake/install/opcoreGenerate.cmake), here with the
# generator run from this checkout; it sets <target>_OUTPUTS to the files it writes whatever the
# YAML (`--list-outputs`, read now, at configure time). tests/types uses it too
# (cmake/TypesCheck.cmake).
set(opcore_GENERATOR ${CMAKE_COMMAND} -E env PYTHONPATH=${CMAKE_SOURCE_DIR} ${OPCORE_PYTHON} -m gen)
include(${CMAKE_CURRENT_LIST_DIR}/install/opcoreGenerate.cmake)

set(OPCORE_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
# A selective build (docs/libraries.md, "Selective builds"): only the operators this file lists (PyTorch's
# selected_operators.yaml or a plain list), those the runtime calls (runtime/required_operators.txt)
# and those they need (their kernels' calls, their derivatives), are registered.
set(OPCORE_SELECTED_OPERATORS "" CACHE FILEPATH "Operator list of a selective build (empty: every operator)")
set(_selection)
if(OPCORE_SELECTED_OPERATORS)
  set(_selection SELECTED_OPERATORS ${OPCORE_SELECTED_OPERATORS}
                 SELECTION_SOURCES ${CMAKE_SOURCE_DIR}/kernels
                 REQUIRED_OPERATORS ${CMAKE_SOURCE_DIR}/runtime/required_operators.txt)
endif()
opcore_generate(opcore_generate YAML_DIR ${CMAKE_SOURCE_DIR}/yaml OUT_DIR ${OPCORE_GENERATED_DIR}
                COMMENT "Generating opcore sources from yaml/" ${_selection})

set(OPCORE_GENERATED_SOURCES ${opcore_generate_OUTPUTS})
list(FILTER OPCORE_GENERATED_SOURCES INCLUDE REGEX "\\.cpp$")
# tests/ (the gradcheck tests of derivatives.yaml) goes into opcore_tests, the rest into the library.
set(OPCORE_GENERATED_TEST_SOURCES)
foreach(_file IN LISTS OPCORE_GENERATED_SOURCES)
  string(FIND "${_file}" "${OPCORE_GENERATED_DIR}/tests/" _at)
  if(_at EQUAL 0)
    list(APPEND OPCORE_GENERATED_TEST_SOURCES ${_file})
  endif()
endforeach()
list(REMOVE_ITEM OPCORE_GENERATED_SOURCES ${OPCORE_GENERATED_TEST_SOURCES})
# python/ (the bindings) goes into the extension opcore._C (cmake/PythonExtension.cmake).
set(OPCORE_GENERATED_PYTHON_SOURCES ${OPCORE_GENERATED_SOURCES})
list(FILTER OPCORE_GENERATED_PYTHON_SOURCES INCLUDE REGEX "/python/[^/]*\\.cpp$")
list(REMOVE_ITEM OPCORE_GENERATED_SOURCES ${OPCORE_GENERATED_PYTHON_SOURCES})
set(OPCORE_GENERATED_CUDA_SOURCES ${OPCORE_GENERATED_SOURCES})
list(FILTER OPCORE_GENERATED_CUDA_SOURCES INCLUDE REGEX "/RegisterCUDA_[0-9]+\\.cpp$")
list(FILTER OPCORE_GENERATED_SOURCES EXCLUDE REGEX "/RegisterCUDA_[0-9]+\\.cpp$")

# The set of .cpp files above is decided by the generator's code (the shard count, the
# dispatch keys): reconfigure when any of it changes.
file(GLOB_RECURSE _gen_modules CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/gen/*.py)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_gen_modules})
