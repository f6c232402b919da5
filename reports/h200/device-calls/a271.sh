#!/bin/bash
# Call 271. On an H200: a267.sh (the bench of record, the decode row's peers, the forward verify
# until END_S) on main's kernels. On an H100: where the weight gradients' column reduce spends
# its 5.8-7.1 us at d = 2049 and 32768 (call 270b): Nsight Compute's speed-of-light, launch,
# occupancy, warp-state and memory sections of rmsnorm_bwd and layernorm_bwd bf16 8192x2049 and
# rmsnorm_bwd bf16 1024x32768, their row kernels and column reduce (column_sum,
# column_sum_pair), whole GPU, caches flushed: whether the row kernels are held by issue or by
# memory, and what the reduce waits on.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT (tarred: the device returns
# only a few files).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then
  bash reports/h200/device-calls/a267.sh
  # The device returns a limited number of files: everything but bench.json in one archive.
  cd $OUT && ls && tar czf /tmp/c.tgz $(ls | grep -v '^bench.json$') && rm -f $(ls | grep -v '^bench.json$') \
    && mv /tmp/c.tgz call-271.tgz; tar xzf call-271.tgz -O log-267.txt; exit 0
fi
B=$PWD/.device/ladder
mkdir -p $OUT
export LADDER_CACHE_DIR=/tmp/lc-main
L=$OUT/ncu-column-sum-271.txt
echo "# Call 271 ($LADDER_COMMIT, a271.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
for c in "rmsnorm_bwd --dtype bf16 --shape 8192x2049" "layernorm_bwd --dtype bf16 --shape 8192x2049" \
         "rmsnorm_bwd --dtype bf16 --shape 1024x32768"; do
  echo "## $c" >> $L
  timeout 150 ncu --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy \
    --section WarpStateStats --section MemoryWorkloadAnalysis -k regex:'column_sum|bwd' --launch-skip 4 --launch-count 2 \
    $B bench $c --iters 2 2>&1 | grep -vE "^==PROF==|^\s*$|^\[" | grep -v " ladder " >> $L
done
cat $L | grep -E "^##|^  [a-z_]+.*\\(|Duration|Throughput|Issue Slots|Issued Warp|Warp Cycles Per Issued|Achieved Occupancy|Waves|Registers|L2 Hit|Mem Busy|Max Bandwidth" | head -120
echo "total $SECONDS s"
