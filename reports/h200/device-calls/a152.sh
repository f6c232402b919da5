#!/bin/bash
# Call 152 (prepared, not yet run): where the streamed LayerNorm still trails torch.compile at
# bf16 4096x16384 with a clean L2 (call 150: 70.8 against 68.7 us). Nsight Compute, caches
# flushed clean before each profiled launch, of auto's streamed kernel (layernorm_fwd_loop<bf16,
# 512, 3>, three 512-thread rows an SM) and of its two-pass build, beside Inductor's kernel as
# bench_peers.py builds it (call 147's script): time, DRAM and L2 throughput and bytes, issued
# instructions, achieved occupancy, and the warp stall reasons.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
for r in long_scoreboard barrier short_scoreboard lg_throttle no_instruction; do M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
{ for p in 3 2; do
    echo "## ladder layernorm_fwd_loop bf16 4096x16384, loop_passes=$p"
    timeout 120 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"^layernorm" --launch-skip 2 --launch-count 1 \
      $B bench layernorm --dtype bf16 --shape 4096x16384 --iters 5 --variant schedule=loop --variant loop_passes=$p 2>&1 | grep -E "^ +[a-z]|layernorm_fwd" | head -16
  done
  sed -n '/^cat > \/tmp\/tc.py/,/^PY$/p' reports/h200/device-calls/a147.sh | sed '1d;$d' > /tmp/tc.py
  echo "## torch.compile (closure), every kernel of one call after warm-up"
  timeout 200 ncu --profile-from-start off --target-processes all --clock-control none --cache-control all --metrics $M python3 /tmp/tc.py prof 2>&1 | grep -E "^ +[a-z]|triton" | head -16
} 2>&1 | tee $OUT/ncu-loop-peer.txt
echo "total $SECONDS s"
true
