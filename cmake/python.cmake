# The Python package `ctxkit` (python/): a native extension, ctxkit._ctxkit,
# over the umbrella library, plus the pure-Python modules beside it. The
# build lays the package out in <build>/python/ctxkit/ (modules copied, the
# extension built there), so tests and tools import it with
# PYTHONPATH=<build>/python. `pip install .` builds the same target through
# python/build_backend.py; `make install` installs the package directory
# into Python's site-packages under the install prefix.
#
# The interpreter is Debian's (/usr/bin/python3) unless Python3_EXECUTABLE
# names another: its pybind11 and pytest are Debian packages, and a
# python3 earlier on PATH (pyenv, a venv) would not see them.

if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH
      "The Python the package is built for and tested with")
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)
find_package(pybind11 2.10 CONFIG REQUIRED)

set(ctxkit_python_dir ${PROJECT_BINARY_DIR}/python/ctxkit)
file(GLOB ctxkit_python_srcs CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/python/src/*.cc)
pybind11_add_module(ctxkit_python MODULE NO_EXTRAS ${ctxkit_python_srcs})
set_target_properties(ctxkit_python PROPERTIES
  OUTPUT_NAME _ctxkit
  LIBRARY_OUTPUT_DIRECTORY ${ctxkit_python_dir})
# src/: the face layer (src/face/), which every face shares.
target_include_directories(ctxkit_python PRIVATE ${PROJECT_SOURCE_DIR}/python/src
                                                 ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(ctxkit_python PRIVATE ctxkit)

# The pure-Python modules and stubs, copied next to the extension.
file(GLOB ctxkit_python_files CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/python/ctxkit/*.py
     ${PROJECT_SOURCE_DIR}/python/ctxkit/*.pyi
     ${PROJECT_SOURCE_DIR}/python/ctxkit/py.typed)
include(cmake/copy_files.cmake)
ctxkit_copy_files(ctxkit_python_files ${ctxkit_python_dir} ${ctxkit_python_files})
add_dependencies(ctxkit_python ctxkit_python_files)

# make install: Python's site-packages under the install prefix; on Debian
# lib/python3.X/dist-packages (on sys.path for /usr/local), elsewhere the
# interpreter's posix_prefix platlib. CTXKIT_PYTHON_INSTALL_DIR overrides.
if(NOT DEFINED CTXKIT_PYTHON_INSTALL_DIR)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c
      "import sys, sysconfig\nif 'deb_system' in sysconfig.get_scheme_names():\n    print('lib/python%d.%d/dist-packages' % sys.version_info[:2])\nelse:\n    print(sysconfig.get_path('platlib', 'posix_prefix', vars={'platbase': '', 'base': ''}).lstrip('/'))"
    OUTPUT_VARIABLE CTXKIT_PYTHON_INSTALL_DIR OUTPUT_STRIP_TRAILING_WHITESPACE
    COMMAND_ERROR_IS_FATAL ANY)
endif()
install(TARGETS ctxkit_python LIBRARY DESTINATION ${CTXKIT_PYTHON_INSTALL_DIR}/ctxkit
        COMPONENT python)
install(FILES ${ctxkit_python_files} DESTINATION ${CTXKIT_PYTHON_INSTALL_DIR}/ctxkit
        COMPONENT python)
