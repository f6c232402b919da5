#!/usr/bin/env python3
"""slim_run.py IN.json[.gz] OUT.json.gz: a runner's JSON document with each rung's per-case
results ("cases") replaced by their count, everything else (verdicts, evidence, counts, stages,
images) kept. Why: a verify's full document is 0.2-0.7 MB compressed, about twenty times its
slimmed one, and the device copies the whole tree (64 MiB at most) on every call.
"""
import gzip
import json
import sys

from run_files import read_rungs

if len(sys.argv) != 3:
    raise SystemExit(__doc__)
doc = read_rungs(sys.argv[1])
for rung in doc["rungs"]:
    if isinstance(rung.get("cases"), list):
        rung["cases"] = len(rung["cases"])
with gzip.open(sys.argv[2], "wt") as f:
    json.dump(doc, f, indent=0)
