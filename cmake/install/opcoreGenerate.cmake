# opcore_generate(<target> YAML_DIR <dir> OUT_DIR <dir> [NAMESPACE <ns>] [COMMENT <text>]
#                 [SELECTED_OPERATORS <file> [SELECTION_SOURCES <dir>...]
#                  [REQUIRED_OPERATORS <file>...]]): a
# custom target that runs the generator (the command opcore_GENERATOR: the installed opcore-gen
# in a consumer project, `python3 -m gen` in this repository) on YAML_DIR's native_functions.yaml
# (or ExecuTorch's custom_ops.yaml and functions.yaml), tags.yaml and derivatives.yaml into
# OUT_DIR at build time, again whenever one of them, the
# generator or a template it read changes (its depfile), and rewriting only the files whose
# content changed (then Ninja rebuilds only what includes them). NAMESPACE (default aten) is the
# operators' namespace: an operator library of its own (myops) gets its C++ API in namespace
# myops and its files under OUT_DIR/myops (docs/libraries.md, "Operator libraries out of tree").
# SELECTED_OPERATORS makes a selective build: only the operators the file lists, and those they
# need (found in the hand-written SELECTION_SOURCES), are registered, together with those the
# REQUIRED_OPERATORS lists name (code built whatever the selection; docs/libraries.md, "Selective
# builds"). Sets
# <target>_OUTPUTS to the files it writes whatever the YAML (the .cpp files to compile), and
# <target>_LIBRARY_SOURCES / <target>_TEST_SOURCES to those of the library and of its generated
# gradcheck tests (tests/, GoogleTest). Needs the Ninja or Makefile generators (DEPFILE).
#
# Every generated file is declared a byproduct, the per-operator headers (opcore/ops/) included:
# a source reaches those through its compiler depfile, and Ninja recompiles it in the same build
# that rewrote one only when it knows which command writes it (else a changed schema would need a
# second build). Their list is the generator's manifest: written by a first generation when the
# project is configured, then by every build, whose change (an operator added or removed)
# reconfigures.
# The generator's --list-outputs for its arguments ARGN, as a list in <out_var>; when it fails,
# configuring stops with <failure> and the generator's message.
function(_opcore_list_outputs out_var failure)
  execute_process(COMMAND ${opcore_GENERATOR} ${ARGN} --list-outputs
                  OUTPUT_VARIABLE outputs ERROR_VARIABLE error RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${failure}: ${error}")
  endif()
  string(STRIP "${outputs}" outputs)
  string(REPLACE "\n" ";" outputs "${outputs}")
  set(${out_var} ${outputs} PARENT_SCOPE)
endfunction()

function(opcore_generate target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "YAML_DIR;OUT_DIR;NAMESPACE;COMMENT;SELECTED_OPERATORS"
                        "SELECTION_SOURCES;REQUIRED_OPERATORS")
  if(NOT arg_YAML_DIR OR NOT arg_OUT_DIR OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "usage: opcore_generate(<target> YAML_DIR <dir> OUT_DIR <dir> [NAMESPACE <ns>] "
                        "[COMMENT <text>])")
  endif()
  if(NOT arg_NAMESPACE)
    set(arg_NAMESPACE aten)
  endif()
  if(NOT arg_COMMENT)
    set(arg_COMMENT "Generating operators from ${arg_YAML_DIR}")
  endif()
  get_filename_component(yaml_dir "${arg_YAML_DIR}" ABSOLUTE)
  get_filename_component(out_dir "${arg_OUT_DIR}" ABSOLUTE)
  set(args --yaml-dir ${yaml_dir} --out ${out_dir} --namespace ${arg_NAMESPACE})
  set(selection)
  if(arg_SELECTED_OPERATORS)
    get_filename_component(selection "${arg_SELECTED_OPERATORS}" ABSOLUTE)
    list(APPEND args --selected-operators ${selection})
    if(arg_SELECTION_SOURCES)
      list(APPEND args --selection-sources ${arg_SELECTION_SOURCES})
    endif()
    if(arg_REQUIRED_OPERATORS)
      list(TRANSFORM arg_REQUIRED_OPERATORS PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/ REGEX "^[^/]")
      list(APPEND args --required-operators ${arg_REQUIRED_OPERATORS})
      list(APPEND selection ${arg_REQUIRED_OPERATORS})
    endif()
  endif()
  _opcore_list_outputs(outputs "opcore_generate: --list-outputs failed for ${yaml_dir}" ${args})
  set(manifest ${out_dir}/.manifest)
  if(NOT EXISTS ${manifest})
    # A YAML mistake fails here silently: the build reports it, located.
    execute_process(COMMAND ${opcore_GENERATOR} ${args} --manifest ${manifest}
                    OUTPUT_QUIET ERROR_QUIET RESULT_VARIABLE ignored)
  endif()
  # The YAML files present: native_functions.yaml (or ExecuTorch's custom_ops.yaml and
  # functions.yaml), tags.yaml and derivatives.yaml (an extension's may be absent). A file
  # added or removed changes the directory, which reconfigures.
  set(yaml_files)
  foreach(name native_functions.yaml custom_ops.yaml functions.yaml tags.yaml derivatives.yaml)
    if(EXISTS ${yaml_dir}/${name})
      list(APPEND yaml_files ${yaml_dir}/${name})
    endif()
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${yaml_dir})
  set(byproducts ${outputs})
  if(EXISTS ${manifest})
    file(STRINGS ${manifest} generated)
    list(TRANSFORM generated PREPEND ${out_dir}/)
    list(APPEND byproducts ${generated})
    list(REMOVE_DUPLICATES byproducts)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${manifest})
  endif()
  add_custom_command(
    OUTPUT ${out_dir}/.stamp
    BYPRODUCTS ${byproducts}
    COMMAND ${opcore_GENERATOR} ${args} --manifest ${manifest} --stamp ${out_dir}/.stamp
            --depfile ${out_dir}/.gen.d
    DEPFILE ${out_dir}/.gen.d
    DEPENDS ${yaml_files} ${selection}
    COMMENT "${arg_COMMENT}"
    VERBATIM)
  add_custom_target(${target} DEPENDS ${out_dir}/.stamp)
  set(${target}_OUTPUTS ${outputs} PARENT_SCOPE)
  set(library ${outputs})
  list(FILTER library INCLUDE REGEX "\\.cpp$")
  set(tests ${library})
  list(FILTER tests INCLUDE REGEX "/tests/[^/]*$")
  list(FILTER library INCLUDE REGEX "/(opcore|${arg_NAMESPACE})/[^/]*$")
  set(${target}_LIBRARY_SOURCES ${library} PARENT_SCOPE)
  set(${target}_TEST_SOURCES ${tests} PARENT_SCOPE)
