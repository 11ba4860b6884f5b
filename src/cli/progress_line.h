// Progress of long verbs on the terminal: one line on stderr, rewritten in
// place (a count, a rate and, when the total is known, an estimate of the
// time left), completed when the work ends. Nothing is written when stderr
// is not a terminal or with --quiet, so pipes and logs never see it.

#ifndef CTXKIT_CLI_PROGRESS_LINE_H_
#define CTXKIT_CLI_PROGRESS_LINE_H_

#include "ctxkit/progress.h"

namespace ctxkit::cli {

// Options whose reports draw that line (core::ProgressText) on stderr,
// at most every $CTXKIT_PROGRESS_INTERVAL_MS; no reports (an empty
// function) when `quiet` or stderr is not a terminal.
ProgressOptions TerminalProgress(bool quiet);

}  // namespace ctxkit::cli

#endif  // CTXKIT_CLI_PROGRESS_LINE_H_
