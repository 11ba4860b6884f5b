# Externalize layer (src/externalize/): SPEC-25 context as variables. A
# session's context (chat, files, tool outputs, working memory, custom
# variables) stays in the store as variables the root LLM explores with
# helpers; the root prompt carries only the query and short summaries
# (include/ctxkit/externalize.h, docs/externalize.md).
# Included from the top-level CMakeLists.txt after layer_capture.cmake: it
# reads sessions and toolcalls (ctxkit_session), summarizes (ctxkit_summary),
# explores (ctxkit_explore) and ranks/chunks (ctxkit_index).

ctxkit_add_layer(externalize DEPS session index summary explore store text
                 LIBS nlohmann_json::nlohmann_json HEADERS externalize.h)
