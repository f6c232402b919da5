#!/bin/bash
# Call 157: the bulk-copy backward kernels with their weight row (gamma, w) staged in shared
# memory after the stages (norm::stage_weight; call 156 measured it read through L1 at each use
# 13% slower than held in registers, and held it cost the 64-register builds spills), the rows
# read from the stage in both passes and walked by BulkRowWalk. First an A/B against call 155's
# kernels (.device/k_old) in one binary, two repeats, cold; then the evidence for the commit:
# verify (every op, dtype and variant, fixtures included) and its worst-error tables, bench and
# the peers. The device build and ctest follow in call 158. Files go to $OUT as each step ends.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
K=$PWD/kernels
b() { local tag=$1 k=$2; shift 2; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 90 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ for rep in 1 2; do
    for k in $K $PWD/.device/k_old; do
      t=$([ $k = $K ] && echo new || echo old)
      for op in layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd; do
        b $t $k $op --dtype bf16 --shape 2048x16384
        b $t $k $op --dtype f32 --shape 1024x16384
      done
      b $t $k layernorm_bwd --dtype f16 --shape 2048x16384 --shape 1024x32768
      b $t-bulk $k layernorm_bwd --dtype bf16 --shape 4096x8192 --variant schedule=bulk
      b $t-bulk $k rmsnorm_bwd --dtype bf16 --shape 4096x8192 --variant schedule=bulk
    done
    echo "rep $rep done at $SECONDS s" >&2
  done; } > $OUT/bench-bwd-weight-staged.txt
grep -v "copy ceiling" $OUT/bench-bwd-weight-staged.txt | awk '{print $1,$2,$3,$4,$5,$8,$11,$13,$14}' | sort -k2,2 -k3,3 -k4,4n -k1,1 -s
export LADDER_CACHE_DIR=/tmp/lc LADDER_KERNELS_DIR=$K
o=/tmp/o157; mkdir -p $o
step() { (time SKIP_BUILD=1 PEERS_TIMEOUT=120 OUT=$o bash scripts/device_check.sh $1) > /tmp/o157-$1.txt 2>&1
         grep -E "^==|exit|rungs:|real|SUMMARY|overhead|copy ceiling" /tmp/o157-$1.txt | head -14
         cp -r $o/. $OUT/ 2>/dev/null; }
step verify
step worst
step bench
step peers
cat /tmp/o157-verify.txt /tmp/o157-worst.txt /tmp/o157-bench.txt /tmp/o157-peers.txt > $OUT/device_log.txt
echo "total $SECONDS s"
true
