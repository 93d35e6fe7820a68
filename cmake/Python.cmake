# Finds the interpreter that runs the generator and pytest: the first of OPCORE_PYTHON (if
# set), Debian's /usr/bin/python3, and the python3 on PATH that can import jinja2 and yaml.
# (The python3 first on PATH may be another interpreter without Debian's python3-* modules.)
set(OPCORE_PYTHON "" CACHE FILEPATH "Python 3 with jinja2 and yaml, for python3 -m gen")
if(NOT OPCORE_PYTHON)
  find_program(_opcore_path_python NAMES python3)
  foreach(candidate /usr/bin/python3 ${_opcore_path_python})
    if(EXISTS "${candidate}")
      execute_process(COMMAND "${candidate}" -c "import jinja2, yaml"
                      RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        set(OPCORE_PYTHON "${candidate}" CACHE FILEPATH "" FORCE)
        break()
      endif()
    endif()
  endforeach()
endif()
if(NOT OPCORE_PYTHON)
  message(FATAL_ERROR "no python3 that can import jinja2 and yaml; run scripts/setup.sh "
                      "(installs python3-jinja2 and python3-yaml) or pass -DOPCORE_PYTHON=...")
endif()
message(STATUS "opcore: generator runs with ${OPCORE_PYTHON}")
