#!/bin/bash
# Call 108: both ladders with the isolation-overhead benchmark on the runner that starts the
# costliest rungs first (63299fd; call 107 ran the case-count order of f9cc2c2); then Nsight
# Compute, caches flushed, of add_rmsnorm bf16 512x32768: ours (add_rmsnorm_fwd, the wide build
# with the staged weight) against the one-row-per-program Triton kernel of scripts/bench_peers.py.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh ladders) > /tmp/o-ladders.txt 2>&1
grep -E "^==|exit|rungs:|real|overhead" /tmp/o-ladders.txt
cp /tmp/o-ladders.txt $OUT/device_log_ladders.txt
tar -czf $OUT/ladders.tgz -C /tmp/o run.json ladder.json
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
{
  echo "## ours: ladder bench add_rmsnorm --dtype bf16 --shape 512x32768 (launches 3-5)"
  timeout 90 ncu --target-processes all --clock-control none --cache-control all --metrics $M \
    -k regex:"^add_rmsnorm_fwd" --launch-skip 2 --launch-count 3 $B bench add_rmsnorm --dtype bf16 --shape 512x32768 --iters 5 2>&1 | grep -E "add_rmsnorm_fwd|^ +(gpu|dram|lts|launch|sm__|smsp)"
  echo "## Triton: scripts/bench_peers.py --only add_rmsnorm --cache cold --reps 5 --warmup 1 (every launch of _add_rmsnorm_row with grid 512)"
  timeout 240 ncu --target-processes all --clock-control none --cache-control all --metrics $M \
    -k regex:"_add_rmsnorm_row" python3 scripts/bench_peers.py --only add_rmsnorm --cache cold --reps 5 --warmup 1 > /tmp/ncu-triton.txt 2>&1
  echo "exit $?"
  python3 - <<'PY'
import re
blocks, cur = [], None
for line in open('/tmp/ncu-triton.txt'):
    if '_add_rmsnorm_row' in line and '(' in line:
        cur = [line.rstrip()]; blocks.append(cur)
    elif cur is not None and re.match(r'^ +(gpu|dram|lts|launch|sm__|smsp)', line):
        cur.append(line.rstrip())
picked = [b for b in blocks if any(re.search(r'launch__grid_size\s+(\S+\s+)?512$', l.replace(',', '')) for l in b)]
print(f"{len(blocks)} launches profiled, {len(picked)} with grid 512; the last two:")
for b in picked[-2:]:
    print("\n".join(b))
PY
} 2>&1 | tee /tmp/o/ncu-add-32768-peers.txt
cp /tmp/o/ncu-add-32768-peers.txt /tmp/ncu-triton.txt $OUT/ 2>/dev/null
true
