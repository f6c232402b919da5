// A case that breaks its process after other cases ran in it is run again alone in a fresh
// process. A stand-in child (a short Python script speaking the child protocol) crashes on
// chosen shapes, so the runner's side is tested without a GPU.
#include <sys/stat.h>

#include <fstream>

#include "harness/isolate/runner.h"
#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder;
using namespace ladder::isolate;

namespace {
// d = 13 crashes wherever it runs; d = 7 crashes only after another case ran in the same process;
// d = 11 reports a sticky CUDA error and stops, as a live child does after an illegal address.
const char* kFakeChild = R"PY(#!/usr/bin/env python3
import json, os, signal, sys
first = int(sys.argv[sys.argv.index("--first-case") + 1])
cases = json.load(sys.stdin)["rungs"][0]["cases"]
out = os.fdopen(3, "w")
def send(m):
    out.write(json.dumps(m) + "\n")
    out.flush()
for i in range(first, len(cases)):
    send({"type": "begin", "index": i})
    d = cases[i]["d"]
    if d == 13 or (d == 7 and i > first):
        os.kill(os.getpid(), signal.SIGSEGV)
    if d == 11:
        send({"type": "case", "index": i, "shape": cases[i], "failure": "crash", "skipped": False,
              "unresolved": False, "stage": "launch", "evidence": "CUDA_ERROR_ILLEGAL_ADDRESS"})
        send({"type": "stopped", "next": i + 1})
        sys.exit(0)
    send({"type": "case", "index": i, "shape": cases[i], "failure": None, "skipped": False,
          "unresolved": False, "stage": "done", "evidence": "ok"})
send({"type": "done"})
)PY";

RunnerOptions fake_options() {
  const std::string path = ladder_test::temp_path("fake_child.py");
  std::ofstream(path) << kFakeChild;
  ::chmod(path.c_str(), 0755);
  RunnerOptions o;
  o.self = path;
  o.timeout_s = 30;
  return o;
}

Rung rung_of(const std::vector<std::int64_t>& ds) {
  Rung r;
  r.name = "fake";
  r.source = "fake.cu";
  for (auto d : ds) r.cases.push_back({{"d", d}});
  return r;
}

const CaseResult& case_at(const RungResult& r, std::size_t index) {
  for (const auto& c : r.cases)
    if (c.index == index) return c;
  FAIL("no case " << index);
  return r.cases.front();
}
}  // namespace

TEST_CASE("a crash after other cases in the process is re-run alone, and confirmed when it fails again", "[isolation]") {
  ToolchainFacts facts;
  const RungResult r = run_rung(rung_of({1, 13, 2}), fake_options(), facts);
  INFO(r.evidence);
  REQUIRE(r.cases.size() == 3);
  CHECK(case_at(r, 1).failure == FailReason::Crash);
  CHECK(case_at(r, 1).evidence.find("[confirmed alone in a fresh process]") != std::string::npos);
  CHECK_FALSE(case_at(r, 2).failure);
  CHECK(r.children == 3);  // the first child, the confirmation, the child that resumed at case 2
  CHECK(r.verdict == Verdict::Fail);
}

TEST_CASE("a sticky CUDA error after other cases is confirmed alone too", "[isolation]") {
  ToolchainFacts facts;
  const RungResult r = run_rung(rung_of({1, 11, 2}), fake_options(), facts);
  INFO(r.evidence);
  REQUIRE(r.cases.size() == 3);
  CHECK(case_at(r, 1).evidence == "CUDA_ERROR_ILLEGAL_ADDRESS [confirmed alone in a fresh process]");
  CHECK_FALSE(case_at(r, 2).failure);
  CHECK(r.children == 3);
}

TEST_CASE("a crash that does not happen alone is said to come from the process, not the case", "[isolation]") {
  ToolchainFacts facts;
  const RungResult r = run_rung(rung_of({1, 7, 2}), fake_options(), facts);
  INFO(r.evidence);
  CHECK(case_at(r, 1).failure == FailReason::Crash);
  CHECK(case_at(r, 1).evidence.find("passed alone in a fresh process: a case before it") != std::string::npos);
}

TEST_CASE("a crash in a process's first case needs no second run", "[isolation]") {
  ToolchainFacts facts;
  const RungResult r = run_rung(rung_of({13, 2}), fake_options(), facts);
  INFO(r.evidence);
  CHECK(case_at(r, 0).failure == FailReason::Crash);
  CHECK(case_at(r, 0).evidence.find('[') == std::string::npos);
  CHECK(r.children == 2);
}
