# Face layer (src/face/): what every face (the CLI, the MCP server, the
# Python and Node packages, the inspector) shares, so that a rule lives in
# the library once and a face only translates: the environment (the one
# place that reads CTXKIT_* and the spec variables), and garbage
# collection as every face starts it (recording, once, what sessions and
# manifests of an earlier build hold).
# Included from the top-level CMakeLists.txt after layer_spawn.cmake.

ctxkit_add_layer(face DEPS session externalize spawn notes index summary
                            store text
                 LIBS nlohmann_json::nlohmann_json
                 HEADERS environment.h agent_tools.h)
