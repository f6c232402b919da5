#!/bin/bash
# Call 241 (after a239.sh and a240.sh): the backward's weight-gradient partial rows stored under
# the L2 keep policy (patches/policy-partkeep.patch: store_sums_row, the pooled rows and
# layernorm_bwd_bulk's paired stores through an st.global.L2::cache_hint), so that column_sum,
# launched next, finds them in L2. Since call 238 the bulk copies read x and dy under that policy,
# which may push normal-priority partial rows out first. ptxas sm_90: registers unchanged, no
# spills. Part 1: bench, two rounds, cold, main against the patched tree (kernel sources only, one
# binary). Part 2: Nsight Compute without its cache control, so that the L2 carries over from the
# row kernel to column_sum: column_sum's DRAM bytes read and duration, rmsnorm_bwd bf16 2048x16384,
# both trees. Carried: .device/ladder.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
P=$PWD/reports/h200/device-calls/patches
mkdir -p $OUT /tmp/t-partkeep
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
apply() { (cd $1 && { patch -s -p1 < $2 2>/dev/null || git apply -p1 $2; }) || { echo "$2 did not apply"; exit 1; }; }
cp -r kernels /tmp/t-partkeep/ && apply /tmp/t-partkeep $P/policy-partkeep.patch
declare -A TREE=([main]=$PWD/kernels [partkeep]=/tmp/t-partkeep/kernels)
{ for rep in 1 2; do
    for t in main partkeep; do
      for op in rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd; do
        LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-$t timeout 90 $B bench $op --dtype bf16 \
          --shape 2048x16384 --shape 1024x32768 --shape 16384x4096 --json $OUT/b-$t-$op-$rep.json 2>&1 |
          grep -E " ladder |rror" | sed "s/^/$t /"
      done
    done
    echo "round $rep done at $SECONDS s" >&2
  done
} > $OUT/bench-partkeep.txt 2>&1
cat $OUT/bench-partkeep.txt
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct
{ for t in main partkeep; do
    echo "## $t: rmsnorm_bwd bf16 2048x16384, the row kernel then column_sum, caches carried over"
    LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-$t timeout $(left 300) ncu --target-processes all \
      --clock-control none --cache-control none --metrics $M -k regex:"rmsnorm_bwd|column_sum" \
      --launch-skip 8 --launch-count 2 $B bench rmsnorm_bwd --dtype bf16 --shape 2048x16384 --iters 5 2>&1 |
      grep -E "^ +[a-z]|rmsnorm_bwd|column_sum" | head -14
  done
} > $OUT/ncu-partkeep.txt 2>&1
cat $OUT/ncu-partkeep.txt
cd $OUT && tar czf /tmp/x.tgz . && find . -mindepth 1 -delete && mv /tmp/x.tgz $OUT/a241.tgz
echo "total $SECONDS s"
true
