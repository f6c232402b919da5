#!/bin/bash
# Call 140: (1) the streamed kernels' kept reads (load16_keep, stream_row.cuh) without an L1
# allocation (ld.global.L1::no_allocate.L2::cache_hint), in a copy of kernels/ made here (kNA),
# so that the rows streaming through an SM leave the weights' lines in L1; against main's
# kernels, auto and LayerNorm's streamed kernel, bf16, two repeats, cold; (2) both ladders with
# the isolation-overhead benchmark. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
mkdir -p $OUT
rm -rf /tmp/kNA; cp -r kernels /tmp/kNA
sed -i 's/ld.global.L2::cache_hint.v4.u32/ld.global.L1::no_allocate.L2::cache_hint.v4.u32/' /tmp/kNA/stream_row.cuh
echo "kNA: $(grep -c no_allocate /tmp/kNA/stream_row.cuh) load rewritten"
run() { local k=$1; shift; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 60 $B "$@" 2>&1; }
b() { local tag=$1; shift; run "$@" | grep -E " ladder |copy ceiling" | sed "s/^/$tag /"; }
S="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
K=$PWD/kernels
{
for rep in 1 2; do
  for op in rmsnorm add_rmsnorm layernorm; do
    b auto $K bench $op --dtype bf16 $S
    b NA-auto /tmp/kNA bench $op --dtype bf16 $S
  done
  b loop $K bench layernorm --dtype bf16 --shape 4096x16384 --shape 2048x32768 --variant schedule=loop
  b NA-loop /tmp/kNA bench layernorm --dtype bf16 --shape 4096x16384 --shape 2048x32768 --variant schedule=loop
  echo "rep $rep done at $SECONDS s" >&2
done
} > $OUT/bench-no-allocate.txt
echo "bench done at $SECONDS s"
grep -v "copy ceiling" $OUT/bench-no-allocate.txt | sort -k2,2 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$4,$5,$8,$11}'
o=/tmp/o140; mkdir -p $o
export LADDER_CACHE_DIR=/tmp/lc LADDER_KERNELS_DIR=$K
(time SKIP_BUILD=1 OUT=$o bash scripts/device_check.sh ladders) > $OUT/device_log_ladders.txt 2>&1
cp $o/run.json $o/ladder.json $OUT/ 2>/dev/null
grep -E "^==|exit|rungs:|real|overhead" $OUT/device_log_ladders.txt | head -14
echo "total $SECONDS s"
true
