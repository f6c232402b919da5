#!/bin/bash
# Call 206: the final reduce's slices joined by a warp butterfly (column_sum.cuh, "tree") against
# main's serial join ("base"), and the butterfly at two 1024-thread blocks an SM ("tree2": 32
# registers, batches of 4). One binary; each kernel source folder by LADDER_KERNELS_DIR. The
# three backward ops, bf16, cold, two rounds; Nsight Compute's duration of each kernel; then
# every verify rung of the backward ops on "tree" (the working tree's kernels). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
F=$OUT/bench-column-sum-206.txt
echo "# Call 206 ($LADDER_COMMIT, a206.sh): tags base (main's column_sum), tree (warp butterfly), tree2 (butterfly, 2 blocks an SM). Cold. Columns: tag op dtype rows d hot cold frac clean geometry." > $F
SH="--shape 8192x2049 --shape 2048x16384 --shape 1024x32768 --shape 16384x4096"
for rep in 1 2; do
  for tag in base tree tree2; do
    for op in rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd; do
      LADDER_KERNELS_DIR=$PWD/.device/k-$tag $B bench $op --dtype bf16 $SH --json /tmp/b.json > /tmp/b.txt 2>&1 || { echo "bench $op $tag failed"; tail -5 /tmp/b.txt; }
      python3 - "$tag" /tmp/b.json >> $F <<'PY'
import json, sys
tag, path = sys.argv[1], sys.argv[2]
b = json.load(open(path))
for r in b["results"]:
    if r.get("impl") != "ladder": continue
    print(f"{tag:6} {r['op']:16} {r['dtype']:5} {r['rows']:7} {r['d']:6} {r['hot_us']:9.2f} {r['cold_us']:9.2f} {r['cold_fraction']:6.3f} {r.get('cold_clean_us', 0):9.2f}  {r['geometry']}")
PY
    done
  done
done
cat $F
N=$OUT/ncu-column-sum-206.txt
echo "# Call 206: Nsight Compute, --cache-control none --clock-control none, the op's kernels at their third launch" > $N
for tag in base tree tree2; do
  for op in rmsnorm_bwd layernorm_bwd; do
    for sh in 8192x2049 2048x16384 1024x32768; do
      echo "## $tag $op bf16 $sh" >> $N
      LADDER_KERNELS_DIR=$PWD/.device/k-$tag timeout 120 ncu --cache-control none --clock-control none --launch-skip 4 --launch-count 2 \
        --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__occupancy_limit_registers \
        -k regex:"bwd|column_sum" $B bench $op --dtype bf16 --shape $sh --iters 4 2>&1 | grep -E "^\s+(gpu__|launch__)|^  [a-z_]+.*\(" | sed 's/(T1 \*.*) (/(/' >> $N
    done
  done
done
cat $N
export LADDER_KERNELS_DIR=$PWD/kernels
$B verify rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --write-ladder /tmp/vb.json > /dev/null
(time timeout 300 $B run --ladder /tmp/vb.json --jobs 14 --json $OUT/verify-bwd-206.json > $OUT/verify-bwd-206.txt 2>&1) 2>&1 | grep real
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-bwd-206.txt | head -20
echo "total $SECONDS s"
true
