# Summaries (src/summary/) and the LLM client they use (src/llm/).
# Included from the top-level CMakeLists.txt. The structural summarizers
# themselves are pure functions in src/text/summarize_*.cc (ctxkit_text).
#
#   ctxkit_llm      OpenAI-compatible chat-completions client (libcurl)
#   ctxkit_summary  Summarize/SummarizeDeferred by handle, the durable cache

find_package(CURL REQUIRED)

ctxkit_add_layer(llm ctxkit_core CURL::libcurl nlohmann_json::nlohmann_json)
ctxkit_add_layer(summary ctxkit_store ctxkit_text ctxkit_llm
                 nlohmann_json::nlohmann_json)

list(APPEND CTXKIT_EXTRA_LAYERS ctxkit_llm ctxkit_summary)
