#!/bin/bash
# Call 221: where the flat TMA build now beats auto's plan for 16-bit RMSNorm rows off the
# 16-byte grid (call 220: 16384x3073 62.1-63.0 us against the phase kernel's 66.4-67.1, with
# whole 16-byte stores since call 218): rmsnorm bf16 at widths from 2305 to 8193 (d mod 8 of 1,
# 2 and 4), auto against schedule=flat flat_bulk=1, two rounds alternating, cold. Kernels of
# aa5eea0, the carried binary. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 230) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
S="--dtype bf16 --shape 16384x2305 --shape 16384x2561 --shape 16384x2817 --shape 16384x3073 --shape 16384x3329 --shape 16384x3585 --shape 16384x4097 --shape 8192x3073 --shape 4096x3073 --shape 8192x5121 --shape 8192x6145 --shape 8192x8193 --shape 16384x2306 --shape 16384x3074 --shape 16384x3076"
{ echo "# Call 221 ($LADDER_COMMIT, a221.sh): tags auto and flat-tma (schedule=flat flat_bulk=1); cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b auto rmsnorm $S
    b flat-tma rmsnorm $S --variant schedule=flat --variant flat_bulk=1
  done
  b f16-auto rmsnorm --dtype f16 --shape 16384x3073 --shape 16384x2817
  b f16-flat-tma rmsnorm --dtype f16 --shape 16384x3073 --shape 16384x2817 --variant schedule=flat --variant flat_bulk=1
} > $OUT/bench-flat-widths-221.txt
grep -v "copy ceiling" $OUT/bench-flat-widths-221.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k3,3 -k5,5n -k4,4n -k1,1 -s
grep -i "rror" $OUT/bench-flat-widths-221.txt | head -5
echo "total $SECONDS s"
true
