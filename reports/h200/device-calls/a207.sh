#!/bin/bash
# Call 207: the backward's weight gradients reduced by the bulk kernel itself after a grid-wide
# barrier (reduce=grid, kernels/grid_reduce.cuh, one cooperative launch) against the two-launch
# form (auto: the bulk kernel, then column_sum / column_sum_pair launched programmatically).
# Cold, two rounds, at the shapes auto gives the bulk kernels (bf16/f16 2048x16384, bf16
# 1024x32768 with clusters, fp32 1024x16384) and bf16 4096x8192 on schedule=bulk. Then every
# bulk verify rung of the three ops (the new reduce=grid rungs among them), Nsight Compute's
# durations, and compute-sanitizer over the bf16 reduce=grid rungs. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 330) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 207 ($LADDER_COMMIT, a207.sh): tags launch (auto: column_sum launched after the kernel), grid (reduce=grid). Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for op in rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd; do
      b launch $op --dtype bf16 --shape 2048x16384 --shape 1024x32768
      b grid $op --dtype bf16 --shape 2048x16384 --shape 1024x32768 --variant reduce=grid
      b launch $op --dtype f16 --shape 2048x16384
      b grid $op --dtype f16 --shape 2048x16384 --variant reduce=grid
      b launch $op --dtype f32 --shape 1024x16384
      b grid $op --dtype f32 --shape 1024x16384 --variant reduce=grid
      b launch $op --dtype bf16 --shape 4096x8192 --variant schedule=bulk
      b grid $op --dtype bf16 --shape 4096x8192 --variant schedule=bulk --variant reduce=grid
    done
  done; } > $OUT/bench-grid-reduce-207.txt
grep -v "copy ceiling" $OUT/bench-grid-reduce-207.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "bench done $SECONDS s"
$B verify rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --write-ladder /tmp/vb.json > /dev/null
timeout $(left 470) $B run --ladder /tmp/vb.json '*bulk*' --jobs 12 --json $OUT/verify-bulk-207.json > $OUT/verify-bulk-207.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-bulk-207.txt | head -30
N=$OUT/ncu-grid-reduce-207.txt
echo "# Call 207: Nsight Compute, --cache-control none --clock-control none, the op's kernels at their third launch" > $N
for v in reduce=launch reduce=grid; do
  for op in rmsnorm_bwd layernorm_bwd; do
    echo "## $v $op bf16 2048x16384" >> $N
    timeout $(left 540) ncu --cache-control none --clock-control none --launch-skip 4 --launch-count 2 \
      --metrics gpu__time_duration.sum,dram__bytes_write.sum \
      -k regex:"bwd|column_sum" $B bench $op --dtype bf16 --shape 2048x16384 --variant $v --iters 4 2>&1 | grep -E "^\s+(gpu__|dram__)|^  [a-z_]+.*\(" | sed 's/(T1 \*.*) (/(/' >> $N
  done
done
cat $N
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 590) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vb.json '*_bf16_reduce_grid_schedule_bulk' '*_bf16_dh_1_reduce_grid_schedule_bulk' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-grid-reduce-207.txt
  echo "== $tool"; cat $OUT/$tool-grid-reduce-207.txt
done
echo "total $SECONDS s"
true
