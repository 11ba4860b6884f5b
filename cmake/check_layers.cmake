# Checks every #include "..." line of a source tree against the layer graph.
#
#   cmake -DGRAPH=<graph.cmake> -DROOT=<tree> -P cmake/check_layers.cmake
#
# GRAPH sets CTXKIT_LAYERS, and for each layer CTXKIT_LAYER_DEPS_<layer>
# (its direct dependencies) and CTXKIT_LAYER_HEADERS_<layer> (the
# include/ctxkit/*.h files it owns); cmake/layers.cmake writes it from the
# graph the build declares. Checked: ROOT/src/<layer>/ for each layer, and
# ROOT/include/ctxkit/*.h as part of the layer owning each. An include names
# a layer by its first path component ("store/x.h": store), or by the owner
# of a public header ("ctxkit/store.h"); it must be the file's own layer or
# one below it. Any violation fails, naming file, line and the allowed
# layers. Angle-bracket includes (system and third-party) are not checked.
#
# Sealed layers: a layer above CTXKIT_SEAL_ABOVE (one whose allowed layers
# include it) may not include a header of the CTXKIT_SEALED_LAYERS, nor one
# of the CTXKIT_SEALED_HEADERS, unless the header is in CTXKIT_SEALED_OPEN
# or CTXKIT_SEALED_OPEN_TO names it with that layer ("header:layer"). A
# graph without CTXKIT_SEAL_ABOVE seals nothing.
#
# Two rules ride along on the same pass: only CTXKIT_ENVIRONMENT_LAYER reads
# the environment (getenv), and only the layers in CTXKIT_REF_TEXT_LAYERS
# test text for a ref's "ck:" prefix (starts_with("ck:"), rfind("ck:", 0),
# substr(0, 3) == "ck:", compare(0, 3, "ck:"), ...): every other layer asks
# Target::Parse or Target::IsRefText (include/ctxkit/target.h), so the text
# form of a key-or-ref is read in one place.

cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED GRAPH OR NOT DEFINED ROOT)
  message(FATAL_ERROR "usage: cmake -DGRAPH=<graph.cmake> -DROOT=<tree> "
                      "-P check_layers.cmake")
endif()
include(${GRAPH})

# allowed_<layer>: the layer and everything below it.
foreach(layer IN LISTS CTXKIT_LAYERS)
  set(allowed_${layer} ${layer})
  foreach(dep IN LISTS CTXKIT_LAYER_DEPS_${layer})
    # Layers are declared in dependency order, so allowed_${dep} is complete.
    list(APPEND allowed_${layer} ${allowed_${dep}})
  endforeach()
  list(REMOVE_DUPLICATES allowed_${layer})
  foreach(header IN LISTS CTXKIT_LAYER_HEADERS_${layer})
    set(owner_${header} ${layer})
  endforeach()
endforeach()

# sealed_<layer>: TRUE for the layers above CTXKIT_SEAL_ABOVE.
if(DEFINED CTXKIT_SEAL_ABOVE AND NOT CTXKIT_SEAL_ABOVE STREQUAL "")
  foreach(layer IN LISTS CTXKIT_LAYERS)
    if(NOT layer STREQUAL CTXKIT_SEAL_ABOVE AND
       CTXKIT_SEAL_ABOVE IN_LIST allowed_${layer})
      set(sealed_${layer} TRUE)
    endif()
  endforeach()
endif()

set(violations 0)

