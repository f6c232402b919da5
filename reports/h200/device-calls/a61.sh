#!/bin/bash
# Call 61 (main 6a14faf + batched weight reads in the wide builds, planner taking the lone wide
# add_rmsnorm block for 16-bit rows the register kernel streams): auto against schedule=regs and
# schedule=staged for add_rmsnorm rows of 24576 and 32768; rmsnorm's batched wide build against
# 6a14faf's kernels; Nsight Compute of ours and Triton's add_rmsnorm at bf16 512x32768; verify.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=6a14faf
for rep in 1 2; do
  for dt in bf16 f16; do for sc in auto regs staged; do
    $B bench add_rmsnorm --dtype $dt --shape 512x32768 --shape 2048x32768 --shape 4096x24576 --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
  done; done
  for k in new main; do
    if [ $k = main ]; then export LADDER_KERNELS_DIR=$PWD/.device/main/kernels; else unset LADDER_KERNELS_DIR; fi
    $B bench rmsnorm --dtype bf16 --shape 4096x16384 --shape 2048x12288 2>&1 | grep " ladder" | sed "s/^/rms-$k /"
    $B bench rmsnorm --dtype f16 --shape 4096x16384 2>&1 | grep " ladder" | sed "s/^/rms-$k /"
  done
  unset LADDER_KERNELS_DIR
done > /tmp/ab61.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/ab61.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
S="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis"
{ echo "## ladder add_rmsnorm bf16 512x32768 (auto)"
  timeout 90 ncu --target-processes all --clock-control none --cache-control all $S --launch-skip 1 --launch-count 1 -k regex:"^add_rmsnorm_fwd" $B bench add_rmsnorm --dtype bf16 --shape 512x32768 --iters 3 2>&1 | grep -v "^==PROF==" | sed -n '/add_rmsnorm_fwd/,$p'
  echo "## Triton one-row add_rmsnorm bf16 512x32768"
  timeout 120 ncu --target-processes all --clock-control none --cache-control all $S --launch-skip 1 --launch-count 1 -k regex:"_add_rmsnorm_row" python3 reports/h200/device-calls/ncu_add_rows.py 2>&1 | grep -v "^==PROF==" | sed -n '/_add_rmsnorm_row/,$p'
} > /tmp/ncu61.txt 2>&1
grep -E "^##|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Block Size" /tmp/ncu61.txt
$B verify --quick --jobs 12 --json /tmp/verify61.json > /tmp/verify61.txt 2>&1; echo "verify rc $?"; tail -1 /tmp/verify61.txt
tar -C /tmp -czf $OUT/texts.tgz ab61.txt ncu61.txt verify61.txt verify61.json
