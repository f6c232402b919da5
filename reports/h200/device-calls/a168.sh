#!/bin/bash
# Call 168: where auto's forward kernels spend their instructions on rows off the 16-byte grid.
# Nsight Compute's source counters (instructions executed per SASS instruction) of rmsnorm and
# layernorm bf16 16384x2049 (auto's OFF_GRID register kernels), printed as CSV; and the same
# kernels' headline metrics. Files go to $OUT as each step ends.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
for op in rmsnorm layernorm; do
  timeout 120 ncu --target-processes all --clock-control none --cache-control all --set none \
    --section SourceCounters --section LaunchStats --section Occupancy --section SpeedOfLight \
    -k regex:"_fwd" --launch-skip 4 --launch-count 1 -o /tmp/src-$op -f \
    $B bench $op --dtype bf16 --shape 16384x2049 --iters 5 > /tmp/ncu-$op.log 2>&1
  echo "== $op: ncu exit $?"; tail -3 /tmp/ncu-$op.log
  ncu -i /tmp/src-$op.ncu-rep --page source --print-source sass --csv > $OUT/sass-$op-2049-168.csv 2> /tmp/src-$op.err
  echo "source page exit $? ($(wc -l < $OUT/sass-$op-2049-168.csv) lines)"; head -c 600 /tmp/src-$op.err
  ncu -i /tmp/src-$op.ncu-rep --page details > $OUT/ncu-$op-2049-168.txt 2>&1
  grep -E "Duration|Registers|Achieved Occupancy|Executed Ipc|DRAM Throughput|Warp Cycles Per Issued" $OUT/ncu-$op-2049-168.txt | head -12
done
echo "total $SECONDS s"
true
