#!/bin/bash
# Call 294, for an H200; on any other card it prints the card and exits before anything runs.
# 1. kernels/README.md's CuPy examples, run as written (scripts/cupy_examples.py): never yet run
# on an H200. 2. Call 282's program (a282.sh, sourced: the EARLY builds' A/B on the whole GPU,
# the bench of record, the decode row's peers, the backward verify until END). Call 295 then
# runs every verify rung on the same machine.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card != *H200* ]]; then echo "$card: not an H200, nothing run"; exit 0; fi
source reports/h200/device-calls/call_env.sh 294
PYTHONUNBUFFERED=1 timeout 150 python3 scripts/cupy_examples.py --json $OUT/cupy-294.json > $OUT/cupy-294.txt 2>&1
echo "cupy_examples (README) exit $? at $SECONDS s" >> $L
echo "checks: $(grep -cE ': PASS$' $OUT/cupy-294.txt) PASS, $(grep -cE 'FAIL|SKIPPED' $OUT/cupy-294.txt) FAIL or SKIPPED lines" >> $L
source reports/h200/device-calls/a282.sh
