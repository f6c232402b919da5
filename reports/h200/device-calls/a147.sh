#!/bin/bash
# Call 147: why Nsight Compute (call 144) put torch.compile's LayerNorm at bf16 4096x16384 behind
# the row kernel (77.6 against 72.3 us) while the event timings put it ahead (72.5 against 78.2).
# Call 144's script compiled F.layer_norm with gamma and beta as arguments; bench_peers.py closes
# over them. Here: torch.compile as bench_peers.py builds it, profiled after warm-up (every
# kernel from cudaProfilerStart on), and the same function timed with events in the same process,
# both flushes; then the row kernel profiled the same way.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,smsp__inst_executed.sum
cat > /tmp/tc.py <<'PY'
import sys, statistics, torch, torch.nn.functional as F
rows, d = 4096, 16384
g = torch.Generator(device="cuda").manual_seed(0)
x = torch.randn(rows, d, device="cuda", dtype=torch.bfloat16, generator=g)
w = torch.randn(d, device="cuda", dtype=torch.bfloat16, generator=g)
b = torch.randn(d, device="cuda", dtype=torch.bfloat16, generator=g)
f = torch.compile(lambda a: F.layer_norm(a, (d,), w, b, 1e-6), dynamic=False)
for _ in range(10): f(x)
torch.cuda.synchronize()
flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda"); words = flush.view(torch.int64)
def timed(clean):
    t = []
    for _ in range(30):
        flush.zero_()
        if clean: words.sum()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); f(x); e.record(); torch.cuda.synchronize(); t.append(s.elapsed_time(e) * 1e3)
    return statistics.median(t)
if sys.argv[1] == "time":
    print(f"torch.compile (closure) bf16 {rows}x{d}: events {timed(False):.2f} us dirty, {timed(True):.2f} us clean")
else:
    torch.cuda.cudart().cudaProfilerStart(); f(x); torch.cuda.synchronize(); torch.cuda.cudart().cudaProfilerStop()
PY
{ python3 /tmp/tc.py time 2>&1 | tail -2
  echo "## ncu: torch.compile (closure), every kernel of one call after warm-up"
  timeout 200 ncu --profile-from-start off --target-processes all --clock-control none --cache-control all --metrics $M python3 /tmp/tc.py prof 2>&1 | grep -E "^ +(gpu|dram|launch|smsp)|\(\d|triton|CC 9" | head -30
  echo "## ncu: ladder auto (the row kernel) bf16 4096x16384"
  timeout 120 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"^layernorm" --launch-skip 2 --launch-count 1 $B bench layernorm --dtype bf16 --shape 4096x16384 --iters 5 2>&1 | grep -E "^ +(gpu|dram|launch|smsp)|layernorm_fwd" | head -12
} 2>&1 | tee $OUT/ncu-peer-layernorm.txt
echo "total $SECONDS s"
true
