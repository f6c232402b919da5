#!/bin/bash
# Call 144: why call 143's bulk-copy LayerNorm ran at 0.56-0.77 of the copy ceiling, its time
# set by ITEMS rather than by d (bf16 ITEMS 1: 112-114 us at d = 1024, 4096 and 8192 alike).
# Two changes, each on a copy of kernels/ carried in .device: kA, the bulk copy without its L2
# evict-first hint; kB, one warp polling the stage's mbarrier and the block waiting at a block
# barrier (every thread polled it). Bench, two repeats, cold; then Nsight Compute of main's bulk
# kernel (ITEMS 1 and 4), the row kernel auto takes at 4096x16384 and torch.compile's LayerNorm
# there (profiled after its warm-up, from cudaProfilerStart on); and the SASS of the wait loop.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
run() { local k=$1; shift; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 60 $B "$@" 2>&1; }
b() { local tag=$1; shift; run "$@" | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
K=$PWD/kernels; KA=$PWD/.device/kA; KB=$PWD/.device/kB
S="--shape 65536x1024 --shape 16384x4096 --shape 4096x16384"
V="--variant schedule=bulk"
{
for rep in 1 2; do
  b auto $K bench layernorm --dtype bf16 $S
  b bulk $K bench layernorm --dtype bf16 $S $V
  b kA-bulk $KA bench layernorm --dtype bf16 $S $V
  b kB-bulk $KB bench layernorm --dtype bf16 $S $V
  b bulk-i4 $K bench layernorm --dtype bf16 $S $V --variant bulk_items=4
  b kA-bulk-i4 $KA bench layernorm --dtype bf16 $S $V --variant bulk_items=4
  b kB-bulk-i4 $KB bench layernorm --dtype bf16 $S $V --variant bulk_items=4
  echo "rep $rep done at $SECONDS s" >&2
done
} > $OUT/bench-bulk-2.txt
echo "bench done at $SECONDS s"
grep -v "copy ceiling" $OUT/bench-bulk-2.txt | sort -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$3,$4,$5,$7,$8,$11}'
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for r in long_scoreboard barrier short_scoreboard wait lg_throttle mio_throttle drain membar no_instruction math_pipe_throttle not_selected selected sleeping branch_resolving misc dispatch_stall; do M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
prof() { local tag=$1; shift; echo "## $tag"
  LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-kernels timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M \
    -k regex:"^layernorm" --launch-skip 2 --launch-count 1 $B bench layernorm --dtype bf16 --iters 5 "$@" 2>&1 | grep -E "^ +(gpu|dram|lts|launch|sm__|smsp)|layernorm_fwd" | head -44; }
if [ $SECONDS -lt 420 ]; then
{
  prof "bulk ITEMS 1, bf16 16384x4096" --shape 16384x4096 $V
  prof "bulk ITEMS 4, bf16 16384x4096" --shape 16384x4096 $V --variant bulk_items=4
  prof "auto (row kernel), bf16 4096x16384" --shape 4096x16384
  echo "## torch.compile(F.layer_norm) bf16 4096x16384, after warm-up"
  cat > /tmp/tc_ln.py <<'PY'
import torch, torch.nn.functional as F
x = torch.randn(4096, 16384, device="cuda", dtype=torch.bfloat16)
g = torch.randn(16384, device="cuda", dtype=torch.bfloat16); b = torch.randn_like(g)
f = torch.compile(lambda x, g, b: F.layer_norm(x, (16384,), g, b, 1e-6))
for _ in range(10): f(x, g, b)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
for _ in range(3): f(x, g, b)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
PY
  timeout $((560-SECONDS)) ncu --profile-from-start off --target-processes all --clock-control none --cache-control all --metrics $M \
    --launch-skip 1 --launch-count 1 python3 /tmp/tc_ln.py 2>&1 | grep -E "^ +(gpu|dram|lts|launch|sm__|smsp)|triton|\(" | head -48
} 2>&1 | tee $OUT/ncu-bulk.txt | grep -E "^##|gpu__time|dram__through|issue_active|stalled_(long|barrier|membar|sleeping|wait|no_inst|short)|registers_per|block_size|grid_size|triton"
else echo "ncu skipped at $SECONDS s"; fi
if [ $SECONDS -lt 560 ]; then
  cat > /tmp/inst.cu <<'CU'
#include <cuda_bf16.h>
#include "layernorm_bulk.cuh"
template __global__ void ladder::layernorm_fwd_bulk<__nv_bfloat16,1,512>(__nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, float*, float*, int,int,int,int,float);
CU
  { echo "== SASS of layernorm_fwd_bulk<bf16, 1, 512> (sm_90), main's kernels/"
    nvcc -arch=sm_90 -cubin -std=c++17 -I$K /tmp/inst.cu -o /tmp/inst.cubin && cuobjdump -sass /tmp/inst.cubin | grep -E "^ +/\*[0-9a-f]{4}\*/" | head -400; } > $OUT/sass-bulk.txt 2>&1
  grep -cE "SYNCS|UBLKCP" $OUT/sass-bulk.txt
fi
echo "total $SECONDS s"
true
