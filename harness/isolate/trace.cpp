#include "harness/isolate/trace.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include <fmt/format.h>

namespace ladder::isolate {
using nlohmann::json;

double monotonic_us() { return monotonic_us(std::chrono::steady_clock::now()); }

double monotonic_us(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::micro>(t.time_since_epoch()).count();
}

void TraceLog::add(TraceSpan span) {
  if (span.end_us < span.begin_us) span.end_us = span.begin_us;
  std::lock_guard lock(mu_);
  spans_.push_back(std::move(span));
}

void TraceLog::add_child(int track, const ChildRun& run) {
  auto span = [&](std::string name, std::string kind, double b, double e, json args = json::object()) {
    add({std::move(name), std::move(kind), track, b, e, std::move(args)});
  };
  if (run.started_us <= 0) return;  // never started
  double last = 0;     // the child's latest stamp
  double main_us = 0;  // when its main began
  std::optional<double> case_begin;
  std::string case_name;
  for (const auto& m : run.messages) {
    const double t = m.value("t_us", 0.0);
    if (t <= 0) continue;
    last = std::max(last, t);
    const std::string type = m.value("type", "");
    if (type == "toolchain") {
      const json& s = m.value("stamps", json::object());
      main_us = s.value("main", 0.0);
      if (s.contains("context_begin")) span("context", "context", s["context_begin"], s.value("context_end", t));
      if (s.contains("nvrtc_begin")) span("nvrtc", "nvrtc", s["nvrtc_begin"], s.value("nvrtc_end", t));
    } else if (type == "compile") {
      const double ms = m.value("ms", 0.0);
      span(fmt::format("compile {}", m.value("entry", "")), "compile", t - 1000 * ms, t,
           {{"cache_hit", m.value("cache_hit", false)}});
    } else if (type == "begin") {
      case_begin = t;
      case_name = fmt::format("case {}", m.value("index", 0));
    } else if (type == "case" && case_begin) {
      json args = {{"stage_ms", m.value("ms", json::object())}};
      if (m.contains("shape")) args["shape"] = m["shape"];
      span(case_name, "case", *case_begin, t, std::move(args));
      case_begin.reset();
    }
  }
  if (main_us <= 0 || last <= 0) {
    span("child", "child", run.started_us, run.ended_us, {{"stamped", false}});
    return;
  }
  span("start", "start", run.started_us, main_us);
  // A case the child never finished (a crash, a timeout) ends where the child was reaped.
  if (case_begin) span(case_name + " (unfinished)", "case", *case_begin, run.ended_us);
  else span("exit", "exit", last, run.ended_us);
}

std::vector<TraceSpan> TraceLog::spans() const {
  std::lock_guard lock(mu_);
  return spans_;
}

std::map<std::string, double> TraceLog::totals_ms() const {
  std::map<std::string, double> out;
  for (const auto& s : spans())
    if (s.kind != "rung") out[s.kind] += (s.end_us - s.begin_us) / 1000;
  return out;
}

json TraceLog::chrome_trace() const {
  auto all = spans();
  double origin = 0;
  for (const auto& s : all) origin = origin == 0 ? s.begin_us : std::min(origin, s.begin_us);
  // Outer spans first where they start together, so viewers nest them.
  std::stable_sort(all.begin(), all.end(), [](const TraceSpan& a, const TraceSpan& b) {
    return a.begin_us != b.begin_us ? a.begin_us < b.begin_us : a.end_us > b.end_us;
  });
  json events = json::array();
  for (const auto& s : all)
    events.push_back({{"name", s.name}, {"cat", s.kind}, {"ph", "X"}, {"pid", 1}, {"tid", s.track},
                      {"ts", s.begin_us - origin}, {"dur", s.end_us - s.begin_us}, {"args", s.args}});
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace ladder::isolate
