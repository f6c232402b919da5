#!/usr/bin/env python3
"""cut_check.py RUN.json[.gz] LOG.txt[.gz]: whether a run cut by SIGINT kept what it should.

The runner's last JSON must say interrupted and not finished; each rung must carry a final
verdict, or be UNRESOLVED with the runner's own words for a rung the signal cut short:
"interrupted after N of M cases", M its cases_total (isolate/runner.cpp; the word
"interrupted" alone or before a space, as isolate/spawn.h's is_interrupted_evidence reads it,
and the case count, as tests/test_interrupted_run.cpp checks); at least one rung must have
finished; counts must agree with the rungs; the log must hold the runner's tally ("N rungs: ...")
and, where the run was under compute-sanitizer, its summary line. Prints one line a finding;
exit 1 if any fails.
"""
import sys

from run_files import read_rungs, read_text


def main(json_path, log_path):
    problems, notes = [], []
    doc = read_rungs(json_path, ("name", "verdict"))
    log = read_text(log_path)
    if doc.get("interrupted") is not True:
        problems.append("the JSON does not say interrupted")
    if doc.get("finished") is not False:
        problems.append("the JSON says finished")
    rungs = doc.get("rungs", [])
    tally = {}
    for r in rungs:
        tally[r["verdict"]] = tally.get(r["verdict"], 0) + 1
    cut = [r for r in rungs if r["verdict"] == "UNRESOLVED"]
    for r in cut:
        evidence, total = r.get("evidence", ""), r.get("cases_total")
        if evidence != "interrupted" and not evidence.startswith("interrupted "):
            problems.append(f"{r['name']}: UNRESOLVED for another reason: {evidence!r}")
        elif f" of {total} cases" not in evidence:
            problems.append(f"{r['name']}: cut without saying how far of its {total} cases: {evidence!r}")
    done = len(rungs) - len(cut)
    if done < 1:
        problems.append("no rung finished before the cut")
    counts = {k: v for k, v in doc.get("counts", {}).items() if v}
    if counts != tally:
        problems.append(f"counts {counts} differ from the rungs' verdicts {tally}")
    if "rungs:" not in log:
        problems.append("the log holds no tally line")
    sanitized = "COMPUTE-SANITIZER" in log
    summary = [l for l in log.splitlines() if "SUMMARY" in l]
    if sanitized and not summary:
        problems.append("compute-sanitizer ran but printed no summary")
    notes.append(f"{json_path}: {len(rungs)} rungs kept, {done} finished ({tally}); "
                 f"cut: {', '.join(r['name'] + ' (' + r['evidence'] + ')' for r in cut) or 'none'}")
    if summary:
        notes.append("sanitizer: " + "; ".join(sorted(set(s.strip() for s in summary))))
    for line in notes + [f"PROBLEM: {p}" for p in problems]:
        print(line)
    print("cut_check: " + ("kept what it should" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
