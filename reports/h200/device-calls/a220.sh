#!/bin/bash
# Call 220: with the 16-byte stores now whole (call 218) and LayerNorm's phase kernel joining its
# moments once (call 219), which schedule serves 16-bit rows off the 16-byte grid fastest: each
# forward op at the widths auto gives the phase kernels, under phase (auto), flat (the TMA and
# register builds, rmsnorm), packed, and the register kernel with OFF_GRID, two rounds, cold.
# Kernels of ee5ed0a, the carried binary. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 300) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
S="--dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 16384x1025 --shape 16384x3073"
{ echo "# Call 220 ($LADDER_COMMIT, a220.sh): tags name the schedule asked for; cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for op in rmsnorm add_rmsnorm layernorm; do
      b auto $op $S
      b packed $op $S --variant schedule=packed
      b regs $op $S --variant schedule=regs
    done
    b flat-tma rmsnorm $S --variant schedule=flat --variant flat_bulk=1
    b flat-regs rmsnorm $S --variant schedule=flat --variant flat_bulk=0
  done
} > $OUT/bench-schedules-220.txt
grep -v "copy ceiling" $OUT/bench-schedules-220.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k7,7n -s
grep -i "rror" $OUT/bench-schedules-220.txt | head -5
echo "total $SECONDS s"
true
