#!/bin/bash
# Call 134: the streamed kernels against auto where call 133 did not measure them (f16 RMSNorm,
# f16 and fp32 add_rmsnorm; two repeats, cold), then memcheck (bare allocations) over the bf16
# loop rungs, the streamed add_rmsnorm's first. Files go straight to $OUT.
set -u
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
bench() { timeout 40 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
S="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
t0=$SECONDS
{
for rep in 1 2; do
  bench rmsnorm --dtype f16 $S | sed "s/^/auto /"
  for t in 128 256 512; do bench rmsnorm --dtype f16 $S --variant schedule=loop --variant loop_threads=$t | sed "s/^/loop-t$t /"; done
  bench add_rmsnorm --dtype f16 $S | sed "s/^/auto /"
  for t in 128 256 512; do bench add_rmsnorm --dtype f16 $S --variant schedule=loop --variant loop_threads=$t | sed "s/^/loop-t$t /"; done
  bench add_rmsnorm --dtype f32 $S | sed "s/^/auto /"
  for t in 256 512; do bench add_rmsnorm --dtype f32 $S --variant schedule=loop --variant loop_threads=$t | sed "s/^/loop-t$t /"; done
done
} > $OUT/bench-loop-6.txt 2>&1
echo "bench $((SECONDS-t0)) s"
grep -v "copy ceiling" $OUT/bench-loop-6.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$11}'
python3 -c "
import json; d=json.load(open('reports/h200/loop-ladder.json')); d['rungs']=[r for r in d['rungs'] if r['kernel']['dtype']=='bf16']
json.dump(d,open('/tmp/loop-bf16.json','w'))"
timeout $((590-SECONDS)) compute-sanitizer --tool memcheck --target-processes all --print-limit 5 $B run --ladder /tmp/loop-bf16.json --bare-allocations --jobs 4 --timeout 200 > /tmp/mc134.txt 2>&1
{ echo "exit $?"; grep -E "ERROR SUMMARY|rungs:|Invalid|out of bounds" /tmp/mc134.txt | sort | uniq -c; } | tee $OUT/memcheck-loop.txt
true
