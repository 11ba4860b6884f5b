# Capture layer (src/capture/): tool-output capture, large tool outputs as
# JSON files other programs read, small ones in memory, every one also a
# toolcall object (include/ctxkit/capture.h, docs/tool-capture.md).
# Included from the top-level CMakeLists.txt after layer_session.cmake (it
# records toolcall objects through ctxkit_session); its file locks and
# descriptors are os/posix_io.h's.
#
# Selection for the answer phase uses the LLM client (ctxkit_llm) when
# configured and SQLite FTS5's BM25 otherwise.

ctxkit_add_layer(capture DEPS session store index llm
                 LIBS ${ctxkit_sqlite} nlohmann_json::nlohmann_json
                 HEADERS capture.h)
