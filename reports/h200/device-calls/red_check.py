#!/usr/bin/env python3
"""red_check.py --plain PLAIN.json[.gz] --sanitized RUN.json[.gz] --red RUNG... [--quiet RUNG...]:
whether a demo ladder shows a compute-sanitizer tool red, from a call's stored files.

A demo's rungs hide a fault from every value check (probes/memcheck_demo.json,
probes/synccheck_demo.json). Shown red means all of:
- PLAIN, the ladder run without a sanitizer, gives every rung PASS: no value check sees it;
- RUN, the same ladder under the sanitizer, has a log (beside it, as ladder_ops writes) whose
  ERROR SUMMARY counts at least one error;
- each --red rung is reported: some sanitizer line reads "at RUNG+0x..." (a demo's rung is named
  after its kernel's entry, which the sanitizer prints) and the rung is not PASS under it (the
  tool ends the launch it reports);
- each --quiet rung (a misuse the tool is known not to report) is PASS under the sanitizer, with
  no sanitizer line naming it, so that what the tool does not see is written down, not assumed.
Prints one line a check and exits 1 if any fails.
"""
import argparse
import re
import sys

from run_files import log_path_of, read_rungs, read_text


def verdicts_of(path):
    return {r["name"]: r for r in read_rungs(path, ("name", "verdict"))["rungs"]}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plain", required=True)
    parser.add_argument("--sanitized", required=True)
    parser.add_argument("--red", nargs="+", required=True)
    parser.add_argument("--quiet", nargs="*", default=[])
    args = parser.parse_args(argv)
    checks = []  # (ok, line)

    plain = verdicts_of(args.plain)
    for name in args.red + args.quiet:
        rung = plain.get(name)
        verdict = rung["verdict"] if rung else "absent"
        checks.append((verdict == "PASS", f"plain run: {name} {verdict} (every value check passes it)"))

    log = read_text(log_path_of(args.sanitized))
    counts = [int(m) for m in re.findall(r"^========= ERROR SUMMARY: (\d+) errors?$", log, re.M)]
    checks.append((len(counts) == 1 and counts[0] > 0,
                   f"sanitized run: ERROR SUMMARY counts {counts} (one summary, at least one error)"))
    sanitized = verdicts_of(args.sanitized)
    located = re.findall(r"^=========\s+at (\S+?)\+0x", log, re.M)

    def under_sanitizer(name):  # (the rung or None, its verdict, how often the log locates it)
        rung = sanitized.get(name)
        return rung, rung["verdict"] if rung else "absent", located.count(name)

    for name in args.red:
        rung, verdict, hits = under_sanitizer(name)
        checks.append((hits > 0 and verdict not in ("PASS", "absent"),
                       f"sanitized run: {name} reported at {hits} place(s), verdict {verdict}"
                       f"{' (' + rung.get('evidence', '')[:80] + ')' if rung else ''}"))
    for name in args.quiet:
        _, verdict, hits = under_sanitizer(name)
        checks.append((hits == 0 and verdict == "PASS",
                       f"sanitized run: {name} not reported ({hits} place(s)), verdict {verdict}"))

    for ok, line in checks:
        print(("ok      " if ok else "FAILED  ") + line)
    failed = sum(not ok for ok, _ in checks)
    print(f"{len(checks) - failed} of {len(checks)} checks hold")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
