#!/bin/bash
# Call 142: the streamed LayerNorm asking for 1536 / THREADS blocks an SM for 16-bit T (three
# 512-thread rows an SM, as the streamed RMSNorm), with its last pass walking two chunks at a
# time instead of four (gamma and beta beside each chunk: fewer registers live), in a copy of
# kernels/ carried as .device/kU (ptxas: 40 registers, 28-44 bytes of spills); against main's
# auto and streamed kernel; two repeats, cold. Then ladder verify layernorm on kU.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
run() { local k=$1; shift; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 60 $B "$@" 2>&1; }
b() { local tag=$1; shift; run "$@" | grep -E " ladder |copy ceiling" | sed "s/^/$tag /"; }
K=$PWD/kernels; U=$PWD/.device/kU
S="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
L="--variant schedule=loop"
{
for rep in 1 2; do
  for dt in bf16 f16; do
    b auto $K bench layernorm --dtype $dt $S
    b loop-p3 $K bench layernorm --dtype $dt $S $L
    b U-loop-p3 $U bench layernorm --dtype $dt $S $L
    b U-loop-p2 $U bench layernorm --dtype $dt $S $L --variant loop_passes=2
  done
  b auto $K bench layernorm --dtype f32 --shape 4096x16384
  b U-auto $U bench layernorm --dtype f32 --shape 4096x16384
  echo "rep $rep done at $SECONDS s" >&2
done
} > $OUT/bench-loop-bound.txt
echo "bench done at $SECONDS s"
grep -v "copy ceiling" $OUT/bench-loop-bound.txt | sort -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$3,$4,$5,$8,$11}'
if [ $SECONDS -lt 200 ]; then
  { echo "== kU: ladder verify layernorm"
    LADDER_KERNELS_DIR=$U LADDER_CACHE_DIR=/tmp/lc-kU timeout $((300-SECONDS)) $B verify layernorm --jobs 14 2>&1 | grep -E "FAIL|UNRESOLVED|XPASS|rungs:" | head -30
    echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee $OUT/verify-142.txt
else echo "verify skipped at $SECONDS s" | tee $OUT/verify-142.txt; fi
echo "total $SECONDS s"
true
