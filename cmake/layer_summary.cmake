# Summaries (src/summary/) and the LLM client they use (src/llm/).
# Included from the top-level CMakeLists.txt. The structural summarizers
# themselves are pure functions in src/text/summarize_*.cc (ctxkit_text).
#
#   ctxkit_llm      OpenAI-compatible chat-completions and embeddings
#                   clients (libcurl, loaded with dlopen on first use: only
#                   its headers here); replies parsed as outside JSON
#                   (text/json_parse.h)
#   ctxkit_summary  Summarize/SummarizeDeferred by handle, the durable cache

find_package(CURL REQUIRED)

ctxkit_add_layer(llm DEPS core text
                 LIBS nlohmann_json::nlohmann_json)
target_include_directories(ctxkit_llm SYSTEM PRIVATE ${CURL_INCLUDE_DIRS})
ctxkit_add_layer(summary DEPS store text llm
                 LIBS nlohmann_json::nlohmann_json HEADERS summary.h)
