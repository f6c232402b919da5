#!/bin/bash
# Call 148: the streamed and row-a-block forward kernels asking the copy engine to bring a row
# one or two resident waves ahead into L2 (cp.async.bulk.prefetch.L2, one instruction a row from
# one thread; sm_90), on copies of kernels/ carried as .device/P1 (one wave ahead), .device/P2
# (two waves) and .device/H1 (one wave, with an L2 evict-last hint), against main's kernels (K).
# The motive: call 147 found torch.compile's LayerNorm at bf16 4096x16384 (4096 blocks of 512
# threads, 31 registers: four rows an SM) 68.0 us under Nsight Compute against the row kernel's
# 74.5 (two rows an SM): rows in flight an SM, not instructions, set the pace. Two repeats, cold.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
run() { local k=$1; shift; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 60 $B "$@" 2>&1; }
b() { local tag=$1; shift; run "$@" | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
S16="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
L="--variant schedule=loop"
{
for rep in 1 2; do
  for k in K P1 P2 H1; do
    D=$PWD/kernels; [ $k = K ] || D=$PWD/.device/$k
    b $k-auto $D bench layernorm --dtype bf16 $S16
    b $k-p2 $D bench layernorm --dtype bf16 $S16 $L --variant loop_passes=2
    b $k-p3res $D bench layernorm --dtype bf16 --shape 4096x16384 --shape 2048x32768 $L --variant loop_grid=resident
    b $k-p2res $D bench layernorm --dtype bf16 --shape 4096x16384 --shape 2048x32768 $L --variant loop_passes=2 --variant loop_grid=resident
    b $k-row $D bench layernorm --dtype bf16 --shape 2048x32768 --variant schedule=row
    b $k-auto $D bench rmsnorm --dtype bf16 $S16
    b $k-auto $D bench add_rmsnorm --dtype bf16 --shape 512x32768 --shape 4096x16384
    b $k-auto $D bench layernorm --dtype f32 --shape 4096x16384
    echo "rep $rep $k done at $SECONDS s" >&2
  done
done
} > $OUT/bench-prefetch-l2.txt
echo "bench done at $SECONDS s"
grep -v "copy ceiling" $OUT/bench-prefetch-l2.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$11,"clean",$13,$14}'
if [ $SECONDS -lt 400 ]; then
  { echo "== P1: ladder verify layernorm rmsnorm add_rmsnorm"
    LADDER_KERNELS_DIR=$PWD/.device/P1 LADDER_CACHE_DIR=/tmp/lc-P1 timeout $((570-SECONDS)) $B verify layernorm rmsnorm add_rmsnorm --jobs 14 2>&1 | grep -E "FAIL|UNRESOLVED|XPASS|rungs:|PASS " | tail -30
    echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee $OUT/verify-148.txt | tail -5
else echo "verify skipped at $SECONDS s" | tee $OUT/verify-148.txt; fi
echo "total $SECONDS s"
true
