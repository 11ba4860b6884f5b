# Session layer (src/session/): the context manager. Sessions with metadata
# and active pools, pins and locks, harness-log ingestion, the collapse
# policy and budgeted stable-prefix rendering (include/ctxkit/session.h,
# include/ctxkit/render.h, include/ctxkit/toolcall.h). Included from the
# top-level CMakeLists.txt after layer_index.cmake.
#
# Session state is one JSON object in the store (docs/sessions.md); token
# counts use the tokenizer (ctxkit_text) and one-line summaries the
# structural summarizer (ctxkit_summary).

ctxkit_add_layer(session ctxkit_store ctxkit_text ctxkit_summary
                 nlohmann_json::nlohmann_json)

list(APPEND CTXKIT_EXTRA_LAYERS ctxkit_session)
