#!/bin/bash
# Call 227: the backward phase kernels' partial rows stored in column order through shared
# memory (each item staged in the sums' own memory, which the block no longer reads), against
# 7aad3a2's kernels, same binary, cold, two rounds alternating, at widths auto gives the phase
# kernels; then the backward phase verify rungs, and racecheck and memcheck over the bf16 phase
# rungs at the --quick shapes. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
NEW=$PWD/kernels BASE=$PWD/.device/base/kernels
export LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1 dir=$2; shift 2; LADDER_KERNELS_DIR=$dir timeout $(left 150) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 227 ($LADDER_COMMIT, a227.sh): tags base (7aad3a2's kernels) and stage (phase partials staged in shared memory), same binary. Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for k in base stage; do
      dir=$NEW; [ $k = base ] && dir=$BASE
      b $k $dir rmsnorm_bwd --dtype bf16 --shape 8192x1537 --shape 8192x3073
      b $k $dir layernorm_bwd --dtype bf16 --shape 16384x1025 --shape 8192x1537 --shape 8192x3073
      b $k $dir add_rmsnorm_bwd --dtype bf16 --shape 16384x769 --shape 8192x1537 --shape 8192x2049 --shape 16384x2049
    done
  done
} > $OUT/bench-stage-227.txt
grep -v "copy ceiling" $OUT/bench-stage-227.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
grep -i "rror" $OUT/bench-stage-227.txt | head -5
echo "bench done $SECONDS s"
export LADDER_KERNELS_DIR=$NEW
$B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --write-ladder /tmp/v.json > /dev/null
timeout $(left 330) $B run --ladder /tmp/v.json --jobs 14 --json $OUT/verify-phase-227.json '*_bwd_*phase*' > $OUT/verify-phase-227.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-phase-227.txt | head -20
echo "verify done $SECONDS s"
$B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --quick --write-ladder /tmp/vq.json > /dev/null
for tool in racecheck memcheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 470) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vq.json '*_bwd_bf16*phase*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-stage-227.txt
  echo "== $tool"; cat $OUT/$tool-stage-227.txt
done
echo "total $SECONDS s"
true
