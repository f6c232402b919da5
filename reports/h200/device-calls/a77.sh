#!/bin/bash
# exp/kernels_head and exp/kernels_early were copies of kernels/ (283ab74, and with only the
# early return) beside the working tree; neither is kept.
# Call 77: edge chunks of the row kernels' stores. "head" = commit 283ab74's kernels; "early" =
# store_chunk returning at once for a chunk wholly outside the row (rolled element loop kept for
# edge chunks); "main" = early return plus the edge chunk's elements stored unrolled. Backward
# kernels at rows that fill their tile exactly (2048, 2560) and not (2049, 2056), forward kernels
# for regressions.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
for rep in 1 2; do
  for k in head early main; do
    if [ $k = main ]; then kd=$PWD/kernels; else kd=$PWD/exp/kernels_$k; fi
    export LADDER_KERNELS_DIR=$kd
    $B bench rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --dtype bf16 --shape 16384x2048 --shape 16384x2049 --shape 16384x2056 --shape 16384x2560 --shape 16384x4096 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench rmsnorm_bwd layernorm_bwd --dtype f32 --shape 8192x2049 --shape 16384x4096 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 4096x5125 --shape 4096x8192 --shape 65536x1024 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench add_rmsnorm rmsnorm layernorm --dtype bf16 --shape 16384x4096 --shape 4096x16384 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench rmsnorm add_rmsnorm layernorm --dtype bf16 --shape 16384x2049 --variant schedule=regs 2>&1 | grep " ladder" | sed "s/^/$k regs /"
    $B bench layernorm --dtype bf16 --shape 16384x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
  done
done > /tmp/o/bench-edge-stores.txt 2>&1
unset LADDER_KERNELS_DIR
$B verify rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd rmsnorm --quick --no-fixtures --jobs 12 > /tmp/o/verify-edge.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" /tmp/o/verify-edge.txt | head
sed 's/ regs / regs_/' /tmp/o/bench-edge-stores.txt | awk '{print $1,$2,$3,$4,$5,$8,$NF}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
cp /tmp/o/*.txt $OUT/ 2>/dev/null
true
