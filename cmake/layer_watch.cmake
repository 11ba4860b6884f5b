# Watch layer (src/watch/): files on disk mirrored as versioned `file:`
# objects, kept current by inotify (include/ctxkit/watch.h). Included from
# the top-level CMakeLists.txt after layer_index.cmake; it needs only the
# store (and the OS layer's file helpers, which ctxkit_store links).
#
# Linux only: the watcher is built on inotify(7). See docs/watchers.md.

ctxkit_add_layer(watch DEPS store LIBS nlohmann_json::nlohmann_json
                 HEADERS watch.h)
