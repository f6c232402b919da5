#!/bin/bash
# Call 118: one binary, two repeats, cold, with the new same-size copy column. (1) row_prefetch=1
# (the row kernels' PREFETCH builds: the block's next row copied into shared memory while it
# reduces and stores the current one, on a grid of the blocks the SMs hold) against the row
# kernels as they are, add_rmsnorm and rmsnorm bf16 at d = 4096..32768; (2) layernorm_fwd_row's
# statistics in one reduction (per-thread moments joined by Chan's update, exp/chan/kernels)
# against the two-pass's two, and row_items=4; then the prefetch rungs with large shapes
# (exp/prefetch-ladder.json) and layernorm verify --quick on the exp kernels.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
bench() { timeout 90 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
{
for rep in 1 2; do
  for pf in 0 1; do
    bench add_rmsnorm --dtype bf16 --shape 512x32768 --shape 2048x32768 --shape 8192x8192 --shape 4096x16384 --variant schedule=row --variant row_prefetch=$pf | sed "s/^/pf=$pf /"
    bench rmsnorm --dtype bf16 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768 --variant schedule=row --variant row_prefetch=$pf | sed "s/^/pf=$pf /"
    bench add_rmsnorm --dtype f16 --shape 16384x4096 --variant schedule=row --variant row_prefetch=$pf | sed "s/^/pf=$pf /"
    bench rmsnorm --dtype f32 --shape 16384x4096 --variant schedule=row --variant row_prefetch=$pf | sed "s/^/pf=$pf /"
  done
  bench rmsnorm --dtype bf16 --shape 2048x32768 --shape 65536x1024 | sed "s/^/auto /"
  for k in main chan; do
    kd=$PWD/kernels; [ $k = chan ] && kd=$PWD/exp/chan/kernels
    LADDER_KERNELS_DIR=$kd bench layernorm --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 | sed "s/^/ln=$k /"
    LADDER_KERNELS_DIR=$kd bench layernorm --dtype bf16 --shape 16384x4096 --variant schedule=row --variant row_items=4 | sed "s/^/ln=$k-items4 /"
  done
done
} > /tmp/o/bench-prefetch.txt 2>&1
grep -v "copy ceiling" /tmp/o/bench-prefetch.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$NF}'
grep "copy ceiling" /tmp/o/bench-prefetch.txt | sort | uniq -c
cp /tmp/o/bench-prefetch.txt $OUT/
timeout 120 $B run --ladder exp/prefetch-ladder.json --jobs 12 > /tmp/o/prefetch-rungs.txt 2>&1; echo "prefetch rungs exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" /tmp/o/prefetch-rungs.txt | head -10 | tee $OUT/prefetch-rungs.txt
LADDER_KERNELS_DIR=$PWD/exp/chan/kernels timeout 120 $B verify layernorm --quick --jobs 14 > /tmp/o/verify-chan.txt 2>&1; echo "verify chan exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" /tmp/o/verify-chan.txt | head -10 | tee $OUT/verify-chan.txt
true
