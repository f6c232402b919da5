#!/bin/bash
# Call 228: what the weight gradients cost where the shifted register kernels stream their rows
# (16-bit d past one tile of 512 threads: 16385, 8193), each partial row added to in global memory
# chunk by chunk: auto with and without the gradients (weight=none / affine=0) at 2048x16385 and
# 4096x8193, beside the rows on the 16-byte grid (16384, 8192: the bulk kernels). Cold, one round.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
b() { local tag=$1; shift; timeout 100 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
S="--dtype bf16 --shape 2048x16385 --shape 2048x16384 --shape 4096x8193 --shape 4096x8192"
{ echo "# Call 228 ($LADDER_COMMIT, a228.sh): tags auto and nodw (weight=none / affine=0). Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  b auto rmsnorm_bwd $S; b nodw rmsnorm_bwd $S --variant weight=none
  b auto layernorm_bwd $S; b nodw layernorm_bwd $S --variant affine=0
  b auto add_rmsnorm_bwd $S; b nodw add_rmsnorm_bwd $S --variant weight=none
} > $OUT/bench-streamed-dw-228.txt
grep -v "copy ceiling" $OUT/bench-streamed-dw-228.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11,$14,$15}' | sort -k2,2 -k4,4n -k5,5n -k1,1 -s
echo "total $SECONDS s"
true
