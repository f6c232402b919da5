#!/bin/bash
# Call 286 (call 284 again, for an H200). 1. kernels/README.md's CuPy examples run as written (scripts/cupy_examples.py: the
# four blocks in order, every allocation prefilled with NaN bits, each block's outputs against
# fp64 references), on whatever card comes. 2. On an H200, then call 282's program (a282.sh,
# sourced, so its time limits count from this call's start).
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
source reports/h200/device-calls/call_env.sh 286
PYTHONUNBUFFERED=1 timeout 150 python3 scripts/cupy_examples.py --json $OUT/cupy-286.json > $OUT/cupy-286.txt 2>&1
echo "cupy_examples exit $? at $SECONDS s" >> $L
tail -12 $OUT/cupy-286.txt >> $L
if [[ $card == *H200* ]]; then source reports/h200/device-calls/a282.sh; fi
cat $L
echo "total $SECONDS s"
