#!/bin/bash
# Call 84: OFF_GRID builds whose weight (rmsnorm) or gamma and beta (layernorm) count as inside
# where their skewed reads need no test, so such threads run the copy of the loop without
# per-chunk tests (main) against the builds of call 81 (exp/kernels_prev: only threads with the
# weight on the row's grid, 1 row in 8, ran it). Same binary, two repeats; packed (auto for
# 16-bit rmsnorm at 16384 rows) alongside; Nsight Compute instruction counts; verify --quick.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
for rep in 1 2; do
  for k in prev main; do
    if [ $k = main ]; then kd=$PWD/kernels; else kd=$PWD/exp/kernels_$k; fi
    export LADDER_KERNELS_DIR=$kd
    $B bench layernorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 4096x5125 --shape 16384x769 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench layernorm --dtype f16 --shape 16384x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench layernorm --dtype f32 --shape 4096x5125 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench rmsnorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 4096x2049 --shape 4096x5125 --shape 16384x769 --variant schedule=regs 2>&1 | grep " ladder" | sed "s/^/$k regs /"
    $B bench rmsnorm --dtype f32 --shape 16384x2049 --variant schedule=regs 2>&1 | grep " ladder" | sed "s/^/$k regs /"
  done
  unset LADDER_KERNELS_DIR
  $B bench rmsnorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 16384x769 2>&1 | grep " ladder" | sed "s/^/auto /"
done > /tmp/o/bench-off-grid-inside.txt 2>&1
for k in prev main; do
  if [ $k = main ]; then kd=$PWD/kernels; else kd=$PWD/exp/kernels_$k; fi
  echo "## $k layernorm bf16 16384x2049"
  LADDER_KERNELS_DIR=$kd timeout 120 ncu --target-processes all --clock-control none --launch-skip 4 --launch-count 1 -k regex:"^layernorm_fwd" \
    --metrics gpu__time_duration.sum,launch__registers_per_thread,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    $B bench layernorm --dtype bf16 --shape 16384x2049 --iters 5 2>&1 | grep -E "^ +(smsp|gpu|dram|launch)"
done > /tmp/o/ncu-off-grid-inside.txt 2>&1
$B verify rmsnorm add_rmsnorm layernorm --quick --jobs 14 > /tmp/o/verify-inside-full.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" /tmp/o/verify-inside-full.txt | head -20 > /tmp/o/verify-off-grid-inside.txt
cat /tmp/o/verify-off-grid-inside.txt /tmp/o/ncu-off-grid-inside.txt
sed 's/ regs / regs_/' /tmp/o/bench-off-grid-inside.txt | awk '{print $1,$2,$3,$4,$5,$8,$NF}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
cp /tmp/o/bench-off-grid-inside.txt /tmp/o/ncu-off-grid-inside.txt /tmp/o/verify-off-grid-inside.txt $OUT/ 2>/dev/null
true
