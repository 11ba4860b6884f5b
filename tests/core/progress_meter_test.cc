// core::ProgressMeter keeps ctxkit/progress.h's contract: no reports without
// a function or before the interval, never a smaller count, one finishing
// report when any was made.

#include "core/progress_meter.h"

#include <gtest/gtest.h>

#include <vector>

namespace ctxkit::core {
namespace {

struct Seen {
  uint64_t done;
  uint64_t total;
  bool finished;
};

ProgressOptions Recording(std::vector<Seen>* seen, uint32_t interval_ms) {
  ProgressOptions o;
  o.interval_ms = interval_ms;
  o.report = [seen](const Progress& p) {
    EXPECT_EQ(p.task, "reading");
    EXPECT_EQ(p.unit, "files");
    EXPECT_GE(p.elapsed_seconds, 0);
    seen->push_back({p.done, p.total, p.finished});
  };
  return o;
}

TEST(ProgressMeterTest, EveryStepThenOneFinishingReport) {
  std::vector<Seen> seen;
  const ProgressOptions o = Recording(&seen, 0);
  {
    ProgressMeter m(o, "reading", "files", 3);
    m.Advance();
    m.Reach(1);  // Not more: no report.
    m.Reach(0);  // Less: ignored.
    m.Advance(2);
    EXPECT_EQ(m.done(), 3u);
  }
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].done, 1u);
  EXPECT_EQ(seen[1].done, 3u);
  EXPECT_FALSE(seen[1].finished);
  EXPECT_EQ(seen[2].done, 3u);
  EXPECT_EQ(seen[2].total, 3u);
  EXPECT_TRUE(seen[2].finished);
}

TEST(ProgressMeterTest, ShortWorkReportsNothing) {
  std::vector<Seen> seen;
  const ProgressOptions o = Recording(&seen, 60000);
  {
    ProgressMeter m(o, "reading", "files");
    for (int i = 0; i < 1000; ++i) m.Advance();
  }
  EXPECT_TRUE(seen.empty());
}

TEST(ProgressMeterTest, WithoutAFunctionNothingIsCounted) {
  const ProgressOptions none;
  ProgressMeter m(none, "reading", "files");
  m.Advance(5);
  EXPECT_EQ(m.done(), 0u);  // Nothing to report to: no work done here.
}

TEST(ProgressMeterTest, TheTotalCanBeRevised) {
  std::vector<Seen> seen;
  const ProgressOptions o = Recording(&seen, 0);
  ProgressMeter m(o, "reading", "files", 10);
  m.SetTotal(4);
  m.Advance();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].total, 4u);
}

TEST(ProgressTextTest, CountRateAndEstimate) {
  Progress p;
  p.task = "indexing";
  p.unit = "changes";
  p.done = 12345;
  p.total = 100000;
  p.elapsed_seconds = 3;
  EXPECT_EQ(ProgressText(p),
            "indexing: 12,345 of 100,000 changes (12%), 4,115/s, about 21 s "
            "left");
  p.total = 0;
  EXPECT_EQ(ProgressText(p), "indexing: 12,345 changes, 4,115/s");
  p.finished = true;
  p.elapsed_seconds = 13.24;
  EXPECT_EQ(ProgressText(p), "indexing: 12,345 changes in 13 s");
  p.elapsed_seconds = 125;
  EXPECT_EQ(ProgressText(p), "indexing: 12,345 changes in 2 min 05 s");
  p.elapsed_seconds = 0.42;
  EXPECT_EQ(ProgressText(p), "indexing: 12,345 changes in 0.4 s");
}

}  // namespace
}  // namespace ctxkit::core
