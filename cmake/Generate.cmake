# Runs the generator (python3 -m gen) as part of the build. Its .cpp files do not depend on
# the YAML (operators are sharded into a fixed number of files; see Note [One-op rebuilds] in
# gen/emit/common.py), so they are listed once at configure time: OPCORE_GENERATED_SOURCES
# (the library), OPCORE_GENERATED_CUDA_SOURCES and OPCORE_GENERATED_TEST_SOURCES (opcore_tests);
# the per-operator headers (opcore/ops/) are found through the compilers' depfiles. The command
# reruns whenever a YAML file, a template or a generator source changes: the generator writes a
# depfile naming every file it read (the YAML, its Python modules, the templates it used).
# Files whose content did not change keep their mtime (the generator writes only on change),
# and restat makes Ninja skip everything downstream.
set(OPCORE_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
set(_gen_args --yaml-dir ${CMAKE_SOURCE_DIR}/yaml --out ${OPCORE_GENERATED_DIR})

execute_process(COMMAND ${OPCORE_PYTHON} -m gen ${_gen_args} --list-outputs
                WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                OUTPUT_VARIABLE _outputs RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "python3 -m gen --list-outputs failed")
endif()
string(STRIP "${_outputs}" _outputs)
string(REPLACE "\n" ";" OPCORE_GENERATED_FILES "${_outputs}")

set(OPCORE_GENERATED_SOURCES ${OPCORE_GENERATED_FILES})
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
set(OPCORE_GENERATED_CUDA_SOURCES ${OPCORE_GENERATED_SOURCES})
list(FILTER OPCORE_GENERATED_CUDA_SOURCES INCLUDE REGEX "/RegisterCUDA_[0-9]+\\.cpp$")
list(FILTER OPCORE_GENERATED_SOURCES EXCLUDE REGEX "/RegisterCUDA_[0-9]+\\.cpp$")

set(_stamp ${OPCORE_GENERATED_DIR}/.stamp)
# (.gen.d, not the .stamp.d of earlier versions, whose targets Ninja would now reject)
set(_depfile ${OPCORE_GENERATED_DIR}/.gen.d)
add_custom_command(
  OUTPUT ${_stamp}
  BYPRODUCTS ${OPCORE_GENERATED_FILES}
  COMMAND ${OPCORE_PYTHON} -m gen ${_gen_args} --stamp ${_stamp} --depfile ${_depfile}
  DEPFILE ${_depfile}
  DEPENDS ${CMAKE_SOURCE_DIR}/yaml/native_functions.yaml ${CMAKE_SOURCE_DIR}/yaml/tags.yaml
          ${CMAKE_SOURCE_DIR}/yaml/derivatives.yaml
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  COMMENT "Generating opcore sources from yaml/"
  VERBATIM)
add_custom_target(opcore_generate DEPENDS ${_stamp})
# The set of .cpp files above is decided by the generator's code (the shard count, the
# dispatch keys): reconfigure when any of it changes.
file(GLOB_RECURSE _gen_modules CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/gen/*.py)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_gen_modules})
