#!/bin/bash
# Call 173: auto at 65536 rows of 1025 (bf16), where auto now takes schedule=phase at the ITEMS
# call 171 measured at 16384 rows, against the warp schedule auto took before; two repeats, cold.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
b() { local tag=$1; shift; timeout 100 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 173 ($LADDER_COMMIT, a173.sh): 'auto' = auto's plan (schedule=phase); 'warp' = schedule=warp (auto's plan before); cold, two repeats. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b auto rmsnorm add_rmsnorm layernorm --dtype bf16 --shape 65536x1025 --shape 65536x1537
    b warp rmsnorm add_rmsnorm layernorm --dtype bf16 --shape 65536x1025 --shape 65536x1537 --variant schedule=warp
  done; } > $OUT/bench-phase-65536-173.txt
grep -v "copy ceiling" $OUT/bench-phase-65536-173.txt | awk 'NR>1{print $2,$3,$4,$5,$1,$8}' | sort -k1,1 -k2,2 -k3,3n -k4,4n -k5,5 -s
echo "total $SECONDS s"
true
