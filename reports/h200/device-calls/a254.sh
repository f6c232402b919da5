#!/bin/bash
# Call 254: on an H200 only, call 242's Nsight Compute profile (instruction counts, issue
# activity and every warp stall reason of the streamed LayerNorm and RMSNorm, bf16 4096x16384 and
# 16384x4096, caches flushed) on main's kernels. Call 242 ran it on an H100, where LayerNorm meets
# the forward target; on the H200 it misses it. The two profiles together test the notes'
# inference that issue rate, not bytes moved, holds the H200's 16-bit LayerNorm rows.
# About 2 minutes. On any other card it does nothing. Carried: .device/ladder. Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card != *H200* ]]; then echo "# Call 254: $card, not an H200: nothing run"; exit 0; fi
bash reports/h200/device-calls/a242.sh > /dev/null
sed "1s/.*/# Call 254 ($LADDER_COMMIT, a254.sh: a242.sh's profile) on $card/" $OUT/ncu-stalls-242.txt > $OUT/ncu-stalls-254.txt
rm -f $OUT/ncu-stalls-242.txt
cat $OUT/ncu-stalls-254.txt
echo "total $SECONDS s"
