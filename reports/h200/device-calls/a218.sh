#!/bin/bash
# Call 218: the phase, flat and packed kernels' 16-byte stores as one st.global.v4 each
# (store_16_bytes; the compiler had split them into four 32-bit stores, call 217) against
# b0f12fe's kernels, same binary, cold, two rounds alternating, at the shapes where auto takes
# those kernels (layernorm bf16 16384x2049 and rmsnorm_bwd 16384x1026 unchanged: the control);
# then every forward verify rung and the backward phase rungs on the new kernels. Files to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
NEW=$PWD/kernels BASE=$PWD/.device/base/kernels
export LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1 dir=$2; shift 2; LADDER_KERNELS_DIR=$dir timeout $(left 260) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 218 ($LADDER_COMMIT, a218.sh): tags base (b0f12fe's kernels) and v4 (store_16_bytes), same binary. Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for k in base v4; do
      dir=$NEW; [ $k = base ] && dir=$BASE
      b $k $dir rmsnorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 16384x3073 --shape 16384x1537 --shape 8192x5125 --shape 16384x1025 --shape 16384x1281
      b $k $dir add_rmsnorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 16384x3073 --shape 8192x5125 --shape 16384x513
      b $k $dir layernorm --dtype bf16 --shape 16384x2049
      b $k $dir layernorm --dtype f32 --shape 16384x769
      b $k $dir add_rmsnorm_bwd --dtype bf16 --shape 8192x2049
      b $k $dir rmsnorm_bwd --dtype bf16 --shape 8192x3073 --shape 16384x1026
      b $k $dir layernorm_bwd --dtype bf16 --shape 8192x3073
    done
  done
} > $OUT/bench-v4-218.txt
grep -v "copy ceiling" $OUT/bench-v4-218.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "bench done $SECONDS s"
export LADDER_KERNELS_DIR=$NEW
$B verify rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --write-ladder /tmp/v.json > /dev/null
timeout $(left 560) $B run --ladder /tmp/v.json --jobs 12 --json $OUT/verify-v4-218.json 'rmsnorm_bf16*' 'rmsnorm_f16*' 'rmsnorm_f32*' 'add_rmsnorm_bf16*' 'add_rmsnorm_f16*' 'add_rmsnorm_f32*' 'layernorm_bf16*' 'layernorm_f16*' 'layernorm_f32*' '*_bwd_*phase*' '*_bwd_*flat*' > $OUT/verify-v4-218.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-v4-218.txt | grep -v "_bwd_.*PASS" | head -20
echo "total $SECONDS s"
true
