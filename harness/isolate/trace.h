// Where a run's time goes: each child's life cut into spans (start, context, nvrtc, each case,
// exit) on the worker that ran it, written as Chrome trace events (chrome://tracing, Perfetto)
// and summed by kind for the overhead benchmark. Parent and children stamp times with
// steady_clock, which on Linux is CLOCK_MONOTONIC, one clock for every process of the machine.
#pragma once
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/isolate/spawn.h"

namespace ladder::isolate {

// Microseconds on the machine-wide monotonic clock, now or at `t`; children put this in their
// messages ("t_us").
double monotonic_us();
double monotonic_us(std::chrono::steady_clock::time_point t);

struct TraceSpan {
  std::string name;  // "start", "context", "nvrtc", "case 3 rows=4 d=300", "exit", or the rung's name
  std::string kind;  // "rung", "start", "context", "nvrtc", "case", "exit"
  int track = 0;     // the worker that ran it
  double begin_us = 0, end_us = 0;
  nlohmann::json args = nlohmann::json::object();
};

class TraceLog {
 public:
  void add(TraceSpan span);
  // Cuts one child's run into spans from its timestamps: spawn to its first stamp ("start"),
  // context creation, NVRTC loading, each case, and its last stamp to its reaping ("exit").
  // A child that stamped nothing (killed, never started) is one "child" span.
  void add_child(int track, const ChildRun& run);

  std::vector<TraceSpan> spans() const;
  // Total milliseconds by kind, over every span but the rungs' own.
  std::map<std::string, double> totals_ms() const;
  // {"traceEvents": [...]} with times from the first span, in microseconds.
  nlohmann::json chrome_trace() const;

 private:
  mutable std::mutex mu_;
  std::vector<TraceSpan> spans_;
};

}  // namespace ladder::isolate
