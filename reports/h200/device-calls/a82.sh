#!/bin/bash
# Call 82: register caps for the OFF_GRID forward builds at rows of 2049 (288-thread blocks):
# exp/kernels_c1 = layernorm_fwd under __launch_bounds__(320, 4) (48 registers, four blocks an
# SM) and rmsnorm_fwd under (320, 5) (32 registers, seven blocks); exp/kernels_c2 = layernorm
# (320, 5) (32 registers, 200-byte spill) and rmsnorm (320, 4) (47 registers, as main); main =
# the branch's kernels (64-register cap). Same binary, two repeats.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
for rep in 1 2; do
  for k in main c1 c2; do
    if [ $k = main ]; then kd=$PWD/kernels; else kd=$PWD/exp/kernels_$k; fi
    export LADDER_KERNELS_DIR=$kd
    $B bench layernorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench layernorm --dtype f16 --shape 16384x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench rmsnorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 4096x2049 --variant schedule=regs 2>&1 | grep " ladder" | sed "s/^/$k regs /"
  done
done > /tmp/o/bench-off-grid-caps.txt 2>&1
sed 's/ regs / regs_/' /tmp/o/bench-off-grid-caps.txt | awk '{print $1,$2,$3,$4,$5,$8,$NF}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
cp /tmp/o/bench-off-grid-caps.txt $OUT/ 2>/dev/null
true
