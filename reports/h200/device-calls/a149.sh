#!/bin/bash
# Call 149: the streamed LayerNorm with four 512-thread rows an SM, as torch.compile's LayerNorm
# runs (call 147: 4096 blocks of 512 threads at 31 registers, 68.0 us under Nsight Compute against
# the row kernel's 74.5 at bf16 4096x16384). On copies of kernels/ carried in .device: the row loop
# split into one body a kind of launch (16-byte with gamma and beta, 16-byte without, element by
# element), so that the 16-byte bodies need no registers for the others; RSU_N: S chunks in flight
# a thread in the statistics passes, U in the output pass, the 16-bit launch bound at N thread
# slots an SM (ptxas: R41_2048 32 registers, no spills but 32 bytes at bf16 <512, 2>; R11_2048 32,
# 20 bytes at <512, 2>; R41_1536 40, none; R42_1280 48-64, none). K: main's kernels. Two repeats,
# cold. Then ladder verify layernorm on R41_2048 and R11_2048.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
run() { local k=$1; shift; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 60 $B "$@" 2>&1; }
b() { local tag=$1; shift; run "$@" | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
S16="--shape 65536x1024 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
L="--variant schedule=loop"
{
for rep in 1 2; do
  for k in K R41_2048 R11_2048 R41_1536 R42_1280; do
    D=$PWD/.device/$k
    b $k-auto $D bench layernorm --dtype bf16 $S16
    b $k-p3 $D bench layernorm --dtype bf16 $S16 $L
    b $k-p2 $D bench layernorm --dtype bf16 $S16 $L --variant loop_passes=2
    b $k-auto $D bench layernorm --dtype f32 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384
    echo "rep $rep $k done at $SECONDS s" >&2
  done
done
} > $OUT/bench-loop-occupancy.txt
echo "bench done at $SECONDS s"
grep -v "copy ceiling" $OUT/bench-loop-occupancy.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$3,$4,$5,$8,$11,"clean",$13,$14}'
for k in R41_2048 R11_2048; do
  if [ $SECONDS -lt 480 ]; then
    { echo "== $k: ladder verify layernorm"
      LADDER_KERNELS_DIR=$PWD/.device/$k LADDER_CACHE_DIR=/tmp/lc-$k timeout $((570-SECONDS)) $B verify layernorm --jobs 14 2>&1 | grep -E "FAIL|UNRESOLVED|XPASS|rungs:" | tail -20
      echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee -a $OUT/verify-149.txt | tail -3
  else echo "$k verify skipped at $SECONDS s" | tee -a $OUT/verify-149.txt; fi
done
echo "total $SECONDS s"
true
