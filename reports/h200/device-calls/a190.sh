#!/bin/bash
# Call 190: where the backward phase kernels, now asking the L2 for the next row, beat the
# register kernel, segment by segment of the register kernel's geometry (its block changes every
# 256 columns). Tags: regs (schedule=regs), auto (auto's plan), ph1/ph2 (schedule=phase
# phase_items=1|2), p0 (schedule=phase phase_items=1 phase_prefetch=0). Cold, bf16, two repeats.
# Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 200) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 190 ($LADDER_COMMIT, a190.sh): tags regs (schedule=regs), auto, ph1/ph2 (schedule=phase phase_items=1|2, the next row asked of the L2), p0 (schedule=phase phase_items=1 phase_prefetch=0). Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b regs layernorm_bwd --dtype bf16 --shape 16384x1025 --shape 16384x1153 --variant schedule=regs
    b auto layernorm_bwd --dtype bf16 --shape 16384x1025 --shape 16384x1153
    b p0 layernorm_bwd --dtype bf16 --shape 16384x1025 --shape 16384x1153 --variant schedule=phase --variant phase_items=1 --variant phase_prefetch=0
    for op in rmsnorm_bwd layernorm_bwd; do
      S="--shape 8192x1537 --shape 8192x1793 --shape 8192x2689 --shape 8192x2945 --shape 8192x3713"
      b regs $op --dtype bf16 $S --variant schedule=regs
      b ph1 $op --dtype bf16 $S --variant schedule=phase --variant phase_items=1
      b ph2 $op --dtype bf16 $S --variant schedule=phase --variant phase_items=2
    done
    S="--shape 16384x769 --shape 16384x897 --shape 8192x3713 --shape 8192x3969 --shape 8192x4353"
    b regs add_rmsnorm_bwd --dtype bf16 $S --variant schedule=regs
    b ph1 add_rmsnorm_bwd --dtype bf16 $S --variant schedule=phase
  done; } > $OUT/bench-bwd-segments-190.txt
grep -v "copy ceiling" $OUT/bench-bwd-segments-190.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k4,4n -k5,5n -k1,1 -s
echo "total $SECONDS s"
true
