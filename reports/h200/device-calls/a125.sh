#!/bin/bash
# Call 125 (branch layernorm-loop): LayerNorm with the row read twice (schedule=loop, a thread
# holding 16 values at a time, 1024 threads an SM) against auto's schedule (the row kernel, resident
# from 2048 chunks; torch.compile's looped reduction reached 72.3 us at bf16 4096x16384 in call
# 123 against our 78.0), 128-512 threads; one binary, two repeats, cold. Then the schedule=loop
# rungs of the verify grid with 4096x16384 and 700x4096 added (reports/h200/loop-ladder.json),
# racecheck over the bf16 ones, and ladder verify layernorm --quick.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
bench() { timeout 90 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
{
for rep in 1 2; do
  bench layernorm --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768 | sed "s/^/auto /"
  for t in 128 256 512; do
    bench layernorm --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768 --variant schedule=loop --variant loop_threads=$t | sed "s/^/loop-$t /"
  done
done
} > /tmp/o/bench-loop.txt 2>&1
grep -v "copy ceiling" /tmp/o/bench-loop.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$11,$12}'
cp /tmp/o/bench-loop.txt $OUT/
timeout 150 $B run --ladder reports/h200/loop-ladder.json --jobs 12 --timeout 60 > /tmp/o/loop-rungs.txt 2>&1; echo "loop rungs exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" /tmp/o/loop-rungs.txt | head -12 | tee $OUT/loop-rungs.txt
python3 -c "
import json; d=json.load(open('reports/h200/loop-ladder.json')); d['rungs']=[r for r in d['rungs'] if r['kernel']['dtype']=='bf16']
json.dump(d,open('/tmp/loop-bf16.json','w'))"
timeout 170 compute-sanitizer --tool racecheck --target-processes all --print-limit 5 $B run --ladder /tmp/loop-bf16.json --jobs 4 --timeout 120 > /tmp/o/san.txt 2>&1; echo "racecheck exit $?"
grep -E "RACECHECK SUMMARY|rungs:|Hazard" /tmp/o/san.txt | sort | uniq -c | tee $OUT/sanitizer-loop.txt
timeout 120 $B verify layernorm --quick --jobs 14 > /tmp/o/verify-loop.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" /tmp/o/verify-loop.txt | head -10 | tee $OUT/verify-loop.txt
true
