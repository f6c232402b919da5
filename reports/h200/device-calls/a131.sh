#!/bin/bash
# Call 131: the streamed LayerNorm's second round (kernels/layernorm_loop.cuh): PASSES 2 now joins
# each thread's shifted sums by the parallel-variance identity in two block sums (no Chan
# steps), 16-bit builds ask for five 256-thread rows an SM (48 registers, no spills), and a
# row's last partial group of chunks issues its loads together. Against auto (the row kernel),
# 128-512 threads, both pass counts; one binary, two repeats for bf16, fp32 once, cold. Then
# the schedule=loop rungs (reports/h200/loop-ladder.json) and racecheck over the bf16 ones.
set -u
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
o=/tmp/o131; mkdir -p $o $OUT
bench() { timeout 90 $B bench layernorm "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
S="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
loop() { bench "$@" --variant schedule=loop --variant loop_passes=$p --variant loop_threads=$t | sed "s/^/loop-p$p-t$t /"; }
{
for rep in 1 2; do
  bench --dtype bf16 $S | sed "s/^/auto /"
  for p in 3 2; do for t in 128 256 512; do loop --dtype bf16 $S; done; done
done
bench --dtype f32 $S | sed "s/^/auto /"
for p in 3 2; do for t in 256 512; do loop --dtype f32 $S; done; done
} > $o/bench-loop-3.txt 2>&1
grep -v "copy ceiling" $o/bench-loop-3.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$3,$4,$5,$8,$11}'
timeout 150 $B run --ladder reports/h200/loop-ladder.json --jobs 12 --timeout 60 > $o/loop-rungs-full.txt 2>&1; echo "loop rungs exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" $o/loop-rungs-full.txt | head -12 | tee $o/loop-rungs.txt
python3 -c "
import json; d=json.load(open('reports/h200/loop-ladder.json')); d['rungs']=[r for r in d['rungs'] if r['kernel']['dtype']=='bf16']
json.dump(d,open('/tmp/loop-bf16.json','w'))"
timeout 120 compute-sanitizer --tool racecheck --target-processes all --print-limit 5 $B run --ladder /tmp/loop-bf16.json --jobs 4 --timeout 120 > /tmp/san131.txt 2>&1; echo "racecheck exit $?"
grep -E "RACECHECK SUMMARY|rungs:|Hazard" /tmp/san131.txt | sort | uniq -c | tee $o/sanitizer-loop.txt
tar czf $OUT/call131.tgz -C $o .
true
