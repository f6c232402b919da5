#!/bin/bash
# Call 75: the backward kernels at d = 2049 against rows on the 16-byte grid with as many chunks
# (2056) and fewer (2048), shifted grid against gathered rows (shift=0), and the stall reasons of
# rmsnorm_bwd bf16 at 16384x2049 against 16384x2048.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
for rep in 1 2; do
  for op in rmsnorm_bwd layernorm_bwd; do
    $B bench $op --dtype bf16 --shape 16384x2048 --shape 16384x2049 --shape 16384x2056 --shape 16384x2176 --shape 16384x1536 2>&1 | grep " ladder" | sed "s/^/auto /"
    $B bench $op --dtype bf16 --shape 16384x2049 --variant shift=0 2>&1 | grep " ladder" | sed "s/^/shift0 /"
    $B bench $op --dtype bf16 --shape 16384x2049 --variant items=1 2>&1 | grep " ladder" | sed "s/^/items1 /"
  done
done > /tmp/o/sweep-bwd-widths.txt 2>&1
$B bench rmsnorm_bwd --dtype bf16 --shape 16384x2049 --shape 16384x2056 --shape 16384x2048 --json /tmp/o/geo.json > /dev/null 2>&1
python3 -c "
import json
for r in json.load(open('/tmp/o/geo.json'))['results']:
  if r.get('type')=='result': print(r['d'], r['geometry'])
"
M=smsp__average_warp_latency_issue_stalled
for sh in 16384x2048 16384x2049 16384x2056; do
  echo "## rmsnorm_bwd bf16 $sh"
  timeout 120 ncu --target-processes all --clock-control none --launch-skip 4 --launch-count 1 -k regex:"^rmsnorm_bwd" \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active,${M}_barrier.ratio,${M}_long_scoreboard.ratio,${M}_short_scoreboard.ratio,${M}_wait.ratio,${M}_math_pipe_throttle.ratio,${M}_lg_throttle.ratio,${M}_mio_throttle.ratio,${M}_not_selected.ratio,${M}_selected.ratio,${M}_dispatch_stall.ratio,${M}_no_instruction.ratio,${M}_branch_resolving.ratio,${M}_drain.ratio,${M}_membar.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    $B bench rmsnorm_bwd --dtype bf16 --shape $sh --iters 5 2>&1 | grep -E "^ +(smsp|gpu|dram)" 
done > /tmp/o/ncu-bwd-stalls.txt 2>&1
cat /tmp/o/ncu-bwd-stalls.txt
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/sweep-bwd-widths.txt | sort -k2,2 -k5,5n -k1,1
cp /tmp/o/*.txt $OUT/ 2>/dev/null
true
