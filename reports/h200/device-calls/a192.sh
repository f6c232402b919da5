#!/bin/bash
# Call 192: rmsnorm_bwd and layernorm_bwd at bf16 8192x2049, where the register kernel still wins:
# the phase kernels (with PREFETCH) at one or two chunks a thread and fewer blocks an SM (fewer
# partial rows for column_sum), against schedule=regs. Cold, two repeats. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
b() { local tag=$1; shift; timeout 200 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 192 ($LADDER_COMMIT, a192.sh): tags regs, iN_bM (schedule=phase phase_items=N phase_blocks_per_sm=M; M=a: auto's resident blocks). Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b regs rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 8192x2049 --shape 16384x2049 --variant schedule=regs
    for t in i1_ba i1_b2 i2_ba i2_b3 i2_b4; do
      I=${t#i}; I=${I%%_*}; M=${t##*_b}
      V="--variant schedule=phase --variant phase_items=$I"; [ $M != a ] && V="$V --variant phase_blocks_per_sm=$M"
      b $t rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 8192x2049 --shape 16384x2049 $V
    done
  done; } > $OUT/bench-bwd-2049-192.txt
grep -v "copy ceiling" $OUT/bench-bwd-2049-192.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k4,4n -k5,5n -k1,1 -s
echo "total $SECONDS s"
true
