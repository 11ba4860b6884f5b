// Chat logs given to `session ingest`: the OpenAI and Anthropic parsers
// never crash, whatever the input (src/session/log_parse.h).

#include <cstdint>
#include <string_view>

#include "session/log_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (ctxkit::LogFormat format :
       {ctxkit::LogFormat::kOpenAI, ctxkit::LogFormat::kAnthropic}) {
    ctxkit::Result<ctxkit::session::ParsedLog> log =
        ctxkit::session::ParseLog(text, format);
    (void)log;
  }
  return 0;
}
