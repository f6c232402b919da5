#!/bin/bash
# Call 164: column_sum's one-column path (odd widths) back on the loop it had before call 162,
# after call 163 measured the backward at d = 2049 and 5125 1-3% slower with the explicit
# batching. This tree's kernels against call 163's (.device/k_163, same binary: the planner did
# not change) and f5b3a53's (.device/ladder_old, .device/k_old), two repeats, cold; then verify
# of the three backward ops on this tree. Files go to $OUT as each step ends.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
b() { local tag=$1 bin=$2 k=$3; shift 3; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$tag timeout 60 $bin bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ for rep in 1 2; do
    for side in new c163 old; do
      case $side in new) bin=.device/ladder; k=$PWD/kernels;; c163) bin=.device/ladder; k=$PWD/.device/k_163;; old) bin=.device/ladder_old; k=$PWD/.device/k_old;; esac
      b $side $PWD/$bin $k rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 8192x2049 --shape 4096x5125 --shape 2048x16384
    done
  done; } > $OUT/bench-column-sum-164.txt
grep -v "copy ceiling" $OUT/bench-column-sum-164.txt | awk '{print $1,$2,$3,$4,$5,$8,$9,$11}' | sort -k2,2 -k4,4n -k5,5n -k1,1 -s
{ echo "== ladder verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd"
  LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-new timeout $((300-SECONDS)) .device/ladder verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --jobs 14 > /tmp/v164.txt 2>&1
  echo "exit $? at $SECONDS s"; grep -E " FAIL | UNRESOLVED | XPASS " /tmp/v164.txt | head -20; grep -E "rungs:" /tmp/v164.txt | tail -1; } | tee $OUT/verify-164.txt
echo "total $SECONDS s"
true
