#!/bin/bash
# Call 225: the backward kernels' partial rows stored in column order (write_block_partial's
# shifted groups through shared memory; write_phase_partial from the owners' sums), against
# 38e84cf's kernels, same binary, cold, two rounds alternating, at shapes where auto takes the
# shifted register kernels or the phase kernels (the unshifted and bulk kernels are the control:
# their machine code did not change); then every backward verify rung, and racecheck and memcheck
# over the shifted and phase bf16 rungs at the --quick shapes. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
NEW=$PWD/kernels BASE=$PWD/.device/base/kernels
export LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1 dir=$2; shift 2; LADDER_KERNELS_DIR=$dir timeout $(left 200) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
S="--shape 8192x2049 --shape 16384x2049 --shape 8192x3073 --shape 8192x1537 --shape 16384x769 --shape 4096x5125"
{ echo "# Call 225 ($LADDER_COMMIT, a225.sh): tags base (38e84cf's kernels) and order (partials in column order), same binary. Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for k in base order; do
      dir=$NEW; [ $k = base ] && dir=$BASE
      for op in rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd; do b $k $dir $op --dtype bf16 $S; done
      b $k $dir rmsnorm_bwd --dtype f32 --shape 8192x2049
      b $k $dir rmsnorm_bwd --dtype bf16 --shape 2048x16384 --shape 16384x4096
    done
  done
} > $OUT/bench-order-225.txt
grep -v "copy ceiling" $OUT/bench-order-225.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
grep -i "rror" $OUT/bench-order-225.txt | head -5
echo "bench done $SECONDS s"
export LADDER_KERNELS_DIR=$NEW
$B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --write-ladder /tmp/v.json > /dev/null
timeout $(left 380) $B run --ladder /tmp/v.json --jobs 14 --json $OUT/verify-bwd-225.json > $OUT/verify-bwd-225.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-bwd-225.txt | head -20
echo "verify done $SECONDS s"
$B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --quick --write-ladder /tmp/vq.json > /dev/null
for tool in racecheck memcheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 585) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vq.json '*_bwd_bf16' '*_bwd_bf16_shift_1' '*_bwd_bf16_strided_odd' '*_bwd_bf16*phase*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-order-225.txt
  echo "== $tool"; cat $OUT/$tool-order-225.txt
done
echo "total $SECONDS s"
true
