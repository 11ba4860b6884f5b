// The library's side of ctxkit/progress.h: a task counts its steps into a
// ProgressMeter, which calls the caller's function no more often than it
// asked and ends the task's reports when it goes out of scope.

#ifndef CTXKIT_CORE_PROGRESS_METER_H_
#define CTXKIT_CORE_PROGRESS_METER_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "ctxkit/progress.h"

namespace ctxkit::core {

// One report as the faces show it: "indexing: 12,345 of 100,000 changes
// (12%), 4,120/s, about 21 s left" (the total, share and estimate only
// when the total is known); a finished one: "indexing: 100,000 changes in
// 13.2 s".
std::string ProgressText(const Progress& p);

class ProgressMeter {
 public:
  // `options` must outlive the meter; `task` and `unit` are string
  // literals (or outlive it). A meter of options without a function does
  // nothing at all.
  ProgressMeter(const ProgressOptions& options, std::string_view task,
                std::string_view unit, uint64_t total = 0);
  // The finishing report, when any report was made.
  ~ProgressMeter();
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  // `done` steps so far (never less than before; a smaller value is
  // ignored); reports when the interval has passed.
  void Reach(uint64_t done);
  void Advance(uint64_t steps = 1) { Reach(done_ + steps); }
  // A better estimate of the total.
  void SetTotal(uint64_t total) { total_ = total; }
  uint64_t done() const { return done_; }

 private:
  void Report(bool finished);

  const ProgressOptions& options_;
  const std::string_view task_;
  const std::string_view unit_;
  const std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point next_;
  uint64_t done_ = 0;
  uint64_t total_;
  bool reported_ = false;
};

}  // namespace ctxkit::core

#endif  // CTXKIT_CORE_PROGRESS_METER_H_
