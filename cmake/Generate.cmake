# Runs the generator (python3 -m gen) as part of the build. Its output set is fixed, so it
# is listed once at configure time; the command reruns whenever a YAML file, a template or
# a generator source changes. Files whose content did not change keep their mtime (the
# generator writes only on change), and restat makes Ninja skip everything downstream.
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
list(FILTER OPCORE_GENERATED_SOURCES EXCLUDE REGEX "RegisterCUDA\\.cpp$")

file(GLOB_RECURSE _gen_deps CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/gen/*.py ${CMAKE_SOURCE_DIR}/gen/templates/*.j2 ${CMAKE_SOURCE_DIR}/yaml/*.yaml)
set(_stamp ${OPCORE_GENERATED_DIR}/.stamp)
add_custom_command(
  OUTPUT ${_stamp}
  BYPRODUCTS ${OPCORE_GENERATED_FILES}
  COMMAND ${OPCORE_PYTHON} -m gen ${_gen_args}
  COMMAND ${CMAKE_COMMAND} -E touch ${_stamp}
  DEPENDS ${_gen_deps}
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  COMMENT "Generating opcore sources from yaml/"
  VERBATIM)
add_custom_target(opcore_generate DEPENDS ${_stamp})
