# Spawn layer (src/spawn/): sub-agents with refs. Spawn pins the refs a
# parent passes and writes a manifest (JSON, docs/spawn.md) a separate
# process reads to resolve them from the same store; the child's result
# comes back as a ref (include/ctxkit/spawn.h).
# Included from the top-level CMakeLists.txt after layer_capture.cmake; it
# needs only the store (and the OS layer's atomic file writes).

ctxkit_add_layer(spawn DEPS store LIBS nlohmann_json::nlohmann_json
                 HEADERS spawn.h)