# Checks the quoted includes of one file of `layer`.
function(check_file file layer)
  file(READ ${file} text)
  if(NOT text MATCHES "#[ \t]*include[ \t]*\"" AND NOT text MATCHES "getenv"
     AND NOT text MATCHES "\"ck:")
    return()
  endif()
  # One list element per line: neutralize what CMake lists treat specially.
  string(REPLACE "\\" "/" text "${text}")
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\n" ";" all_lines "${text}")
  file(RELATIVE_PATH rel ${ROOT} ${file})
  set(count ${violations})
  set(number 0)
  foreach(line IN LISTS all_lines)
    math(EXPR number "${number} + 1")
    # Only the environment layer reads the environment (CTXKIT_* and the
    # rest reach every face the same way); comments may name getenv.
    if(line MATCHES "(^|[^A-Za-z0-9_])getenv[ \t]*\\(" AND
       NOT line MATCHES "^[ \t]*//" AND
       NOT layer STREQUAL "${CTXKIT_ENVIRONMENT_LAYER}" AND
       NOT rel IN_LIST CTXKIT_ALLOWED_GETENV)
      message(SEND_ERROR
        "${rel}:${number}: getenv: only layer "
        "'${CTXKIT_ENVIRONMENT_LAYER}' reads the environment "
        "(src/${CTXKIT_ENVIRONMENT_LAYER}/environment.h)")
      math(EXPR count "${count} + 1")
    endif()
    # Only the ref-text layers test for the ref prefix; a "ck:" literal
    # beside a comparison or a prefix test is one.
    if(line MATCHES "\"ck:" AND
       line MATCHES "(starts_with|rfind|compare|substr|find|strncmp|memcmp)[ \t]*\\(|[=!]=" AND
       NOT line MATCHES "^[ \t]*//" AND
       NOT layer IN_LIST CTXKIT_REF_TEXT_LAYERS)
      list(JOIN CTXKIT_REF_TEXT_LAYERS ", " ref_layers)
      message(SEND_ERROR
        "${rel}:${number}: tests for the \"ck:\" prefix: only layers "
        "${ref_layers} read a ref's text form; use Target::Parse or "
        "Target::IsRefText (include/ctxkit/target.h)")
      math(EXPR count "${count} + 1")
    endif()
    if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"")
      continue()
    endif()
    set(target ${CMAKE_MATCH_1})
    if("${rel}:${target}" IN_LIST CTXKIT_ALLOWED_INCLUDES)
      continue()
    endif()
    set(target_layer "")
    if(target MATCHES "^ctxkit/(.+)$")
      set(header ${CMAKE_MATCH_1})
      if(DEFINED owner_${header})
        set(target_layer ${owner_${header}})
      else()
        set(why "include/ctxkit/${header} is owned by no layer")
      endif()
    elseif(target MATCHES "^([^/]+)/")
      set(target_layer ${CMAKE_MATCH_1})
      if(NOT target_layer IN_LIST CTXKIT_LAYERS)
        set(why "'${target_layer}' is not a layer")
        set(target_layer "")
      endif()
    else()
      set(why "name the header by its layer folder (\"${layer}/${target}\")")
    endif()
    if(target_layer STREQUAL "")
      message(SEND_ERROR "${rel}:${number}: #include \"${target}\": ${why}")
      math(EXPR count "${count} + 1")
    elseif(NOT target_layer IN_LIST allowed_${layer})
      list(JOIN allowed_${layer} " " allowed)
      message(SEND_ERROR
        "${rel}:${number}: #include \"${target}\" reaches layer "
        "'${target_layer}'; layer '${layer}' may include only: ${allowed}")
      math(EXPR count "${count} + 1")
    elseif(sealed_${layer} AND
           (target_layer IN_LIST CTXKIT_SEALED_LAYERS OR
            target IN_LIST CTXKIT_SEALED_HEADERS) AND
           NOT target IN_LIST CTXKIT_SEALED_OPEN AND
           NOT "${target}:${layer}" IN_LIST CTXKIT_SEALED_OPEN_TO)
      list(JOIN CTXKIT_SEALED_LAYERS " " sealed)
      list(JOIN CTXKIT_SEALED_HEADERS " " sealed_headers)
      message(SEND_ERROR
        "${rel}:${number}: #include \"${target}\" is sealed: layers above "
        "'${CTXKIT_SEAL_ABOVE}' reach the store's bytes only through it "
        "(sealed above it: layers ${sealed}; headers ${sealed_headers}; "
        "see CTXKIT_SEALED_OPEN in cmake/layers.cmake)")
      math(EXPR count "${count} + 1")
    endif()
  endforeach()
  set(violations ${count} PARENT_SCOPE)
endfunction()

foreach(layer IN LISTS CTXKIT_LAYERS)
  file(GLOB files ${ROOT}/src/${layer}/*.h ${ROOT}/src/${layer}/*.cc)
  foreach(header IN LISTS CTXKIT_LAYER_HEADERS_${layer})
    list(APPEND files ${ROOT}/include/ctxkit/${header})
  endforeach()
  foreach(file IN LISTS files)
    check_file(${file} ${layer})
  endforeach()
endforeach()

# Every public header belongs to a layer; every folder under src/ is one.
file(GLOB public_headers RELATIVE ${ROOT}/include/ctxkit
     ${ROOT}/include/ctxkit/*.h)
foreach(header IN LISTS public_headers)
  if(NOT DEFINED owner_${header})
    message(SEND_ERROR "include/ctxkit/${header}: owned by no layer (name it "
                       "in HEADERS of the layer that implements it)")
    math(EXPR violations "${violations} + 1")
  endif()
endforeach()
file(GLOB folders LIST_DIRECTORIES true RELATIVE ${ROOT}/src ${ROOT}/src/*)
foreach(folder IN LISTS folders)
  if(IS_DIRECTORY ${ROOT}/src/${folder} AND NOT folder IN_LIST CTXKIT_LAYERS)
    message(SEND_ERROR "src/${folder}/: not a declared layer")
    math(EXPR violations "${violations} + 1")
  endif()
endforeach()

if(violations GREATER 0)
  message(FATAL_ERROR "layer check: ${violations} line(s) break the layer "
                      "graph (docs/architecture.md, cmake/layers.cmake)")
endif()
