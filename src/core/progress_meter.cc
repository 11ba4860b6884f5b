#include "core/progress_meter.h"

#include <cmath>
#include <cstdio>

#include "core/format.h"

namespace ctxkit::core {
namespace {

// "0.4 s", "21 s", "3 min 05 s", "2 h 07 min".
std::string Duration(double seconds) {
  char buf[48];
  if (seconds < 10) {
    std::snprintf(buf, sizeof buf, "%.1f s", seconds);
  } else if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.0f s", seconds);
  } else if (seconds < 3600) {
    const auto s = static_cast<long>(std::lround(seconds));
    std::snprintf(buf, sizeof buf, "%ld min %02ld s", s / 60, s % 60);
  } else {
    const auto m = static_cast<long>(std::lround(seconds / 60));
    std::snprintf(buf, sizeof buf, "%ld h %02ld min", m / 60, m % 60);
  }
  return buf;
}

}  // namespace

std::string ProgressText(const Progress& p) {
  std::string out = std::string(p.task) + ": " + core::GroupedNumber(p.done);
  if (p.finished) {
    return out + " " + std::string(p.unit) + " in " +
           Duration(p.elapsed_seconds);
  }
  const bool known = p.total >= p.done && p.total > 0;
  if (known) out += " of " + core::GroupedNumber(p.total);
  out += " " + std::string(p.unit);
  if (known) out += " (" + std::to_string(p.done * 100 / p.total) + "%)";
  if (p.elapsed_seconds <= 0 || p.done == 0) return out;
  const double rate = static_cast<double>(p.done) / p.elapsed_seconds;
  out += ", " + core::GroupedNumber(static_cast<uint64_t>(rate)) + "/s";
  if (known) {
    out += ", about " + Duration(static_cast<double>(p.total - p.done) / rate) +
           " left";
  }
  return out;
}

ProgressMeter::ProgressMeter(const ProgressOptions& options,
                             std::string_view task, std::string_view unit,
                             uint64_t total)
    : options_(options),
      task_(task),
      unit_(unit),
      start_(std::chrono::steady_clock::now()),
      next_(start_ + std::chrono::milliseconds(options.interval_ms)),
      total_(total) {}

ProgressMeter::~ProgressMeter() {
  if (reported_) Report(/*finished=*/true);
}

void ProgressMeter::Reach(uint64_t done) {
  if (done <= done_ || !options_.report) return;
  done_ = done;
  const auto now = std::chrono::steady_clock::now();
  if (options_.interval_ms != 0 && now < next_) return;
  next_ = now + std::chrono::milliseconds(options_.interval_ms);
  Report(/*finished=*/false);
}

void ProgressMeter::Report(bool finished) {
  Progress p;
  p.task = task_;
  p.unit = unit_;
  p.done = done_;
  p.total = total_;
  p.elapsed_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  p.finished = finished;
  reported_ = true;
  options_.report(p);
}

}  // namespace ctxkit::core
