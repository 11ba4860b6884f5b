# Index layer (src/index/): find_relevant over a full-text index of chunks
# (include/ctxkit/index.h). Included from the top-level CMakeLists.txt after
# layer_summary.cmake (it uses ctxkit_llm for the embeddings client).
#
# The index is its own SQLite database, <home>/index.db, with FTS5 (Debian's
# libsqlite3 is built with SQLITE_ENABLE_FTS5). See docs/index.md.

ctxkit_add_layer(index DEPS store text llm
                 LIBS ${ctxkit_sqlite} nlohmann_json::nlohmann_json
                 HEADERS index.h chunk.h)
