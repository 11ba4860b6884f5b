# Static third-party libraries for the ctxkit program.
#
# Every CLI command is a new process, and the dynamic loader resolving the
# symbols of SQLite, Nettle, RE2, yaml-cpp and libstdc++ cost
# each one ~3 ms before main (docs/benchmarks.md, "Process start"). The
# ctxkit program therefore links Debian's static archives of them; the
# libraries, the Python module, ctxkit-serve and the tests link the shared
# ones as usual.
#
#   ctxkit_dep(VAR TARGET ARCHIVE)
#       sets VAR to what a layer lists in LIBS for the library TARGET: the
#       shared TARGET, except for a program with the CTXKIT_STATIC_DEPS
#       property, which links the static ARCHIVE (a file name found in the
#       library path) instead. Installed consumers always see TARGET.
#   ctxkit_link_static_deps(PROGRAM)
#       gives PROGRAM that property, and links libstdc++ and libgcc
#       statically. Does nothing unless the option CTXKIT_STATIC_DEPS is on;
#       sanitizer builds keep the shared libraries.

function(ctxkit_dep var target archive)
  string(MAKE_C_IDENTIFIER "CTXKIT_ARCHIVE_${archive}" cache_var)
  find_library(${cache_var} NAMES ${archive})
  if(${cache_var})
    set(pick "$<IF:$<BOOL:$<TARGET_PROPERTY:CTXKIT_STATIC_DEPS>>,${${cache_var}},${target}>")
  else()
    message(STATUS "ctxkit: no ${archive}; the ctxkit program links "
                   "${target} as a shared library")
    set(pick ${target})
  endif()
  set(${var} "$<BUILD_INTERFACE:${pick}>$<INSTALL_INTERFACE:${target}>"
      PARENT_SCOPE)
endfunction()

function(ctxkit_link_static_deps program)
  if(CTXKIT_STATIC_DEPS AND NOT CTXKIT_SANITIZE)
    set_target_properties(${program} PROPERTIES CTXKIT_STATIC_DEPS ON)
    target_link_options(${program} PRIVATE -static-libstdc++ -static-libgcc)
  endif()
endfunction()
