#!/bin/bash
# Call 293. 1. kernels/README.md's CuPy examples, run as written (scripts/cupy_examples.py).
# 2. On an H200: call 282's program (a282.sh, sourced: the EARLY A/B, the bench of record, the
# decode row's peers, the backward verify until END). On any other card: racecheck over every
# bf16 quick rung of rmsnorm_bwd and add_rmsnorm_bwd (81 rungs; call 292's limit ended it after
# 64, before its summary), with exact allocations off (racecheck looks at shared memory).
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
source reports/h200/device-calls/call_env.sh 293
PYTHONUNBUFFERED=1 timeout 150 python3 scripts/cupy_examples.py --json $OUT/cupy-293.json > $OUT/cupy-293.txt 2>&1
echo "cupy_examples (README) exit $? at $SECONDS s" >> $L
echo "checks: $(grep -cE ': PASS$' $OUT/cupy-293.txt) PASS, $(grep -cE 'FAIL|SKIPPED' $OUT/cupy-293.txt) FAIL or SKIPPED lines" >> $L
if [[ $card == *H200* ]]; then source reports/h200/device-calls/a282.sh; exit 0; fi
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-san
timeout $(left ${END:-575}) compute-sanitizer --tool racecheck --target-processes all --print-limit 5 \
  $B verify rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 --quick --no-fixtures --jobs 14 \
  --json $OUT/racecheck-293.json > $OUT/racecheck-293.txt 2>&1
echo "racecheck exit $? at $SECONDS s" >> $L
{ grep -E "RACECHECK SUMMARY|Hazard|ERROR SUMMARY" $OUT/racecheck-293.txt | sort | uniq -c
  grep -E "rungs:" $OUT/racecheck-293.txt | tail -1
  grep -E " FAIL | UNRESOLVED " $OUT/racecheck-293.txt | head -5; } >> $L
cat $L
echo "total $SECONDS s"
