#!/bin/bash
# Call 111: where the instructions go. Nsight Compute's per-instruction counts (SourceCounters,
# caches flushed, one launch each) of add_rmsnorm bf16 512x32768 (ours: the wide build with the
# staged weight; and the Triton one-row-per-program kernel of scripts/bench_peers.py), and of
# add_rmsnorm bf16 and f16 16384x4096 (one register build, the f16 one 4% behind); the benchmark
# of those shapes, two repeats, for the same-call figures.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o/src $OUT
for rep in 1 2; do
  for dt in bf16 f16; do timeout 60 $B bench add_rmsnorm --dtype $dt --shape 16384x4096 --shape 512x32768 2>&1 | grep " ladder"; done
done | tee /tmp/o/bench-111.txt
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
prof() {  # name, kernel regex, command...
  local name=$1 re=$2; shift 2
  timeout 120 ncu --target-processes all --clock-control none --cache-control all \
    --section SourceCounters --section WarpStateStats --section InstructionStats --metrics $M \
    -k regex:"$re" --launch-skip 2 --launch-count 1 -f -o /tmp/o/src/$name "$@" > /tmp/o/src/$name.log 2>&1
  echo "## $name: exit $?"
  ncu -i /tmp/o/src/$name.ncu-rep --page details --metrics $M 2>&1 | grep -E "^ +(gpu|dram|launch|sm__|smsp)" 
  ncu -i /tmp/o/src/$name.ncu-rep --page source --csv --print-source sass > /tmp/o/src/$name.csv 2>/tmp/o/src/$name.err
  echo "source rows: $(wc -l < /tmp/o/src/$name.csv)"; head -c 600 /tmp/o/src/$name.err
}
{
prof add32768_bf16 "^add_rmsnorm_fwd" $B bench add_rmsnorm --dtype bf16 --shape 512x32768 --iters 5
prof add4096_bf16 "^add_rmsnorm_fwd" $B bench add_rmsnorm --dtype bf16 --shape 16384x4096 --iters 5
prof add4096_f16 "^add_rmsnorm_fwd" $B bench add_rmsnorm --dtype f16 --shape 16384x4096 --iters 5
cat > /tmp/tri.py <<'PY'
import sys, torch
sys.path.insert(0, "scripts")
import bench_peers as bp
x, r = (torch.randn(512, 32768, device="cuda", dtype=torch.bfloat16) for _ in range(2))
w = torch.rand(32768, device="cuda", dtype=torch.bfloat16)
y, h = torch.empty_like(x), torch.empty_like(x)
for _ in range(5): bp.triton_add_rmsnorm(x, r, w, y, h)
torch.cuda.synchronize()
PY
prof add32768_triton "_add_rmsnorm_row" python3 /tmp/tri.py
} 2>&1 | tee /tmp/o/ncu-111.txt
tar -czf $OUT/src111.tgz -C /tmp/o/src $(cd /tmp/o/src && ls *.csv *.log *.err)
cp /tmp/o/bench-111.txt /tmp/o/ncu-111.txt $OUT/
true
