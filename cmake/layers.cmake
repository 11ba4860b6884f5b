# The layer graph, declared once. Each folder under src/ is one layer; a
# layer may include the headers of, and link, only itself and the layers it
# names as dependencies (and theirs, transitively). Layers are declared in
# dependency order: naming a layer not declared yet is a configure error, so
# the graph cannot have a cycle.
#
#   ctxkit_declare_layer(NAME [DEPS layer...] [HEADERS h...])
#       records NAME in the graph. HEADERS are the include/ctxkit/*.h files
#       NAME owns (it implements them; including one counts as including
#       NAME).
#   ctxkit_add_layer(NAME [DEPS layer...] [LIBS target...] [HEADERS h...]
#                    [EXCLUDE file.cc...] [INTERNAL])
#       declares NAME and builds src/NAME/*.cc (but main.cc and EXCLUDE)
#       into the static library ctxkit_NAME, linking its DEPS' libraries and
#       LIBS. Unless INTERNAL,
#       the library is shipped: part of the umbrella target `ctxkit`,
#       installed and exported.
#
#   ctxkit_allow_include(FILE INCLUDE REASON)
#       exempts one known violation (FILE relative to the source root, the
#       included name as written), with the reason it is still there.
#
# cmake/check_layers.cmake checks every #include "..." in src/ and
# include/ctxkit/ against this graph at build time (target
# ctxkit_layer_check, which every layer library depends on), so a wrong
# include fails the build naming the file, the line and the allowed layers.

set_property(GLOBAL PROPERTY CTXKIT_LAYERS "")
set_property(GLOBAL PROPERTY CTXKIT_SHIPPED_LAYERS "")
set_property(GLOBAL PROPERTY CTXKIT_ALLOWED_INCLUDES "")

function(ctxkit_allow_include file include reason)
  set_property(GLOBAL APPEND PROPERTY CTXKIT_ALLOWED_INCLUDES
               "${file}:${include}")
endfunction()

# The one layer that reads the process environment (getenv): every other
# file under src/ gets it from there, unless named here with its reason.
set(CTXKIT_ENVIRONMENT_LAYER face)
# The layers that test text for a ref's "ck:" prefix: core (ref.cc,
# target.cc: ParseRef, Target::Parse) and store. The rest use Target.
set(CTXKIT_REF_TEXT_LAYERS core store)
set_property(GLOBAL PROPERTY CTXKIT_ALLOWED_GETENV "")

# Storage owns its bytes: the layers above CTXKIT_SEAL_ABOVE (those that
# depend on it; it is not one of them) may not include the headers of the
# sealed layers, nor the sealed headers, though the graph lets them link
# those layers: they reach the store's bytes only through Store (and
# store/store_internals.h, store/stored_sessions.h). Open to them:
#   CTXKIT_SEALED_OPEN     headers of a sealed layer any of them may include
#                          (generic file helpers: notes roots, watched trees,
#                          stdin, nothing of the store's own files);
#   CTXKIT_SEALED_OPEN_TO  HEADER:LAYER pairs, a header open to that layer
#                          alone, with the reason below.
# os/fault_injection.h and every engine's and storage/'s header stay sealed.
set(CTXKIT_SEAL_ABOVE store)
set(CTXKIT_SEALED_LAYERS os storage memory sqlite postgres)
set(CTXKIT_SEALED_HEADERS store/store_backend.h)  # the engine behind a Store
set(CTXKIT_SEALED_OPEN os/posix_io.h os/file_util.h os/filename.h)
# Derived caches such as index.db may use the OS layer's SQLite handle:
# index (index.db), notes (the note index) and capture (the in-memory FTS5
# table that ranks tool outputs by BM25) keep SQLite databases of their own,
# rebuilt from the store and never the store's bytes.
set(CTXKIT_SEALED_OPEN_TO
    os/sqlite_db.h:index os/sqlite_db.h:notes os/sqlite_db.h:capture)
function(ctxkit_allow_getenv file reason)
  set_property(GLOBAL APPEND PROPERTY CTXKIT_ALLOWED_GETENV ${file})
endfunction()

function(ctxkit_declare_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "DEPS;HEADERS")
  get_property(layers GLOBAL PROPERTY CTXKIT_LAYERS)
  if(name IN_LIST layers)
    message(FATAL_ERROR "ctxkit: layer '${name}' declared twice")
  endif()
  foreach(dep IN LISTS arg_DEPS)
    if(NOT dep IN_LIST layers)
      message(FATAL_ERROR "ctxkit: layer '${name}' depends on '${dep}', "
                          "which is not declared before it")
    endif()
  endforeach()
  foreach(header IN LISTS arg_HEADERS)
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/include/ctxkit/${header})
      message(FATAL_ERROR "ctxkit: layer '${name}' owns include/ctxkit/"
                          "${header}, which does not exist")
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY CTXKIT_LAYERS ${name})
  set_property(GLOBAL PROPERTY CTXKIT_LAYER_DEPS_${name} ${arg_DEPS})
  set_property(GLOBAL PROPERTY CTXKIT_LAYER_HEADERS_${name} ${arg_HEADERS})
endfunction()

