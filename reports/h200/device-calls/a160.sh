#!/bin/bash
# Call 160: auto's new block for the bulk-copy backward kernels at 1025-2048 chunks a row (ITEMS 4
# x 512 threads, measured in call 159): ladder verify of the three backward ops (every dtype and
# variant; the grid's 16-bit rows of 16384 take the new plan), then the three ops at 2048x16384
# as auto now plans them, bf16 and f16, two repeats, cold. Files go to $OUT as each step ends.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
{ echo "== ladder verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd"
  timeout 170 $B verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --jobs 14 > /tmp/v160.txt 2>&1
  echo "exit $? at $SECONDS s"; grep -E "FAIL|UNRESOLVED|XPASS" /tmp/v160.txt | head -20; grep -E "rungs:" /tmp/v160.txt; } | tee $OUT/verify-160.txt
b() { local tag=$1; shift; timeout 40 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ for rep in 1 2; do
    for op in layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd; do
      for dt in bf16 f16; do b auto $op --dtype $dt --shape 2048x16384; done
    done
  done; } > $OUT/bench-bwd-auto-160.txt
grep -v "copy ceiling" $OUT/bench-bwd-auto-160.txt | awk '{print $1,$2,$3,$4,$5,$8,$11,$13,$14}' | sort -k2,2 -k3,3 -k4,4n -s
echo "total $SECONDS s"
true
