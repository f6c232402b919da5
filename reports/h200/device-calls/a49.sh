#!/bin/bash
# Call 49 (commit 8b865ff): layernorm_bwd with Load::Stream (main) against the previous commit's
# kernels (base), two repeats; verify layernorm_bwd; Nsight Compute of the LayerNorm kernels;
# then the report's evidence set.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=8b865ff
nvidia-smi --query-gpu=name,driver_version --format=csv
for rep in 1 2; do for k in base main; do
  if [ $k = base ]; then export LADDER_KERNELS_DIR=$PWD/.device/base/kernels; else unset LADDER_KERNELS_DIR; fi
  for dt in bf16 f16 f32; do
    $B bench layernorm_bwd --dtype $dt --shape 16384x4096 --shape 4096x8192 --shape 65536x1024 --shape 8192x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
  done
done; done > /tmp/ab49.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/ab49.txt
unset LADDER_KERNELS_DIR
M="dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,launch__occupancy_limit_registers,launch__registers_per_thread,sm__inst_executed.sum,sm__inst_issued.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active"
{ echo "# Call 49 (commit 8b865ff): ncu --clock-control none --cache-control all, one launch each (the 4th)"
  for spec in "layernorm bf16 16384x4096" "layernorm bf16 16384x2049" "rmsnorm bf16 16384x4096" "layernorm_bwd bf16 16384x4096" "layernorm_bwd f16 16384x4096"; do
    set -- $spec
    echo "## $1 $2 $3"
    timeout 90 ncu --target-processes all --clock-control none --cache-control all --metrics $M --launch-skip 3 --launch-count 1 -k regex:"^${1}(_fwd)?" $B bench $1 --dtype $2 --shape $3 --iters 5 2>&1 | grep -E "^ +[a-z_]+__" 
  done; } > /tmp/ncu49.txt 2>&1
cat /tmp/ncu49.txt | head -70
SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh verify worst bench peers ladders sanitizebwd
echo "== verify layernorm_bwd"; grep -E "layernorm_bwd" /tmp/o/verify.txt | grep -c PASS
cp /tmp/o/*.json $OUT/
tar -C /tmp -czf $OUT/texts.tgz ab49.txt ncu49.txt o/verify-worst.txt o/sanitizer-bwd.txt o/verify.txt
ls -la $OUT