function(ctxkit_add_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "INTERNAL" ""
                        "DEPS;LIBS;HEADERS;EXCLUDE")
  ctxkit_declare_layer(${name} DEPS ${arg_DEPS} HEADERS ${arg_HEADERS})
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cc)
  foreach(excluded main.cc ${arg_EXCLUDE})
    list(REMOVE_ITEM srcs ${PROJECT_SOURCE_DIR}/src/${name}/${excluded})
  endforeach()
  add_library(ctxkit_${name} STATIC ${srcs})
  target_include_directories(ctxkit_${name}
    PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
  list(TRANSFORM arg_DEPS PREPEND ctxkit_ OUTPUT_VARIABLE dep_targets)
  target_link_libraries(ctxkit_${name} PUBLIC ${dep_targets} ${arg_LIBS})
  set_target_properties(ctxkit_${name} PROPERTIES EXPORT_NAME ${name})
  add_dependencies(ctxkit_${name} ctxkit_layer_check)
  if(NOT arg_INTERNAL)
    set_property(GLOBAL APPEND PROPERTY CTXKIT_SHIPPED_LAYERS ${name})
  endif()
endfunction()

# Writes the declared graph where check_layers.cmake reads it, and adds the
# ctxkit_layer_check target. Call once, after the last layer.
function(ctxkit_add_layer_check)
  get_property(layers GLOBAL PROPERTY CTXKIT_LAYERS)
  set(graph "# Generated by cmake/layers.cmake from the declared layer graph.\n")
  string(APPEND graph "set(CTXKIT_LAYERS ${layers})\n")
  get_property(allowed GLOBAL PROPERTY CTXKIT_ALLOWED_INCLUDES)
  string(APPEND graph "set(CTXKIT_ALLOWED_INCLUDES ${allowed})\n")
  get_property(getenv GLOBAL PROPERTY CTXKIT_ALLOWED_GETENV)
  string(APPEND graph "set(CTXKIT_ALLOWED_GETENV ${getenv})\n")
  string(APPEND graph
         "set(CTXKIT_ENVIRONMENT_LAYER ${CTXKIT_ENVIRONMENT_LAYER})\n")
  string(APPEND graph
         "set(CTXKIT_REF_TEXT_LAYERS ${CTXKIT_REF_TEXT_LAYERS})\n")
  # The seal names only what exists: a typo must not open a back door.
  foreach(layer IN LISTS CTXKIT_SEAL_ABOVE CTXKIT_SEALED_LAYERS)
    if(NOT layer IN_LIST layers)
      message(FATAL_ERROR "ctxkit: sealed layer '${layer}' is not declared")
    endif()
  endforeach()
  set(open_headers ${CTXKIT_SEALED_OPEN})
  foreach(pair IN LISTS CTXKIT_SEALED_OPEN_TO)
    if(NOT pair MATCHES "^([^:]+):([^:]+)$")
      message(FATAL_ERROR "ctxkit: CTXKIT_SEALED_OPEN_TO: '${pair}' is not "
                          "HEADER:LAYER")
    endif()
    list(APPEND open_headers ${CMAKE_MATCH_1})
    if(NOT CMAKE_MATCH_2 IN_LIST layers)
      message(FATAL_ERROR "ctxkit: CTXKIT_SEALED_OPEN_TO: '${CMAKE_MATCH_2}' "
                          "is not a layer")
    endif()
  endforeach()
  foreach(header IN LISTS open_headers CTXKIT_SEALED_HEADERS)
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/src/${header})
      message(FATAL_ERROR "ctxkit: sealed or opened header src/${header} "
                          "does not exist")
    endif()
  endforeach()
  foreach(var SEAL_ABOVE SEALED_LAYERS SEALED_HEADERS SEALED_OPEN
              SEALED_OPEN_TO)
    string(APPEND graph "set(CTXKIT_${var} ${CTXKIT_${var}})\n")
  endforeach()
  foreach(layer IN LISTS layers)
    get_property(deps GLOBAL PROPERTY CTXKIT_LAYER_DEPS_${layer})
    get_property(headers GLOBAL PROPERTY CTXKIT_LAYER_HEADERS_${layer})
    string(APPEND graph "set(CTXKIT_LAYER_DEPS_${layer} ${deps})\n")
    string(APPEND graph "set(CTXKIT_LAYER_HEADERS_${layer} ${headers})\n")
  endforeach()
  set(graph_file ${PROJECT_BINARY_DIR}/ctxkit_layer_graph.cmake)
  file(CONFIGURE OUTPUT ${graph_file} CONTENT "${graph}" @ONLY)

  file(GLOB_RECURSE checked CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/src/*.h ${PROJECT_SOURCE_DIR}/src/*.cc
       ${PROJECT_SOURCE_DIR}/include/ctxkit/*.h)
  set(stamp ${PROJECT_BINARY_DIR}/ctxkit_layer_check.stamp)
  add_custom_command(
    OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -DGRAPH=${graph_file}
            -DROOT=${PROJECT_SOURCE_DIR} -P
            ${PROJECT_SOURCE_DIR}/cmake/check_layers.cmake
    COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
    DEPENDS ${PROJECT_SOURCE_DIR}/cmake/check_layers.cmake ${graph_file}
            ${checked}
    COMMENT "Checking #include lines against the layer graph"
    VERBATIM)
  add_custom_target(ctxkit_layer_check DEPENDS ${stamp})
endfunction()