endfunction()

# opcore_generate_backend(<target> BACKEND_YAML <file> OUT_DIR <dir> [COMMENT <text>]): a custom
# target that runs the generator on an out-of-tree backend's kernel list (PyTorch's
# gen_backend_stubs format: backend:, cpp_namespace:, supported:, autograd:; docs/backends.md)
# against opcore's own YAML, writing into OUT_DIR <backend>NativeFunctions.h (the kernels the
# backend defines, static members of <backend>NativeFunctions in its cpp_namespace) and
# Register<backend>.cpp (their registrations at PrivateUse1 and AutogradPrivateUse1), again
# whenever the file, the generator, opcore's YAML or a template it read changes (its depfile),
# rewriting only the files whose content changed. Sets <target>_SOURCES to the generated .cpp
# file and <target>_OUTPUTS to both; add OUT_DIR to the backend library's include directories.
# Renaming the backend (`backend:`) reconfigures. `opcore-gen --backend-yaml <file> --lint <dir>`
# lists the kernels the sources under <dir> do not define.
function(opcore_generate_backend target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "BACKEND_YAML;OUT_DIR;COMMENT" "")
  if(NOT arg_BACKEND_YAML OR NOT arg_OUT_DIR OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "usage: opcore_generate_backend(<target> BACKEND_YAML <file> OUT_DIR <dir> "
                        "[COMMENT <text>])")
  endif()
  get_filename_component(backend_yaml "${arg_BACKEND_YAML}" ABSOLUTE)
  get_filename_component(out_dir "${arg_OUT_DIR}" ABSOLUTE)
  if(NOT arg_COMMENT)
    set(arg_COMMENT "Generating the backend kernels of ${arg_BACKEND_YAML}")
  endif()
  set(args --backend-yaml ${backend_yaml} --out ${out_dir})
  _opcore_list_outputs(outputs "opcore_generate_backend: --list-outputs failed for ${backend_yaml}" ${args})
  # The file names follow `backend:`: a change of the file reconfigures, to see a new one.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${backend_yaml})
  add_custom_command(
    OUTPUT ${out_dir}/.stamp
    BYPRODUCTS ${outputs}
    COMMAND ${opcore_GENERATOR} ${args} --stamp ${out_dir}/.stamp --depfile ${out_dir}/.gen.d
    DEPFILE ${out_dir}/.gen.d
    DEPENDS ${backend_yaml}
    COMMENT "${arg_COMMENT}"
    VERBATIM)
  add_custom_target(${target} DEPENDS ${out_dir}/.stamp)
  set(sources ${outputs})
  list(FILTER sources INCLUDE REGEX "\\.cpp$")
  set(${target}_OUTPUTS ${outputs} PARENT_SCOPE)
  set(${target}_SOURCES ${sources} PARENT_SCOPE)
endfunction()
