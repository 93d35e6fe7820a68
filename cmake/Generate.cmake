# Runs the generator (python3 -m gen) as part of the build. Its output set is fixed, so it
# is listed once at configure time; the command reruns whenever a YAML file, a template or
# a generator source changes: the generator writes a depfile naming every file it read (the
# YAML, its Python modules, the templates it used). Files whose content did not change keep
# their mtime (the generator writes only on change), and restat makes Ninja skip everything
# downstream.
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

set(_stamp ${OPCORE_GENERATED_DIR}/.stamp)
set(_depfile ${OPCORE_GENERATED_DIR}/.stamp.d)
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
