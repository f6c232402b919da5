#!/bin/bash
# Call 126: LayerNorm's staged schedule (layernorm_fwd_staged: STAGES - 1 rows ahead on their way
# into shared memory by cp.async, the two-pass statistics read from there) against auto's
# schedule (the row kernel) at the wide rows, stages 3 and 2; one binary, two repeats, cold.
# fp32 2048x32768 needs items=8 for one tile of 1024 threads. Then the backward kernels at
# 4096x8192 as they stand; the schedule=staged rungs of the verify grid with 4096x16384,
# 700x4096 and 300x32768 added (reports/h200/staged-ladder.json), racecheck over the bf16
# ones, and ladder verify layernorm --quick.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
bench() { timeout 90 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
W="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
{
for rep in 1 2; do
  bench layernorm $W | sed "s/^/auto /"
  bench layernorm $W --variant schedule=staged | sed "s/^/staged-3 /"
  bench layernorm $W --variant schedule=staged --variant stages=2 | sed "s/^/staged-2 /"
  bench layernorm --dtype f32 --shape 2048x32768 --variant schedule=staged --variant items=8 | sed "s/^/staged-3-i8 /"
  bench layernorm --dtype f32 --shape 2048x32768 --variant schedule=staged --variant items=8 --variant stages=2 | sed "s/^/staged-2-i8 /"
done
} > /tmp/o/bench-staged.txt 2>&1
grep -v "copy ceiling" /tmp/o/bench-staged.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$11,$12}'
cp /tmp/o/bench-staged.txt $OUT/
bench rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --shape 4096x8192 --shape 8192x2049 | tee $OUT/bench-bwd-now.txt
timeout 150 $B run --ladder reports/h200/staged-ladder.json --jobs 12 --timeout 60 > /tmp/o/staged-rungs.txt 2>&1; echo "staged rungs exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" /tmp/o/staged-rungs.txt | head -12 | tee $OUT/staged-rungs.txt
python3 -c "
import json; d=json.load(open('reports/h200/staged-ladder.json')); d['rungs']=[r for r in d['rungs'] if r['kernel']['dtype']=='bf16']
json.dump(d,open('/tmp/staged-bf16.json','w'))"
timeout 150 compute-sanitizer --tool racecheck --target-processes all --print-limit 5 $B run --ladder /tmp/staged-bf16.json --jobs 4 --timeout 120 > /tmp/o/san.txt 2>&1; echo "racecheck exit $?"
grep -E "RACECHECK SUMMARY|rungs:|Hazard" /tmp/o/san.txt | sort | uniq -c | tee $OUT/sanitizer-staged-layernorm.txt
timeout 120 $B verify layernorm --quick --jobs 14 > /tmp/o/verify-staged.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" /tmp/o/verify-staged.txt | head -10 | tee $OUT/verify-staged.txt
true
