#!/bin/bash
# Call 99: add_rmsnorm's staged-weight build (bf16 512x32768, 2048x32768) on a grid of one
# block an SM walking rows (--variant wide_grid=resident) against one block a row, and with the
# weight's copies issued after the first row's loads (exp/late) rather than before them; main's
# previous kernels (exp/base, the weight in a register batch) for reference. rmsnorm bf16
# 2048x32768 at two stages against the planner's three. Same binary, two repeats. Then the
# selftest rung whose crash follows a passing case.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
for rep in 1 2; do
  for k in main stage late; do
    case $k in main) kd=$PWD/exp/base/kernels ;; stage) kd=$PWD/kernels ;; late) kd=$PWD/exp/late/kernels ;; esac
    export LADDER_KERNELS_DIR=$kd
    for g in rows resident; do
      [ $k = main ] && [ $g = resident ] && continue
      timeout 100 $B bench add_rmsnorm --dtype bf16 --shape 512x32768 --shape 2048x32768 --variant wide_grid=$g 2>&1 | grep " ladder" | sed "s/^/$k-$g /"
    done
  done
  export LADDER_KERNELS_DIR=$PWD/kernels
  for st in 2 3; do
    timeout 100 $B bench rmsnorm --dtype bf16 --shape 2048x32768 --shape 512x32768 --variant schedule=staged --variant stages=$st 2>&1 | grep " ladder" | sed "s/^/stages$st /"
  done
done > /tmp/o/bench-stage-grid.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/bench-stage-grid.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
timeout 60 $B run st_crash_after_pass st_crash --ladder probes/selftest.json --json /tmp/o/crash-after-pass.json > /tmp/o/crash-after-pass.txt 2>&1; echo "crash exit $?"
tail -6 /tmp/o/crash-after-pass.txt
python3 -c "
import json; d=json.load(open('/tmp/o/crash-after-pass.json'))
for r in d['rungs']: print(r['name'], r['verdict'], r.get('reason'), r.get('cases_passed'), '|', r['evidence'][:400])"
cp /tmp/o/bench-stage-grid.txt /tmp/o/crash-after-pass.txt /tmp/o/crash-after-pass.json $OUT/ 2>/dev/null
true
