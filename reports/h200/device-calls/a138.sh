#!/bin/bash
# Call 138: LayerNorm's statistics in one block reduction (kernels/row_moments.cuh: each thread's
# count, mean and squared deviations joined by the parallel-variance formula) in the row kernel
# (block_row.cuh) and the two-pass streamed kernel (layernorm_loop.cuh), against the kernels
# before it (.device/kbase, the kernels/ of the commit before); kL: the new kernels with the
# streamed LayerNorm's 16-bit launch bound at 1536 / THREADS. Two repeats, cold. Then ladder
# verify rmsnorm layernorm on the new kernels (the binary's auto streams RMSNorm 16-bit rows of
# 2048 chunks), then Nsight Compute of LayerNorm bf16 4096x16384: ours and torch.compile's.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
rm -rf /tmp/kL; cp -r kernels /tmp/kL
sed -i "s|loop_min_blocks(THREADS, sizeof(T), 1280)|loop_min_blocks(THREADS, sizeof(T), 1536)|" /tmp/kL/layernorm_loop.cuh
echo "kL: $(grep -c 'sizeof(T), 1536' /tmp/kL/layernorm_loop.cuh) bound rewritten"
run() { local k=$1; shift; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 60 $B "$@" 2>&1; }
S="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
P2="--variant schedule=loop --variant loop_passes=2"
{
for rep in 1 2; do
  run $PWD/.device/kbase bench layernorm --dtype bf16 $S | grep -E " ladder |copy ceiling" | sed "s/^/base-auto /"
  run $PWD/kernels bench layernorm --dtype bf16 $S | grep -E " ladder |copy ceiling" | sed "s/^/new-auto /"
  run $PWD/.device/kbase bench layernorm --dtype bf16 $S $P2 | grep -E " ladder |copy ceiling" | sed "s/^/base-p2 /"
  run $PWD/kernels bench layernorm --dtype bf16 $S $P2 | grep -E " ladder |copy ceiling" | sed "s/^/new-p2 /"
  run $PWD/kernels bench layernorm --dtype bf16 $S $P2 --variant loop_threads=256 | grep -E " ladder |copy ceiling" | sed "s/^/new-p2-t256 /"
  run /tmp/kL bench layernorm --dtype bf16 $S $P2 | grep -E " ladder |copy ceiling" | sed "s/^/kL-p2 /"
  run /tmp/kL bench layernorm --dtype bf16 $S $P2 --variant loop_threads=256 | grep -E " ladder |copy ceiling" | sed "s/^/kL-p2-t256 /"
  run $PWD/.device/kbase bench layernorm --dtype f32 --shape 4096x16384 --shape 2048x32768 | grep -E " ladder |copy ceiling" | sed "s/^/base-auto /"
  run $PWD/kernels bench layernorm --dtype f32 --shape 4096x16384 --shape 2048x32768 | grep -E " ladder |copy ceiling" | sed "s/^/new-auto /"
  echo "rep $rep done at $SECONDS s" >&2
done
} > $OUT/bench-moments.txt
echo "bench done at $SECONDS s"
grep -v "copy ceiling" $OUT/bench-moments.txt | sort -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$3,$4,$5,$8,$11}'
[ $SECONDS -lt 300 ] && { echo "== new kernels: ladder verify rmsnorm layernorm"
  LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-kernels timeout $((420-SECONDS)) $B verify rmsnorm layernorm --jobs 14 --json $OUT/verify-138.json 2>&1 | grep -E "FAIL|UNRESOLVED|XPASS|rungs:" | head -30
  echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee $OUT/verify-138.txt
[ $SECONDS -lt 300 ] || echo "verify skipped or cut at $SECONDS s"
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for r in long_scoreboard barrier short_scoreboard wait lg_throttle mio_throttle drain membar no_instruction math_pipe_throttle not_selected selected; do M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
prof() { local k=$1 tag=$2; shift 2; echo "## $tag"
  LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M \
    -k regex:"^layernorm" --launch-skip 2 --launch-count 1 $B bench layernorm --dtype bf16 --shape 4096x16384 --iters 5 "$@" 2>&1 | grep -E "^ +(gpu|dram|lts|launch|sm__|smsp)|layernorm_fwd" | head -40; }
if [ $SECONDS -lt 470 ]; then
{
  prof $PWD/.device/kbase "base auto (the row kernel, two reductions)"
  prof $PWD/kernels "new auto (the row kernel, one reduction)"
  prof /tmp/kL "kL p2 (streamed, two passes, one reduction, 512 threads, 1536 bound)" $P2
  echo "## torch.compile(F.layer_norm) bf16 4096x16384"
  cat > /tmp/tc_ln.py <<'PY'
import torch, torch.nn.functional as F
x = torch.randn(4096, 16384, device="cuda", dtype=torch.bfloat16)
g = torch.randn(16384, device="cuda", dtype=torch.bfloat16); b = torch.randn_like(g)
f = torch.compile(lambda x, g, b: F.layer_norm(x, (16384,), g, b, 1e-6))
for _ in range(4): f(x, g, b)
torch.cuda.synchronize()
PY
  timeout $((590-SECONDS)) ncu --target-processes all --clock-control none --cache-control all --metrics $M \
    -k regex:"triton_" --launch-skip 2 --launch-count 1 python3 /tmp/tc_ln.py 2>&1 | grep -E "^ +(gpu|dram|lts|launch|sm__|smsp)|triton_" | head -40
} 2>&1 | tee $OUT/ncu-layernorm-moments.txt
else echo "ncu skipped at $SECONDS s"; fi
echo "total $SECONDS s"
true
