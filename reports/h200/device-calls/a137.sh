#!/bin/bash
# Call 137: the streamed RMSNorm's register bound. Its 16-bit builds ask for 1280 / THREADS blocks
# an SM (ptxas sm_90: 47-56 registers, two 512-thread rows an SM at d = 16384); two copies of
# kernels/ made here raise that to 2048 / THREADS (F: 32 registers, every thread slot of an SM
# resident; bf16 without spills, f16 512 threads with 24 bytes) and 1536 / THREADS (M: 40-42).
# Two repeats, cold, of auto, the streamed kernel as it is, F and M at its default threads
# (128, 256, 512, 512 at d = 4096, 8192, 16384, 32768), bf16 and f16; then ladder verify rmsnorm
# (every variant, fixtures included) and the loop ladder's RMSNorm rungs on F and M. Files go to
# $OUT.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
mk() { rm -rf /tmp/k$1; cp -r kernels /tmp/k$1
       sed -i "s|__launch_bounds__(THREADS, norm::loop_min_blocks(THREADS, sizeof(T)))|__launch_bounds__(THREADS, sizeof(T) == 2 ? $2 / THREADS : norm::loop_min_blocks(THREADS, sizeof(T)))|" /tmp/k$1/rmsnorm_loop.cuh
       echo "k$1: $(grep -c "$2 / THREADS" /tmp/k$1/rmsnorm_loop.cuh) bound rewritten"; }
mk F 2048; mk M 1536
run() { local k=$1; shift; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 40 $B "$@" 2>&1; }
S="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
{
for rep in 1 2; do
  for dt in bf16 f16; do
    run $PWD/kernels bench rmsnorm --dtype $dt $S | grep -E " ladder |copy ceiling" | sed "s/^/auto /"
    run $PWD/kernels bench rmsnorm --dtype $dt $S --variant schedule=loop | grep -E " ladder |copy ceiling" | sed "s/^/loop /"
    run /tmp/kF bench rmsnorm --dtype $dt $S --variant schedule=loop | grep -E " ladder |copy ceiling" | sed "s/^/loop-F /"
    run /tmp/kM bench rmsnorm --dtype $dt $S --variant schedule=loop | grep -E " ladder |copy ceiling" | sed "s/^/loop-M /"
  done
done
} > $OUT/bench-loop-8.txt
echo "bench done at $SECONDS s"
grep -v "copy ceiling" $OUT/bench-loop-8.txt | sort -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$3,$4,$5,$8,$11}'
python3 -c "
import json; d=json.load(open('reports/h200/loop-ladder.json')); d['rungs']=[r for r in d['rungs'] if r['kernel']['op']=='rmsnorm']
json.dump(d,open('/tmp/loop-rms.json','w'))"
for k in F M; do
  if [ $SECONDS -lt 250 ]; then
    { echo "== k$k: ladder verify rmsnorm"
      LADDER_KERNELS_DIR=/tmp/k$k LADDER_CACHE_DIR=/tmp/lc-k$k timeout $((320-SECONDS)) $B verify rmsnorm --jobs 14 2>&1 | grep -E "FAIL|UNRESOLVED|XPASS|rungs:" | head -20
      echo "== k$k: the loop ladder's RMSNorm rungs"
      LADDER_KERNELS_DIR=/tmp/k$k LADDER_CACHE_DIR=/tmp/lc-k$k timeout 60 $B run --ladder /tmp/loop-rms.json --jobs 12 2>&1 | grep -E "FAIL|UNRESOLVED|rungs:" | head; } | tee -a $OUT/verify-loop-bounds.txt
  else echo "k$k verify skipped at $SECONDS s" | tee -a $OUT/verify-loop-bounds.txt; fi
done
echo "total $SECONDS s"
true
