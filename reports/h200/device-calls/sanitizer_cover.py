#!/usr/bin/env python3
"""sanitizer_cover.py LADDER.json... -- RUN.json[.gz]...: whether runs under compute-sanitizer
together passed every rung of the given ladders with no error from the sanitizer.

LADDER files are the rungs that must be covered (`ladder verify ... --write-ladder FILE`). Each
RUN is a runner's JSON document; its log is the file beside it with .txt[.gz] for .json[.gz]
(ladder_ops in call_env.sh writes both). A rung counts as covered when some run gives it PASS.
Why several runs: a run cut by SIGINT keeps what finished, and a later run takes up the rest.
Findings, one line each, exit 1 if any:
- a log without exactly one clean summary line ("ERROR SUMMARY: 0 errors" from memcheck,
  synccheck and initcheck; "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
  from racecheck, whose hazards of warning severity count too), or with any other sanitizer
  line than the banner and that summary (a hazard, an error, a summary of another count), save
  "Target application returned an error" where the run was cut or left a rung UNRESOLVED (the
  runner then exits 2 by design; isolate/runner.cpp);
- a rung that FAILed or XPASSed in any run;
- a rung of a run that no ladder holds (the run's build and the ladders' disagree);
- a rung of the ladders that no run passed.
A rung UNRESOLVED in one run (cut, or a child that got no context) and PASS in another is listed
as a note, not a finding.
"""
import sys

from run_files import log_path_of, read_rungs, read_text

SANITIZER_PREFIX = "========= "
BANNER_LINE = "========= COMPUTE-SANITIZER"
SUMMARY_PREFIXES = ("========= ERROR SUMMARY", "========= RACECHECK SUMMARY")
CLEAN_SUMMARIES = ("========= ERROR SUMMARY: 0 errors",
                   "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)")
RUNNER_EXIT_LINE = "========= Target application returned an error"


def log_findings(path, runner_may_fail):
    lines = [ln.strip() for ln in read_text(path).splitlines() if ln.startswith(SANITIZER_PREFIX)]
    found = []
    summaries = [ln for ln in lines if ln.startswith(SUMMARY_PREFIXES)]
    if len(summaries) != 1 or summaries[0] not in CLEAN_SUMMARIES:
        found.append(f"{path}: expected one clean summary ('ERROR SUMMARY: 0 errors' or"
                     f" 'RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)'),"
                     f" found {summaries}")
    allowed = (BANNER_LINE,) + ((RUNNER_EXIT_LINE,) if runner_may_fail else ())
    other = [ln for ln in lines if ln not in allowed and ln not in summaries]
    if other:
        found.append(f"{path}: {len(other)} other sanitizer line(s), first: {other[0]!r}")
    return found


def main(argv):
    if "--" not in argv:
        raise SystemExit(__doc__)
    split = argv.index("--")
    ladders, runs = argv[:split], argv[split + 1:]
    if not ladders or not runs:
        raise SystemExit(__doc__)
    expected = set()
    for path in ladders:
        expected |= {r["name"] for r in read_rungs(path)["rungs"]}
    problems, notes = [], []
    verdicts = {}
    for path in runs:
        doc = read_rungs(path, ("name", "verdict"))
        unresolved = any(r["verdict"] == "UNRESOLVED" for r in doc["rungs"])
        problems += log_findings(log_path_of(path), doc.get("interrupted") is True or unresolved)
        for r in doc["rungs"]:
            verdicts.setdefault(r["name"], []).append((r["verdict"], r.get("evidence", ""), path))
    for name, seen in sorted(verdicts.items()):
        if name not in expected:
            problems.append(f"{name}: run but in no ladder given")
        for verdict, evidence, path in seen:
            if verdict in ("FAIL", "XPASS"):
                problems.append(f"{name}: {verdict} in {path}: {evidence}")
        if any(v == "PASS" for v, _, _ in seen) and any(v != "PASS" for v, _, _ in seen):
            other = [f"{v} ({e}) in {p}" for v, e, p in seen if v != "PASS"]
            notes.append(f"{name}: PASS elsewhere; " + "; ".join(other))
    passed = {n for n, seen in verdicts.items() if any(v == "PASS" for v, _, _ in seen)}
    missing = sorted(expected - passed)
    for name in missing:
        problems.append(f"{name}: no run passed it")
    for line in notes:
        print("note:", line)
    for line in problems:
        print("FINDING:", line)
    print(f"{len(expected & passed)} of {len(expected)} rungs passed in {len(runs)} run(s);"
          f" {len(problems)} finding(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
