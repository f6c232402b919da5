#!/bin/bash
# Call 133: what adopting the streamed RMSNorm and f16 LayerNorm needs, and
# the first run of the streamed add_rmsnorm (add_rmsnorm_fwd_loop, written after call 132). Every
# loop rung of reports/h200/loop-ladder.json (all dtypes; add_rmsnorm's are new), two repeats of
# the streamed RMSNorm (bf16, f32), f16 LayerNorm and the streamed add_rmsnorm against auto, cold,
# then the racecheck call 132's limit cut short (the bf16 loop rungs, all the time left).
# Files go straight to $OUT.
set -u
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
python3 -c "
import json; d=json.load(open('reports/h200/loop-ladder.json')); d['rungs']=[r for r in d['rungs'] if r['kernel']['dtype']=='bf16']
json.dump(d,open('/tmp/loop-bf16.json','w'))"
timeout 120 $B run --ladder reports/h200/loop-ladder.json --jobs 12 --timeout 60 > /tmp/rungs133.txt 2>&1; echo "loop rungs exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" /tmp/rungs133.txt | head -20 | tee $OUT/loop-rungs.txt
bench() { timeout 40 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
S="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
{
for rep in 1 2; do
  bench rmsnorm --dtype bf16 $S | sed "s/^/auto /"
  for t in 128 256 512; do bench rmsnorm --dtype bf16 $S --variant schedule=loop --variant loop_threads=$t | sed "s/^/loop-t$t /"; done
  bench rmsnorm --dtype f32 $S | sed "s/^/auto /"
  for t in 256 512; do bench rmsnorm --dtype f32 $S --variant schedule=loop --variant loop_threads=$t | sed "s/^/loop-t$t /"; done
  bench layernorm --dtype f16 $S | sed "s/^/auto /"
  for t in 128 256; do bench layernorm --dtype f16 $S --variant schedule=loop --variant loop_threads=$t | sed "s/^/loop-p3-t$t /"; done
  bench add_rmsnorm --dtype bf16 $S --shape 512x32768 | sed "s/^/auto /"
  for t in 128 256 512; do bench add_rmsnorm --dtype bf16 $S --shape 512x32768 --variant schedule=loop --variant loop_threads=$t | sed "s/^/loop-t$t /"; done
done
} > $OUT/bench-loop-5.txt 2>&1
grep -v "copy ceiling" $OUT/bench-loop-5.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$11}'
timeout $((585-SECONDS)) compute-sanitizer --tool racecheck --target-processes all --print-limit 5 $B run --ladder /tmp/loop-bf16.json --jobs 6 --timeout 400 > /tmp/rc133.txt 2>&1
{ echo "exit $?"; grep -E "RACECHECK SUMMARY|rungs:|Hazard" /tmp/rc133.txt | sort | uniq -c; } | tee $OUT/racecheck-loop.txt
true
