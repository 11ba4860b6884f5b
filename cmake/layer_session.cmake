# Session layer (src/session/): the context manager. Sessions with metadata
# and active pools, pins and locks, harness-log ingestion, the collapse
# policy and budgeted stable-prefix rendering (include/ctxkit/session.h,
# include/ctxkit/toolcall.h). Included from the top-level CMakeLists.txt
# after layer_watch.cmake; it depends on store, text and summary, not on
# index (a render's metadata index is the session's own).
#
# Session state is one JSON object in the store (docs/sessions.md); token
# counts use the tokenizer (ctxkit_text) and one-line summaries the
# structural summarizer (ctxkit_summary).

ctxkit_add_layer(session DEPS store text summary
                 LIBS nlohmann_json::nlohmann_json
                 HEADERS session.h toolcall.h)
