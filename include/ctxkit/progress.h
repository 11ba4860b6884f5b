// Progress of long work, reported to the caller as it goes.
//
// The calls that can run for seconds take a ProgressOptions: the first
// FindRelevant on a large store (FindOptions::progress), garbage
// collection (GarbageOptions::progress), adding a big tree to the watch
// list (WatchOptions::progress) and ingesting a long log
// (Session::Ingest / IngestAppend). They call ProgressOptions::report with
// what they have done so far:
//
//   ctxkit::FindOptions o;
//   o.progress.report = [](const ctxkit::Progress& p) {
//     std::fprintf(stderr, "%s: %llu of %llu %s\n",
//     std::string(p.task).c_str(),
//                  (unsigned long long)p.done, (unsigned long long)p.total,
//                  std::string(p.unit).c_str());
//   };
//   auto found = ctxkit::FindRelevant(view, "token refresh", o);
//
// Contract.
//  - `report` runs on the thread doing the work, synchronously: the work
//    waits for it, so it should be quick. It must not throw, nor call back
//    into the object doing the work.
//  - Reports come at most every ProgressOptions::interval_ms (0: after every
//    step, which tests use), the first one only once the work has run that
//    long, so short work reports nothing.
//  - `done` never decreases within one task; `total` is 0 when the amount of
//    work is not known in advance, and `done` may stop short of `total`
//    when the estimate was high (work another process finished first).
//  - When a task made any report, it ends with exactly one more, with
//    `finished` set, whether the work succeeded or failed, so a terminal
//    line can be completed.
//  - One call may run several tasks one after another (each with its own
//    `task` name and counts).
//
// Thread safety: a ProgressOptions is only read; the same one may be given
// to calls on several threads, and its function is then called from each.

#ifndef CTXKIT_PROGRESS_H_
#define CTXKIT_PROGRESS_H_

#include <cstdint>
#include <functional>
#include <string_view>

namespace ctxkit {

struct Progress {
  // What is being done ("indexing", "collecting", ...) and what `done` and
  // `total` count ("changes", "versions", "files", "messages"). Valid only
  // during the call.
  std::string_view task;
  std::string_view unit;
  uint64_t done = 0;
  uint64_t total = 0;  // 0: not known.
  // Since the task started.
  double elapsed_seconds = 0;
  // The task's last report.
  bool finished = false;
};

using ProgressFunction = std::function<void(const Progress&)>;

struct ProgressOptions {
  // Empty: no reports (the default).
  ProgressFunction report;
  // Least time between two reports, and before the first; 0: every step.
  uint32_t interval_ms = 200;
};

}  // namespace ctxkit

#endif  // CTXKIT_PROGRESS_H_
