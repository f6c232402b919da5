#!/bin/bash
# Call 219: LayerNorm's statistics with one block barrier a row (row_moments.cuh: each warp's
# two-pass moments joined once) in the phase, loop (three passes) and bulk kernels, against
# f6e7cd0's kernels, same binary, cold, two rounds alternating (fp32 4096x16384, two passes, and
# 65536x1024, a row a warp, are the controls); every layernorm verify rung on the new kernels;
# compute-sanitizer memcheck and racecheck over the bf16 phase, loop and bulk rungs. Files to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
NEW=$PWD/kernels BASE=$PWD/.device/base/kernels
export LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1 dir=$2; shift 2; LADDER_KERNELS_DIR=$dir timeout $(left 200) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 219 ($LADDER_COMMIT, a219.sh): tags base (f6e7cd0's kernels) and moments (row_moments.cuh), same binary. Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for k in base moments; do
      dir=$NEW; [ $k = base ] && dir=$BASE
      b $k $dir layernorm --dtype bf16 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768 --shape 65536x1024 --shape 16384x2049 --shape 16384x3073 --shape 16384x1025 --shape 8192x2049
      b $k $dir layernorm --dtype f32 --shape 16384x4096 --shape 4096x16384 --shape 16384x2049
    done
  done
} > $OUT/bench-moments-219.txt
grep -v "copy ceiling" $OUT/bench-moments-219.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "bench done $SECONDS s"
export LADDER_KERNELS_DIR=$NEW
$B verify layernorm --write-ladder /tmp/v.json > /dev/null
timeout $(left 330) $B run --ladder /tmp/v.json --jobs 12 --json $OUT/verify-ln-219.json > $OUT/verify-ln-219.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-ln-219.txt | head -20
echo "verify done $SECONDS s"
for tool in racecheck memcheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 570) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/v.json 'layernorm_bf16' 'layernorm_bf16*phase*' 'layernorm_bf16*loop*' 'layernorm_bf16*bulk*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-moments-219.txt
  echo "== $tool"; cat $OUT/$tool-moments-219.txt
done
echo "total $SECONDS s"
true
