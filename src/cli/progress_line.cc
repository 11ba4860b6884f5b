#include "cli/progress_line.h"

#include <unistd.h>

#include <cstdio>

#include "core/progress_meter.h"
#include "face/environment.h"

namespace ctxkit::cli {
namespace {

void WriteStderr(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

ProgressOptions TerminalProgress(bool quiet) {
  ProgressOptions options;
  options.interval_ms = env::ProgressIntervalFromEnv();
  if (quiet || ::isatty(STDERR_FILENO) != 1) return options;
  options.report = [](const Progress& p) {
    // Back to the start of the line, the text, then clear what a longer
    // earlier text left.
    WriteStderr("\r" + core::ProgressText(p) + "\x1b[K" +
                (p.finished ? "\n" : ""));
  };
  return options;
}

}  // namespace ctxkit::cli
